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
//! The parts, each in its own file:
//!
//! - this file: the [`Store`], its writer thread and group commit;
//! - `writes`: the row changes ([`Write`]) and the SQL that applies them;
//! - `schema`: opening the file, and the migrations;
//! - `lock`: one server per database file;
//! - `reads`: the queries of the HTTP API, and token look-ups;
//! - `recover`: unfinished tables read back on start.

mod lock;
mod reads;
mod recover;
mod schema;
mod writes;

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use rusqlite::{Connection, TransactionBehavior};
use tokio::sync::{mpsc, oneshot};

use crate::config::DbLocation;
use crate::error::{ServerError, describe};
use crate::metrics::Metrics;

pub(crate) use reads::{PlayerRow, game_record, player_by_token, recent_games};
pub(crate) use recover::SavedTable;
pub(crate) use writes::{GamePlayer, GameStart, TableRow, Write};

/// The most requests one group commit takes.
const MAX_BATCH: usize = 4096;

/// How recent a successful commit must be for [`Store::health`] to skip
/// its probe write.
const FRESH_COMMIT: Duration = Duration::from_secs(1);

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
    /// `None` for an in-memory database (reads go through the writer), and
    /// after [`Store::close`].
    reader: Mutex<Option<Arc<Reader>>>,
    writer: Mutex<Option<JoinHandle<()>>>,
    /// Written by the writer thread after each commit, read by `health`.
    last_commit: Arc<Mutex<LastCommit>>,
}

/// The outcome of the latest group commit.
#[derive(Debug, Default)]
struct LastCommit {
    /// When it finished; `None` before the first.
    at: Option<Instant>,
    /// Why it failed, if it did.
    error: Option<String>,
}

/// The read connection, and a share of the file lock.
///
/// The lock is shared by the reader and the writer thread and released
/// when both have closed their connections: closing its descriptor while
/// a SQLite connection of this process has the file open would drop that
/// connection's POSIX locks (see `lock`). Fields drop in order.
#[derive(Debug)]
struct Reader {
    conn: Mutex<Connection>,
    _lock: Option<Arc<lock::DbLock>>,
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

impl Store {
    /// Opens (creating if needed) and migrates the database, and starts the
    /// writer thread. Returns the store and the unfinished tables.
    pub(crate) fn open(
        location: &DbLocation,
        metrics: Arc<Metrics>,
    ) -> Result<(Store, Vec<SavedTable>), ServerError> {
        let mut opened = schema::open(location)?;
        schema::migrate(&mut opened.writer)?;
        let recovered = recover::load_open_tables(&opened.writer)?;
        for skipped in &recovered.skipped {
            tracing::warn!(
                table = %skipped.table,
                error = %skipped.error,
                "skipped an unfinished table that could not be read back; the others resume"
            );
        }
        let saved = recovered.tables;
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
            reader,
            lock,
        } = opened;
        let lock = lock.map(Arc::new);
        let reader = reader.map(|conn| {
            Arc::new(Reader {
                conn: Mutex::new(conn),
                _lock: lock.clone(),
            })
        });
        let (queue, rx) = mpsc::unbounded_channel();
        let last_commit = Arc::new(Mutex::new(LastCommit::default()));
        let record = Arc::clone(&last_commit);
        let writer = std::thread::Builder::new()
            .name("oxo-db-writer".into())
            .spawn(move || {
                writer_loop(conn, rx, &metrics, &record);
                // Only now that the connection has closed.
                drop(lock);
            })?;
        Ok((
            Store {
                queue,
                next_table: AtomicI64::new(next_table),
                next_game: AtomicI64::new(next_game),
                reader: Mutex::new(reader),
                writer: Mutex::new(Some(writer)),
                last_commit,
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

    /// Whether the database takes writes: `Ok` if a commit succeeded within
    /// the last second, else the outcome of a probe write that must commit
    /// within `limit`.
    ///
    /// # Errors
    ///
    /// Why the database is not healthy: the commit's error, or that it did
    /// not answer in time.
    pub(crate) async fn health(&self, limit: Duration) -> Result<(), String> {
        let fresh = self.last_commit.lock().is_ok_and(|last| {
            last.error.is_none() && last.at.is_some_and(|at| at.elapsed() < FRESH_COMMIT)
        });
        if fresh {
            return Ok(());
        }
        let probe = vec![Write::HealthProbe {
            at_ms: crate::ids::now_ms(),
        }];
        match tokio::time::timeout(limit, self.commit(probe)).await {
            Ok(result) => result.map_err(|e| e.to_string()),
            Err(_) => Err(format!(
                "the database did not take a write within {} ms",
                limit.as_millis()
            )),
        }
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
        let reader = self
            .reader
            .lock()
            .map_err(|_| ServerError::StoreClosed)?
            .clone();
        match reader {
            Some(reader) => tokio::task::spawn_blocking(move || {
                let conn = reader.conn.lock().map_err(|_| ServerError::StoreClosed)?;
                f(&conn)
            })
            .await
            .map_err(|_| ServerError::StoreClosed)?,
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
    /// stops the writer, closes the read connection and releases the file
    /// lock. Later reads and writes fail with [`ServerError::StoreClosed`].
    pub(crate) async fn close(&self) {
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
        let reader = self.reader.lock().ok().and_then(|mut r| r.take());
        drop(reader);
    }
}

fn writer_loop(
    mut conn: Connection,
    mut rx: mpsc::UnboundedReceiver<Op>,
    metrics: &Metrics,
    last_commit: &Mutex<LastCommit>,
) {
    let mut ops = Vec::with_capacity(256);
    while let Some(op) = rx.blocking_recv() {
        ops.push(op);
        while ops.len() < MAX_BATCH {
            match rx.try_recv() {
                Ok(op) => ops.push(op),
                Err(_) => break,
            }
        }
        let close = process(&mut conn, &mut ops, metrics, last_commit);
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
    last_commit: &Mutex<LastCommit>,
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
        // A failed transaction fails every group with `CommitFailed`; a
        // group refused on its own (a constraint) says nothing of health.
        let error = results.iter().find_map(|r| match r {
            Err(ServerError::CommitFailed(e)) => Some(e.clone()),
            _ => None,
        });
        if let Ok(mut last) = last_commit.lock() {
            *last = LastCommit {
                at: Some(Instant::now()),
                error,
            };
        }
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
                Err(e) => Err(ServerError::CommitFailed(describe(e))),
            })
            .collect()
    };
    let fast = (|| -> Result<Result<(), rusqlite::Error>, rusqlite::Error> {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        for (writes, _) in groups {
            for w in writes {
                if let Err(e) = writes::apply(&tx, w) {
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
                    let applied = writes.iter().try_for_each(|w| writes::apply(&sp, w));
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
