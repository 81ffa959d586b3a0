//! The terminal: raw mode and the alternate screen on the way in, and back
//! to normal on every way out.
//!
//! Three ways out, each restoring the terminal:
//!
//! - `q` or `Ctrl-C` end the event loop (raw mode turns `Ctrl-C` into a key,
//!   so it needs no signal handler);
//! - an error returns through [`TerminalGuard`]'s `Drop`;
//! - a panic runs the hook installed by [`install_panic_hook`] *before* the
//!   default hook prints the message, so the message lands on the normal
//!   screen instead of vanishing with the alternate one.

use std::io::{self, Stdout, stdout};
use std::panic;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use crossterm::cursor::Show;
use crossterm::event;
use crossterm::execute;
use crossterm::terminal::{
    EnterAlternateScreen, LeaveAlternateScreen, disable_raw_mode, enable_raw_mode,
};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use crate::app::App;
use crate::config::Config;
use crate::input::handle_event;
use crate::theme::Theme;

/// How long a bot waits before each move when bots play both marks, so that
/// people can follow the game.
const BOT_PAUSE: Duration = Duration::from_millis(600);

/// Whether raw mode and the alternate screen are on. Restoring twice (the
/// panic hook, then the guard's `Drop` while unwinding) would send a second
/// "leave alternate screen", which moves the cursor back to where it was
/// saved and overwrites the panic message.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// Leaves raw mode and the alternate screen, and shows the cursor, if
/// [`TerminalGuard::new`] entered them. Does nothing the second time; errors
/// are ignored, as there is nothing left to do about them on the way out.
pub fn restore_terminal() {
    if ACTIVE.swap(false, Ordering::SeqCst) {
        let _ = disable_raw_mode();
        let _ = execute!(stdout(), LeaveAlternateScreen, Show);
    }
}

/// Makes every panic restore the terminal before the previous hook prints
/// the panic message. Installed once per process.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            restore_terminal();
            previous(info);
        }));
    });
}

/// Owns the terminal while the game runs, and restores it when dropped.
#[derive(Debug)]
pub struct TerminalGuard {
    terminal: Terminal<CrosstermBackend<Stdout>>,
}

impl TerminalGuard {
    /// Installs the panic hook, enters raw mode and the alternate screen.
    ///
    /// # Errors
    ///
    /// The terminal refused raw mode or the alternate screen (then it is
    /// restored before returning).
    pub fn new() -> io::Result<TerminalGuard> {
        install_panic_hook();
        let setup = || -> io::Result<Terminal<CrosstermBackend<Stdout>>> {
            ACTIVE.store(true, Ordering::SeqCst);
            enable_raw_mode()?;
            execute!(stdout(), EnterAlternateScreen)?;
            Terminal::new(CrosstermBackend::new(stdout()))
        };
        match setup() {
            Ok(terminal) => Ok(TerminalGuard { terminal }),
            Err(e) => {
                restore_terminal();
                Err(e)
            }
        }
    }
}

impl Drop for TerminalGuard {
    fn drop(&mut self) {
        restore_terminal();
    }
}

/// Runs the full-screen game until the player quits.
///
/// # Errors
///
/// The terminal could not be set up, drawn to or read from.
pub fn run_tui(config: Config) -> io::Result<()> {
    let mut guard = TerminalGuard::new()?;
    let mut app = App::new(config, Theme::from_env());
    while app.is_running() {
        guard
            .terminal
            .draw(|frame| frame.render_widget(&app, frame.area()))?;
        if app.wants_tick() && !event::poll(BOT_PAUSE)? {
            app.tick();
            continue;
        }
        handle_event(&mut app, &event::read()?);
    }
    drop(guard);
    Ok(())
}
