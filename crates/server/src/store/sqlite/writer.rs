//! The writer thread: the one connection that writes, fed by a queue, and
//! group commit.
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
//! The thread records the outcome of every group commit ([`LastCommit`]) for
//! the health check. It owns nothing else: opening the file is `schema`'s
//! job, and the SQL of each write is `writes`'.

use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::Instant;

use rusqlite::{Connection, TransactionBehavior};
use tokio::sync::{mpsc, oneshot};

use super::error::describe;
use super::writes;
use crate::error::ServerError;
use crate::log_pace::Pace;
use crate::metrics::Metrics;
use crate::store::rows::Write;

/// The most requests one group commit takes.
const MAX_BATCH: usize = 4096;

/// Where a write group's result goes once its commit is done.
pub(super) type Done = oneshot::Sender<Result<(), ServerError>>;
/// A read run on the writer's connection.
pub(super) type ReadJob = Box<dyn FnOnce(&Connection) + Send>;

/// What the writer thread is asked to do.
pub(super) enum Op {
    /// Writes applied together (all or none), answered after the commit.
    Group(Vec<Write>, Done),
    /// A read, for in-memory databases (one connection).
    Read(ReadJob),
    /// Finish what is queued, checkpoint and stop.
    Close(oneshot::Sender<()>),
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

/// The outcome of the latest group commit.
#[derive(Debug, Default)]
pub(super) struct LastCommit {
    /// When it finished; `None` before the first.
    pub(super) at: Option<Instant>,
    /// Why it failed, if it did.
    pub(super) error: Option<String>,
}

/// Runs the writer until it is told to close or the queue's senders are
/// gone; checkpoints the WAL into the main file before returning.
pub(super) fn writer_loop(
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
type Groups = Vec<(Vec<Write>, Done)>;

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
        Ok(Ok(())) => {
            commit_succeeded();
            all(&Ok(()))
        }
        Err(e) => {
            commit_failed(&e);
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
                            results.push(Err(ServerError::from(e)));
                        }
                    }
                }
                tx.commit()
            })();
            match slow {
                Ok(()) => {
                    commit_succeeded();
                    results
                }
                Err(e) => {
                    commit_failed(&e);
                    all(&Err(e))
                }
            }
        }
    }
}

/// Group commits failing (while the disk is full every one does), for a
/// paced log (see [`crate::log_pace`]).
static COMMITS_FAILING: Pace = Pace::new();

/// Logs a failed group commit, paced.
fn commit_failed(e: &dyn std::fmt::Display) {
    if let Some(skipped) = COMMITS_FAILING.check(Instant::now()) {
        tracing::error!(error = %e, skipped, "group commit failed");
    }
}

/// Logs, once, that group commits succeed again after failing.
fn commit_succeeded() {
    if let Some(failures) = COMMITS_FAILING.clear() {
        tracing::info!(failures, "group commits succeed again");
    }
}
