//! The lobby: public tables that are open, and the connections watching them.
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

#[derive(Debug, Default)]
struct Inner {
    /// Entry and the order it was first listed in.
    tables: HashMap<Arc<str>, (u64, LobbyTable)>,
    watchers: Vec<Arc<Outbox>>,
    seq: u64,
}

/// The lobby's tables and watchers.
#[derive(Debug, Default)]
pub(crate) struct Lobby {
    inner: Mutex<Inner>,
    changed: Notify,
}

impl Lobby {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lists or updates a public table.
    pub(crate) fn upsert(&self, id: &Arc<str>, entry: LobbyTable) {
        let mut inner = self.lock();
        inner.seq += 1;
        let seq = inner.seq;
        inner
            .tables
            .entry(Arc::clone(id))
            .and_modify(|e| e.1 = entry.clone())
            .or_insert((seq, entry));
        drop(inner);
        self.changed.notify_one();
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
        let inner = self.lock();
        let mut entries: Vec<&(u64, LobbyTable)> = inner.tables.values().collect();
        entries.sort_by_key(|(seq, t)| (t.status != TableStatus::Waiting, *seq));
        entries
            .into_iter()
            .take(max)
            .map(|(_, t)| t.clone())
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
