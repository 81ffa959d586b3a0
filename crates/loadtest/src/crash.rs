//! The crash test: play under load, SIGKILL the server at random moments,
//! restart it on the same database, and check that nothing acknowledged was
//! lost.
//!
//! The game drivers run in crash mode: a dropped connection is expected, so
//! each seat waits for the server to come back, says `hello` with its token,
//! checks that the `welcome` lists its table (the seat survived), syncs and
//! plays on. Every move whose `ok` arrived is written in the [`Ledger`] with
//! its game id, ply and cell; a move in flight when the server died is "in
//! doubt" (it may or may not have been applied) and is not counted.
//!
//! After the last restart the games must make progress again (a table that
//! does not is *stuck*). Then the test fetches every game it saw through the
//! server's HTTP API (`GET /api/games/{id}`) and checks that the moves are
//! numbered 1..n, legal when replayed through [`oxo_core::Game`], made by the
//! right player, and that every acknowledged move is there at its ply.
//!
//! Split by job: [`config`] says what to do, [`server`] runs and kills
//! `oxo serve`, [`verify`](mod@verify) checks the records against the ledger, and
//! [`report`] says what was found. This file runs the kills.

mod cluster;
mod config;
mod report;
mod server;
mod verify;

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use oxo_core::Rng;
use oxo_protocol::TableId;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio::time::Instant;

pub use cluster::{ClusterConfig, ClusterReport, cluster_test};
pub use config::CrashConfig;
pub use report::CrashReport;
use server::Server;
use verify::verify;

use crate::config::Target;
use crate::ctx::Ctx;
use crate::error::Error;
use crate::game::run_game;
use crate::ledger::Ledger;

/// Runs the crash test, writing what happens to `log` (one line per call).
///
/// # Errors
///
/// If the server cannot be started at all. Lost moves and failed checks are
/// in the report ([`CrashReport::passed`]), not errors.
pub async fn crash_test(
    config: &CrashConfig,
    mut log: impl FnMut(&str),
) -> Result<CrashReport, Error> {
    let mut rng = Rng::new(config.seed);
    let mut restarts = Vec::new();
    let (mut server, took) = Server::start(config, 0).await?;
    restarts.push(took);
    let port = server.addr.port();
    log(&format!(
        "server up at {} in {:.1} ms",
        server.addr,
        took.as_secs_f64() * 1e3
    ));

    let ledger = Arc::new(Ledger::default());
    let (plain, controls) = Ctx::new(Target::local(server.addr));
    let ctx = Arc::new(Ctx {
        think: config.think,
        timeout: Duration::from_secs(5),
        setup: Arc::new(Semaphore::new(64)),
        seed: config.seed,
        ledger: Some(Arc::clone(&ledger)),
        ..plain
    });
    let stats = Arc::clone(&ctx.stats);
    stats.set_measuring(true);
    let mut tasks = JoinSet::new();
    for i in 0..config.games {
        tasks.spawn(run_game(Arc::clone(&ctx), i));
    }
    let ready_by = Instant::now() + Duration::from_secs(20);
    while (stats.games_ready.load(Relaxed) as usize) < config.games && Instant::now() < ready_by {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    log(&format!(
        "{} games playing",
        stats.games_ready.load(Relaxed)
    ));

    let mut kills = 0;
    while kills < config.kills {
        let up = if rng.chance(1, 5) {
            // Now and then right after start-up, while clients reconnect.
            Duration::from_millis(u64::from(rng.below(100)))
        } else {
            let span = config.up_max.saturating_sub(config.up_min);
            config.up_min + span.mul_f64(f64::from(rng.below(1000)) / 1000.0)
        };
        tokio::time::sleep(up).await;
        let before = stats.moves_total.load(Relaxed);
        server.kill().await;
        controls.aim(None);
        kills += 1;
        let (next, took) = match Server::start(config, port).await {
            Ok(s) => s,
            // The old port may be held a moment longer; any port will do.
            Err(_) => Server::start(config, 0).await?,
        };
        server = next;
        restarts.push(took);
        controls.aim(Some(Target::local(server.addr)));
        log(&format!(
            "kill {kills}/{}: after {:.0} ms up, {before} moves acknowledged so far; back in {:.1} ms",
            config.kills,
            up.as_secs_f64() * 1e3,
            took.as_secs_f64() * 1e3
        ));
    }

    // The games must move again after the last restart.
    let mark = ledger.progress();
    tokio::time::sleep(config.settle).await;
    let end = ledger.progress();
    let open: Vec<TableId> = ledger.lock().open.iter().cloned().collect();
    let stuck: Vec<&TableId> = open
        .iter()
        .filter(|t| end.get(*t).copied().unwrap_or(0) <= mark.get(*t).copied().unwrap_or(0))
        .collect();

    controls.stop();
    let drain_by = Instant::now() + Duration::from_secs(10);
    while !tasks.is_empty() {
        tokio::select! {
            _ = tasks.join_next() => {}
            () = tokio::time::sleep_until(drain_by) => { tasks.abort_all(); break; }
        }
    }

    let mut report = CrashReport {
        kills,
        games: config.games,
        tables: open.len() as u64,
        stuck_tables: stuck.len() as u64,
        ..CrashReport::default()
    };
    for t in stuck.iter().take(5) {
        report.problems.push(format!(
            "table {t} made no progress in {:?} after the last restart",
            config.settle
        ));
    }
    verify(&ledger, server.addr, &mut report).await;
    server.kill().await;

    {
        let inner = ledger.lock();
        report.in_doubt_moves = inner.in_doubt;
        report.seat_resumes = inner.resumed;
        report.seat_resume_failures = inner.resume_failed;
    }
    restarts.sort();
    let ms = |d: &Duration| d.as_secs_f64() * 1e3;
    report.restart_ms_median = restarts.get(restarts.len() / 2).map(ms).unwrap_or(0.0);
    report.restart_ms_max = restarts.last().map(ms).unwrap_or(0.0);
    report.client_errors = stats.errors();
    for (kind, n) in &report.client_errors {
        if kind.starts_with("protocol:") || kind.starts_with("seat") {
            report
                .problems
                .push(format!("{n} client errors of kind {kind}"));
        }
    }
    report.problems.extend(
        stats
            .first_errors()
            .into_iter()
            .filter(|e| e.starts_with("protocol:")),
    );
    Ok(report)
}
