//! Online play: `oxo play --server http://HOST:PORT` (or a table's link)
//! plays on `oxo serve` through the documented protocol, with
//! [`oxo_client`].
//!
//! A lobby lists the open tables (live); a table can be joined, watched, or
//! created (public, private with a link to give, or against a server bot of
//! any level, with the starter rule and a time per move). At a table: the
//! board, both players with their connection state and reconnect
//! countdown, the clock, the scoreboard, chat, rematch and forfeit. A
//! dropped connection comes back by itself with the player's token (kept
//! in the config directory, see `tokens`), where it was.
//!
//! The network runs in its own thread (a Tokio runtime, `net`); the screen
//! stays on the main thread with the same terminal set-up, signals
//! (Ctrl-Z suspends), too-small notice and restore as the offline game.

use std::io;
use std::sync::mpsc as std_mpsc;
use std::time::Duration;

use crossterm::event::{self, Event, MouseButton, MouseEventKind};
use oxo_client::Address;
use ratatui::DefaultTerminal;
use ratatui::layout::Rect;
use tokio::sync::mpsc;

use crate::signals::{self, Watch};
use state::Online;

mod help;
mod keys;
mod link;
mod lobby;
mod names;
mod net;
mod seat;
mod state;
mod status;
#[cfg(test)]
mod tests;
mod tokens;
mod view;

/// How often the screen redraws (clocks and countdowns) and looks for
/// news while no key arrives.
const TICK: Duration = Duration::from_millis(100);

/// How long the first connection may take before the game says where it
/// is connecting (on the normal screen, before the game takes it over).
const CONNECTING_NOTICE: Duration = Duration::from_millis(500);

/// How long the game waits for the first connection's outcome in all
/// (the connection itself gives up sooner, saying why).
const FIRST_REPLY: Duration = Duration::from_secs(15);

/// Plays online at `address` as `name` until the player quits. Without a
/// name, a player the server knows keeps theirs, and a new one goes by a
/// friendly name picked once and remembered ("Keen Otter", see `names`).
///
/// # Errors
///
/// The server cannot be reached (the error says where and why), or the
/// terminal failed.
pub fn run_online(address: Address, name: Option<String>) -> io::Result<()> {
    use std::io::IsTerminal;
    if !io::stdin().is_terminal() || !io::stdout().is_terminal() {
        return Err(io::Error::other(
            "online play needs a terminal (standard input and output)",
        ));
    }
    let (ask_tx, ask_rx) = mpsc::unbounded_channel();
    let (news_tx, news_rx) = std_mpsc::channel();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let net_address = address.clone();
    let network = std::thread::Builder::new()
        .name("oxo-online".into())
        .spawn(move || runtime.block_on(net::run(net_address, name, ask_rx, news_tx)))?;
    let url = address.http_url();
    let mut online = Online::new(address, ask_tx);
    // Connect before taking over the terminal: a server that cannot be
    // reached is one clear line on the normal screen. One slow to answer
    // is said meanwhile, so that the screen is not blank for seconds.
    let first = match news_rx.recv_timeout(CONNECTING_NOTICE) {
        Err(std_mpsc::RecvTimeoutError::Timeout) => {
            eprintln!("Connecting to {url}…");
            news_rx.recv_timeout(FIRST_REPLY.saturating_sub(CONNECTING_NOTICE))
        }
        got => got,
    };
    match first {
        Ok(first) => online.news(first),
        Err(_) => return Err(io::Error::other("the server did not answer in 15 s")),
    }
    if let Some(why) = online.failed.take() {
        drop(online);
        let _ = network.join();
        return Err(io::Error::other(why));
    }
    let signals = Watch::start()?;
    let result = ratatui::try_init().and_then(|mut terminal| {
        signals::capture_mouse()?;
        // The alternate screen may hold old text: start from a blank one.
        terminal.clear()?;
        run(&mut online, &mut terminal, &news_rx, &signals)
    });
    signals::restore();
    let failed = online.failed.take();
    drop(online);
    let _ = network.join();
    result?;
    match failed {
        Some(why) => Err(io::Error::other(why)),
        None => Ok(()),
    }
}

fn run(
    online: &mut Online,
    terminal: &mut DefaultTerminal,
    news: &std_mpsc::Receiver<net::News>,
    signals: &Watch,
) -> io::Result<()> {
    let size = terminal.size()?;
    online.resize(size.width, size.height);
    while online.running {
        while let Ok(n) = news.try_recv() {
            online.news(n);
        }
        if !online.running {
            break;
        }
        terminal.draw(|frame| frame.render_widget(&*online, frame.area()))?;
        if signals.resumed() {
            online.resume_network();
            terminal.clear()?;
            continue;
        }
        if online.take_suspend() {
            // Ctrl-Z: the connection closes first (the table sees the
            // player away at once, not after the server's idle timeout);
            // then, as offline, the signal thread restores the terminal,
            // stops, and sets it up again on `fg`; `resumed` then
            // connects again and repaints.
            online.pause_network();
            signals::suspend();
            continue;
        }
        if event::poll(TICK)? {
            match event::read()? {
                Event::Key(key) => online.key(key),
                Event::Resize(width, height) => online.resize(width, height),
                Event::Mouse(mouse) if mouse.kind == MouseEventKind::Down(MouseButton::Left) => {
                    let size = terminal.size()?;
                    let area = Rect::new(0, 0, size.width, size.height);
                    online.click(area, mouse.column, mouse.row);
                }
                _ => {}
            }
        }
    }
    Ok(())
}
