//! The terminal's set-up beyond ratatui's (mouse reports) and the signals
//! while the full-screen game runs, so that every way out restores the
//! terminal.
//!
//! Raw mode turns the keyboard's Ctrl-C and Ctrl-Z into keys, but signals
//! also come from outside: `timeout 2 oxo play` (SIGTERM), a closed
//! terminal (SIGHUP), `kill -INT`, a job-control stop (SIGTSTP) and
//! `fg`/`bg` (SIGCONT). A thread of signal-hook's turns them into messages
//! the event loop reads between keys:
//!
//! - SIGTERM, SIGHUP, SIGINT: restore the terminal, then die of the same
//!   signal (the shell sees 128 + its number, as for any program);
//! - SIGTSTP (and Ctrl-Z): restore the terminal, stop; once continued, set
//!   the terminal up again and redraw;
//! - SIGCONT alone (after a SIGSTOP, which cannot be caught): set the
//!   terminal up again and redraw.

use std::io::{self, Write};
use std::sync::mpsc::{self, Receiver};

use crossterm::cursor::Show;
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, enable_raw_mode};
use ratatui::DefaultTerminal;
use signal_hook::consts::{SIGCONT, SIGHUP, SIGINT, SIGTERM, SIGTSTP};
use signal_hook::iterator::{Handle, Signals};

/// What a signal asks of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Signal {
    /// End now, and die of this signal once the terminal is restored.
    End(i32),
    /// Stop (job control), the terminal restored meanwhile.
    Suspend,
    /// Continued: set the terminal up again and redraw.
    Resume,
}

/// The signals the game listens to, while it runs.
#[derive(Debug)]
pub(crate) struct Watch {
    rx: Receiver<i32>,
    handle: Handle,
}

impl Watch {
    /// Starts listening.
    ///
    /// # Errors
    ///
    /// The handlers could not be installed.
    pub(crate) fn start() -> io::Result<Watch> {
        let mut signals = Signals::new([SIGTERM, SIGHUP, SIGINT, SIGTSTP, SIGCONT])?;
        let handle = signals.handle();
        let (tx, rx) = mpsc::channel();
        std::thread::Builder::new()
            .name("oxo-signals".into())
            .spawn(move || {
                for signal in signals.forever() {
                    if tx.send(signal).is_err() {
                        break;
                    }
                }
            })?;
        Ok(Watch { rx, handle })
    }

    /// The next signal that arrived, if any.
    pub(crate) fn next(&self) -> Option<Signal> {
        let signal = self.rx.try_recv().ok()?;
        Some(match signal {
            SIGTSTP => Signal::Suspend,
            SIGCONT => Signal::Resume,
            other => Signal::End(other),
        })
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        self.handle.close();
    }
}

/// Reports mouse clicks (a click on a cell plays it); [`restore`] stops
/// it.
///
/// # Errors
///
/// The terminal could not be told.
pub(crate) fn capture_mouse() -> io::Result<()> {
    execute!(io::stdout(), EnableMouseCapture)
}

/// Puts the terminal back as the shell expects it (cooked mode, the
/// normal screen, the cursor shown, no mouse reports).
pub(crate) fn restore() {
    let _ = execute!(io::stdout(), DisableMouseCapture);
    ratatui::restore();
    let _ = execute!(io::stdout(), Show);
    let _ = io::stdout().flush();
}

/// Restores the terminal and stops the process (as SIGTSTP's default
/// would); returns once it is continued, with the terminal set up again
/// and the next draw a full one.
///
/// # Errors
///
/// The terminal could not be set up again.
pub(crate) fn suspend(terminal: &mut DefaultTerminal) -> io::Result<()> {
    restore();
    signal_hook::low_level::emulate_default_handler(SIGTSTP)?;
    resume(terminal)
}

/// Sets the terminal up again (after a stop) and clears it so that the
/// next draw repaints everything.
///
/// # Errors
///
/// The terminal could not be set up.
pub(crate) fn resume(terminal: &mut DefaultTerminal) -> io::Result<()> {
    enable_raw_mode()?;
    execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)?;
    terminal.clear()
}

/// Restores the terminal, then ends the process of `signal` as its
/// default would (so that the shell sees 128 + its number).
pub(crate) fn die_of(signal: i32) -> ! {
    restore();
    let _ = signal_hook::low_level::emulate_default_handler(signal);
    // The default of SIGTERM, SIGHUP and SIGINT ends the process; should it
    // return, end with the same status.
    std::process::exit(128 + signal)
}
