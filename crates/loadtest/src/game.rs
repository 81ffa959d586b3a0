//! The game driver: two player connections playing one table, round after
//! round.
//!
//! One task drives both seats of a game. Each seat acts only on what its own
//! connection received (its own `table` events), as a real client would; the
//! task `select!`s over both sockets, the think timers and the request
//! timeouts. A seat has at most one request in flight.
//!
//! A move's round trip runs from sending `move` to the mover receiving the
//! `table` event whose `move_number` reached the move's ply (the protocol
//! sends that event before the `ok`); the move counts when its `ok` arrives.
//! When a round ends both seats ask for a `rematch`, so the table, its
//! scoreboard and its spectators carry over and the load stays constant: a
//! finished game is replaced by the next round at once.
//!
//! Between moves a seat thinks (`think`, jittered), or, with pacing, each
//! game sends its moves at most one per `pace` interval (from one move's
//! send to the next), which offers a fixed total rate while the server keeps
//! up, without the closed loop of zero think time, where every game always
//! has a move in flight and the mean round trip is by Little's law simply
//! the game count over the throughput.
//!
//! A few turns (`refusal_percent`) first send a move the server must refuse,
//! an occupied cell or, on an empty board, a move by the player not to move;
//! the real move waits until the refusal arrives, so the refused move can
//! never race the real one. Those refusals are counted apart, not as errors.
//!
//! A seat whose connection drops comes back with its token, checks that the
//! `welcome` lists its table, and resynchronises with `sync`: the crash test
//! relies on this, and a plain load run counts the drop as an error.
//!
//! The driver is split by job: [`seat`] holds a seat's state, [`turn`]
//! decides and sends each seat's next request, [`replies`] reads what the
//! server sends, and [`recovery`] handles timeouts, stalls and dropped
//! connections. This file owns the loop that ties them together.

mod recovery;
mod replies;
mod seat;
mod turn;

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use oxo_core::{Player, Rng};
use oxo_protocol::{ClientMsg, ServerMsg, Starter, TableId, TableOptions};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::ctx::{Ctx, player};
use crate::spectator::spectate;
use oxo_client::{Error as ClientError, Link};
use seat::{Seat, View};

/// Plays game number `index` until the run stops, setting it up again if it
/// breaks.
pub(crate) async fn run_game(ctx: Arc<Ctx>, index: usize) {
    let mut rng = Rng::new(ctx.seed ^ (index as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let mut counted_ready = false;
    let mut failures = 0u32;
    while !ctx.stopping() {
        match GameDriver::setup(&ctx, index, &mut rng).await {
            Ok(mut game) => {
                failures = 0;
                if !counted_ready {
                    counted_ready = true;
                    ctx.stats.games_ready.fetch_add(1, Relaxed);
                }
                game.spawn_spectators();
                if let Some(ledger) = &ctx.ledger {
                    ledger.open(&game.table_id);
                }
                game.play(&mut rng).await;
                if let Some(ledger) = &ctx.ledger {
                    ledger.close(&game.table_id);
                }
                game.close().await;
            }
            Err(e) => {
                if ctx.stopping() {
                    return;
                }
                if ctx.ledger.is_none() {
                    ctx.stats
                        .error(&format!("setup:{}", e.kind()), || e.to_string());
                }
                failures += 1;
                let backoff = Duration::from_millis(50 * u64::from(failures.min(20)));
                let mut stop = ctx.stop.clone();
                tokio::select! {
                    () = tokio::time::sleep(backoff) => {}
                    _ = stop.changed() => return,
                }
            }
        }
    }
}

/// What woke the game loop.
#[expect(
    clippy::large_enum_variant,
    reason = "a short-lived value on the stack; boxing would allocate per message"
)]
enum Wake {
    Msg(usize, Result<ServerMsg, ClientError>),
    Timer,
    Stop,
}

/// The game loop's state.
#[derive(Debug)]
struct GameDriver {
    ctx: Arc<Ctx>,
    index: usize,
    table_id: TableId,
    seats: [Seat; 2],
    /// The last round counted as finished.
    counted_round: u32,
    /// When anything last moved forward (for the stall watchdog).
    last_progress: Instant,
    /// With pacing, the earliest moment for the game's next move.
    next_slot: Instant,
    spectators: Vec<JoinHandle<()>>,
}

/// The next message of `conn`; never, while the seat has no connection.
async fn recv(conn: &mut Option<Link>) -> Result<ServerMsg, ClientError> {
    match conn {
        Some(c) => c.recv().await,
        None => std::future::pending().await,
    }
}

impl GameDriver {
    /// Connects both players, creates a private table with seat X and seats
    /// the second player at O.
    async fn setup(ctx: &Arc<Ctx>, index: usize, rng: &mut Rng) -> Result<GameDriver, ClientError> {
        let _permit = ctx
            .setup
            .acquire()
            .await
            .map_err(|_| ClientError::Closed(None))?;
        let (mut a, a_token, a_id) = player(ctx, format!("load{index}x")).await?;
        let (mut b, b_token, b_id) = match player(ctx, format!("load{index}o")).await {
            Ok(p) => p,
            Err(e) => {
                ctx.stats.open.fetch_sub(1, Relaxed);
                a.close().await;
                return Err(e);
            }
        };
        let options = TableOptions {
            public: false,
            starter: if rng.chance(1, 2) {
                Starter::Alternate
            } else {
                Starter::Toss
            },
            seat: Some(Player::X),
            ..TableOptions::default()
        };
        let result = async {
            let mut a_view = None;
            let reply = a
                .call(ClientMsg::CreateTable { options }, ctx.timeout, |m| {
                    if let ServerMsg::Table { table } = m {
                        a_view = Some(View::of(&table, Player::X));
                    }
                })
                .await?;
            let table_id = match reply {
                ServerMsg::Ok {
                    table_id: Some(id), ..
                } => id,
                other => {
                    return Err(ClientError::Unexpected(format!(
                        "{other:?} instead of ok {{table_id}} for create_table"
                    )));
                }
            };
            let mut b_view = None;
            b.call(
                ClientMsg::JoinTable {
                    table_id: table_id.clone(),
                    seat: Some(Player::O),
                },
                ctx.timeout,
                |m| {
                    if let ServerMsg::Table { table } = m {
                        b_view = Some(View::of(&table, Player::O));
                    }
                },
            )
            .await?;
            Ok((table_id, a_view, b_view))
        }
        .await;
        let (table_id, a_view, b_view) = match result {
            Ok(r) => r,
            Err(e) => {
                ctx.stats.open.fetch_sub(2, Relaxed);
                a.close().await;
                b.close().await;
                return Err(e);
            }
        };
        let mut x = Seat::new(Player::X, a, a_token, a_id);
        let mut o = Seat::new(Player::O, b, b_token, b_id);
        // X learns of the join from its next `table` event.
        x.view = a_view;
        o.view = b_view;
        Ok(GameDriver {
            ctx: Arc::clone(ctx),
            index,
            table_id,
            seats: [x, o],
            counted_round: 0,
            last_progress: Instant::now(),
            // Spread the games over one pacing interval.
            next_slot: Instant::now()
                + ctx.pace.map_or(Duration::ZERO, |p| {
                    p.mul_f64(f64::from(rng.below(1000)) / 1000.0)
                }),
            spectators: Vec::new(),
        })
    }

    fn spawn_spectators(&mut self) {
        for k in 0..self.ctx.spectators {
            let ctx = Arc::clone(&self.ctx);
            let table_id = self.table_id.clone();
            let name = format!("watch{}s{k}", self.index);
            self.spectators
                .push(tokio::spawn(spectate(ctx, table_id, name)));
        }
    }

    /// Plays until the run stops or the game breaks beyond repair.
    async fn play(&mut self, rng: &mut Rng) {
        let mut stop = self.ctx.stop.clone();
        loop {
            let now = Instant::now();
            let stopping = self.ctx.stopping();
            self.check_timeouts(now).await;
            if stopping {
                if self
                    .seats
                    .iter()
                    .all(|s| s.pending.is_none() || s.conn.is_none())
                {
                    return;
                }
            } else {
                for i in 0..2 {
                    if let Err(e) = self.act(i, now, rng).await {
                        if !self.on_drop(i, &e).await {
                            return;
                        }
                    }
                }
            }
            let deadline = self.next_deadline(now);
            let [a, b] = &mut self.seats;
            let wake = tokio::select! {
                r = recv(&mut a.conn) => Wake::Msg(0, r),
                r = recv(&mut b.conn) => Wake::Msg(1, r),
                () = tokio::time::sleep_until(deadline) => Wake::Timer,
                _ = stop.changed(), if !stopping => Wake::Stop,
            };
            match wake {
                Wake::Msg(i, Ok(msg)) => self.on_msg(i, msg),
                Wake::Msg(i, Err(e)) => {
                    if !self.on_drop(i, &e).await {
                        return;
                    }
                }
                Wake::Timer | Wake::Stop => {}
            }
        }
    }

    /// The next moment the loop must wake without a message.
    fn next_deadline(&self, now: Instant) -> Instant {
        let mut t = now + Duration::from_secs(1);
        for s in &self.seats {
            if let Some(p) = &s.pending {
                t = t.min(p.sent_at + self.ctx.timeout);
            } else {
                if s.ready_at > now {
                    t = t.min(s.ready_at);
                }
                if s.backoff_until > now {
                    t = t.min(s.backoff_until);
                }
            }
        }
        t
    }

    /// Closes both seats and ends the spectators.
    async fn close(mut self) {
        for s in &mut self.seats {
            if let Some(conn) = s.conn.take() {
                self.ctx.stats.open.fetch_sub(1, Relaxed);
                conn.close().await;
            }
        }
        for h in self.spectators.drain(..) {
            if self.ctx.stopping() {
                let _ = tokio::time::timeout(Duration::from_secs(1), h).await;
            } else {
                h.abort();
            }
        }
    }
}
