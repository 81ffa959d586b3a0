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

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use oxo_core::{Bitboard, Player, Rng, Square};
use oxo_protocol::{
    ClientMsg, ErrorCode, ServerMsg, Starter, TableOptions, TableState, TableStatus,
};
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use crate::client::{Conn, ConnError};
use crate::config::Target;
use crate::ledger::Ledger;
use crate::stats::Stats;

/// What every game task of a run shares.
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

impl Ctx {
    fn stopping(&self) -> bool {
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

/// What a seat knows of the table, from its own connection.
#[derive(Debug, Clone)]
struct View {
    round: u32,
    move_number: u32,
    status: TableStatus,
    turn: Option<Player>,
    moves: Vec<Square>,
    game_id: Option<String>,
    /// Whether the state shows that this seat asked for a rematch.
    asked_rematch: bool,
}

impl View {
    fn of(t: &TableState, seat: Player) -> View {
        View {
            round: t.round,
            move_number: t.move_number,
            status: t.status,
            turn: t.turn,
            moves: t.moves.clone(),
            game_id: t.game_id.clone(),
            asked_rematch: t.players[seat].as_ref().is_some_and(|p| p.wants_rematch),
        }
    }
}

/// A request in flight.
#[derive(Debug)]
struct Pending {
    id: u64,
    sent_at: Instant,
    kind: PendingKind,
}

#[derive(Debug)]
enum PendingKind {
    /// A real move, for `ply` (1-based) of `round`.
    Move {
        round: u32,
        ply: u32,
        cell: Square,
        game_id: Option<String>,
        /// When the state showing the move arrived.
        seen: Option<Instant>,
    },
    /// A move the server must refuse with `expected`.
    Refusal {
        expected: ErrorCode,
    },
    Rematch,
    Sync,
}

impl PendingKind {
    fn name(&self) -> &'static str {
        match self {
            PendingKind::Move { .. } => "move",
            PendingKind::Refusal { .. } => "refusal",
            PendingKind::Rematch => "rematch",
            PendingKind::Sync => "sync",
        }
    }
}

/// One player of a game.
#[derive(Debug)]
struct Seat {
    seat: Player,
    conn: Option<Conn>,
    token: String,
    player_id: String,
    view: Option<View>,
    pending: Option<Pending>,
    /// The turn `(round, move_number)` the timer and refusal roll are for.
    turn_key: (u32, u32),
    ready_at: Instant,
    refusal_rolled: bool,
    /// The last round this seat asked a rematch for.
    rematch_round: u32,
    backoff_until: Instant,
}

impl Seat {
    fn new(seat: Player, conn: Conn, token: String, player_id: String) -> Seat {
        let now = Instant::now();
        Seat {
            seat,
            conn: Some(conn),
            token,
            player_id,
            view: None,
            pending: None,
            turn_key: (0, u32::MAX),
            ready_at: now,
            refusal_rolled: false,
            rematch_round: 0,
            backoff_until: now,
        }
    }
}

/// What woke the game loop.
#[expect(
    clippy::large_enum_variant,
    reason = "a short-lived value on the stack; boxing would allocate per message"
)]
enum Wake {
    Msg(usize, Result<ServerMsg, ConnError>),
    Timer,
    Stop,
}

/// The game loop's state.
#[derive(Debug)]
struct GameDriver {
    ctx: Arc<Ctx>,
    index: usize,
    table_id: String,
    seats: [Seat; 2],
    /// The last round counted as finished.
    counted_round: u32,
    /// When anything last moved forward (for the stall watchdog).
    last_progress: Instant,
    /// With pacing, the earliest moment for the game's next move.
    next_slot: Instant,
    spectators: Vec<JoinHandle<()>>,
}

/// Sets up one player: connect and `hello`.
pub(crate) async fn player(ctx: &Ctx, name: String) -> Result<(Conn, String, String), ConnError> {
    let target = ctx.target().await.ok_or(ConnError::Closed)?;
    let mut conn = Conn::connect(&target, ctx.timeout).await?;
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

async fn recv(conn: &mut Option<Conn>) -> Result<ServerMsg, ConnError> {
    match conn {
        Some(c) => c.recv().await,
        None => std::future::pending().await,
    }
}

impl GameDriver {
    /// Connects both players, creates a private table with seat X and seats
    /// the second player at O.
    async fn setup(ctx: &Arc<Ctx>, index: usize, rng: &mut Rng) -> Result<GameDriver, ConnError> {
        let _permit = ctx.setup.acquire().await.map_err(|_| ConnError::Closed)?;
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
                    return Err(ConnError::Unexpected(format!(
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

    /// Sends this seat's next request, if it has one to send.
    async fn act(&mut self, i: usize, now: Instant, rng: &mut Rng) -> Result<(), ConnError> {
        let other_refusing = matches!(
            self.seats[1 - i].pending,
            Some(Pending {
                kind: PendingKind::Refusal { .. },
                ..
            })
        );
        let (think, pace, next_slot) = (self.ctx.think, self.ctx.pace, self.next_slot);
        let s = &mut self.seats[i];
        if s.conn.is_none() || s.pending.is_some() || other_refusing || now < s.backoff_until {
            return Ok(());
        }
        let Some(view) = &s.view else { return Ok(()) };
        let key = (view.round, view.move_number);
        let my_turn = view.status == TableStatus::InProgress && view.turn == Some(s.seat);
        let wants_rematch = view.status == TableStatus::RoundOver
            && !view.asked_rematch
            && s.rematch_round < view.round;
        if !my_turn && !wants_rematch {
            return Ok(());
        }
        if s.turn_key != key {
            s.turn_key = key;
            s.refusal_rolled = false;
            s.ready_at = match pace {
                Some(_) if my_turn => next_slot.max(now),
                Some(_) => now,
                None => now + jitter(think, rng),
            };
        }
        if now < s.ready_at {
            return Ok(());
        }
        if wants_rematch {
            let round = view.round;
            s.rematch_round = round;
            let table_id = self.table_id.clone();
            return self
                .send(i, ClientMsg::Rematch { table_id }, PendingKind::Rematch)
                .await;
        }
        let occupied: Bitboard = view.moves.iter().copied().collect();
        let (round, ply, game_id) = (view.round, view.move_number + 1, view.game_id.clone());
        if !s.refusal_rolled {
            s.refusal_rolled = true;
            if self.ctx.refusal_permille > 0 && rng.chance(self.ctx.refusal_permille, 1000) {
                return self.send_refusal(i, occupied, rng).await;
            }
        }
        let Some(cell) = rng.pick(occupied.complement()) else {
            // A full board with a turn: the state is inconsistent; resync.
            self.ctx
                .stats
                .error("protocol:full_board_in_progress", || self.table_id.clone());
            let table_id = self.table_id.clone();
            return self
                .send(i, ClientMsg::Sync { table_id }, PendingKind::Sync)
                .await;
        };
        let kind = PendingKind::Move {
            round,
            ply,
            cell,
            game_id,
            seen: None,
        };
        let table_id = self.table_id.clone();
        if let Some(pace) = pace {
            // On schedule (a late timer does not slow the rate down), but
            // never catching up with a burst after falling behind.
            self.next_slot = (self.next_slot + pace).max(now);
        }
        self.send(
            i,
            ClientMsg::Move {
                table_id,
                cell,
                game_id: None,
            },
            kind,
        )
        .await
    }

    /// Sends a move the server must refuse: an occupied cell, or on an empty
    /// board a move by the other seat (not its turn).
    async fn send_refusal(
        &mut self,
        i: usize,
        occupied: Bitboard,
        rng: &mut Rng,
    ) -> Result<(), ConnError> {
        let table_id = self.table_id.clone();
        if let Some(cell) = rng.pick(occupied) {
            let kind = PendingKind::Refusal {
                expected: ErrorCode::CellTaken,
            };
            return self
                .send(
                    i,
                    ClientMsg::Move {
                        table_id,
                        cell,
                        game_id: None,
                    },
                    kind,
                )
                .await;
        }
        let other = &self.seats[1 - i];
        if other.conn.is_none() || other.pending.is_some() {
            return Ok(());
        }
        let cell = rng.pick(Bitboard::FULL).unwrap_or(Square::B2);
        let kind = PendingKind::Refusal {
            expected: ErrorCode::NotYourTurn,
        };
        match self
            .send(
                1 - i,
                ClientMsg::Move {
                    table_id,
                    cell,
                    game_id: None,
                },
                kind,
            )
            .await
        {
            Ok(()) => Ok(()),
            // The other seat's connection broke: it will be noticed on its
            // next read.
            Err(_) => Ok(()),
        }
    }

    async fn send(&mut self, i: usize, msg: ClientMsg, kind: PendingKind) -> Result<(), ConnError> {
        let s = &mut self.seats[i];
        let conn = s.conn.as_mut().ok_or(ConnError::Closed)?;
        let sent_at = Instant::now();
        let id = conn.send(msg).await?;
        s.pending = Some(Pending { id, sent_at, kind });
        Ok(())
    }

    /// Gives up on requests that had no reply in time, and resynchronises
    /// a game that has not moved for that long.
    async fn check_timeouts(&mut self, now: Instant) {
        for i in 0..2 {
            let timed_out = match &self.seats[i].pending {
                Some(p) if now.duration_since(p.sent_at) >= self.ctx.timeout => Some(p.kind.name()),
                _ => None,
            };
            if let Some(kind) = timed_out {
                self.seats[i].pending = None;
                self.ctx.stats.error(&format!("timeout:{kind}"), || {
                    format!("table {}", self.table_id)
                });
                self.last_progress = now;
                let table_id = self.table_id.clone();
                let _ = self
                    .send(i, ClientMsg::Sync { table_id }, PendingKind::Sync)
                    .await;
            }
        }
        if now.duration_since(self.last_progress) >= self.ctx.timeout && !self.ctx.stopping() {
            self.ctx.stats.error("stall", || {
                format!(
                    "table {} made no progress for {:?}: views {:?} / {:?}",
                    self.table_id, self.ctx.timeout, self.seats[0].view, self.seats[1].view
                )
            });
            self.last_progress = now;
            for i in 0..2 {
                if self.seats[i].pending.is_none() {
                    let table_id = self.table_id.clone();
                    let _ = self
                        .send(i, ClientMsg::Sync { table_id }, PendingKind::Sync)
                        .await;
                }
            }
        }
    }

    fn on_msg(&mut self, i: usize, msg: ServerMsg) {
        match msg {
            ServerMsg::Table { table } => self.on_table(i, &table),
            ServerMsg::Ok { id, .. } => self.on_ok(i, id),
            ServerMsg::Error { id, code, message } => self.on_error(i, id, code, &message),
            ServerMsg::Closing { .. }
            | ServerMsg::Chat { .. }
            | ServerMsg::Lobby { .. }
            | ServerMsg::Pong { .. } => {}
            ServerMsg::Welcome { .. } => {
                self.ctx
                    .stats
                    .error("protocol:unexpected_welcome", || self.table_id.clone());
            }
        }
    }

    fn on_table(&mut self, i: usize, table: &TableState) {
        if table.id != self.table_id {
            return;
        }
        let now = Instant::now();
        let s = &mut self.seats[i];
        if table.players[s.seat]
            .as_ref()
            .is_some_and(|p| p.id != s.player_id)
        {
            self.ctx.stats.error("seat_taken_over", || {
                format!("table {} seat {} is someone else's", table.id, s.seat)
            });
        }
        let view = View::of(table, s.seat);
        let advanced = s.view.as_ref().is_none_or(|v| {
            (v.round, v.move_number, v.status) != (view.round, view.move_number, view.status)
        });
        if advanced {
            self.last_progress = now;
        }
        if let Some(Pending {
            kind:
                PendingKind::Move {
                    round,
                    ply,
                    cell,
                    seen,
                    ..
                },
            ..
        }) = &mut s.pending
        {
            if seen.is_none()
                && (view.round > *round || (view.round == *round && view.move_number >= *ply))
            {
                *seen = Some(now);
                let at_ply = view.moves.get(*ply as usize - 1).copied();
                if view.round == *round && at_ply != Some(*cell) {
                    self.ctx.stats.error("protocol:move_mismatch", || {
                        format!(
                            "table {} ply {ply}: sent {cell}, state shows {at_ply:?}",
                            table.id
                        )
                    });
                }
            }
        }
        if i == 0 && view.status == TableStatus::RoundOver && self.counted_round < view.round {
            self.counted_round = view.round;
            self.ctx.stats.count(&self.ctx.stats.rounds);
        }
        if let Some(ledger) = &self.ctx.ledger {
            ledger.seen(&self.table_id, &view.game_id, view.round, &s.token);
        }
        s.view = Some(view);
    }

    fn on_ok(&mut self, i: usize, id: Option<u64>) {
        let s = &mut self.seats[i];
        if id.is_none() || s.pending.as_ref().map(|p| p.id) != id {
            // A late reply to a request given up on.
            return;
        }
        let Some(p) = s.pending.take() else { return };
        let now = Instant::now();
        match p.kind {
            PendingKind::Move {
                round,
                ply,
                cell,
                game_id,
                seen,
            } => {
                if seen.is_none() {
                    self.ctx.stats.error("protocol:ok_before_table", || {
                        format!("table {} ply {ply}", self.table_id)
                    });
                }
                let latency = seen.unwrap_or(now).duration_since(p.sent_at);
                self.ctx.stats.record_move(self.index, Some(latency));
                if let Some(ledger) = &self.ctx.ledger {
                    ledger.ack(&self.table_id, game_id, round, ply, cell);
                }
            }
            PendingKind::Refusal { expected } => {
                self.ctx.stats.error("refusal_accepted", || {
                    format!(
                        "table {}: a move expected to fail with {expected} was accepted",
                        self.table_id
                    )
                });
            }
            PendingKind::Rematch | PendingKind::Sync => {}
        }
    }

    fn on_error(&mut self, i: usize, id: Option<u64>, code: ErrorCode, message: &str) {
        let s = &mut self.seats[i];
        let mine = id.is_some() && s.pending.as_ref().map(|p| p.id) == id;
        if !mine {
            self.ctx
                .stats
                .error(&format!("unsolicited_error:{code}"), || message.to_owned());
            return;
        }
        let Some(p) = s.pending.take() else { return };
        if let PendingKind::Refusal { expected } = p.kind {
            if code == expected {
                self.ctx.stats.count(&self.ctx.stats.refusals);
                return;
            }
        }
        // After a crash-restart a request may race the restored state; the
        // crash test is about durability, not these.
        if self.ctx.ledger.is_some() {
            s.backoff_until = Instant::now() + Duration::from_millis(20);
            return;
        }
        self.ctx
            .stats
            .error(&format!("refused:{}:{code}", p.kind.name()), || {
                format!("table {}: {message}", self.table_id)
            });
        let backoff = if code == ErrorCode::RateLimited {
            1000
        } else {
            20
        };
        s.backoff_until = Instant::now() + Duration::from_millis(backoff);
    }

    /// Handles a broken connection of seat `i`: comes back with the token.
    /// Returns `false` if the game cannot go on.
    async fn on_drop(&mut self, i: usize, e: &ConnError) -> bool {
        if let Some(conn) = self.seats[i].conn.take() {
            self.ctx.stats.open.fetch_sub(1, Relaxed);
            drop(conn);
        }
        if self.ctx.stopping() {
            return false;
        }
        let crash = self.ctx.ledger.is_some();
        if !crash {
            self.ctx.stats.error(&e.kind(), || {
                format!("table {} seat {i}: {e}", self.table_id)
            });
        }
        if let Some(p) = self.seats[i].pending.take() {
            if let (Some(ledger), PendingKind::Move { .. }) = (&self.ctx.ledger, &p.kind) {
                ledger.in_doubt();
            }
        }
        let attempts = if crash { u32::MAX } else { 3 };
        for attempt in 0..attempts {
            if self.ctx.stopping() {
                return false;
            }
            match self.reconnect(i).await {
                Ok(()) => {
                    self.last_progress = Instant::now();
                    return true;
                }
                Err(Resume::SeatLost(why)) => {
                    if let Some(ledger) = &self.ctx.ledger {
                        ledger.resumed(false);
                    }
                    self.ctx
                        .stats
                        .error("seat_lost", || format!("table {}: {why}", self.table_id));
                    return false;
                }
                Err(Resume::Retry(e)) => {
                    if !crash {
                        self.ctx
                            .stats
                            .error(&format!("reconnect:{}", e.kind()), || e.to_string());
                    }
                    let wait = Duration::from_millis(20 * u64::from(attempt.min(10) + 1));
                    tokio::time::sleep(wait).await;
                }
            }
        }
        false
    }

    async fn reconnect(&mut self, i: usize) -> Result<(), Resume> {
        let target = self
            .ctx
            .target()
            .await
            .ok_or(Resume::Retry(ConnError::Closed))?;
        let mut conn = Conn::connect(&target, self.ctx.timeout)
            .await
            .map_err(Resume::Retry)?;
        let token = self.seats[i].token.clone();
        let welcome = match conn.hello(Some(token), None, self.ctx.timeout).await {
            Ok(w) => w,
            Err(ConnError::Refused(ErrorCode::InvalidToken, m)) => {
                return Err(Resume::SeatLost(format!("token refused: {m}")));
            }
            Err(e) => return Err(Resume::Retry(e)),
        };
        if welcome.player_id != self.seats[i].player_id {
            return Err(Resume::SeatLost(format!(
                "came back as {} instead of {}",
                welcome.player_id, self.seats[i].player_id
            )));
        }
        // A table in play is re-attached by `hello`; a finished round is
        // not listed, and joining it again re-attaches a seated player.
        let listed = welcome.tables.contains(&self.table_id);
        self.ctx.stats.open.fetch_add(1, Relaxed);
        let s = &mut self.seats[i];
        s.conn = Some(conn);
        // A rematch in flight may have been lost with the connection: ask
        // again unless the state shows it arrived.
        s.rematch_round = 0;
        if let Some(ledger) = &self.ctx.ledger {
            ledger.resumed(true);
        }
        let table_id = self.table_id.clone();
        let ask = if listed {
            ClientMsg::Sync { table_id }
        } else {
            ClientMsg::JoinTable {
                table_id,
                seat: None,
            }
        };
        self.send(i, ask, PendingKind::Sync)
            .await
            .map_err(Resume::Retry)
    }

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

/// Why a seat could not come back.
enum Resume {
    /// Try again (the server may still be starting).
    Retry(ConnError),
    /// The server does not give the seat back.
    SeatLost(String),
}

/// A random think time: uniform between half and one and a half times
/// `mean`.
fn jitter(mean: Duration, rng: &mut Rng) -> Duration {
    if mean.is_zero() {
        return Duration::ZERO;
    }
    mean.mul_f64(0.5 + f64::from(rng.below(1000)) / 1000.0)
}

/// A spectator: watches `table_id` and counts the `table` events.
async fn spectate(ctx: Arc<Ctx>, table_id: String, name: String) {
    let mut conn = {
        let Ok(_permit) = ctx.setup.acquire().await else {
            return;
        };
        let (mut conn, _, _) = match player(&ctx, name).await {
            Ok(p) => p,
            Err(e) => {
                ctx.stats
                    .error(&format!("spectator:{}", e.kind()), || e.to_string());
                return;
            }
        };
        let watch = ClientMsg::WatchTable {
            table_id: table_id.clone(),
        };
        if let Err(e) = conn.call(watch, ctx.timeout, |_| {}).await {
            ctx.stats
                .error(&format!("spectator:{}", e.kind()), || e.to_string());
            ctx.stats.open.fetch_sub(1, Relaxed);
            conn.close().await;
            return;
        }
        conn
    };
    let mut stop = ctx.stop.clone();
    loop {
        tokio::select! {
            msg = conn.recv() => match msg {
                Ok(ServerMsg::Table { .. }) => ctx.stats.count(&ctx.stats.spectator_events),
                Ok(_) => {}
                Err(e) => {
                    ctx.stats.open.fetch_sub(1, Relaxed);
                    if !*ctx.stop.borrow() && ctx.ledger.is_none() {
                        ctx.stats.error(&format!("spectator:{}", e.kind()), || e.to_string());
                    }
                    return;
                }
            },
            _ = stop.changed() => break,
        }
    }
    ctx.stats.open.fetch_sub(1, Relaxed);
    conn.close().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_within_half_and_one_and_a_half() {
        let mut rng = Rng::new(1);
        assert_eq!(jitter(Duration::ZERO, &mut rng), Duration::ZERO);
        for _ in 0..1000 {
            let t = jitter(Duration::from_millis(1000), &mut rng);
            assert!(t >= Duration::from_millis(500) && t < Duration::from_millis(1500));
        }
    }
}
