//! One table: an actor task that owns its game, seats, spectators, scores
//! and timers.
//!
//! # Why an actor per table
//!
//! Everything that happens at a table is ordered: moves, joins, timeouts,
//! disconnects. One task that owns the table and takes commands from a queue
//! gives that order for free, with no locks around the game and no way for
//! two racing moves on the same cell to both win: the second is refused with
//! `cell_taken` (or `not_your_turn`). Tables share nothing, so a thousand
//! tables run on all cores without contention. Timers (the per-move clock,
//! the reconnect grace, the bot's thinking pause, closing an abandoned table)
//! are deadlines in the actor, raced against the queue in one `select!`.
//!
//! # Order of effects
//!
//! A change is written to the database and awaited (group commit) before
//! anyone hears of it; then the new state goes to every player and spectator
//! (serialized once), then the `ok` goes to the requester. Requester and
//! broadcast share the connection's queue, so the requester always sees the
//! `table` event before its `ok`. If the database fails, a move is taken back
//! and refused with `internal`; any other failed change closes the table in
//! memory (its durable state comes back at the next start).

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use oxo_core::{Bot, BotLevel, ByPlayer, Game, MoveError, Outcome, Player, Square, WinReason};
use oxo_protocol::{
    ErrorCode, LobbyTable, PlayerInfo, Scores, ServerMsg, TableOptions, TableState, TableStatus,
};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::accounts::Account;
use crate::conn::{Conn, encode};
use crate::error::ClientError;
use crate::ids::{new_game_id, now_ms, seed};
use crate::live::LiveStatus;
use crate::state::Shared;
use crate::store::{GamePlayer, GameStart, SavedTable, TableRow, Write};

/// Commands a table's queue holds before the actor applies them.
const QUEUE: usize = 256;

/// How long a change in the number of spectators may wait to be
/// broadcast: watching and leaving cost the requester, not the table.
const SPECTATORS_DEBOUNCE: Duration = Duration::from_secs(1);

/// Accepted moves remembered per table (across rounds) to recognise
/// retries by their request id.
const REMEMBERED_MOVES: usize = 32;

/// A request for a table, from a connection.
#[derive(Debug)]
pub(crate) enum TableReq {
    Join(Option<Player>),
    Watch,
    Leave,
    /// A cell, and the game the client meant it for, if it said.
    Move(Square, Option<String>),
    Forfeit,
    Rematch,
    Chat(String),
    Sync,
}

/// What a table's actor is asked to do.
#[derive(Debug)]
pub(crate) enum TableCmd {
    /// A client request; the actor sends the reply.
    Request {
        conn: Conn,
        id: Option<u64>,
        req: TableReq,
        /// When the connection read it (for the latency histogram).
        at: std::time::Instant,
    },
    /// A player came back (`hello` with a token): attach this connection.
    Attach(Conn),
    /// A connection closed.
    Detach(u64),
    /// A seated player changed their name.
    Renamed,
}

/// What an accepted request's `ok` carries besides the table's id.
#[derive(Debug)]
enum Reply {
    /// Nothing more.
    Done,
    /// A move: the game it was recorded in and its ply.
    Moved { game_id: Arc<str>, ply: u32 },
}

/// An accepted move with a request id: a retry of it is answered, never
/// applied again (see [`Table::is_retry`]).
#[derive(Debug)]
struct Accepted {
    seat: Player,
    req: u64,
    cell: Square,
    game_id: Arc<str>,
    ply: u32,
    /// The connection it came on (0 for moves read back on start).
    conn: u64,
}

/// What attaching a connection changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attached {
    /// It was attached already.
    Already,
    /// A new spectator (or a second connection of a seated player who was
    /// connected already).
    Member,
    /// A seated player who was away is back: everyone should see it.
    Reconnected,
}

/// A handle to send commands to a table.
#[derive(Clone, Debug)]
pub(crate) struct TableHandle {
    tx: mpsc::Sender<TableCmd>,
    live: LiveStatus,
}

impl TableHandle {
    /// Queues a command; `false` if the table has gone.
    pub(crate) async fn send(&self, cmd: TableCmd) -> bool {
        self.tx.send(cmd).await.is_ok()
    }

    /// The table's status as last published by its actor.
    pub(crate) fn status(&self) -> TableStatus {
        self.live.get()
    }

    /// Whether the table has closed (or its actor stopped).
    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed() || self.live.get() == TableStatus::Closed
    }
}

/// A bot in a seat.
struct BotState {
    id: Arc<str>,
    name: Arc<str>,
    level: BotLevel,
    think: Duration,
    bot: Box<dyn Bot>,
}

/// A human in a seat.
#[derive(Debug)]
struct Human {
    account: Arc<Account>,
    /// While disconnected: when the seat is lost.
    grace_until: Option<Instant>,
    wants_rematch: bool,
}

enum Seat {
    Human(Human),
    Bot(BotState),
}

impl Seat {
    fn human(&self) -> Option<&Human> {
        match self {
            Seat::Human(h) => Some(h),
            Seat::Bot(_) => None,
        }
    }

    fn player(&self) -> GamePlayer {
        match self {
            Seat::Human(h) => GamePlayer {
                id: Arc::clone(&h.account.id),
                name: h.account.name(),
                bot: None,
            },
            Seat::Bot(b) => GamePlayer {
                id: Arc::clone(&b.id),
                name: Arc::clone(&b.name),
                bot: Some(b.level),
            },
        }
    }
}

/// A table's state, owned by its actor.
struct Table {
    shared: Arc<Shared>,
    /// The integer key in the database.
    seq: i64,
    id: Arc<str>,
    options: TableOptions,
    status: TableStatus,
    seats: ByPlayer<Option<Seat>>,
    /// The seat a bot takes (fixed at creation).
    bot_seat: Option<Player>,
    /// Every attached connection: players' and spectators'.
    members: Vec<Conn>,
    /// Rounds started so far.
    round: u32,
    game: Game,
    /// The current game's public id and database key, once a round started.
    game_id: Option<(Arc<str>, i64)>,
    scores: Scores,
    created_ms: i64,
    /// The latest accepted moves that had a request id (all rounds).
    accepted: std::collections::VecDeque<Accepted>,
    move_deadline: Option<Instant>,
    bot_due: Option<Instant>,
    /// When nobody seated is connected: when the table closes.
    close_at: Option<Instant>,
    rng: oxo_core::Rng,
    lobby_dirty: bool,
    /// The status as connections and accounts see it.
    live: LiveStatus,
    /// When the spectator count last changed without being broadcast: it
    /// goes out with the next state, or by this deadline.
    spectators_due: Option<Instant>,
}

fn bot_state(level: BotLevel, think_ms: u32) -> BotState {
    BotState {
        id: Arc::from(format!("bot-{}", level.as_str())),
        name: Arc::from(level.display_name()),
        level,
        think: Duration::from_millis(u64::from(think_ms)),
        bot: level.bot(seed()),
    }
}

/// The name a seat shows in pass and play, where one player holds both:
/// "Player X" and "Player O", in the state and in the game's record.
fn pass_and_play_name(seat: Player) -> &'static str {
    seat.fold_xo("Player X", "Player O")
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn err(code: ErrorCode, message: &'static str) -> ClientError {
    ClientError::new(code, message)
}

/// Creates a table for `conn`'s player, who already holds the seat slot
/// (`Account::try_add_table`), and starts its actor; the actor replies to
/// the `create_table` request.
pub(crate) fn create(
    shared: &Arc<Shared>,
    id: Arc<str>,
    live: LiveStatus,
    options: TableOptions,
    conn: Conn,
    req_id: Option<u64>,
    at: std::time::Instant,
) -> TableHandle {
    let seq = shared.store.next_table_seq();
    let table = Table::new(
        Arc::clone(shared),
        seq,
        Arc::clone(&id),
        live.clone(),
        options,
        now_ms(),
    );
    let (tx, rx) = mpsc::channel(QUEUE);
    let handle = TableHandle { tx, live };
    shared.register_table(&id, handle.clone());
    shared.metrics.tables_created.fetch_add(1, Relaxed);
    shared.tasks.spawn(table.run_new(rx, conn, req_id, at));
    handle
}

/// Rebuilds an unfinished table from the database and starts its actor.
/// Its human players are disconnected, with a fresh grace period.
pub(crate) fn recover(
    shared: &Arc<Shared>,
    saved: SavedTable,
    accounts: ByPlayer<Option<Arc<Account>>>,
) {
    let row = saved.row;
    let live = LiveStatus::new(row.status);
    let mut table = Table::new(
        Arc::clone(shared),
        row.seq,
        Arc::clone(&row.id),
        live.clone(),
        row.options,
        row.created_ms,
    );
    let now = Instant::now();
    let grace = now + shared.config.reconnect_grace;
    table.status = row.status;
    table.round = row.round;
    table.scores = row.scores;
    table.bot_seat = row.bot_seat;
    for p in Player::ALL {
        table.seats[p] = if row.bot_seat == Some(p) {
            row.options
                .bot
                .map(|b| Seat::Bot(bot_state(b.level, b.think_ms)))
        } else {
            accounts[p].clone().map(|account| {
                account.try_add_table(&row.id, &live, usize::MAX);
                Seat::Human(Human {
                    account,
                    grace_until: Some(grace),
                    wants_rematch: false,
                })
            })
        };
    }
    if let Some(saved_game) = saved.game {
        table.game = saved_game.game;
        for (seat, req, cell) in saved_game.accepted {
            let ply = table.game.moves().iter().position(|&m| m == cell);
            if let Some(ply) = ply.and_then(|p| u32::try_from(p + 1).ok()) {
                table.accepted.push_back(Accepted {
                    seat,
                    req,
                    cell,
                    game_id: Arc::clone(&saved_game.id),
                    ply,
                    conn: 0,
                });
            }
        }
        table.game_id = Some((saved_game.id, saved_game.seq));
    }
    if table.status == TableStatus::InProgress && table.game.is_over() {
        table.status = TableStatus::RoundOver;
    }
    table.close_at = Some(grace);
    table.arm_turn(now);
    table.lobby_dirty = true;
    table.live.set(table.status);
    let (tx, rx) = mpsc::channel(QUEUE);
    shared.register_table(&row.id, TableHandle { tx, live });
    shared.tasks.spawn(table.run(rx));
}

impl Table {
    fn new(
        shared: Arc<Shared>,
        seq: i64,
        id: Arc<str>,
        live: LiveStatus,
        options: TableOptions,
        created_ms: i64,
    ) -> Table {
        shared.metrics.tables.fetch_add(1, Relaxed);
        Table {
            shared,
            seq,
            id,
            options,
            status: TableStatus::Waiting,
            seats: ByPlayer { x: None, o: None },
            bot_seat: None,
            members: Vec::new(),
            round: 0,
            game: Game::new(),
            game_id: None,
            scores: Scores::default(),
            created_ms,
            accepted: std::collections::VecDeque::with_capacity(REMEMBERED_MOVES),
            move_deadline: None,
            bot_due: None,
            close_at: None,
            rng: oxo_core::Rng::new(seed()),
            lobby_dirty: false,
            live,
            spectators_due: None,
        }
    }

    async fn run_new(
        mut self,
        rx: mpsc::Receiver<TableCmd>,
        conn: Conn,
        req_id: Option<u64>,
        at: std::time::Instant,
    ) {
        match self.create(&conn).await {
            Ok(()) => {
                self.reply_ok(&conn, req_id);
                tracing::debug!(table = %self.id, took = ?at.elapsed(), "table created");
            }
            Err(e) => {
                self.reply_err(&conn, req_id, e);
                self.drain(rx).await;
                return;
            }
        }
        self.run(rx).await;
    }

    async fn run(mut self, mut rx: mpsc::Receiver<TableCmd>) {
        // Publish recovered tables to the lobby.
        if self.lobby_dirty {
            self.publish_lobby();
        }
        // A child token, waited on by one future made once: polling the
        // server-wide token directly would lock its mutex (shared by every
        // task) on each command, and re-register a waiter each time.
        let shutdown = self.shared.shutdown.child_token().cancelled_owned();
        tokio::pin!(shutdown);
        loop {
            self.fire_timers().await;
            if self.status == TableStatus::Closed {
                break;
            }
            let next = self.next_deadline();
            let wake = next.unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400));
            tokio::select! {
                biased;
                () = &mut shutdown => break,
                cmd = rx.recv() => match cmd {
                    Some(cmd) => self.handle(cmd).await,
                    None => break,
                },
                () = tokio::time::sleep_until(wake), if next.is_some() => {}
            }
            if self.status == TableStatus::Closed {
                break;
            }
        }
        self.drain(rx).await;
    }

    /// The actor is stopping: every request still queued gets its reply
    /// (every request is answered, and its connection waits for it).
    async fn drain(&mut self, mut rx: mpsc::Receiver<TableCmd>) {
        rx.close();
        let e = if self.shared.shutdown.is_cancelled() && self.status != TableStatus::Closed {
            ClientError::shutting_down()
        } else {
            ClientError::no_such_table()
        };
        while let Some(cmd) = rx.recv().await {
            if let TableCmd::Request { conn, id, .. } = cmd {
                self.reply_err(&conn, id, e.clone());
            }
        }
    }

    fn next_deadline(&self) -> Option<Instant> {
        let graces = Player::ALL.into_iter().filter_map(|p| {
            self.seats[p]
                .as_ref()
                .and_then(Seat::human)
                .and_then(|h| h.grace_until)
        });
        [
            self.move_deadline,
            self.bot_due,
            self.close_at,
            self.spectators_due,
        ]
        .into_iter()
        .flatten()
        .chain(graces)
        .min()
    }

    /// Runs every timer that is due, most urgent kinds first.
    async fn fire_timers(&mut self) {
        loop {
            let now = Instant::now();
            if self.bot_due.is_some_and(|t| t <= now) {
                self.bot_due = None;
                self.bot_move().await;
                continue;
            }
            if self.move_deadline.is_some_and(|t| t <= now) {
                self.move_deadline = None;
                if let Some(p) = self.game.to_move() {
                    if self.status == TableStatus::InProgress {
                        self.decide(p, WinReason::Timeout).await;
                    }
                }
                continue;
            }
            let expired = Player::ALL.into_iter().find(|&p| {
                self.seats[p]
                    .as_ref()
                    .and_then(Seat::human)
                    .and_then(|h| h.grace_until)
                    .is_some_and(|t| t <= now)
            });
            if let Some(p) = expired {
                if let Some(Seat::Human(h)) = &mut self.seats[p] {
                    h.grace_until = None;
                }
                if self.status == TableStatus::InProgress {
                    // In pass and play both seats are one player: the side
                    // to move is the one that loses.
                    let loser = if self.same_player_both_seats() {
                        self.game.to_move().unwrap_or(p)
                    } else {
                        p
                    };
                    self.decide(loser, WinReason::Dropped).await;
                } else if self.status == TableStatus::RoundOver {
                    self.walk_away(p).await;
                } else {
                    self.broadcast();
                }
                continue;
            }
            if self.close_at.is_some_and(|t| t <= now) {
                self.close_at = None;
                self.close().await;
                continue;
            }
            if self.spectators_due.is_some_and(|t| t <= now) {
                self.broadcast();
            }
            return;
        }
    }

    async fn handle(&mut self, cmd: TableCmd) {
        match cmd {
            TableCmd::Request { conn, id, req, at } => match self.request(&conn, id, req).await {
                Ok(Reply::Done) => self.reply_ok(&conn, id),
                Ok(Reply::Moved { game_id, ply }) => {
                    self.live.set(self.status);
                    conn.outbox.reply(&ServerMsg::Ok {
                        id,
                        table_id: Some(self.id.to_string()),
                        game_id: Some(game_id.to_string()),
                        ply: Some(ply),
                    });
                    self.shared.metrics.move_latency.observe(at.elapsed());
                }
                Err(e) => self.reply_err(&conn, id, e),
            },
            TableCmd::Attach(conn) => {
                if self.status != TableStatus::Closed {
                    let attached = self.attach(conn.clone());
                    self.show_attached(&conn, attached);
                }
            }
            TableCmd::Detach(conn_id) => self.detach(conn_id),
            TableCmd::Renamed => {
                self.lobby_dirty = true;
                self.broadcast();
            }
        }
    }

    fn reply_ok(&self, conn: &Conn, id: Option<u64>) {
        self.live.set(self.status);
        conn.outbox
            .reply(&ServerMsg::ok(id, Some(self.id.to_string())));
    }

    fn reply_err(&self, conn: &Conn, id: Option<u64>, e: ClientError) {
        self.live.set(self.status);
        self.shared.metrics.refused(e.code);
        conn.outbox
            .reply(&ServerMsg::error(id, e.code, e.message.into_owned()));
    }

    /// Sends the state to `conn` alone.
    fn send_state(&self, conn: &Conn) {
        conn.outbox.send_msg(&ServerMsg::Table {
            table: self.state(),
        });
    }

    /// After attaching `conn`: everyone hears of a player who is back; a
    /// new spectator is counted in a later broadcast; the requester gets
    /// the state now.
    fn show_attached(&mut self, conn: &Conn, attached: Attached) {
        match attached {
            Attached::Reconnected => self.broadcast(),
            Attached::Member => {
                self.spectators_changed();
                self.send_state(conn);
            }
            Attached::Already => self.send_state(conn),
        }
    }

    /// The number of spectators changed: it goes out with the next state,
    /// at the latest after [`SPECTATORS_DEBOUNCE`].
    fn spectators_changed(&mut self) {
        self.lobby_dirty = true;
        if self.spectators_due.is_none() {
            self.spectators_due = Some(Instant::now() + SPECTATORS_DEBOUNCE);
        }
    }

    async fn request(
        &mut self,
        conn: &Conn,
        id: Option<u64>,
        req: TableReq,
    ) -> Result<Reply, ClientError> {
        if self.status == TableStatus::Closed {
            return Err(ClientError::no_such_table());
        }
        match req {
            TableReq::Join(seat) => self.join(conn, seat).await.map(|()| Reply::Done),
            TableReq::Watch => {
                let attached = self.attach(conn.clone());
                self.show_attached(conn, attached);
                Ok(Reply::Done)
            }
            TableReq::Leave => self.leave(conn).await.map(|()| Reply::Done),
            TableReq::Move(cell, game_id) => self.play(conn, id, cell, game_id).await,
            TableReq::Forfeit => self.forfeit(conn).await.map(|()| Reply::Done),
            TableReq::Rematch => self.rematch(conn).await.map(|()| Reply::Done),
            TableReq::Chat(text) => self.chat(conn, text).map(|()| Reply::Done),
            TableReq::Sync => {
                let held = self.seats_of(&conn.account);
                if !held.x && !held.o && !self.is_member(conn.id()) {
                    return Err(err(
                        ErrorCode::NotSeated,
                        "Join or watch the table to see its state",
                    ));
                }
                self.send_state(conn);
                Ok(Reply::Done)
            }
        }
    }

    // ----- seats and members -------------------------------------------

    /// The seats `account` holds here.
    fn seats_of(&self, account: &Account) -> ByPlayer<bool> {
        ByPlayer::new_with(|p| {
            self.seats[p]
                .as_ref()
                .and_then(Seat::human)
                .is_some_and(|h| h.account.id == account.id)
        })
    }

    /// The seats `account` holds here, or `not_seated` if it holds none.
    fn require_seat(&self, account: &Account) -> Result<ByPlayer<bool>, ClientError> {
        let held = self.seats_of(account);
        if held.x || held.o {
            Ok(held)
        } else {
            Err(err(
                ErrorCode::NotSeated,
                "You are not seated at this table",
            ))
        }
    }

    /// `Ok` while a round is being played; `not_started` while waiting,
    /// `game_over` once the round (or the table) is over.
    fn require_in_progress(&self) -> Result<(), ClientError> {
        match self.status {
            TableStatus::InProgress => Ok(()),
            TableStatus::Waiting => Err(err(
                ErrorCode::NotStarted,
                "The game has not started: waiting for an opponent",
            )),
            TableStatus::RoundOver | TableStatus::Closed => {
                Err(err(ErrorCode::GameOver, "The round is over"))
            }
        }
    }

    fn same_player_both_seats(&self) -> bool {
        match (&self.seats.x, &self.seats.o) {
            (Some(Seat::Human(x)), Some(Seat::Human(o))) => x.account.id == o.account.id,
            _ => false,
        }
    }

    fn is_connected(&self, account: &Account) -> bool {
        self.members.iter().any(|m| m.account.id == account.id)
    }

    fn any_human_connected(&self) -> bool {
        Player::ALL.into_iter().any(|p| {
            self.seats[p]
                .as_ref()
                .and_then(Seat::human)
                .is_some_and(|h| self.is_connected(&h.account))
        })
    }

    fn has_humans(&self) -> bool {
        Player::ALL
            .into_iter()
            .any(|p| self.seats[p].as_ref().and_then(Seat::human).is_some())
    }

    /// Attaches a connection (idempotent); a seated player is connected
    /// again and keeps the seat.
    fn attach(&mut self, conn: Conn) -> Attached {
        if self.is_member(conn.id()) {
            return Attached::Already;
        }
        let account = Arc::clone(&conn.account);
        let held = self.seats_of(&account);
        let was_connected = self.is_connected(&account);
        self.members.push(conn);
        if !held.x && !held.o {
            return Attached::Member;
        }
        for p in Player::ALL {
            if let Some(Seat::Human(h)) = &mut self.seats[p] {
                if h.account.id == account.id {
                    h.grace_until = None;
                    self.close_at = None;
                }
            }
        }
        if was_connected {
            Attached::Already
        } else {
            self.lobby_dirty = true;
            Attached::Reconnected
        }
    }

    fn is_member(&self, conn_id: u64) -> bool {
        self.members.iter().any(|m| m.id() == conn_id)
    }

    /// A connection closed: a seated player who has no other connection
    /// here is disconnected and the grace period starts.
    fn detach(&mut self, conn_id: u64) {
        let Some(i) = self.members.iter().position(|m| m.id() == conn_id) else {
            return;
        };
        let conn = self.members.swap_remove(i);
        if self.status == TableStatus::Closed {
            return;
        }
        let held = self.seats_of(&conn.account);
        if !held.x && !held.o {
            self.spectators_changed();
            return;
        }
        self.lobby_dirty = true;
        let grace = Instant::now() + self.shared.config.reconnect_grace;
        if !self.is_connected(&conn.account) {
            for p in Player::ALL {
                if let Some(Seat::Human(h)) = &mut self.seats[p] {
                    if h.account.id == conn.account.id {
                        h.grace_until = Some(grace);
                    }
                }
            }
        }
        if !self.any_human_connected() && self.close_at.is_none() {
            self.close_at = Some(grace);
        }
        self.broadcast();
    }

    // ----- the lifecycle -----------------------------------------------

    async fn create(&mut self, conn: &Conn) -> Result<(), ClientError> {
        let seat = self.options.seat.unwrap_or_else(|| {
            if self.rng.chance(1, 2) {
                Player::X
            } else {
                Player::O
            }
        });
        let human = |account: &Arc<Account>| {
            Seat::Human(Human {
                account: Arc::clone(account),
                grace_until: None,
                wants_rematch: false,
            })
        };
        self.seats[seat] = Some(human(&conn.account));
        if self.options.pass_and_play {
            self.seats[!seat] = Some(human(&conn.account));
        } else if let Some(bot) = self.options.bot {
            self.seats[!seat] = Some(Seat::Bot(bot_state(bot.level, bot.think_ms)));
            self.bot_seat = Some(!seat);
        }
        self.members.push(conn.clone());
        let mut writes = Vec::with_capacity(2);
        if self.seats.x.is_some() && self.seats.o.is_some() {
            self.start_round(&mut writes);
        }
        writes.insert(0, Write::Table(Box::new(self.row())));
        if let Err(e) = self.shared.store.commit(writes).await {
            tracing::error!(table = %self.id, error = %e, "could not store a new table");
            self.abort();
            return Err(ClientError::internal());
        }
        self.lobby_dirty = true;
        self.broadcast();
        Ok(())
    }

    async fn join(&mut self, conn: &Conn, wanted: Option<Player>) -> Result<(), ClientError> {
        let held = self.seats_of(&conn.account);
        if held.x || held.o {
            if let Some(p) = wanted {
                if !held[p] {
                    return Err(ClientError::new(
                        ErrorCode::AlreadySeated,
                        format!("You already sit in the {} seat here", !p),
                    ));
                }
            }
            // Already seated: re-attach this connection.
            let attached = self.attach(conn.clone());
            self.show_attached(conn, attached);
            return Ok(());
        }
        let seat = match wanted {
            Some(p) if self.seats[p].is_none() => p,
            Some(Player::X) => return Err(err(ErrorCode::TableFull, "The X seat is taken")),
            Some(Player::O) => return Err(err(ErrorCode::TableFull, "The O seat is taken")),
            None => Player::ALL
                .into_iter()
                .find(|&p| self.seats[p].is_none())
                .ok_or_else(|| err(ErrorCode::TableFull, "Both seats are taken"))?,
        };
        let max = self.shared.config.max_tables_per_player;
        if !conn.account.try_add_table(&self.id, &self.live, max) {
            return Err(ClientError::too_many_seats(max));
        }
        self.seats[seat] = Some(Seat::Human(Human {
            account: Arc::clone(&conn.account),
            grace_until: None,
            wants_rematch: false,
        }));
        self.attach(conn.clone());
        let mut writes = Vec::with_capacity(2);
        if self.seats.x.is_some() && self.seats.o.is_some() && self.status == TableStatus::Waiting {
            self.start_round(&mut writes);
        }
        writes.insert(0, Write::Table(Box::new(self.row())));
        self.persist_or_abort(writes).await?;
        self.lobby_dirty = true;
        self.broadcast();
        Ok(())
    }

    async fn leave(&mut self, conn: &Conn) -> Result<(), ClientError> {
        let held = self.seats_of(&conn.account);
        if !held.x && !held.o {
            let before = self.members.len();
            self.members.retain(|m| m.id() != conn.id());
            if self.members.len() == before {
                return Err(err(ErrorCode::NotSeated, "You are not at this table"));
            }
            self.spectators_changed();
            self.send_state(conn);
            return Ok(());
        }
        self.vacate(&Arc::clone(&conn.account), held).await?;
        self.send_state(conn);
        self.broadcast();
        if self.status == TableStatus::Closed {
            self.finish_close();
        }
        Ok(())
    }

    /// A player who walked away from a finished round (no connection back
    /// within the grace period) gives up the seat, as if they had left.
    async fn walk_away(&mut self, seat: Player) {
        let Some(Seat::Human(h)) = &self.seats[seat] else {
            return;
        };
        let account = Arc::clone(&h.account);
        let held = self.seats_of(&account);
        if self.vacate(&account, held).await.is_err() {
            return;
        }
        self.broadcast();
        if self.status == TableStatus::Closed {
            self.finish_close();
        }
    }

    /// Frees the seats `held` by `account` (forfeiting a round in
    /// progress), durably; the table waits for a new opponent, or closes if
    /// no human is left. The caller tells everyone.
    async fn vacate(
        &mut self,
        account: &Arc<Account>,
        held: ByPlayer<bool>,
    ) -> Result<(), ClientError> {
        let mut writes = Vec::with_capacity(3);
        if self.status == TableStatus::InProgress {
            let loser = if held.x && held.o {
                self.game.to_move().unwrap_or(Player::X)
            } else if held.x {
                Player::X
            } else {
                Player::O
            };
            let outcome = Outcome::Win {
                winner: !loser,
                reason: WinReason::Forfeit,
            };
            let _ = self.game.forfeit(loser);
            self.end_round(outcome, &mut writes);
        }
        for p in Player::ALL {
            if held[p] {
                self.seats[p] = None;
            }
        }
        account.remove_table(&self.id);
        self.members.retain(|m| m.account.id != account.id);
        self.clear_timers();
        if self.has_humans() {
            self.status = TableStatus::Waiting;
            for p in Player::ALL {
                if let Some(Seat::Human(h)) = &mut self.seats[p] {
                    h.wants_rematch = false;
                }
            }
            if !self.any_human_connected() {
                self.close_at = Some(Instant::now() + self.shared.config.reconnect_grace);
            }
        } else {
            self.mark_closed();
        }
        writes.push(Write::Table(Box::new(self.row())));
        self.persist_or_abort(writes).await?;
        self.lobby_dirty = true;
        Ok(())
    }

    async fn play(
        &mut self,
        conn: &Conn,
        id: Option<u64>,
        cell: Square,
        game_id: Option<String>,
    ) -> Result<Reply, ClientError> {
        let held = self.require_seat(&conn.account)?;
        if let Some(id) = id {
            if let Some(a) = self.accepted.iter().find(|a| {
                held[a.seat]
                    && a.req == id
                    && a.cell == cell
                    && self.is_retry(a, conn.id(), game_id.as_deref())
            }) {
                // A retry of a move already applied: acknowledged again as
                // the move it was, in the round it was played in.
                return Ok(Reply::Moved {
                    game_id: Arc::clone(&a.game_id),
                    ply: a.ply,
                });
            }
        }
        if let Some(meant) = game_id {
            if self.game_id.as_ref().is_none_or(|(g, _)| **g != *meant) {
                return Err(ClientError::new(
                    ErrorCode::GameOver,
                    format!(
                        "The move was meant for game {meant:.40}, which is over; it was not applied"
                    ),
                ));
            }
        }
        self.require_in_progress()?;
        let Some(mover) = self.game.to_move() else {
            return Err(err(ErrorCode::GameOver, "The round is over"));
        };
        if !held[mover] {
            return Err(err(ErrorCode::NotYourTurn, "Not your turn"));
        }
        self.apply_move(mover, cell, id, conn.id()).await
    }

    /// Whether a move with the same seat, request id and cell as the
    /// accepted move `a` is a retry of it: in the same round; or naming
    /// `a`'s round in `game_id`; or on the same connection (whose ids the
    /// client numbers uniquely). A request id alone cannot tell a late
    /// retry from a new move on another connection whose client numbers
    /// its requests afresh, so such a move is judged as new: clients that
    /// retry across rounds say which round they meant (`game_id`).
    fn is_retry(&self, a: &Accepted, conn: u64, meant: Option<&str>) -> bool {
        let current = self.game_id.as_ref().is_some_and(|(g, _)| *g == a.game_id);
        current || meant == Some(&*a.game_id) || (a.conn != 0 && a.conn == conn)
    }

    /// Plays `cell` for `mover` (checked to be on turn), durably, then tells
    /// everyone.
    async fn apply_move(
        &mut self,
        mover: Player,
        cell: Square,
        id: Option<u64>,
        conn: u64,
    ) -> Result<Reply, ClientError> {
        let outcome = match self.game.play(cell) {
            Ok(outcome) => outcome,
            Err(MoveError::Occupied { square, .. }) => {
                return Err(ClientError::new(
                    ErrorCode::CellTaken,
                    format!("{square} is already taken"),
                ));
            }
            Err(MoveError::GameOver) => return Err(err(ErrorCode::GameOver, "The round is over")),
        };
        let (game_id, game) = self
            .game_id
            .clone()
            .expect("a round in progress has a game id");
        let ply = u32::try_from(self.game.moves().len()).expect("at most 9 moves");
        let mut writes = Vec::with_capacity(3);
        writes.push(Write::Move {
            game,
            ply,
            player: mover,
            cell,
            at_ms: now_ms(),
            req_id: id,
        });
        let before = (self.status, self.scores);
        if let Some(outcome) = outcome {
            self.end_round(outcome, &mut writes);
            writes.push(Write::Table(Box::new(self.row())));
        }
        if let Err(e) = self.shared.store.commit(writes).await {
            tracing::error!(table = %self.id, error = %e, "could not store a move");
            let _ = self.game.undo();
            (self.status, self.scores) = before;
            if outcome.is_some() {
                self.arm_turn(Instant::now());
            }
            return Err(ClientError::internal());
        }
        if let Some(req) = id {
            if self.accepted.len() == REMEMBERED_MOVES {
                self.accepted.pop_front();
            }
            self.accepted.push_back(Accepted {
                seat: mover,
                req,
                cell,
                game_id: Arc::clone(&game_id),
                ply,
                conn,
            });
        }
        self.shared.metrics.moves.fetch_add(1, Relaxed);
        if outcome.is_none() {
            self.arm_turn(Instant::now());
        }
        self.broadcast();
        Ok(Reply::Moved { game_id, ply })
    }

    async fn bot_move(&mut self) {
        if self.status != TableStatus::InProgress {
            return;
        }
        let Some(mover) = self.game.to_move() else {
            return;
        };
        let position = *self.game.position();
        let Some(Seat::Bot(bot)) = &mut self.seats[mover] else {
            return;
        };
        let Some(cell) = bot.bot.choose(&position) else {
            return;
        };
        if let Err(e) = self.apply_move(mover, cell, None, 0).await {
            tracing::error!(table = %self.id, error = %e, "bot move failed");
            // Try again shortly rather than stalling the game.
            self.bot_due = Some(Instant::now() + Duration::from_millis(500));
        }
    }

    async fn forfeit(&mut self, conn: &Conn) -> Result<(), ClientError> {
        let held = self.require_seat(&conn.account)?;
        self.require_in_progress()?;
        let loser = if held.x && held.o {
            self.game.to_move().unwrap_or(Player::X)
        } else if held.x {
            Player::X
        } else {
            Player::O
        };
        if self.decide_durably(loser, WinReason::Forfeit).await {
            Ok(())
        } else {
            Err(ClientError::internal())
        }
    }

    /// Ends the round with `loser` losing for `reason` (forfeit, timeout,
    /// drop), durably; logs a storage failure.
    async fn decide(&mut self, loser: Player, reason: WinReason) {
        let _ = self.decide_durably(loser, reason).await;
    }

    async fn decide_durably(&mut self, loser: Player, reason: WinReason) -> bool {
        let outcome = Outcome::Win {
            winner: !loser,
            reason,
        };
        let before = (self.status, self.scores);
        let mut writes = Vec::with_capacity(2);
        self.end_round(outcome, &mut writes);
        writes.push(Write::Table(Box::new(self.row())));
        if let Err(e) = self.shared.store.commit(writes).await {
            tracing::error!(table = %self.id, error = %e, "could not store the end of a round");
            (self.status, self.scores) = before;
            self.arm_turn(Instant::now());
            return false;
        }
        let applied = match reason {
            WinReason::Timeout => self.game.time_out(loser),
            WinReason::Dropped => self.game.drop_player(loser),
            _ => self.game.forfeit(loser),
        };
        debug_assert!(applied.is_ok(), "the round was in progress");
        self.broadcast();
        true
    }

    async fn rematch(&mut self, conn: &Conn) -> Result<(), ClientError> {
        let held = self.require_seat(&conn.account)?;
        match self.status {
            TableStatus::RoundOver => {}
            TableStatus::InProgress => {
                return Err(err(
                    ErrorCode::GameInProgress,
                    "The round is still being played",
                ));
            }
            TableStatus::Waiting => {
                return Err(err(ErrorCode::NotStarted, "Waiting for an opponent"));
            }
            TableStatus::Closed => return Err(ClientError::no_such_table()),
        }
        for p in Player::ALL {
            if held[p] {
                if let Some(Seat::Human(h)) = &mut self.seats[p] {
                    h.wants_rematch = true;
                }
            }
        }
        let all_want = Player::ALL.into_iter().all(|p| match &self.seats[p] {
            Some(Seat::Human(h)) => h.wants_rematch,
            Some(Seat::Bot(_)) => true,
            None => false,
        });
        if all_want {
            let mut writes = Vec::with_capacity(2);
            self.start_round(&mut writes);
            writes.push(Write::Table(Box::new(self.row())));
            self.persist_or_abort(writes).await?;
        }
        self.broadcast();
        Ok(())
    }

    fn chat(&mut self, conn: &Conn, text: String) -> Result<(), ClientError> {
        if !self.members.iter().any(|m| m.id() == conn.id()) {
            return Err(err(ErrorCode::NotSeated, "Join or watch the table to chat"));
        }
        let frame = encode(&ServerMsg::Chat {
            table_id: self.id.to_string(),
            from_id: conn.account.id.to_string(),
            from_name: conn.account.name().to_string(),
            text,
        });
        for m in &self.members {
            m.outbox.send(frame.clone());
        }
        Ok(())
    }

    /// Starts the next round: who starts follows the table's rule.
    fn start_round(&mut self, writes: &mut Vec<Write>) {
        self.round += 1;
        let previous = (self.round > 1).then(|| self.game.first());
        let rng = &mut self.rng;
        let first = self.options.starter.pick(previous, || {
            if rng.chance(1, 2) {
                Player::X
            } else {
                Player::O
            }
        });
        self.game = Game::with_first(first);
        let game_seq = self.shared.store.next_game_seq();
        let game_id = new_game_id(game_seq);
        self.game_id = Some((Arc::clone(&game_id), game_seq));
        self.status = TableStatus::InProgress;
        for p in Player::ALL {
            if let Some(Seat::Human(h)) = &mut self.seats[p] {
                h.wants_rematch = false;
            }
        }
        let pass_and_play = self.same_player_both_seats();
        let players = ByPlayer::new_with(|p| {
            let mut player = self.seats[p]
                .as_ref()
                .map(Seat::player)
                .expect("a round starts with both seats taken");
            if pass_and_play {
                player.name = Arc::from(pass_and_play_name(p));
            }
            player
        });
        writes.push(Write::GameStart(Box::new(GameStart {
            seq: game_seq,
            id: game_id,
            table_id: Arc::clone(&self.id),
            round: self.round,
            first,
            players,
            at_ms: now_ms(),
            public: self.options.public,
        })));
        self.lobby_dirty = true;
        self.arm_turn(Instant::now());
    }

    /// Records the end of the round (scores, status, timers) and queues the
    /// game's end; the caller adds the table row.
    fn end_round(&mut self, outcome: Outcome, writes: &mut Vec<Write>) {
        self.scores.record(outcome);
        self.status = TableStatus::RoundOver;
        self.move_deadline = None;
        self.bot_due = None;
        self.lobby_dirty = true;
        self.shared.metrics.games_finished.fetch_add(1, Relaxed);
        if let Some((_, game)) = self.game_id {
            writes.push(Write::GameEnd {
                game,
                outcome,
                moves: u32::try_from(self.game.moves().len()).expect("at most 9 moves"),
                at_ms: now_ms(),
            });
        }
    }

    /// Sets the clock and the bot for whoever is to move.
    fn arm_turn(&mut self, now: Instant) {
        self.move_deadline = None;
        self.bot_due = None;
        if self.status != TableStatus::InProgress {
            return;
        }
        let Some(mover) = self.game.to_move() else {
            return;
        };
        match &self.seats[mover] {
            Some(Seat::Bot(b)) => self.bot_due = Some(now + b.think),
            Some(Seat::Human(_)) => {
                self.move_deadline = self
                    .options
                    .move_time_ms
                    .map(|ms| now + Duration::from_millis(u64::from(ms)));
            }
            None => {}
        }
    }

    fn clear_timers(&mut self) {
        self.move_deadline = None;
        self.bot_due = None;
        self.close_at = None;
    }

    /// Writes `writes`; on failure closes the table in memory.
    async fn persist_or_abort(&mut self, writes: Vec<Write>) -> Result<(), ClientError> {
        if let Err(e) = self.shared.store.commit(writes).await {
            tracing::error!(table = %self.id, error = %e, "could not store a table change; closing it");
            self.abort();
            return Err(ClientError::internal());
        }
        Ok(())
    }

    fn mark_closed(&mut self) {
        self.status = TableStatus::Closed;
        self.live.set(self.status);
        self.clear_timers();
        self.lobby_dirty = true;
    }

    /// Releases everything a closed table holds.
    fn finish_close(&mut self) {
        for p in Player::ALL {
            if let Some(Seat::Human(h)) = &self.seats[p] {
                h.account.remove_table(&self.id);
            }
        }
        self.shared.lobby.remove(&self.id);
        self.shared.unregister_table(&self.id);
    }

    /// Closes the table for good (nobody came back).
    async fn close(&mut self) {
        if self.status == TableStatus::InProgress {
            // Everyone left mid-round: the side to move is dropped.
            if let Some(p) = self.game.to_move() {
                self.decide(p, WinReason::Dropped).await;
            }
        }
        self.mark_closed();
        if let Err(e) = self
            .shared
            .store
            .commit(vec![Write::Table(Box::new(self.row()))])
            .await
        {
            tracing::error!(table = %self.id, error = %e, "could not store a table's closing");
        }
        self.broadcast();
        self.finish_close();
        tracing::debug!(table = %self.id, "table closed");
    }

    /// Closes the table in memory after a storage failure.
    fn abort(&mut self) {
        self.mark_closed();
        self.broadcast();
        self.finish_close();
    }

    // ----- what clients see ----------------------------------------------

    fn row(&self) -> TableRow {
        TableRow {
            seq: self.seq,
            id: Arc::clone(&self.id),
            options: self.options,
            status: self.status,
            seats: ByPlayer::new_with(|p| {
                self.seats[p]
                    .as_ref()
                    .and_then(Seat::human)
                    .map(|h| Arc::clone(&h.account.id))
            }),
            bot_seat: self.bot_seat,
            round: self.round,
            scores: self.scores,
            game: self.game_id.as_ref().map(|g| g.1),
            created_ms: self.created_ms,
        }
    }

    fn spectators(&self) -> u32 {
        let n = self
            .members
            .iter()
            .filter(|m| {
                let held = self.seats_of(&m.account);
                !held.x && !held.o
            })
            .count();
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    fn player_info(&self, seat: &Seat, now: Instant) -> PlayerInfo {
        match seat {
            Seat::Human(h) => PlayerInfo {
                id: h.account.id.to_string(),
                name: if self.same_player_both_seats() {
                    pass_and_play_name(
                        if self.seats.x.as_ref().is_some_and(|s| std::ptr::eq(s, seat)) {
                            Player::X
                        } else {
                            Player::O
                        },
                    )
                    .to_owned()
                } else {
                    h.account.name().to_string()
                },
                bot: None,
                connected: self.is_connected(&h.account),
                grace_left_ms: h
                    .grace_until
                    .filter(|_| self.status == TableStatus::InProgress)
                    .map(|t| millis(t.saturating_duration_since(now))),
                wants_rematch: h.wants_rematch,
            },
            Seat::Bot(b) => PlayerInfo {
                id: b.id.to_string(),
                name: b.name.to_string(),
                bot: Some(b.level),
                connected: true,
                grace_left_ms: None,
                wants_rematch: self.status == TableStatus::RoundOver,
            },
        }
    }

    fn state(&self) -> TableState {
        let now = Instant::now();
        let in_progress = self.status == TableStatus::InProgress;
        TableState {
            id: self.id.to_string(),
            status: self.status,
            options: self.options,
            players: ByPlayer::new_with(|p| {
                self.seats[p].as_ref().map(|s| self.player_info(s, now))
            }),
            spectators: self.spectators(),
            round: self.round.max(1),
            game_id: self.game_id.as_ref().map(|g| g.0.to_string()),
            first: self.game.first(),
            board: self.game.position().board().to_string(),
            moves: self.game.moves().to_vec(),
            move_number: u32::try_from(self.game.moves().len()).expect("at most 9 moves"),
            turn: if in_progress {
                self.game.to_move()
            } else {
                None
            },
            time_left_ms: if in_progress {
                self.move_deadline
                    .map(|t| millis(t.saturating_duration_since(now)))
            } else {
                None
            },
            outcome: self.game.outcome(),
            scores: self.scores,
        }
    }

    fn lobby_entry(&self) -> LobbyTable {
        LobbyTable {
            id: self.id.to_string(),
            status: self.status,
            players: ByPlayer::new_with(|p| {
                self.seats[p].as_ref().map(|s| match s {
                    Seat::Human(h) => h.account.name().to_string(),
                    Seat::Bot(b) => b.name.to_string(),
                })
            }),
            spectators: self.spectators(),
            options: self.options,
        }
    }

    fn publish_lobby(&mut self) {
        self.lobby_dirty = false;
        if !self.options.public {
            return;
        }
        if self.status == TableStatus::Closed {
            self.shared.lobby.remove(&self.id);
        } else {
            self.shared.lobby.upsert(&self.id, self.lobby_entry());
        }
    }

    /// Sends the state to every member (serialized once).
    fn broadcast(&mut self) {
        self.live.set(self.status);
        self.spectators_due = None;
        if !self.members.is_empty() {
            let frame = encode(&ServerMsg::Table {
                table: self.state(),
            });
            for m in &self.members {
                m.outbox.send(frame.clone());
            }
        }
        if self.lobby_dirty {
            self.publish_lobby();
        }
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        self.shared.metrics.tables.fetch_sub(1, Relaxed);
    }
}

impl std::fmt::Debug for BotState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BotState")
            .field("level", &self.level)
            .field("think", &self.think)
            .finish_non_exhaustive()
    }
}
