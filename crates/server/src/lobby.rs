//! The lobby: public tables that are open, and the connections watching them.
//!
//! In a cluster with a bus, the lobby also holds the public tables of the
//! other nodes, as each sends them (see `bus`): a table is listed under the
//! node that last said it runs it.
//!
//! Tables publish their lobby entry only when it changes (seats, status,
//! spectators; never on a move), and the lobby task gathers changes for
//! [`Config::lobby_debounce`](crate::Config::lobby_debounce) before it sends
//! one `lobby` message, serialized once, to every watcher. So a burst of
//! tables filling up costs one message per watcher, not one per table.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use oxo_protocol::{LobbyTable, ServerMsg, TableStatus};
use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

use crate::conn::{Outbox, encode};

/// One listed table.
#[derive(Debug)]
struct Entry {
    /// The order it was first listed in.
    seq: u64,
    table: LobbyTable,
    /// The node that runs it, if another one.
    from: Option<u16>,
}

#[derive(Debug, Default)]
struct Inner {
    tables: HashMap<Arc<str>, Entry>,
    watchers: Vec<Arc<Outbox>>,
    seq: u64,
}

/// The lobby's tables and watchers.
#[derive(Debug, Default)]
pub(crate) struct Lobby {
    inner: Mutex<Inner>,
    changed: Notify,
}

impl Inner {
    /// Lists or updates `id`, run by `from` (`None`: this node).
    fn list(&mut self, id: &Arc<str>, table: LobbyTable, from: Option<u16>) {
        self.seq += 1;
        let seq = self.seq;
        self.tables
            .entry(Arc::clone(id))
            .and_modify(|e| {
                e.table = table.clone();
                e.from = from;
            })
            .or_insert(Entry { seq, table, from });
    }
}

impl Lobby {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lists or updates a public table.
    pub(crate) fn upsert(&self, id: &Arc<str>, entry: LobbyTable) {
        let mut inner = self.lock();
        inner.list(id, entry, None);
        drop(inner);
        self.changed.notify_one();
    }

    /// Lists exactly `tables` as node `node`'s (a cluster with a bus):
    /// its tables that are missing go. Watchers hear only of a change.
    pub(crate) fn replace_remote(&self, node: u16, tables: Vec<LobbyTable>) {
        let mut inner = self.lock();
        let before = inner.tables.len();
        let ids: std::collections::HashSet<&str> = tables.iter().map(|t| t.id.as_str()).collect();
        inner
            .tables
            .retain(|id, e| e.from != Some(node) || ids.contains(&**id));
        let mut changed = inner.tables.len() != before;
        for table in tables {
            let id: Arc<str> = Arc::from(table.id.as_str());
            let same = inner
                .tables
                .get(&id)
                .is_some_and(|e| e.from == Some(node) && e.table == table);
            if !same {
                inner.list(&id, table, Some(node));
                changed = true;
            }
        }
        drop(inner);
        if changed {
            self.changed.notify_one();
        }
    }

    /// This node's own public tables, as [`Lobby::snapshot`] orders them.
    pub(crate) fn local_snapshot(&self, max: usize) -> Vec<LobbyTable> {
        self.listed(max, |e| e.from.is_none())
    }

    /// Removes a table (closed).
    pub(crate) fn remove(&self, id: &str) {
        let removed = self.lock().tables.remove(id).is_some();
        if removed {
            self.changed.notify_one();
        }
    }

    /// Waiting tables first, then those being played, each oldest first; at
    /// most `max`.
    pub(crate) fn snapshot(&self, max: usize) -> Vec<LobbyTable> {
        self.listed(max, |_| true)
    }

    fn listed(&self, max: usize, pick: impl Fn(&Entry) -> bool) -> Vec<LobbyTable> {
        let inner = self.lock();
        let mut entries: Vec<&Entry> = inner.tables.values().filter(|e| pick(e)).collect();
        entries.sort_by_key(|e| (e.table.status != TableStatus::Waiting, e.seq));
        entries
            .into_iter()
            .take(max)
            .map(|e| e.table.clone())
            .collect()
    }

    /// Adds a watcher; returns false if it was watching already.
    pub(crate) fn watch(&self, outbox: &Arc<Outbox>) -> bool {
        let mut inner = self.lock();
        if inner.watchers.iter().any(|w| w.id == outbox.id) {
            return false;
        }
        inner.watchers.push(Arc::clone(outbox));
        true
    }

    /// Removes a watcher; returns whether it was watching.
    pub(crate) fn unwatch(&self, id: u64) -> bool {
        let mut inner = self.lock();
        let before = inner.watchers.len();
        inner.watchers.retain(|w| w.id != id);
        inner.watchers.len() != before
    }
}

/// Sends the lobby to its watchers after each burst of changes: waits
/// `debounce` after a change, then sends one `lobby` message of at most
/// `max_tables` tables. Stops when `shutdown` is cancelled.
pub(crate) async fn run(
    lobby: Arc<Lobby>,
    debounce: Duration,
    max_tables: usize,
    shutdown: CancellationToken,
) {
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = lobby.changed.notified() => {}
        }
        tokio::time::sleep(debounce).await;
        let watchers = lobby.lock().watchers.clone();
        if watchers.is_empty() {
            continue;
        }
        let frame = encode(&ServerMsg::Lobby {
            tables: lobby.snapshot(max_tables),
        });
        for w in &watchers {
            w.send(frame.clone());
        }
    }
}
