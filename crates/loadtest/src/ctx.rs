//! What every task of a run shares: the counters, where the server is, the
//! stop signal and how the players behave.
//!
//! A leaf below the tasks: the game drivers, spectators, idle connections,
//! non-readers and hello cycles read a [`Ctx`]; the runner and the crash
//! test build one with [`Ctx::new`] and steer the run through the
//! [`Controls`] that come with it. Nothing here imports a task.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use oxo_protocol::PlayerId;
use tokio::sync::{Semaphore, watch};

use crate::config::Target;
use crate::ledger::Ledger;
use crate::stats::Stats;
use oxo_client::{Error as ClientError, Link};

/// What every task of a run shares.
#[derive(Debug)]
pub(crate) struct Ctx {
    /// The counters.
    pub(crate) stats: Arc<Stats>,
    /// Where the server is; `None` while it is down (crash test).
    pub(crate) target: watch::Receiver<Option<Target>>,
    /// Becomes `true` when the run ends: no new requests after that.
    pub(crate) stop: watch::Receiver<bool>,
    /// Mean think time before each move.
    pub(crate) think: Duration,
    /// Pacing instead of think time: the time between the moves of one
    /// game (the game count over the offered moves per second).
    pub(crate) pace: Option<Duration>,
    /// Intended refusals per thousand turns.
    pub(crate) refusal_permille: u32,
    /// Longest wait for a reply.
    pub(crate) timeout: Duration,
    /// Spectators per game.
    pub(crate) spectators: usize,
    /// Bounds the connections being set up at once (ramp-up).
    pub(crate) setup: Arc<Semaphore>,
    /// Seed of the players' choices.
    pub(crate) seed: u64,
    /// Crash test: server deaths are expected, disconnects are not errors,
    /// and every acknowledged move is written down.
    pub(crate) ledger: Option<Arc<Ledger>>,
}

/// The run's own ends of the channels every task watches.
#[derive(Debug)]
pub(crate) struct Controls {
    target: watch::Sender<Option<Target>>,
    stop: watch::Sender<bool>,
}

impl Controls {
    /// Tells every task where the server is now, or that it is down
    /// (`None`): they wait for it to come back.
    pub(crate) fn aim(&self, target: Option<Target>) {
        // Every receiver lives in the `Ctx` the tasks hold: none to miss.
        let _ = self.target.send(target);
    }

    /// Ends the run: no new requests after this.
    pub(crate) fn stop(&self) {
        let _ = self.stop.send(true);
    }
}

impl Ctx {
    /// A context aimed at `target` with fresh counters, and its controls.
    ///
    /// Its players behave as a plain run's do by default: they play at
    /// once, unpaced, never refuse on purpose, wait 10 s for a reply, have
    /// no spectators, set up 256 connections at once, use seed 0 and keep
    /// no ledger. Callers change what they need with `Ctx { .., ..ctx }`.
    pub(crate) fn new(target: Target) -> (Ctx, Controls) {
        let (target_tx, target_rx) = watch::channel(Some(target));
        let (stop_tx, stop_rx) = watch::channel(false);
        let ctx = Ctx {
            stats: Arc::new(Stats::new()),
            target: target_rx,
            stop: stop_rx,
            think: Duration::ZERO,
            pace: None,
            refusal_permille: 0,
            timeout: Duration::from_secs(10),
            spectators: 0,
            setup: Arc::new(Semaphore::new(256)),
            seed: 0,
            ledger: None,
        };
        let controls = Controls {
            target: target_tx,
            stop: stop_tx,
        };
        (ctx, controls)
    }

    /// Whether the run is ending.
    pub(crate) fn stopping(&self) -> bool {
        *self.stop.borrow()
    }

    /// The server's address, waiting while it is down (until `stop`).
    pub(crate) async fn target(&self) -> Option<Target> {
        let mut rx = self.target.clone();
        let mut stop = self.stop.clone();
        loop {
            if *stop.borrow() {
                return None;
            }
            if let Some(t) = rx.borrow_and_update().clone() {
                return Some(t);
            }
            tokio::select! {
                r = rx.changed() => if r.is_err() { return None },
                r = stop.changed() => if r.is_err() { return None },
            }
        }
    }
}

/// Sets up one player: connect and `hello`, counting the open connection.
/// Returns the connection, the session token and the player id.
pub(crate) async fn player(
    ctx: &Ctx,
    name: String,
) -> Result<(Link, String, PlayerId), ClientError> {
    let target = ctx.target().await.ok_or(ClientError::Closed(None))?;
    let mut conn = target.connect(ctx.timeout, None).await?;
    ctx.stats.open.fetch_add(1, Relaxed);
    match conn.hello(None, Some(name), ctx.timeout).await {
        Ok(w) => Ok((conn, w.token, w.player_id)),
        Err(e) => {
            ctx.stats.open.fetch_sub(1, Relaxed);
            conn.close().await;
            Err(e)
        }
    }
}
