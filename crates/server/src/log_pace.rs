//! Paced log lines, for faults that every request meets while they last.
//!
//! A full disk or a database that is down fails every commit: each
//! refused move would log its own error lines, thousands a second under
//! load, which buries what an operator needs (when it began, what it is,
//! when it ended) and fills the very disk the log is written to. A paced
//! line is logged the first time, then at most once every [`EVERY`] while
//! it repeats, carrying how many were not logged since the last one; and
//! the caller may say once when it is over.
//!
//! This file owns the pacing only; what is logged, and at which level, is
//! the caller's.

use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The least time between two lines of one [`Pace`].
pub(crate) const EVERY: Duration = Duration::from_secs(10);

/// The pacing of one kind of log line (one `static` per call site).
#[derive(Debug)]
pub(crate) struct Pace {
    state: Mutex<State>,
}

#[derive(Debug)]
struct State {
    /// When the last line was logged.
    last: Option<Instant>,
    /// Lines not logged since then.
    skipped: u64,
    /// Failures since the fault began (the last [`Pace::clear`]).
    failures: u64,
}

impl Pace {
    /// A pace that has logged nothing yet.
    pub(crate) const fn new() -> Pace {
        Pace {
            state: Mutex::new(State {
                last: None,
                skipped: 0,
                failures: 0,
            }),
        }
    }

    /// Whether the fault was logged, now that it is over: `Some(failures)`,
    /// all of them since it began, once; `None` when nothing failed. The
    /// next failure is logged at once.
    pub(crate) fn clear(&self) -> Option<u64> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let failures = std::mem::take(&mut state.failures);
        state.last = None;
        state.skipped = 0;
        (failures > 0).then_some(failures)
    }

    /// Whether a line is to be logged at `now`: `Some(skipped)`, with the
    /// lines not logged since the last one, or `None` (this one is counted
    /// among them).
    pub(crate) fn check(&self, now: Instant) -> Option<u64> {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.failures += 1;
        match state.last {
            Some(last) if now.saturating_duration_since(last) < EVERY => {
                state.skipped += 1;
                None
            }
            _ => {
                state.last = Some(now);
                Some(std::mem::take(&mut state.skipped))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_line_is_logged_then_one_per_interval_with_the_count_skipped() {
        let pace = Pace::new();
        let t0 = Instant::now();
        assert_eq!(pace.check(t0), Some(0));
        for i in 1..1000 {
            assert_eq!(pace.check(t0 + Duration::from_millis(i)), None);
        }
        assert_eq!(pace.check(t0 + EVERY), Some(999));
        assert_eq!(pace.check(t0 + EVERY + Duration::from_secs(1)), None);
        // After a quiet spell the next failure is logged at once.
        assert_eq!(pace.check(t0 + EVERY * 5), Some(1));
    }

    #[test]
    fn the_end_of_a_fault_is_told_once_with_its_count() {
        let pace = Pace::new();
        assert_eq!(pace.clear(), None, "nothing failed");
        let t0 = Instant::now();
        for i in 0..3 {
            pace.check(t0 + Duration::from_millis(i));
        }
        assert_eq!(pace.clear(), Some(3));
        assert_eq!(pace.clear(), None);
        // The next fault is logged at once.
        assert_eq!(pace.check(t0 + Duration::from_millis(5)), Some(0));
    }
}
