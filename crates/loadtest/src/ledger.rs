//! What the game drivers saw and had acknowledged during a crash test: the
//! ledger the crash test checks the server's records against. A leaf: the
//! game drivers write it, the crash test reads it, neither imports the
//! other for it.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Mutex;

use oxo_core::Square;
use oxo_protocol::{GameId, TableId};

/// One acknowledged move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Acked {
    pub(crate) table_id: TableId,
    pub(crate) game_id: Option<GameId>,
    pub(crate) round: u32,
    pub(crate) ply: u32,
    pub(crate) cell: Square,
}

/// What the game drivers saw and had acknowledged, for the checks.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    inner: Mutex<Inner>,
}

#[derive(Debug, Default)]
pub(crate) struct Inner {
    pub(crate) acked: Vec<Acked>,
    /// Game id → (table id, round, the token of a player of it: the load
    /// tool's tables are private, and only their players see which table a
    /// game was played at).
    pub(crate) games: BTreeMap<GameId, (TableId, u32, String)>,
    /// Acknowledged moves per table.
    pub(crate) progress: HashMap<TableId, u64>,
    /// Tables being played now.
    pub(crate) open: HashSet<TableId>,
    pub(crate) in_doubt: u64,
    pub(crate) resumed: u64,
    pub(crate) resume_failed: u64,
}

impl Ledger {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().expect("ledger lock is never poisoned")
    }

    /// A `table` event seen by the player holding `token`: remembers the
    /// game id of the round.
    pub(crate) fn seen(
        &self,
        table_id: &TableId,
        game_id: &Option<GameId>,
        round: u32,
        token: &str,
    ) {
        if let Some(g) = game_id {
            let mut inner = self.lock();
            if !inner.games.contains_key(g) {
                let seen = (table_id.clone(), round, token.to_owned());
                inner.games.insert(g.clone(), seen);
            }
        }
    }

    /// A move's `ok` arrived.
    pub(crate) fn ack(
        &self,
        table_id: &TableId,
        game_id: Option<GameId>,
        round: u32,
        ply: u32,
        cell: Square,
    ) {
        let mut inner = self.lock();
        *inner.progress.entry(table_id.clone()).or_default() += 1;
        inner.acked.push(Acked {
            table_id: table_id.clone(),
            game_id,
            round,
            ply,
            cell,
        });
    }

    /// A move was in flight when its connection dropped.
    pub(crate) fn in_doubt(&self) {
        self.lock().in_doubt += 1;
    }

    /// A seat came back after a reconnect (`true`) or lost its seat.
    pub(crate) fn resumed(&self, ok: bool) {
        let mut inner = self.lock();
        if ok {
            inner.resumed += 1;
        } else {
            inner.resume_failed += 1;
        }
    }

    /// A game driver starts playing `table_id`.
    pub(crate) fn open(&self, table_id: &TableId) {
        self.lock().open.insert(table_id.clone());
    }

    /// A game driver stops playing `table_id`.
    pub(crate) fn close(&self, table_id: &TableId) {
        self.lock().open.remove(table_id);
    }

    pub(crate) fn progress(&self) -> HashMap<TableId, u64> {
        self.lock().progress.clone()
    }
}
