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
//!
//! The thread answers them itself, so that they work even while the event
//! loop is stuck (a terminal that hung up makes crossterm's reads spin).

use std::io::{self, Write};
use std::sync::mpsc::{self, Receiver};

use crossterm::cursor::Show;
use crossterm::event::{DisableMouseCapture, EnableMouseCapture};
use crossterm::execute;
use crossterm::terminal::{EnterAlternateScreen, enable_raw_mode};
use signal_hook::consts::{SIGCONT, SIGHUP, SIGINT, SIGTERM, SIGTSTP};
use signal_hook::iterator::{Handle, Signals};

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
        // The signals are answered here, not by the event loop: a loop stuck
        // in a read (a terminal that hung up makes every read return at
        // once with nothing) must not keep the process alive.
        std::thread::Builder::new()
            .name("oxo-signals".into())
            .spawn(move || {
                for signal in signals.forever() {
                    match signal {
                        SIGTSTP => {
                            restore();
                            let _ = signal_hook::low_level::emulate_default_handler(SIGTSTP);
                            let _ = set_up();
                        }
                        SIGCONT => {
                            let _ = set_up();
                        }
                        other => die_of(other),
                    }
                    // Continued: the loop repaints everything.
                    if tx.send(SIGCONT).is_err() {
                        break;
                    }
                }
            })?;
        Ok(Watch { rx, handle })
    }

    /// Whether the game was suspended and continued since the last call
    /// (the terminal is set up again; the screen needs a full repaint).
    pub(crate) fn resumed(&self) -> bool {
        let mut any = false;
        while self.rx.try_recv().is_ok() {
            any = true;
        }
        any
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

/// Suspends the game (Ctrl-Z): raises SIGTSTP, which the signal thread
/// answers as for one from outside (terminal restored, stopped, set up
/// again when continued).
pub(crate) fn suspend() {
    let _ = signal_hook::low_level::raise(SIGTSTP);
}

/// Sets the terminal up again after a stop: raw mode, the alternate
/// screen, mouse reports.
fn set_up() -> io::Result<()> {
    enable_raw_mode()?;
    execute!(io::stdout(), EnterAlternateScreen, EnableMouseCapture)
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
