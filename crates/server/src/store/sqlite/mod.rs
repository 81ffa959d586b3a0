//! The SQLite store: one writer thread with group commit, and a read
//! connection beside it.
//!
//! # Durability
//!
//! A move is acknowledged only after the transaction holding it has
//! committed. The database runs in WAL mode with `synchronous=FULL`, so a
//! commit has reached the disk (the WAL is fsynced) before `COMMIT` returns:
//! an acknowledged move survives `kill -9` and power loss alike.
//!
//! Writes go through the writer thread (see `writer` for why one thread and
//! group commit). Reads use two more connections on the blocking pool; WAL
//! lets them run beside the writer. The HTTP API's queries have one (a list
//! of games may walk down 100,000 of them), and token look-ups the other:
//! a flood of slow API requests must not keep a returning player's `hello`
//! waiting. An in-memory database has one connection only, so there reads
//! go through the writer thread.
//!
//! # Health
//!
//! The writer records the outcome of every group commit. `/healthz` asks
//! [`Store::health`]: healthy at once if a commit succeeded within the last
//! second, otherwise only if a probe write (one row of `health`) commits
//! within the caller's time limit. So it answers for what matters, whether
//! the database takes writes now; while it does, that costs at most about
//! one tiny commit per second (probes that arrive together share one).
//!
//! # Layout
//!
//! - this file: [`Sqlite`], its connections, and the [`Store`] methods;
//! - `writer`: the writer thread and group commit;
//! - `writes`: the SQL of each row change;
//! - `reads`: the queries of the HTTP API, and token look-ups;
//! - `recover`: unfinished tables read back on start;
//! - `schema`: opening the file, and the migrations;
//! - `lock`: one server per database file;
//! - `error`: SQLite's failures, told in a line.

mod chat;
mod earlier;
mod error;
mod lock;
mod reads;
mod recover;
mod schema;
mod scope;
#[cfg(test)]
pub(crate) mod temp;
mod writer;
mod writes;

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use oxo_protocol::{GameRecord, GameSummary};
use rusqlite::Connection;
use tokio::sync::{mpsc, oneshot};

use self::scope::Scope;
use self::writer::{LastCommit, Op, ReadJob};
use crate::config::DbLocation;
use crate::error::ServerError;
use crate::ids::TokenHash;
use crate::metrics::Metrics;
use crate::store::contract::{Store, StoreFuture, probe_write};
use crate::store::rows::{GamesQuery, PlayerRow, SavedTable, TableRow, Write};

/// How recent a successful commit must be for [`Store::health`] to skip
/// its probe write.
const FRESH_COMMIT: Duration = Duration::from_secs(1);

/// The database: a writer thread fed by a queue, and two read connections.
#[derive(Debug)]
pub(crate) struct Sqlite {
    queue: mpsc::UnboundedSender<Op>,
    /// The next integer keys of tables and games (assigned here so that a
    /// row's key is known before its insert commits).
    next_table: AtomicI64,
    next_game: AtomicI64,
    /// The read connections: `None` for an in-memory database (reads go
    /// through the writer), and after [`Store::close`].
    readers: Mutex<Option<Readers>>,
    writer: Mutex<Option<JoinHandle<()>>>,
    /// Written by the writer thread after each commit, read by `health`.
    last_commit: Arc<Mutex<LastCommit>>,
}

/// The two read connections, each for its own kind of read (see the
/// module's docs).
#[derive(Clone, Debug)]
struct Readers {
    /// The HTTP API's queries, and reading tables back on start.
    api: Arc<Reader>,
    /// Token look-ups: short, and never behind the API's.
    lookups: Arc<Reader>,
}

/// Which read connection a read takes.
#[derive(Clone, Copy, Debug)]
enum On {
    Api,
    Lookups,
}

/// A read connection, and a share of the file lock.
///
/// The lock is shared by the readers and the writer thread and released
/// when all have closed their connections: closing its descriptor while
/// a SQLite connection of this process has the file open would drop that
/// connection's POSIX locks (see `lock`). Fields drop in order.
#[derive(Debug)]
struct Reader {
    conn: Mutex<Connection>,
    _lock: Option<Arc<lock::DbLock>>,
}

impl Sqlite {
    /// Opens (creating if needed) and migrates the database, and starts the
    /// writer thread, which records its commits in `metrics`.
    ///
    /// # Errors
    ///
    /// A database file that is not this server's to write is refused
    /// before anything is written to it: [`ServerError::DatabaseInUse`],
    /// [`ServerError::ForeignDatabase`], [`ServerError::SchemaTooNew`],
    /// [`ServerError::ReadOnlyDatabase`], or a database error such as "file
    /// is not a database". A database error also if it cannot be migrated.
    pub(crate) fn open(
        location: &DbLocation,
        metrics: Arc<Metrics>,
    ) -> Result<Sqlite, ServerError> {
        let mut opened = schema::open(location)?;
        schema::migrate(&mut opened.writer)?;
        let max = |table: &str| -> Result<i64, ServerError> {
            Ok(opened.writer.query_row(
                &format!("SELECT COALESCE(MAX(seq), 0) FROM {table}"),
                [],
                |r| r.get::<_, i64>(0),
            )?)
        };
        let (next_table, next_game) = (max("tables")? + 1, max("games")? + 1);
        let schema::Opened {
            writer: conn,
            readers,
            lock,
        } = opened;
        let lock = lock.map(Arc::new);
        let reader = |conn| {
            Arc::new(Reader {
                conn: Mutex::new(conn),
                _lock: lock.clone(),
            })
        };
        let readers = readers.map(|[api, lookups]| Readers {
            api: reader(api),
            lookups: reader(lookups),
        });
        let (queue, rx) = mpsc::unbounded_channel();
        let last_commit = Arc::new(Mutex::new(LastCommit::default()));
        let record = Arc::clone(&last_commit);
        let writer = std::thread::Builder::new()
            .name("oxo-db-writer".into())
            .spawn(move || {
                writer::writer_loop(conn, rx, &metrics, &record);
                // Only now that the connection has closed.
                drop(lock);
            })?;
        Ok(Sqlite {
            queue,
            next_table: AtomicI64::new(next_table),
            next_game: AtomicI64::new(next_game),
            readers: Mutex::new(readers),
            writer: Mutex::new(Some(writer)),
            last_commit,
        })
    }

    /// The read connection `on`, if this database has them and is open.
    fn reader(&self, on: On) -> Result<Option<Arc<Reader>>, ServerError> {
        let readers = self.readers.lock().map_err(|_| ServerError::StoreClosed)?;
        Ok(readers.as_ref().map(|r| match on {
            On::Api => Arc::clone(&r.api),
            On::Lookups => Arc::clone(&r.lookups),
        }))
    }

    /// Runs `f` on the writer's connection, between group commits; `send`
    /// passes `f`'s result to the waiting caller.
    fn read_on_writer<T, F>(
        &self,
        f: F,
        send: impl FnOnce(T) + Send + 'static,
    ) -> Result<(), ServerError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> T + Send + 'static,
    {
        let job: ReadJob = Box::new(move |conn| send(f(conn)));
        self.queue
            .send(Op::Read(job))
            .map_err(|_| ServerError::StoreClosed)
    }

    /// Runs `f` on the read connection `on`, on the blocking pool.
    ///
    /// # Errors
    ///
    /// `f`'s error, or [`ServerError::StoreClosed`].
    async fn read<T, F>(&self, on: On, f: F) -> Result<T, ServerError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, ServerError> + Send + 'static,
    {
        match self.reader(on)? {
            Some(reader) => tokio::task::spawn_blocking(move || {
                let conn = reader.conn.lock().map_err(|_| ServerError::StoreClosed)?;
                f(&conn)
            })
            .await
            .map_err(|_| ServerError::StoreClosed)?,
            None => self.on_writer(f).await,
        }
    }

    /// Runs `f` on the writer's connection, between group commits.
    ///
    /// # Errors
    ///
    /// `f`'s error, or [`ServerError::StoreClosed`].
    async fn on_writer<T, F>(&self, f: F) -> Result<T, ServerError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, ServerError> + Send + 'static,
    {
        let (tx, rx) = oneshot::channel();
        self.read_on_writer(f, move |result| {
            let _ = tx.send(result);
        })?;
        rx.await.map_err(|_| ServerError::StoreClosed)?
    }

    /// [`Sqlite::read`] on the API's connection, on the calling thread,
    /// which it blocks: for start-up.
    fn read_now<T, F>(&self, f: F) -> Result<T, ServerError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, ServerError> + Send + 'static,
    {
        match self.reader(On::Api)? {
            Some(reader) => {
                let conn = reader.conn.lock().map_err(|_| ServerError::StoreClosed)?;
                f(&conn)
            }
            None => {
                let (tx, rx) = std::sync::mpsc::channel();
                self.read_on_writer(f, move |result| {
                    let _ = tx.send(result);
                })?;
                rx.recv().map_err(|_| ServerError::StoreClosed)?
            }
        }
    }

    async fn health_check(&self, limit: Duration) -> Result<(), String> {
        let fresh = self.last_commit.lock().is_ok_and(|last| {
            last.error.is_none()
                && last
                    .at
                    .is_some_and(|at: Instant| at.elapsed() < FRESH_COMMIT)
        });
        if fresh {
            return Ok(());
        }
        probe_write(self, limit).await
    }

    async fn shut(&self) {
        let (tx, rx) = oneshot::channel();
        if self.queue.send(Op::Close(tx)).is_ok() {
            let _ = rx.await;
        }
        let handle = self.writer.lock().ok().and_then(|mut h| h.take());
        if let Some(handle) = handle {
            let _ = tokio::task::spawn_blocking(move || handle.join()).await;
        }
        // The file lock goes with the last connection: now, unless a read
        // is still running.
        let readers = self.readers.lock().ok().and_then(|mut r| r.take());
        drop(readers);
    }
}

impl Store for Sqlite {
    fn next_table_seq(&self) -> i64 {
        self.next_table.fetch_add(1, Ordering::Relaxed)
    }

    fn next_game_seq(&self) -> i64 {
        self.next_game.fetch_add(1, Ordering::Relaxed)
    }

    fn commit(&self, writes: Vec<Write>) -> StoreFuture<'_, ()> {
        let (tx, rx) = oneshot::channel();
        let queued = self.queue.send(Op::Group(writes, tx));
        Box::pin(async move {
            queued.map_err(|_| ServerError::StoreClosed)?;
            rx.await.map_err(|_| ServerError::StoreClosed)?
        })
    }

    fn player_by_token(&self, token_hash: TokenHash) -> StoreFuture<'_, Option<PlayerRow>> {
        Box::pin(self.read(On::Lookups, move |c| reads::player_by_token(c, token_hash)))
    }

    fn game_record<'a>(
        &'a self,
        id: &'a str,
        asker: Option<&'a str>,
    ) -> StoreFuture<'a, Option<GameRecord>> {
        let (id, asker) = (id.to_owned(), asker.map(str::to_owned));
        Box::pin(self.read(On::Api, move |c| {
            reads::game_record(c, &id, asker.as_deref())
        }))
    }

    fn recent_games(&self, query: GamesQuery) -> StoreFuture<'_, Vec<GameSummary>> {
        Box::pin(self.read(On::Api, move |c| reads::recent_games(c, &query)))
    }

    fn health(&self, limit: Duration) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(self.health_check(limit))
    }

    fn unfinished_tables(&self) -> Result<Vec<SavedTable>, ServerError> {
        // On the reader's connection (the writer's without one): the
        // writer stays free for commits and for the tables asked for
        // meanwhile (`unfinished_table`).
        Ok(logged(
            self.read_now(|c| recover::load_open_tables(c, Scope::All))?,
        ))
    }

    fn unfinished_tables_between(
        &self,
        first: i64,
        last: i64,
    ) -> Result<Vec<SavedTable>, ServerError> {
        Ok(logged(self.read_now(move |c| {
            recover::load_open_tables(c, Scope::Keys(first, last))
        })?))
    }

    fn unfinished_rows(&self) -> Result<Vec<TableRow>, ServerError> {
        Ok(logged(self.read_now(recover::load_open_rows)?))
    }

    fn unfinished_table(&self, seq: i64) -> StoreFuture<'_, Option<SavedTable>> {
        // On the writer's connection: the reader may be busy reading every
        // table (see `resume`), which this one must not wait for.
        Box::pin(async move {
            let mut recovered = self
                .on_writer(move |c| recover::load_open_tables(c, Scope::Keys(seq, seq)))
                .await?;
            match recovered.skipped.pop() {
                Some(skipped) => Err(skipped.error),
                None => Ok(recovered.tables.pop()),
            }
        })
    }

    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(self.shut())
    }
}

/// The tables recovery read back, with a warning for each it skipped.
fn logged<T>(recovered: recover::Recovered<T>) -> Vec<T> {
    for skipped in &recovered.skipped {
        tracing::warn!(
            table = %skipped.table,
            error = %skipped.error,
            "skipped an unfinished table that could not be read back; the others resume"
        );
    }
    recovered.tables
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::sqlite::temp::TempDb;

    /// A slow query of the HTTP API (a list of games walks down up to
    /// 100,000 of them) holds its read connection; a returning player's
    /// token look-up must not wait for it, or a flood of such requests
    /// keeps players from reconnecting.
    #[tokio::test]
    async fn a_token_look_up_does_not_wait_for_the_apis_reads() {
        let db = TempDb::new("lookups");
        let store = Sqlite::open(&DbLocation::File(db.path()), Arc::new(Metrics::default()))
            .expect("a new database");
        let api = store
            .reader(On::Api)
            .expect("open")
            .expect("a file has a read connection");
        // A slow API query: a thread holds the API's connection until told.
        let (held, is_held) = std::sync::mpsc::channel();
        let (release, released) = std::sync::mpsc::channel::<()>();
        let query = std::thread::spawn(move || {
            let _busy = api.conn.lock().expect("the API's read connection");
            held.send(()).expect("the test waits");
            let _ = released.recv();
        });
        is_held.recv().expect("the connection is held");
        let found =
            tokio::time::timeout(Duration::from_secs(5), store.player_by_token([7; 32])).await;
        drop(release);
        query.join().expect("the slow query ends");
        let found = found
            .expect("the look-up does not wait for the API's read")
            .expect("a look-up");
        assert!(found.is_none());
        store.shut().await;
    }
}
