//! Storage: SQLite with one writer thread and group commit.
//!
//! # Durability
//!
//! A move is acknowledged only after the transaction holding it has
//! committed. The database runs in WAL mode with `synchronous=FULL`, so a
//! commit has reached the disk (the WAL is fsynced) before `COMMIT` returns:
//! an acknowledged move survives `kill -9` and power loss alike.
//!
//! # Why one writer thread and group commit
//!
//! SQLite allows one writer at a time, and the cost of a commit is the fsync,
//! not the rows. So all writes go to a dedicated thread that owns the write
//! connection. It takes the first queued request, drains everything else
//! that is waiting, runs it all in one transaction and answers every request
//! when the single `COMMIT` (one fsync) is done. Under load, each commit
//! carries the moves of hundreds of tables; when idle, a lone move commits at
//! once (no timer, no added latency). A request's rows are applied whole or
//! not at all: batches run without savepoints (they cost a page copy per
//! page touched), and in the rare case that a statement fails the batch is
//! rolled back and replayed with one savepoint per request, so that only the
//! failing request is refused.
//!
//! Reads (the HTTP API, token look-ups) use a second connection on the
//! blocking pool; WAL lets them run beside the writer. An in-memory database
//! has one connection only, so there reads go through the writer thread.
//!
//! # Schema
//!
//! Migrations are numbered SQL scripts applied in order on start; the
//! database's `PRAGMA user_version` is the number applied, and
//! `schema_migrations` records when each was. A database from a newer oxo is
//! refused rather than guessed at.

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

use oxo_core::{BotLevel, ByPlayer, Game, Outcome, Player, Square, WinReason};
use oxo_protocol::{
    GameRecord, GameSummary, RecordPlayer, RecordedMove, Scoreboard, TableOptions, TableStatus,
};
use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};
use tokio::sync::{mpsc, oneshot};

use crate::config::DbLocation;
use crate::error::ServerError;
use crate::ids::{TokenHash, now_ms};
use crate::metrics::Metrics;

/// The migrations, in order; migration `n` (1-based) brings the schema to
/// version `n`. Never edit one that has shipped: add another.
const MIGRATIONS: &[&str] = &[
    // 1: players, tables, games and moves. Tables and games have a public
    // id and an integer key assigned in order (`seq`); moves are keyed by
    // (game key, ply). Rows written together then sit on the same few pages,
    // so a group commit of a thousand tables' moves touches few B-tree pages
    // (each one is written to the WAL and synced). For the same reason there
    // is no index by player: `recent_games` scans the newest games instead.
    "
    CREATE TABLE schema_migrations (
        version    INTEGER PRIMARY KEY,
        applied_ms INTEGER NOT NULL
    );
    CREATE TABLE players (
        id         TEXT PRIMARY KEY,
        token_hash BLOB NOT NULL UNIQUE,
        name       TEXT NOT NULL,
        created_ms INTEGER NOT NULL
    );
    CREATE TABLE tables (
        seq        INTEGER PRIMARY KEY,
        id         TEXT NOT NULL UNIQUE,
        options    TEXT NOT NULL,
        status     TEXT NOT NULL,
        x_player   TEXT,
        o_player   TEXT,
        bot_seat   TEXT,
        round      INTEGER NOT NULL,
        score_x    INTEGER NOT NULL,
        score_o    INTEGER NOT NULL,
        draws      INTEGER NOT NULL,
        game       INTEGER,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
    );
    CREATE INDEX tables_open ON tables(status) WHERE status <> 'closed';
    CREATE TABLE games (
        seq        INTEGER PRIMARY KEY,
        id         TEXT NOT NULL UNIQUE,
        table_id   TEXT NOT NULL,
        round      INTEGER NOT NULL,
        first      TEXT NOT NULL,
        x_id       TEXT NOT NULL,
        x_name     TEXT NOT NULL,
        x_bot      TEXT,
        o_id       TEXT NOT NULL,
        o_name     TEXT NOT NULL,
        o_bot      TEXT,
        started_ms INTEGER NOT NULL,
        ended_ms   INTEGER,
        outcome    TEXT,
        winner     TEXT,
        reason     TEXT,
        moves      INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX games_ended ON games(ended_ms) WHERE ended_ms IS NOT NULL;
    CREATE TABLE moves (
        game    INTEGER NOT NULL,
        ply     INTEGER NOT NULL,
        player  TEXT NOT NULL,
        cell    TEXT NOT NULL,
        at_ms   INTEGER NOT NULL,
        req_id  INTEGER,
        PRIMARY KEY (game, ply)
    ) WITHOUT ROWID;
    ",
];

/// How many of the newest finished games a search by player looks at.
pub(crate) const PLAYER_SCAN: u32 = 100_000;

/// The most requests one group commit takes.
const MAX_BATCH: usize = 4096;

/// One row-level change.
#[derive(Debug)]
pub(crate) enum Write {
    /// A new player.
    Player {
        id: Arc<str>,
        token_hash: TokenHash,
        name: Arc<str>,
    },
    /// A player's new display name.
    PlayerName { id: Arc<str>, name: Arc<str> },
    /// A table's whole row (insert or update).
    Table(Box<TableRow>),
    /// A round started.
    GameStart(Box<GameStart>),
    /// A move (`ply` from 1) of the game with key `game`.
    Move {
        game: i64,
        ply: u32,
        player: Player,
        cell: Square,
        at_ms: i64,
        req_id: Option<u64>,
    },
    /// The game with key `game` ended.
    GameEnd {
        game: i64,
        outcome: Outcome,
        moves: u32,
        at_ms: i64,
    },
}

/// A table as stored.
#[derive(Clone, Debug)]
pub(crate) struct TableRow {
    /// The integer key.
    pub(crate) seq: i64,
    pub(crate) id: Arc<str>,
    pub(crate) options: TableOptions,
    pub(crate) status: TableStatus,
    /// Player ids of the human seats.
    pub(crate) seats: ByPlayer<Option<Arc<str>>>,
    pub(crate) bot_seat: Option<Player>,
    pub(crate) round: u32,
    pub(crate) scores: Scoreboard,
    /// The key of the current (or last) game.
    pub(crate) game: Option<i64>,
    pub(crate) created_ms: i64,
}

/// One side of a game as stored.
#[derive(Clone, Debug)]
pub(crate) struct GamePlayer {
    pub(crate) id: Arc<str>,
    pub(crate) name: Arc<str>,
    pub(crate) bot: Option<BotLevel>,
}

/// The start of a round.
#[derive(Clone, Debug)]
pub(crate) struct GameStart {
    /// The integer key.
    pub(crate) seq: i64,
    pub(crate) id: Arc<str>,
    pub(crate) table_id: Arc<str>,
    pub(crate) round: u32,
    pub(crate) first: Player,
    pub(crate) players: ByPlayer<GamePlayer>,
    pub(crate) at_ms: i64,
}

/// A player as stored.
#[derive(Clone, Debug)]
pub(crate) struct PlayerRow {
    pub(crate) id: String,
    pub(crate) token_hash: TokenHash,
    pub(crate) name: String,
}

/// An unfinished table read back on start.
#[derive(Debug)]
pub(crate) struct SavedTable {
    pub(crate) row: TableRow,
    pub(crate) players: ByPlayer<Option<PlayerRow>>,
    pub(crate) game: Option<SavedGame>,
}

/// The current round of a saved table.
#[derive(Debug)]
pub(crate) struct SavedGame {
    pub(crate) seq: i64,
    pub(crate) id: Arc<str>,
    pub(crate) game: Game,
    /// Request ids of the moves that had one: seat, id, cell.
    pub(crate) accepted: Vec<(Player, u64, Square)>,
}

type Reply = oneshot::Sender<Result<(), ServerError>>;
type ReadJob = Box<dyn FnOnce(&Connection) + Send>;

enum Op {
    /// Writes applied together (all or none), answered after the commit.
    Group(Vec<Write>, Reply),
    /// A read, for in-memory databases (one connection).
    Read(ReadJob),
    /// Finish what is queued, checkpoint and stop.
    Close(oneshot::Sender<()>),
}

/// The database: a writer thread fed by a queue, and a read connection.
#[derive(Debug)]
pub(crate) struct Store {
    queue: mpsc::UnboundedSender<Op>,
    /// The next integer keys of tables and games (assigned here so that a
    /// row's key is known before its insert commits).
    next_table: AtomicI64,
    next_game: AtomicI64,
    /// `None` for an in-memory database (reads go through the writer).
    reader: Option<Arc<Mutex<Connection>>>,
    writer: Mutex<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Op::Group(..) => "Group",
            Op::Read(_) => "Read",
            Op::Close(_) => "Close",
        })
    }
}

fn open(location: &DbLocation) -> Result<(Connection, Option<Connection>), ServerError> {
    match location {
        DbLocation::Memory => {
            let conn = Connection::open_in_memory()?;
            Ok((conn, None))
        }
        DbLocation::File(path) => {
            let conn = Connection::open(path)?;
            let mode: String =
                conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
            if !mode.eq_ignore_ascii_case("wal") {
                tracing::warn!(%mode, "the database could not switch to WAL mode");
            }
            conn.pragma_update(None, "synchronous", "FULL")?;
            conn.busy_timeout(std::time::Duration::from_secs(5))?;
            let reader = Connection::open_with_flags(
                path,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                    | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            reader.busy_timeout(std::time::Duration::from_secs(5))?;
            Ok((conn, Some(reader)))
        }
    }
}

/// Brings the schema up to date.
fn migrate(conn: &mut Connection) -> Result<(), ServerError> {
    let current: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let known = u32::try_from(MIGRATIONS.len()).expect("a handful of migrations");
    if current > known {
        return Err(ServerError::SchemaTooNew {
            found: current,
            known,
        });
    }
    for (version, sql) in (1..).zip(MIGRATIONS).skip(current as usize) {
        let tx = conn.transaction()?;
        tx.execute_batch(sql)?;
        tx.execute(
            "INSERT INTO schema_migrations (version, applied_ms) VALUES (?1, ?2)",
            params![version, now_ms()],
        )?;
        tx.pragma_update(None, "user_version", version)?;
        tx.commit()?;
        tracing::info!(version, "applied database migration");
    }
    Ok(())
}

impl Store {
    /// Opens (creating if needed) and migrates the database, and starts the
    /// writer thread. Returns the store and the unfinished tables.
    pub(crate) fn open(
        location: &DbLocation,
        metrics: Arc<Metrics>,
    ) -> Result<(Store, Vec<SavedTable>), ServerError> {
        let (mut conn, reader) = open(location)?;
        migrate(&mut conn)?;
        let saved = load_open_tables(&conn)?;
        let max = |table: &str| -> Result<i64, ServerError> {
            Ok(conn.query_row(
                &format!("SELECT COALESCE(MAX(seq), 0) FROM {table}"),
                [],
                |r| r.get::<_, i64>(0),
            )?)
        };
        let (next_table, next_game) = (max("tables")? + 1, max("games")? + 1);
        let (queue, rx) = mpsc::unbounded_channel();
        let writer = std::thread::Builder::new()
            .name("oxo-db-writer".into())
            .spawn(move || writer_loop(conn, rx, &metrics))?;
        Ok((
            Store {
                queue,
                next_table: AtomicI64::new(next_table),
                next_game: AtomicI64::new(next_game),
                reader: reader.map(|r| Arc::new(Mutex::new(r))),
                writer: Mutex::new(Some(writer)),
            },
            saved,
        ))
    }

    /// A new table key.
    pub(crate) fn next_table_seq(&self) -> i64 {
        self.next_table.fetch_add(1, Ordering::Relaxed)
    }

    /// A new game key.
    pub(crate) fn next_game_seq(&self) -> i64 {
        self.next_game.fetch_add(1, Ordering::Relaxed)
    }

    /// Applies `writes` atomically and returns once they are durable.
    ///
    /// # Errors
    ///
    /// The database error (nothing of `writes` was applied), or
    /// [`ServerError::StoreClosed`] after shutdown.
    pub(crate) async fn commit(&self, writes: Vec<Write>) -> Result<(), ServerError> {
        let (tx, rx) = oneshot::channel();
        self.queue
            .send(Op::Group(writes, tx))
            .map_err(|_| ServerError::StoreClosed)?;
        rx.await.map_err(|_| ServerError::StoreClosed)?
    }

    /// Runs `f` on a read connection.
    ///
    /// # Errors
    ///
    /// `f`'s error, or [`ServerError::StoreClosed`].
    pub(crate) async fn read<T, F>(&self, f: F) -> Result<T, ServerError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, ServerError> + Send + 'static,
    {
        match &self.reader {
            Some(reader) => {
                let reader = Arc::clone(reader);
                tokio::task::spawn_blocking(move || {
                    let conn = reader.lock().map_err(|_| ServerError::StoreClosed)?;
                    f(&conn)
                })
                .await
                .map_err(|_| ServerError::StoreClosed)?
            }
            None => {
                let (tx, rx) = oneshot::channel();
                let job: ReadJob = Box::new(move |conn| {
                    let _ = tx.send(f(conn));
                });
                self.queue
                    .send(Op::Read(job))
                    .map_err(|_| ServerError::StoreClosed)?;
                rx.await.map_err(|_| ServerError::StoreClosed)?
            }
        }
    }

    /// Commits everything queued, checkpoints the WAL into the main file and
    /// stops the writer. Later writes fail with [`ServerError::StoreClosed`].
    pub(crate) async fn close(&self) {
        let (tx, rx) = oneshot::channel();
        if self.queue.send(Op::Close(tx)).is_ok() {
            let _ = rx.await;
        }
        let handle = self.writer.lock().ok().and_then(|mut h| h.take());
        if let Some(handle) = handle {
            let _ = tokio::task::spawn_blocking(move || handle.join()).await;
        }
    }
}

fn writer_loop(mut conn: Connection, mut rx: mpsc::UnboundedReceiver<Op>, metrics: &Metrics) {
    let mut ops = Vec::with_capacity(256);
    while let Some(op) = rx.blocking_recv() {
        ops.push(op);
        while ops.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(op) => ops.push(op),
                Err(_) => break,
            }
        }
        let close = process(&mut conn, &mut ops, metrics);
        if let Some(done) = close {
            checkpoint(&conn);
            let _ = done.send(());
            return;
        }
    }
    checkpoint(&conn);
}

fn checkpoint(conn: &Connection) {
    if let Err(e) = conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(())) {
        tracing::warn!(error = %e, "WAL checkpoint failed");
    }
}

/// A batch's write groups and the replies they are owed.
type Groups = Vec<(Vec<Write>, Reply)>;

/// Runs one batch: every write group in one transaction (one fsync), then
/// the reads. Returns the close request, if one came.
fn process(
    conn: &mut Connection,
    ops: &mut Vec<Op>,
    metrics: &Metrics,
) -> Option<oneshot::Sender<()>> {
    let mut groups: Groups = Vec::with_capacity(ops.len());
    let mut reads = Vec::new();
    let mut close = None;
    for op in ops.drain(..) {
        match op {
            Op::Group(writes, reply) => groups.push((writes, reply)),
            Op::Read(job) => reads.push(job),
            Op::Close(done) => close = Some(done),
        }
    }
    if !groups.is_empty() {
        let start = Instant::now();
        let rows: usize = groups.iter().map(|(w, _)| w.len()).sum();
        let results = commit_groups(conn, &groups);
        metrics.commit_latency.observe(start.elapsed());
        metrics.commits.fetch_add(1, Ordering::Relaxed);
        metrics.writes.fetch_add(rows as u64, Ordering::Relaxed);
        for ((_, reply), result) in groups.into_iter().zip(results) {
            let _ = reply.send(result);
        }
    }
    for job in reads {
        job(conn);
    }
    close
}

/// Applies every group and commits. Fast path: no savepoints, since a
/// statement almost never fails. If one does, the transaction is rolled
/// back and the batch runs again with a savepoint per group, so that only
/// the failing group is refused.
fn commit_groups(conn: &mut Connection, groups: &Groups) -> Vec<Result<(), ServerError>> {
    let all = |r: &Result<(), rusqlite::Error>| -> Vec<Result<(), ServerError>> {
        groups
            .iter()
            .map(|_| match r {
                Ok(()) => Ok(()),
                Err(e) => Err(ServerError::CommitFailed(e.to_string())),
            })
            .collect()
    };
    let fast = (|| -> Result<Result<(), rusqlite::Error>, rusqlite::Error> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        for (writes, _) in groups {
            for w in writes {
                if let Err(e) = apply(&tx, w) {
                    // Dropping `tx` rolls everything back.
                    return Ok(Err(e));
                }
            }
        }
        tx.commit()?;
        Ok(Ok(()))
    })();
    match fast {
        Ok(Ok(())) => all(&Ok(())),
        Err(e) => {
            tracing::error!(error = %e, "group commit failed");
            all(&Err(e))
        }
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "a write failed; retrying the batch group by group");
            let mut results = Vec::with_capacity(groups.len());
            let slow = (|| -> Result<(), rusqlite::Error> {
                let mut tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
                for (writes, _) in groups {
                    let sp = tx.savepoint()?;
                    let applied = writes.iter().try_for_each(|w| apply(&sp, w));
                    match applied {
                        Ok(()) => {
                            sp.commit()?;
                            results.push(Ok(()));
                        }
                        Err(e) => {
                            drop(sp);
                            results.push(Err(ServerError::Database(e)));
                        }
                    }
                }
                tx.commit()
            })();
            match slow {
                Ok(()) => results,
                Err(e) => {
                    tracing::error!(error = %e, "group commit failed");
                    all(&Err(e))
                }
            }
        }
    }
}

fn player_str(p: Player) -> &'static str {
    p.fold_xo("X", "O")
}

fn status_str(s: TableStatus) -> &'static str {
    match s {
        TableStatus::Waiting => "waiting",
        TableStatus::InProgress => "in_progress",
        TableStatus::RoundOver => "round_over",
        TableStatus::Closed => "closed",
    }
}

fn parse_status(s: &str) -> Result<TableStatus, ServerError> {
    Ok(match s {
        "waiting" => TableStatus::Waiting,
        "in_progress" => TableStatus::InProgress,
        "round_over" => TableStatus::RoundOver,
        "closed" => TableStatus::Closed,
        other => return Err(ServerError::Corrupt(format!("table status {other:?}"))),
    })
}

fn parse_player(s: &str) -> Result<Player, ServerError> {
    s.parse()
        .map_err(|_| ServerError::Corrupt(format!("player {s:?}")))
}

fn parse_bot(s: Option<String>) -> Result<Option<BotLevel>, ServerError> {
    s.map(|s| {
        s.parse()
            .map_err(|_| ServerError::Corrupt(format!("bot level {s:?}")))
    })
    .transpose()
}

fn apply(conn: &Connection, w: &Write) -> rusqlite::Result<()> {
    match w {
        Write::Player {
            id,
            token_hash,
            name,
        } => {
            conn.prepare_cached(
                "INSERT INTO players (id, token_hash, name, created_ms) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id, &token_hash[..], name, now_ms()])?;
        }
        Write::PlayerName { id, name } => {
            conn.prepare_cached("UPDATE players SET name = ?2 WHERE id = ?1")?
                .execute(params![id, name])?;
        }
        Write::Table(row) => {
            let options = serde_json::to_string(&row.options)
                .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
            conn.prepare_cached(
                "INSERT INTO tables (seq, id, options, status, x_player, o_player, bot_seat, round,
                     score_x, score_o, draws, game, created_ms, updated_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                 ON CONFLICT (seq) DO UPDATE SET
                     status = excluded.status, x_player = excluded.x_player,
                     o_player = excluded.o_player, bot_seat = excluded.bot_seat,
                     round = excluded.round, score_x = excluded.score_x,
                     score_o = excluded.score_o, draws = excluded.draws,
                     game = excluded.game, updated_ms = excluded.updated_ms",
            )?
            .execute(params![
                row.seq,
                row.id,
                options,
                status_str(row.status),
                row.seats.x,
                row.seats.o,
                row.bot_seat.map(player_str),
                row.round,
                row.scores.x,
                row.scores.o,
                row.scores.draws,
                row.game,
                row.created_ms,
                now_ms(),
            ])?;
        }
        Write::GameStart(g) => {
            conn.prepare_cached(
                "INSERT INTO games (seq, id, table_id, round, first, x_id, x_name, x_bot,
                     o_id, o_name, o_bot, started_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            )?
            .execute(params![
                g.seq,
                g.id,
                g.table_id,
                g.round,
                player_str(g.first),
                g.players.x.id,
                g.players.x.name,
                g.players.x.bot.map(|b| b.as_str()),
                g.players.o.id,
                g.players.o.name,
                g.players.o.bot.map(|b| b.as_str()),
                g.at_ms,
            ])?;
        }
        Write::Move {
            game,
            ply,
            player,
            cell,
            at_ms,
            req_id,
        } => {
            conn.prepare_cached(
                "INSERT INTO moves (game, ply, player, cell, at_ms, req_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                game,
                ply,
                player_str(*player),
                cell.to_string(),
                at_ms,
                // Request ids are opaque 64-bit values; stored bit for bit.
                req_id.map(|r| r as i64),
            ])?;
        }
        Write::GameEnd {
            game,
            outcome,
            moves,
            at_ms,
        } => {
            let json = serde_json::to_string(outcome)
                .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
            let (winner, reason) = match outcome {
                Outcome::Draw => (None, "draw"),
                Outcome::Win { winner, reason } => (Some(player_str(*winner)), reason.as_str()),
            };
            conn.prepare_cached(
                "UPDATE games SET ended_ms = ?2, outcome = ?3, winner = ?4, reason = ?5, moves = ?6
                 WHERE seq = ?1",
            )?
            .execute(params![game, at_ms, json, winner, reason, moves])?;
        }
    }
    Ok(())
}

fn token_hash_of(blob: Vec<u8>) -> Result<TokenHash, ServerError> {
    TokenHash::try_from(blob.as_slice())
        .map_err(|_| ServerError::Corrupt("token hash is not 32 bytes".into()))
}

/// The player holding `token_hash`, if any.
pub(crate) fn player_by_token(
    conn: &Connection,
    token_hash: TokenHash,
) -> Result<Option<PlayerRow>, ServerError> {
    let row = conn
        .prepare_cached("SELECT id, name FROM players WHERE token_hash = ?1")?
        .query_row(params![&token_hash[..]], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })
        .optional()?;
    Ok(row.map(|(id, name)| PlayerRow {
        id,
        token_hash,
        name,
    }))
}

fn player_by_id(conn: &Connection, id: &str) -> Result<Option<PlayerRow>, ServerError> {
    let row = conn
        .prepare_cached("SELECT token_hash, name FROM players WHERE id = ?1")?
        .query_row(params![id], |r| {
            Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, String>(1)?))
        })
        .optional()?;
    row.map(|(hash, name)| {
        Ok(PlayerRow {
            id: id.to_owned(),
            token_hash: token_hash_of(hash)?,
            name,
        })
    })
    .transpose()
}

/// Every table that is not closed, with its seated players and current game.
fn load_open_tables(conn: &Connection) -> Result<Vec<SavedTable>, ServerError> {
    let mut stmt = conn.prepare(
        "SELECT id, options, status, x_player, o_player, bot_seat, round, score_x, score_o,
                draws, game, created_ms, seq
         FROM tables WHERE status <> 'closed' ORDER BY seq",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, Option<String>>(3)?,
            r.get::<_, Option<String>>(4)?,
            r.get::<_, Option<String>>(5)?,
            r.get::<_, u32>(6)?,
            Scoreboard {
                x: r.get(7)?,
                o: r.get(8)?,
                draws: r.get(9)?,
            },
            r.get::<_, Option<i64>>(10)?,
            r.get::<_, i64>(11)?,
            r.get::<_, i64>(12)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, options, status, x, o, bot_seat, round, scores, game, created_ms, seq) = row?;
        let options: TableOptions = serde_json::from_str(&options)?;
        let players = ByPlayer {
            x: x.as_deref()
                .map(|id| player_by_id(conn, id))
                .transpose()?
                .flatten(),
            o: o.as_deref()
                .map(|id| player_by_id(conn, id))
                .transpose()?
                .flatten(),
        };
        let saved_game = game.map(|g| load_game(conn, g)).transpose()?.flatten();
        out.push(SavedTable {
            row: TableRow {
                seq,
                id: Arc::from(id),
                options,
                status: parse_status(&status)?,
                seats: ByPlayer {
                    x: players.x.as_ref().map(|p| Arc::from(p.id.as_str())),
                    o: players.o.as_ref().map(|p| Arc::from(p.id.as_str())),
                },
                bot_seat: bot_seat.as_deref().map(parse_player).transpose()?,
                round,
                scores,
                game: saved_game.as_ref().map(|g| g.seq),
                created_ms,
            },
            players,
            game: saved_game,
        });
    }
    Ok(out)
}

/// A game's current state, replayed from its moves.
fn load_game(conn: &Connection, seq: i64) -> Result<Option<SavedGame>, ServerError> {
    let head = conn
        .prepare_cached("SELECT id, first, outcome FROM games WHERE seq = ?1")?
        .query_row(params![seq], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        })
        .optional()?;
    let Some((id, first, outcome)) = head else {
        return Ok(None);
    };
    let first = parse_player(&first)?;
    let mut game = Game::with_first(first);
    let mut accepted = Vec::new();
    let mut stmt =
        conn.prepare_cached("SELECT player, cell, req_id FROM moves WHERE game = ?1 ORDER BY ply")?;
    let moves = stmt.query_map(params![seq], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<i64>>(2)?,
        ))
    })?;
    for m in moves {
        let (player, cell, req_id) = m?;
        let player = parse_player(&player)?;
        let cell: Square = cell
            .parse()
            .map_err(|_| ServerError::Corrupt(format!("cell {cell:?}")))?;
        if game.to_move() != Some(player) {
            return Err(ServerError::Corrupt(format!(
                "game {id}: {player} moved out of turn"
            )));
        }
        game.play(cell)
            .map_err(|e| ServerError::Corrupt(format!("game {id}: {e}")))?;
        if let Some(r) = req_id {
            accepted.push((player, r as u64, cell));
        }
    }
    if let Some(outcome) = outcome {
        let outcome: Outcome = serde_json::from_str(&outcome)?;
        if game.outcome().is_none() {
            if let Outcome::Win { winner, reason } = outcome {
                let loser = !winner;
                let _ = match reason {
                    WinReason::Forfeit => game.forfeit(loser),
                    WinReason::Dropped => game.drop_player(loser),
                    WinReason::Timeout => game.time_out(loser),
                    WinReason::Line { .. } => {
                        return Err(ServerError::Corrupt(format!(
                            "game {id}: a line win the moves do not show"
                        )));
                    }
                };
            }
        }
    }
    Ok(Some(SavedGame {
        seq,
        id: Arc::from(id),
        game,
        accepted,
    }))
}

/// `GET /api/games/{id}`.
pub(crate) fn game_record(conn: &Connection, id: &str) -> Result<Option<GameRecord>, ServerError> {
    type Head = (
        String,
        u32,
        String,
        [(String, String, Option<String>); 2],
        i64,
        Option<i64>,
        Option<String>,
        i64,
    );
    let head: Option<Head> = conn
        .prepare_cached(
            "SELECT table_id, round, first, x_id, x_name, x_bot, o_id, o_name, o_bot,
                    started_ms, ended_ms, outcome, seq
             FROM games WHERE id = ?1",
        )?
        .query_row(params![id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                [
                    (r.get(3)?, r.get(4)?, r.get(5)?),
                    (r.get(6)?, r.get(7)?, r.get(8)?),
                ],
                r.get(9)?,
                r.get(10)?,
                r.get(11)?,
                r.get(12)?,
            ))
        })
        .optional()?;
    let Some((table_id, round, first, [x, o], started_at_ms, ended_at_ms, outcome, seq)) = head
    else {
        return Ok(None);
    };
    let record_player = |(id, name, bot): (String, String, Option<String>)| {
        Ok::<_, ServerError>(RecordPlayer {
            id,
            name,
            bot: parse_bot(bot)?,
        })
    };
    let mut stmt = conn.prepare_cached(
        "SELECT ply, player, cell, at_ms FROM moves WHERE game = ?1 ORDER BY ply",
    )?;
    let rows = stmt.query_map(params![seq], |r| {
        Ok((
            r.get::<_, u32>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, i64>(3)?,
        ))
    })?;
    let mut moves = Vec::new();
    for row in rows {
        let (ply, player, cell, at_ms) = row?;
        moves.push(RecordedMove {
            ply,
            player: parse_player(&player)?,
            cell: cell
                .parse()
                .map_err(|_| ServerError::Corrupt(format!("cell {cell:?}")))?,
            at_ms,
        });
    }
    Ok(Some(GameRecord {
        id: id.to_owned(),
        table_id,
        round,
        players: ByPlayer {
            x: record_player(x)?,
            o: record_player(o)?,
        },
        first: parse_player(&first)?,
        moves,
        outcome: outcome.map(|o| serde_json::from_str(&o)).transpose()?,
        started_at_ms,
        ended_at_ms,
    }))
}

/// `GET /api/games?player=&limit=`: finished games, newest first.
pub(crate) fn recent_games(
    conn: &Connection,
    player: Option<&str>,
    limit: u32,
) -> Result<Vec<GameSummary>, ServerError> {
    let sql_all = "SELECT id, x_name, o_name, outcome, moves, ended_ms FROM games
                   WHERE ended_ms IS NOT NULL ORDER BY ended_ms DESC LIMIT ?1";
    // No index by player (see the schema): look through the newest
    // finished games only.
    let sql_player = "SELECT id, x_name, o_name, outcome, moves, ended_ms FROM
                          (SELECT * FROM games WHERE ended_ms IS NOT NULL
                           ORDER BY ended_ms DESC LIMIT ?3)
                      WHERE x_id = ?2 OR o_id = ?2
                      ORDER BY ended_ms DESC LIMIT ?1";
    let map = |r: &rusqlite::Row<'_>| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, Option<String>>(3)?,
            r.get::<_, u32>(4)?,
            r.get::<_, i64>(5)?,
        ))
    };
    let rows: Vec<_> = match player {
        None => conn
            .prepare_cached(sql_all)?
            .query_map(params![limit], map)?
            .collect::<Result<_, _>>()?,
        Some(p) => conn
            .prepare_cached(sql_player)?
            .query_map(params![limit, p, PLAYER_SCAN], map)?
            .collect::<Result<_, _>>()?,
    };
    rows.into_iter()
        .map(|(id, x, o, outcome, moves, ended_at_ms)| {
            let outcome =
                outcome.ok_or_else(|| ServerError::Corrupt(format!("game {id} has no outcome")))?;
            Ok(GameSummary {
                id,
                players: ByPlayer { x, o },
                outcome: serde_json::from_str(&outcome)?,
                moves,
                ended_at_ms,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn writes_read_back_and_groups_are_atomic() {
        let metrics = Arc::new(Metrics::default());
        let (store, saved) = Store::open(&DbLocation::Memory, metrics).unwrap();
        assert!(saved.is_empty());
        let (_, hash) = crate::ids::new_token();
        store
            .commit(vec![Write::Player {
                id: "p1".into(),
                token_hash: hash,
                name: "Ann".into(),
            }])
            .await
            .unwrap();
        // A group whose second write fails leaves no trace of its first.
        let err = store
            .commit(vec![
                Write::PlayerName {
                    id: "p1".into(),
                    name: "Bea".into(),
                },
                Write::Player {
                    id: "p1".into(),
                    token_hash: hash,
                    name: "dup".into(),
                },
            ])
            .await;
        assert!(err.is_err());
        let row = store
            .read(move |c| player_by_token(c, hash))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(row.name, "Ann");
        store.close().await;
        assert!(matches!(
            store.commit(Vec::new()).await,
            Err(ServerError::StoreClosed)
        ));
    }
}
