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
//! `oxo serve`, [`games`] plays the games and, at the end, has
//! [`verify`](mod@verify) check the records against the ledger, and
//! [`report`] says what was found. This file runs the kills; [`cluster`] is
//! the same test against a cluster, with node faults.

mod cluster;
mod config;
mod games;
mod report;
mod server;
mod verify;

use std::time::Duration;

use oxo_core::Rng;

pub use cluster::{ClusterConfig, ClusterReport, cluster_test};
pub use config::CrashConfig;
use games::Games;
pub use report::CrashReport;
use server::Server;

use crate::config::Target;
use crate::error::Error;

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

    let games = Games::start(
        Target::local(server.addr),
        config.games,
        config.think,
        config.seed,
        Duration::from_secs(20),
    )
    .await;
    log(&format!("{} games playing", games.ready()));

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
        let before = games.acknowledged();
        server.kill().await;
        games.aim(None);
        kills += 1;
        let (next, took) = match Server::start(config, port).await {
            Ok(s) => s,
            // The old port may be held a moment longer; any port will do.
            Err(_) => Server::start(config, 0).await?,
        };
        server = next;
        restarts.push(took);
        games.aim(Some(Target::local(server.addr)));
        log(&format!(
            "kill {kills}/{}: after {:.0} ms up, {before} moves acknowledged so far; back in {:.1} ms",
            config.kills,
            up.as_secs_f64() * 1e3,
            took.as_secs_f64() * 1e3
        ));
    }

    let mut report = CrashReport {
        kills,
        ..CrashReport::default()
    };
    games
        .finish(config.settle, server.addr, "restart", &mut report)
        .await;
    server.kill().await;
    restarts.sort();
    let ms = |d: &Duration| d.as_secs_f64() * 1e3;
    report.restart_ms_median = restarts.get(restarts.len() / 2).map(ms).unwrap_or(0.0);
    report.restart_ms_max = restarts.last().map(ms).unwrap_or(0.0);
    Ok(report)
}
