//! Counters shared by every task of a run.
//!
//! Moves, rounds, refusals and latencies count only inside the measured
//! window (`measuring`), so ramp-up, warm-up and drain do not dilute the
//! steady state; errors count over the whole run, because a target of "no
//! errors" means none at all. Latencies go into a few histogram shards
//! (picked by game) so that tasks on different worker threads rarely meet on
//! one lock; the critical section is a single `record`, never across an
//! `.await`.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use hdrhistogram::Histogram;

/// Latencies above this (a minute) are recorded as this.
const MAX_LATENCY_US: u64 = 60_000_000;
/// Histogram shards.
const SHARDS: usize = 8;

/// Counters of one run.
#[derive(Debug)]
pub(crate) struct Stats {
    measuring: AtomicBool,
    /// Accepted moves, in the window.
    pub(crate) moves: AtomicU64,
    /// Accepted moves, whole run (for the progress bar).
    pub(crate) moves_total: AtomicU64,
    /// Finished rounds, in the window.
    pub(crate) rounds: AtomicU64,
    /// Intended refusals, in the window.
    pub(crate) refusals: AtomicU64,
    /// Table events received by spectators, in the window.
    pub(crate) spectator_events: AtomicU64,
    /// Connections open now.
    pub(crate) open: AtomicU64,
    /// Games set up and playing.
    pub(crate) games_ready: AtomicU64,
    /// Idle connections set up.
    pub(crate) idle_ready: AtomicU64,
    /// Errors, whole run.
    pub(crate) errors_total: AtomicU64,
    errors: Mutex<BTreeMap<String, u64>>,
    first_errors: Mutex<Vec<String>>,
    /// The last stall seen at each table, with what its seats knew.
    stalls: Mutex<BTreeMap<String, String>>,
    latency: Vec<Mutex<Histogram<u64>>>,
}

impl Stats {
    /// Fresh counters.
    pub(crate) fn new() -> Stats {
        Stats {
            measuring: AtomicBool::new(false),
            moves: AtomicU64::new(0),
            moves_total: AtomicU64::new(0),
            rounds: AtomicU64::new(0),
            refusals: AtomicU64::new(0),
            spectator_events: AtomicU64::new(0),
            open: AtomicU64::new(0),
            games_ready: AtomicU64::new(0),
            idle_ready: AtomicU64::new(0),
            errors_total: AtomicU64::new(0),
            errors: Mutex::new(BTreeMap::new()),
            first_errors: Mutex::new(Vec::new()),
            stalls: Mutex::new(BTreeMap::new()),
            latency: (0..SHARDS)
                .map(|_| {
                    Mutex::new(
                        Histogram::new_with_bounds(1, MAX_LATENCY_US, 3)
                            .expect("constant histogram bounds are valid"),
                    )
                })
                .collect(),
        }
    }

    /// Starts or ends the measured window.
    pub(crate) fn set_measuring(&self, on: bool) {
        self.measuring.store(on, Relaxed);
    }

    /// Whether the measured window is open.
    pub(crate) fn measuring(&self) -> bool {
        self.measuring.load(Relaxed)
    }

    /// Adds one to `counter` if the window is open.
    pub(crate) fn count(&self, counter: &AtomicU64) {
        if self.measuring() {
            counter.fetch_add(1, Relaxed);
        }
    }

    /// An accepted move and its round trip (`None` if the tool could not
    /// time it, e.g. across a reconnect).
    pub(crate) fn record_move(&self, shard: usize, latency: Option<Duration>) {
        self.moves_total.fetch_add(1, Relaxed);
        if !self.measuring() {
            return;
        }
        self.moves.fetch_add(1, Relaxed);
        if let Some(latency) = latency {
            let us = u64::try_from(latency.as_micros()).unwrap_or(MAX_LATENCY_US);
            let mut h = self.latency[shard % SHARDS]
                .lock()
                .expect("histogram lock is never poisoned");
            h.saturating_record(us.clamp(1, MAX_LATENCY_US));
        }
    }

    /// An error of `kind`; `detail` is kept for the first few.
    pub(crate) fn error(&self, kind: &str, detail: impl FnOnce() -> String) {
        self.errors_total.fetch_add(1, Relaxed);
        *self
            .errors
            .lock()
            .expect("error map lock is never poisoned")
            .entry(kind.to_owned())
            .or_default() += 1;
        let mut first = self
            .first_errors
            .lock()
            .expect("error list lock is never poisoned");
        if first.len() < 10 {
            first.push(format!("{kind}: {}", detail()));
        }
    }

    /// Errors by kind.
    pub(crate) fn errors(&self) -> BTreeMap<String, u64> {
        self.errors
            .lock()
            .expect("error map lock is never poisoned")
            .clone()
    }

    /// A table that made no progress for a while: counted as the error
    /// `stall`, and `detail` kept as that table's last stall.
    pub(crate) fn stall(&self, table: &str, detail: String) {
        self.error("stall", || detail.clone());
        self.stalls
            .lock()
            .expect("stall map lock is never poisoned")
            .insert(table.to_owned(), detail);
    }

    /// The last stall recorded at `table`, if any.
    pub(crate) fn last_stall(&self, table: &str) -> Option<String> {
        self.stalls
            .lock()
            .expect("stall map lock is never poisoned")
            .get(table)
            .cloned()
    }

    /// The first few errors with details.
    pub(crate) fn first_errors(&self) -> Vec<String> {
        self.first_errors
            .lock()
            .expect("error list lock is never poisoned")
            .clone()
    }

    /// All latency shards merged.
    pub(crate) fn latency(&self) -> Histogram<u64> {
        let mut all = Histogram::new_with_bounds(1, MAX_LATENCY_US, 3)
            .expect("constant histogram bounds are valid");
        for shard in &self.latency {
            let h = shard.lock().expect("histogram lock is never poisoned");
            all.add(&*h).expect("shards share their bounds");
        }
        all
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_gates_moves_not_errors() {
        let stats = Stats::new();
        stats.record_move(0, Some(Duration::from_millis(1)));
        stats.error("timeout", || "x".into());
        stats.set_measuring(true);
        stats.record_move(3, Some(Duration::from_micros(500)));
        stats.record_move(12, Some(Duration::from_millis(2)));
        stats.record_move(1, None);
        stats.error("timeout", || "y".into());
        assert_eq!(stats.moves.load(Relaxed), 3);
        assert_eq!(stats.moves_total.load(Relaxed), 4);
        assert_eq!(stats.latency().len(), 2);
        assert_eq!(stats.errors().get("timeout"), Some(&2));
        assert_eq!(stats.first_errors().len(), 2);
    }
}
