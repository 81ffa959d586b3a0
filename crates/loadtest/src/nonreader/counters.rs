//! The counters the non-readers of a run share, and how they behave.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use super::hangup::QUIET;
use super::report::{CloseTimes, NonReaderReport};

/// What the drain must leave after the final read: finishing a frame and
/// closing.
const AFTER_FINAL_READ: Duration = Duration::from_millis(1500);

/// How the non-readers of a run behave.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    /// Non-readers asked for.
    pub(crate) count: usize,
    /// Time between pings, if they ping.
    pub(crate) pings: Option<Duration>,
    /// `SO_RCVBUF` for their sockets.
    pub(crate) recv_buffer: u32,
    /// The longest the final read of one connection may take.
    pub(crate) final_read: Duration,
}

impl Plan {
    /// The final read's limit for a run whose drain lasts `drain`.
    pub(crate) fn final_read_within(drain: Duration) -> Duration {
        drain.saturating_sub(AFTER_FINAL_READ).max(QUIET)
    }
}

/// Counters shared by the non-readers of a run.
#[derive(Debug)]
pub(crate) struct NonReaders {
    /// How they behave.
    pub(super) plan: Plan,
    /// Non-readers ready.
    pub(crate) ready: AtomicU64,
    /// Non-readers that failed to get ready.
    pub(crate) failed: AtomicU64,
    /// Pings written.
    pub(super) pings: AtomicU64,
    closed_during_run: AtomicU64,
    closed_at_end: AtomicU64,
    /// Found still open by the final read.
    pub(super) open_at_end: AtomicU64,
    backlog_total: AtomicU64,
    backlog_max: AtomicU64,
    maps: Mutex<Maps>,
}

/// The counters by kind, and the close times.
#[derive(Debug, Default)]
struct Maps {
    setup_failures: BTreeMap<String, u64>,
    noticed_by: BTreeMap<String, u64>,
    closed_how: BTreeMap<String, u64>,
    ms_to_close: Vec<u64>,
}

impl NonReaders {
    /// Counters for the non-readers of `plan`.
    pub(crate) fn new(plan: Plan) -> NonReaders {
        NonReaders {
            plan,
            ready: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            pings: AtomicU64::new(0),
            closed_during_run: AtomicU64::new(0),
            closed_at_end: AtomicU64::new(0),
            open_at_end: AtomicU64::new(0),
            backlog_total: AtomicU64::new(0),
            backlog_max: AtomicU64::new(0),
            maps: Mutex::new(Maps::default()),
        }
    }

    /// Non-readers asked for.
    pub(crate) fn requested(&self) -> usize {
        self.plan.count
    }

    /// Whether every non-reader is ready or has failed.
    pub(crate) fn set_up(&self) -> bool {
        self.ready.load(Relaxed) + self.failed.load(Relaxed) >= self.plan.count as u64
    }

    fn maps(&self) -> std::sync::MutexGuard<'_, Maps> {
        self.maps
            .lock()
            .expect("non-reader map lock is never poisoned")
    }

    /// A non-reader that failed to get ready, by `kind`.
    pub(super) fn setup_failed(&self, kind: String) {
        self.failed.fetch_add(1, Relaxed);
        *self.maps().setup_failures.entry(kind).or_default() += 1;
    }

    /// A close by the server, noticed by `noticed_by`, found as `how`,
    /// `after` the `hello` (`None`: found at the end).
    pub(super) fn closed(&self, noticed_by: String, how: String, after: Option<Duration>) {
        if after.is_some() {
            self.closed_during_run.fetch_add(1, Relaxed);
        } else {
            self.closed_at_end.fetch_add(1, Relaxed);
        }
        let mut maps = self.maps();
        *maps.noticed_by.entry(noticed_by).or_default() += 1;
        *maps.closed_how.entry(how).or_default() += 1;
        if let Some(after) = after {
            maps.ms_to_close
                .push(u64::try_from(after.as_millis()).unwrap_or(u64::MAX));
        }
    }

    /// The bytes a final read found waiting on one connection.
    pub(super) fn backlog(&self, bytes: u64) {
        self.backlog_total.fetch_add(bytes, Relaxed);
        self.backlog_max.fetch_max(bytes, Relaxed);
    }

    /// The report, once the non-readers are done.
    pub(crate) fn report(&self) -> NonReaderReport {
        let maps = self.maps();
        let ready = self.ready.load(Relaxed);
        let closed_during_run = self.closed_during_run.load(Relaxed);
        let closed_at_end = self.closed_at_end.load(Relaxed);
        let open_at_end = self.open_at_end.load(Relaxed);
        NonReaderReport {
            requested: self.plan.count,
            ping_interval_ms: self
                .plan
                .pings
                .map(|p| u64::try_from(p.as_millis()).unwrap_or(u64::MAX)),
            recv_buffer_bytes: self.plan.recv_buffer,
            ready,
            setup_failures: self.failed.load(Relaxed),
            setup_failures_by_kind: maps.setup_failures.clone(),
            pings_sent: self.pings.load(Relaxed),
            closed_during_run,
            closed_at_end,
            open_at_end,
            unchecked: ready.saturating_sub(closed_during_run + closed_at_end + open_at_end),
            noticed_by: maps.noticed_by.clone(),
            closed_how: maps.closed_how.clone(),
            ms_to_close: CloseTimes::of(maps.ms_to_close.clone()),
            backlog_bytes_total: self.backlog_total.load(Relaxed),
            backlog_bytes_max: self.backlog_max.load(Relaxed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_adds_up() {
        let shared = NonReaders::new(Plan {
            count: 5,
            pings: Some(Duration::from_secs(1)),
            recv_buffer: 4096,
            final_read: Plan::final_read_within(Duration::from_secs(5)),
        });
        assert_eq!(shared.plan.final_read, Duration::from_millis(3500));
        assert_eq!(Plan::final_read_within(Duration::ZERO), QUIET);
        shared.ready.store(4, Relaxed);
        shared.setup_failed("connect".into());
        assert!(shared.set_up());
        shared.closed(
            "hangup".into(),
            "close:1008".into(),
            Some(Duration::from_millis(1500)),
        );
        shared.closed("final_read".into(), "eof".into(), None);
        shared.open_at_end.fetch_add(1, Relaxed);
        shared.backlog(100);
        shared.backlog(40);
        let r = shared.report();
        assert_eq!(
            (
                r.ready,
                r.closed_during_run,
                r.closed_at_end,
                r.open_at_end,
                r.unchecked
            ),
            (4, 1, 1, 1, 1)
        );
        assert_eq!(r.ms_to_close.map(|t| t.p50), Some(1500));
        assert_eq!((r.backlog_bytes_total, r.backlog_bytes_max), (140, 100));
        assert_eq!(r.ping_interval_ms, Some(1000));
        assert_eq!(r.setup_failures_by_kind.get("connect"), Some(&1));
    }
}
