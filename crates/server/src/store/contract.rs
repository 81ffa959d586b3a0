//! The [`Store`] trait: what the tables, the connections and the HTTP API
//! need from storage, and nothing of how an engine provides it.
//!
//! # Why a trait object
//!
//! The server holds an `Arc<dyn Store>`, chosen at run time from the
//! configuration (SQLite in a file or in memory today; PostgreSQL for a
//! cluster next, and `Memory` in tests). A generic
//! `Shared<S: Store>` would reach every handler, table and connection type
//! for no gain: a commit costs a disk flush, next to which one boxed future
//! per call is nothing. So the asynchronous methods return boxed futures
//! ([`BoxFuture`]), which keeps the trait dyn-compatible without a macro
//! crate.
//!
//! # What every store promises
//!
//! - [`Store::commit`] applies a batch of writes whole or not at all, and
//!   returns once they are durable: callers acknowledge a change to clients
//!   only after that.
//! - Keys come from [`Store::next_table_seq`] and [`Store::next_game_seq`]
//!   before the rows that use them are written, and never repeat.
//! - Reads see every commit that has returned.
//! - After [`Store::close`], writes and reads fail with
//!   [`ServerError::StoreClosed`].
//!
//! The tests in `conformance` hold every implementation to this.

use std::fmt;
use std::time::Duration;

use futures_util::future::BoxFuture;
use oxo_protocol::{GameRecord, GameSummary};

use super::rows::{GamesQuery, LeaderRow, PlayerRow, SavedTable, TableRow, Write};
use crate::error::ServerError;
use crate::ids::{TokenHash, now_ms};
use crate::log_pace::Pace;

/// `/healthz`'s probe of `store`: a write of the health row, which must be
/// durable within `limit`.
///
/// # Errors
///
/// Why it is not healthy, in a line.
pub(crate) async fn probe_write(
    store: &(impl Store + ?Sized),
    limit: Duration,
) -> Result<(), String> {
    let probe = vec![Write::HealthProbe { at_ms: now_ms() }];
    match tokio::time::timeout(limit, store.commit(probe)).await {
        Ok(result) => result.map_err(|e| e.to_string()),
        Err(_) => Err(format!(
            "the database did not take a write within {} ms",
            limit.as_millis()
        )),
    }
}

/// A store's answer, some time later.
pub(crate) type StoreFuture<'a, T> = BoxFuture<'a, Result<T, ServerError>>;

/// Durable storage of players, tables, games and moves.
pub(crate) trait Store: Send + Sync + fmt::Debug {
    /// A new table key.
    fn next_table_seq(&self) -> i64;

    /// A new game key.
    fn next_game_seq(&self) -> i64;

    /// Applies `writes` atomically and resolves once they are durable.
    ///
    /// # Errors
    ///
    /// The store's error (nothing of `writes` was applied), or
    /// [`ServerError::StoreClosed`] after [`Store::close`].
    fn commit(&self, writes: Vec<Write>) -> StoreFuture<'_, ()>;

    /// The player holding the token with this hash, if any.
    ///
    /// # Errors
    ///
    /// The store's error, or [`ServerError::Corrupt`] for a row that does
    /// not read back.
    fn player_by_token(&self, token_hash: TokenHash) -> StoreFuture<'_, Option<PlayerRow>>;

    /// `GET /api/games/{id}`: the record of game `id` as `asker` (the player
    /// id the request proved, if any) may see it (see
    /// [`GameRow::record`](super::rows::GameRow::record)).
    ///
    /// # Errors
    ///
    /// As [`Store::player_by_token`].
    fn game_record<'a>(
        &'a self,
        id: &'a str,
        asker: Option<&'a str>,
    ) -> StoreFuture<'a, Option<GameRecord>>;

    /// `GET /api/games`: finished games, newest first, that `query` lists
    /// (see [`GamesQuery::lists`]), looking at the newest
    /// [`PLAYER_SCAN`](super::rows::PLAYER_SCAN) at most.
    ///
    /// # Errors
    ///
    /// As [`Store::player_by_token`].
    fn recent_games(&self, query: GamesQuery) -> StoreFuture<'_, Vec<GameSummary>>;

    /// Whether the store takes writes now, answered within about `limit`.
    ///
    /// # Errors
    ///
    /// Why it is not healthy, in a line for `/healthz`.
    fn health(&self, limit: Duration) -> BoxFuture<'_, Result<(), String>>;

    /// Every table that is not closed, with its seated players and its
    /// current game replayed, for the tables to resume on start. A table
    /// that does not read back is skipped (and logged), not fatal.
    ///
    /// Synchronous, because start-up is ([`AppState::new`]): called once,
    /// before anything is served, and it may block.
    ///
    /// # Errors
    ///
    /// Only if the store cannot be read at all.
    ///
    /// [`AppState::new`]: crate::AppState::new
    fn unfinished_tables(&self) -> Result<Vec<SavedTable>, ServerError>;

    /// The rows of every table that is not closed, as
    /// [`Store::unfinished_tables`] reads them but without their players
    /// or games: what start-up needs before the server listens (the rest
    /// follows in the background, or per table with
    /// [`Store::unfinished_table`]). A row that does not read back is
    /// skipped (and logged).
    ///
    /// Synchronous, like [`Store::unfinished_tables`]. The default reads
    /// everything and keeps the rows: right for a store in memory.
    ///
    /// # Errors
    ///
    /// Only if the store cannot be read at all.
    fn unfinished_rows(&self) -> Result<Vec<TableRow>, ServerError> {
        Ok(self
            .unfinished_tables()?
            .into_iter()
            .map(|t| t.row)
            .collect())
    }

    /// [`Store::unfinished_tables`] with keys from `first` to `last`:
    /// start-up reads the tables it listed a batch at a time, so that what
    /// it reads at once stays small. The default reads every table: right
    /// for a store in memory.
    ///
    /// # Errors
    ///
    /// Only if the store cannot be read at all.
    fn unfinished_tables_between(
        &self,
        first: i64,
        last: i64,
    ) -> Result<Vec<SavedTable>, ServerError> {
        let mut tables = self.unfinished_tables()?;
        tables.retain(|t| (first..=last).contains(&t.row.seq));
        Ok(tables)
    }

    /// The unfinished table with key `seq`, read back whole as in
    /// [`Store::unfinished_tables`]: `None` if it is closed or gone. For a
    /// table needed before the background read of all of them reaches it,
    /// so it must not wait for that read. The default reads every table:
    /// right for a store in memory.
    ///
    /// # Errors
    ///
    /// The store's, or why the table does not read back.
    fn unfinished_table(&self, seq: i64) -> StoreFuture<'_, Option<SavedTable>> {
        let found = self
            .unfinished_tables()
            .map(|all| all.into_iter().find(|t| t.row.seq == seq));
        Box::pin(async move { found })
    }

    /// Cluster only: claims for this node (up to a batch of) the open
    /// tables whose owner's lease has run out (a node that died or
    /// stopped), and with `all` every open table (a new leader), raising
    /// their epochs, and reads them back to be resumed here. A store one
    /// server owns alone has nothing to claim.
    ///
    /// # Errors
    ///
    /// The store's.
    fn claim_orphans(&self, all: bool) -> StoreFuture<'_, Vec<SavedTable>> {
        let _ = all;
        Box::pin(async { Ok(Vec::new()) })
    }

    /// Cluster with a bus only, at a clean stop: hands this node's open
    /// tables (stopped by now) to the nodes `to`, in turn, raising each
    /// one's epoch and giving the new owner a fresh lease, so that each
    /// resumes its share at its next renewal ([`Store::renew_leases`])
    /// instead of the first node to claim taking them all. Returns how
    /// many it handed over; a store one server owns alone hands nothing.
    ///
    /// # Errors
    ///
    /// The store's.
    fn hand_over(&self, to: Vec<u16>) -> StoreFuture<'_, u64> {
        let _ = to;
        Box::pin(async { Ok(0) })
    }

    /// Cluster only: how long until the first lease of another node's open
    /// table runs out, on the database's clock (zero if one already has);
    /// `None` when no other node holds an open table. A node whose leases
    /// are renewed never runs out early, so a lease due before the next
    /// round is one a dead or stalled node left: claimed when it expires
    /// instead of up to a round later.
    ///
    /// # Errors
    ///
    /// The store's.
    fn next_expiry(&self) -> StoreFuture<'_, Option<Duration>> {
        Box::pin(async { Ok(None) })
    }

    /// Cluster only: whether the table `id` is open (stored, not closed).
    ///
    /// # Errors
    ///
    /// The store's.
    fn is_open<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        let _ = id;
        Box::pin(async { Ok(false) })
    }

    /// Cluster only: the lease epochs of the tables `seqs` that are stored
    /// (key, epoch); a table not stored yet is missing from the answer.
    ///
    /// # Errors
    ///
    /// The store's.
    fn epochs(&self, seqs: Vec<i64>) -> StoreFuture<'_, Vec<(i64, i64)>> {
        let _ = seqs;
        Box::pin(async { Ok(Vec::new()) })
    }

    /// Cluster only: who runs the open table `id`: `None` when it is
    /// closed or unknown, else its owner's node id and whether that
    /// owner's lease is still running (when not, the table is being taken
    /// over).
    ///
    /// # Errors
    ///
    /// The store's.
    fn owner_of<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<(u16, bool)>> {
        let _ = id;
        Box::pin(async { Ok(None) })
    }

    /// Cluster only: the open tables where `player` holds a seat in play
    /// (waiting for an opponent or playing a round), oldest first: the
    /// games a returning player is attached to again, wherever they run.
    ///
    /// # Errors
    ///
    /// The store's.
    fn seats_in_play<'a>(&'a self, player: &'a str) -> StoreFuture<'a, Vec<String>> {
        let _ = player;
        Box::pin(async { Ok(Vec::new()) })
    }

    /// Cluster only: whether `player` already holds `max` seats in play at
    /// tables other than `except`, on any node. A single server counts a
    /// player's seats in memory (`Account`), which in a cluster sees only
    /// the node's own tables. A store that cannot answer says `false`:
    /// the node's own count still holds.
    fn seats_full<'a>(
        &'a self,
        player: &'a str,
        except: &'a str,
        max: usize,
    ) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            match self.seats_in_play(player).await {
                Ok(tables) => tables.iter().filter(|t| t.as_str() != except).count() >= max,
                Err(e) => {
                    // Paced: while the database is down every join meets it.
                    static FAILED: Pace = Pace::new();
                    if let Some(skipped) = FAILED.check(std::time::Instant::now()) {
                        tracing::warn!(error = %e, skipped, "could not count a player's seats");
                    }
                    false
                }
            }
        })
    }

    /// Cluster only: reads back the tables `held` (key, epoch) that this
    /// node holds but does not run, to resume them.
    ///
    /// # Errors
    ///
    /// The store's.
    fn load_held(&self, held: Vec<(i64, i64)>) -> StoreFuture<'_, Vec<SavedTable>> {
        let _ = held;
        Box::pin(async { Ok(Vec::new()) })
    }

    /// Cluster only: becomes or stays the cluster's leader, serving at
    /// `addr`, if the post is free or already this node's; returns the
    /// leader. `None` for a store one server owns alone.
    ///
    /// # Errors
    ///
    /// The store's.
    fn lead<'a>(&'a self, addr: &'a str) -> StoreFuture<'a, Option<LeaderRow>> {
        let _ = addr;
        Box::pin(async { Ok(None) })
    }

    /// Cluster only: renews this node's table leases and returns the
    /// tables (key, epoch) it still holds; `None` for a store one server
    /// owns alone, where leases do not exist.
    ///
    /// # Errors
    ///
    /// The store's: the node cannot tell whether it still holds anything.
    fn renew_leases(&self) -> StoreFuture<'_, Option<Vec<(i64, i64)>>> {
        Box::pin(async { Ok(None) })
    }

    /// Finishes what is queued, makes it durable and releases the store
    /// (files, locks, connections). Later calls fail with
    /// [`ServerError::StoreClosed`].
    fn close(&self) -> BoxFuture<'_, ()>;
}
