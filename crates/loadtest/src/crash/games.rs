//! The games both crash tests play (one server, and a cluster): drivers in
//! crash mode with a ledger of every acknowledged move, and, once the
//! faults are over, what they found.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use oxo_protocol::TableId;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::CrashReport;
use super::verify::verify;
use crate::config::Target;
use crate::ctx::{Controls, Ctx};
use crate::game::run_game;
use crate::ledger::Ledger;
use crate::stats::Stats;

/// Games under way, in crash mode.
pub(super) struct Games {
    count: usize,
    ledger: Arc<Ledger>,
    stats: Arc<Stats>,
    controls: Controls,
    tasks: JoinSet<()>,
}

impl Games {
    /// Starts `count` games against `target` (think time `think`, drivers
    /// seeded from `seed`) and waits up to `ready_within` for them to be set
    /// up.
    pub(super) async fn start(
        target: Target,
        count: usize,
        think: Duration,
        seed: u64,
        ready_within: Duration,
    ) -> Games {
        let ledger = Arc::new(Ledger::default());
        let (plain, controls) = Ctx::new(target);
        let ctx = Arc::new(Ctx {
            think,
            timeout: Duration::from_secs(5),
            setup: Arc::new(Semaphore::new(64)),
            seed,
            ledger: Some(Arc::clone(&ledger)),
            ..plain
        });
        let stats = Arc::clone(&ctx.stats);
        stats.set_measuring(true);
        let mut tasks = JoinSet::new();
        for i in 0..count {
            tasks.spawn(run_game(Arc::clone(&ctx), i));
        }
        let ready_by = Instant::now() + ready_within;
        while (stats.games_ready.load(Relaxed) as usize) < count && Instant::now() < ready_by {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        Games {
            count,
            ledger,
            stats,
            controls,
            tasks,
        }
    }

    /// Games set up so far.
    pub(super) fn ready(&self) -> u64 {
        self.stats.games_ready.load(Relaxed)
    }

    /// Moves acknowledged so far.
    pub(super) fn acknowledged(&self) -> u64 {
        self.stats.moves_total.load(Relaxed)
    }

    /// Points the drivers at `target` (`None`: nowhere, while the server
    /// is down).
    pub(super) fn aim(&self, target: Option<Target>) {
        self.controls.aim(target);
    }

    /// After the last fault (`after` names it): the games get `settle` to
    /// move again (a table that does not is stuck), then stop, and the
    /// records that `addr` serves are checked against the ledger. Fills
    /// every field of `report` but the faults'.
    pub(super) async fn finish(
        mut self,
        settle: Duration,
        addr: SocketAddr,
        after: &str,
        report: &mut CrashReport,
    ) {
        let ledger = &self.ledger;
        let mark = ledger.progress();
        tokio::time::sleep(settle).await;
        let end = ledger.progress();
        let open: Vec<TableId> = ledger.lock().open.iter().cloned().collect();
        let stuck: Vec<&TableId> = open
            .iter()
            .filter(|t| end.get(*t).copied().unwrap_or(0) <= mark.get(*t).copied().unwrap_or(0))
            .collect();

        self.controls.stop();
        let drain_by = Instant::now() + Duration::from_secs(10);
        while !self.tasks.is_empty() {
            tokio::select! {
                _ = self.tasks.join_next() => {}
                () = tokio::time::sleep_until(drain_by) => { self.tasks.abort_all(); break; }
            }
        }

        report.games = self.count;
        report.tables = open.len() as u64;
        report.stuck_tables = stuck.len() as u64;
        for t in stuck.iter().take(5) {
            let last_stall = self
                .stats
                .last_stall(t.as_str())
                .map_or_else(String::new, |s| format!("; last stall: {s}"));
            report.problems.push(format!(
                "table {t} made no progress in {settle:?} after the last {after}{last_stall}"
            ));
        }
        verify(ledger, addr, report).await;
        {
            let inner = ledger.lock();
            report.in_doubt_moves = inner.in_doubt;
            report.seat_resumes = inner.resumed;
            report.seat_resume_failures = inner.resume_failed;
        }
        report.client_errors = self.stats.errors();
        for (kind, n) in &report.client_errors {
            if kind.starts_with("protocol:") || kind.starts_with("seat") {
                report
                    .problems
                    .push(format!("{n} client errors of kind {kind}"));
            }
        }
        report.problems.extend(
            self.stats
                .first_errors()
                .into_iter()
                .filter(|e| e.starts_with("protocol:")),
        );
    }
}
