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
//! tables filling up costs one message per watcher, not one per table; and
//! the messages are at least [`MIN_INTERVAL`] apart, so tables made and
//! left over and over (by one player, say) cost every watcher at most two
//! lists a second.

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
    /// A watcher came since the lobby was last sent (it was sent the
    /// lobby as it was then, which the last one sent may not be).
    joined: bool,
    seq: u64,
}

/// The lobby's tables and watchers.
#[derive(Debug, Default)]
pub(crate) struct Lobby {
    inner: Mutex<Inner>,
    changed: Notify,
}

impl Inner {
    /// Lists or updates `id`, run by `from` (`None`: this node); whether
    /// that changed anything (a move, say, changes no lobby entry).
    fn list(&mut self, id: &Arc<str>, table: LobbyTable, from: Option<u16>) -> bool {
        if let Some(e) = self.tables.get_mut(id) {
            if e.from == from && e.table == table {
                return false;
            }
            e.table = table;
            e.from = from;
            return true;
        }
        self.seq += 1;
        let seq = self.seq;
        self.tables
            .insert(Arc::clone(id), Entry { seq, table, from });
        true
    }
}

impl Lobby {
    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lists or updates a public table; watchers hear only of a change.
    pub(crate) fn upsert(&self, id: &Arc<str>, entry: LobbyTable) {
        let changed = self.lock().list(id, entry, None);
        if changed {
            self.changed.notify_one();
        }
    }

    /// Lists exactly `tables` as node `node`'s (a cluster with a bus):
    /// its tables that are missing go. A table this node runs stays its
    /// own: `node` may have lost it since (it was paused, and tells what it
    /// had); this node's table, when it stops here, leaves the lobby.
    /// Watchers hear only of a change.
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
            if inner.tables.get(&id).is_some_and(|e| e.from.is_none()) {
                continue;
            }
            changed |= inner.list(&id, table, Some(node));
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
        inner.joined = true;
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
/// The least time between two `lobby` messages.
pub(crate) const MIN_INTERVAL: Duration = Duration::from_millis(500);

pub(crate) async fn run(
    lobby: Arc<Lobby>,
    debounce: Duration,
    max_tables: usize,
    shutdown: CancellationToken,
) {
    // What the watchers were last sent: changes that cancel out within a
    // debounce, or a wake-up left by a change already sent, send nothing.
    let mut sent = None;
    let mut last = None;
    loop {
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = lobby.changed.notified() => {}
        }
        let mut at = tokio::time::Instant::now() + debounce;
        if let Some(last) = last {
            at = at.max(last + MIN_INTERVAL);
        }
        tokio::select! {
            () = shutdown.cancelled() => return,
            () = tokio::time::sleep_until(at) => {}
        }
        let (watchers, joined) = {
            let mut inner = lobby.lock();
            (inner.watchers.clone(), std::mem::take(&mut inner.joined))
        };
        if watchers.is_empty() {
            continue;
        }
        let tables = lobby.snapshot(max_tables);
        if !joined && sent.as_ref() == Some(&tables) {
            continue;
        }
        let frame = encode(&ServerMsg::Lobby {
            tables: tables.clone(),
        });
        sent = Some(tables);
        last = Some(tokio::time::Instant::now());
        for w in &watchers {
            w.send(frame.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use oxo_core::ByPlayer;
    use oxo_protocol::{TableId, TableOptions, TableStatus};

    use super::*;

    const DEBOUNCE: Duration = Duration::from_millis(20);

    fn entry(id: &str, status: TableStatus) -> LobbyTable {
        LobbyTable {
            id: TableId::from(Arc::<str>::from(id)),
            status,
            players: ByPlayer {
                x: Some("Ann".to_owned()),
                o: None,
            },
            spectators: 0,
            options: TableOptions::default(),
        }
    }

    /// The lobby frames `outbox` was sent, as their table ids.
    fn sent(outbox: &Outbox) -> Vec<Vec<String>> {
        std::iter::from_fn(|| outbox.try_recv())
            .map(|frame| {
                let ServerMsg::Lobby { tables } = serde_json::from_str(&frame).expect("a frame")
                else {
                    panic!("not a lobby: {frame}");
                };
                tables.iter().map(|t| t.id.to_string()).collect()
            })
            .collect()
    }

    async fn settle() {
        tokio::time::sleep(MIN_INTERVAL + DEBOUNCE * 3).await;
    }

    #[tokio::test(start_paused = true)]
    async fn a_stream_of_changes_is_sent_at_most_twice_a_second() {
        let lobby = Arc::new(Lobby::default());
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(run(Arc::clone(&lobby), DEBOUNCE, 100, shutdown.clone()));
        let ann = Outbox::new(1, 64, 1 << 20);
        lobby.watch(&ann);
        let mut lists = 0;
        // A table made and closed every 50 ms for 2 s.
        for i in 0..40 {
            let id: Arc<str> = Arc::from(format!("t{i}").as_str());
            lobby.upsert(&id, entry(&id, TableStatus::Waiting));
            tokio::time::sleep(Duration::from_millis(25)).await;
            lobby.remove(&id);
            tokio::time::sleep(Duration::from_millis(25)).await;
            lists += sent(&ann).len();
        }
        assert!((3..=5).contains(&lists), "{lists} lists in 2 s");
        shutdown.cancel();
        task.await.expect("the lobby task ends");
    }

    #[tokio::test(start_paused = true)]
    async fn watchers_hear_of_changes_only_and_a_new_watcher_of_the_latest() {
        let lobby = Arc::new(Lobby::default());
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(run(Arc::clone(&lobby), DEBOUNCE, 100, shutdown.clone()));
        let ann = Outbox::new(1, 64, 1 << 20);
        lobby.watch(&ann);
        let t: Arc<str> = Arc::from("t1");
        lobby.upsert(&t, entry("t1", TableStatus::Waiting));
        settle().await;
        assert_eq!(sent(&ann), [["t1"]]);
        // The same entry again (a move, say): nothing to send.
        lobby.upsert(&t, entry("t1", TableStatus::Waiting));
        settle().await;
        assert_eq!(sent(&ann), Vec::<Vec<String>>::new());
        lobby.remove("t1");
        settle().await;
        assert_eq!(sent(&ann), [Vec::<String>::new()]);
        // A table comes and goes within one debounce: for Ann nothing
        // changed, but Bob, watching in between, was shown it.
        let u: Arc<str> = Arc::from("t2");
        lobby.upsert(&u, entry("t2", TableStatus::Waiting));
        let bob = Outbox::new(2, 64, 1 << 20);
        lobby.watch(&bob);
        lobby.remove("t2");
        settle().await;
        assert_eq!(sent(&bob), [Vec::<String>::new()]);
        shutdown.cancel();
        task.await.expect("the lobby task ends");
    }

    /// A node's own table stays its own in its lobby when another node's
    /// list names it too (the table's old node, woken from a pause, sends
    /// the list it had before it stops the table): it stays listed here,
    /// and in what this node sends the others, when that node's next list
    /// no longer has it.
    #[test]
    fn another_nodes_stale_list_does_not_take_over_a_table_run_here() {
        let lobby = Lobby::default();
        let t: Arc<str> = Arc::from("t1");
        lobby.upsert(&t, entry("t1", TableStatus::InProgress));
        lobby.replace_remote(1, vec![entry("t1", TableStatus::InProgress)]);
        lobby.replace_remote(1, Vec::new());
        let ids = |tables: Vec<LobbyTable>| -> Vec<String> {
            tables.iter().map(|t| t.id.to_string()).collect()
        };
        assert_eq!(ids(lobby.snapshot(100)), ["t1"]);
        assert_eq!(ids(lobby.local_snapshot(100)), ["t1"]);
    }
}
