//! oxo-tui: the terminal game behind `oxo play`.
//!
//! Two front ends share one session (rounds, scores, bots; the rules are
//! `oxo-core`'s):
//!
//! - the **full-screen game**: a set-up screen, a board drawn with box
//!   characters, a cursor, a scoreboard, help and hints, drawn with ratatui
//!   on crossterm;
//! - the **line mode** ([`run_lines`]): plain text in and out, one move or
//!   command per line, for scripts, tests and pipes. Its output lines are
//!   stable; [`run_lines`] lists them.
//!
//! [`run`] picks the line mode when standard input or output is not a
//! terminal, when the terminal cannot address its cursor (`TERM=dumb`, or
//! no `TERM`), or when [`Config::plain`] asks for it. The public surface is
//! what `oxo play` needs: [`Config`] (with its [`Seat`]s, parsed from the
//! flags), [`run`], and [`run_lines`] for any reader and writer.
//!
//! The full-screen game keeps state, input and drawing apart, as ratatui's
//! demo apps do: `App` (module `app`) holds the state, changes only through
//! methods named after intents (`play`, `undo`, `restart`, `next_round`,
//! ...) and runs the event loop; `input` maps keys to those methods; `ui`
//! draws `&App` as a widget and changes nothing. Tests drive `App` without a
//! terminal and draw it into ratatui's `TestBackend` (`ui/tests.rs`, golden
//! screens in `ui/snapshots/`).
//!
//! Modules import only modules below them: `config`, `refusal`, `text` and
//! `theme` are leaves; `session` and `form` build on them; `app`, `input`,
//! `ui` and `line` on those.
//!
//! # Examples
//!
//! ```
//! use oxo_tui::{Config, run_lines};
//!
//! let config = Config { players: oxo_core::ByPlayer { x: "Alice".parse()?, o: "bot:perfect".parse()? },
//!                       seed: Some(1), ..Config::default() };
//! let mut out = Vec::new();
//! run_lines(&config, "b2\nscores\n".as_bytes(), &mut out)?;
//! let out = String::from_utf8(out)?;
//! assert!(out.contains("Alice (X) plays b2\n"));
//! assert!(out.contains("Impossible (O) plays "));
//! assert!(out.contains("\nScores: Alice (X) 0, Impossible (O) 0, draws 0\n"));
//! assert!(out.ends_with("Final scores: Alice (X) 0, Impossible (O) 0, draws 0\n"));
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```

use std::io::{self, IsTerminal};

use crate::app::App;
use crate::theme::Theme;

mod app;
mod config;
mod form;
mod input;
mod line;
mod online;
mod refusal;
mod session;
mod signals;
mod text;
mod theme;
mod ui;

pub use config::{Config, ParseSeatError, Seat, check_name, check_online_name};
pub use line::run_lines;
pub use online::run_online;
pub use oxo_client::Address;

/// Runs `oxo play`: the line mode if `config.plain`, if standard input or
/// output is not a terminal, or if the terminal cannot address its cursor
/// (`TERM=dumb` or unset); else the full-screen game. Returns when the
/// player quits or the input ends.
///
/// # Errors
///
/// Terminal or I/O errors. A closed output pipe (`oxo play | head`) is not
/// an error.
pub fn run(config: Config) -> io::Result<()> {
    let result = if config.plain
        || !io::stdin().is_terminal()
        || !io::stdout().is_terminal()
        || !can_address_cursor()
    {
        run_lines(&config, io::stdin().lock(), io::stdout().lock())
    } else {
        run_tui(config)
    };
    match result {
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// Whether the terminal can move its cursor about: not when `TERM` is
/// `dumb` (Emacs shells, some CI logs), empty or unset.
fn can_address_cursor() -> bool {
    std::env::var("TERM").is_ok_and(|term| !term.is_empty() && term != "dumb")
}

/// Runs the full-screen game until the player quits.
///
/// ratatui sets the terminal up (raw mode, the alternate screen, and a panic
/// hook that restores the terminal *before* the panic message prints, so the
/// message lands on the normal screen) and restores it on every way out:
/// `q` or `Ctrl-C` (raw mode turns `Ctrl-C` into a key, so it needs no
/// signal handler), an error, or a failed set-up.
///
/// # Errors
///
/// The terminal could not be set up, drawn to or read from.
fn run_tui(config: Config) -> io::Result<()> {
    let app = App::new(config, Theme::from_env());
    let signals = signals::Watch::start()?;
    let result = ratatui::try_init().and_then(|mut terminal| {
        signals::capture_mouse()?;
        // The alternate screen may hold old text (tmux keeps it): start
        // from a blank one, as ratatui draws only what changed.
        terminal.clear()?;
        app.run(&mut terminal, &signals)
    });
    signals::restore();
    result
}
