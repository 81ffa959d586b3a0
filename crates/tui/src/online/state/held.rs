//! The tables where the player holds a seat in play, as the `welcome`
//! lists them (`docs/protocol.md`, `welcome.tables`), shown at the top of
//! the lobby to open.
//!
//! The `hello` with the player's token re-attaches every such seat, and
//! the server sends their states after the welcome: at the start and after
//! every reconnect. Those states do not open their tables (a player in the
//! lobby stays there, whatever they hold); they keep the lobby's rows up to
//! date, and Enter opens one (`join_table` re-attaches a seat held).
//!
//! This file also owns what happens when a seat of mine goes away without
//! my asking here: given up in another window (the server sends this
//! connection the same final state, and it is no longer at the table).

use oxo_protocol::{LobbyTable, TableId, TableState, TableStatus};

use super::Online;
use crate::text::truncate;

/// A table where I hold a seat in play, and its latest state, if one came.
#[derive(Debug)]
pub(crate) struct Held {
    pub(crate) id: TableId,
    pub(crate) state: Option<TableState>,
}

/// What the player is told when a seat of theirs was given up elsewhere.
pub(super) const LEFT_ELSEWHERE: &str = "You left this table in another window";

impl Online {
    /// The welcome lists `tables` as held: the lobby lists them, with the
    /// states already known of those still held.
    pub(super) fn hold(&mut self, tables: Vec<TableId>) {
        let before = self.selected_table();
        let mut old = std::mem::take(&mut self.held);
        self.held = tables
            .into_iter()
            .map(|id| {
                let state = old
                    .iter_mut()
                    .find(|h| h.id == id)
                    .and_then(|h| h.state.take());
                Held { id, state }
            })
            .collect();
        self.follow_selection(before.as_ref());
    }

    /// A state of a table not shown: if it is one I hold, it updates its
    /// row (or ends it, once the seat is no longer mine) and `true` says
    /// it is not to open.
    pub(super) fn held_state(&mut self, table: &TableState) -> bool {
        let still_mine = self.seat_at(table).is_some() && table.status != TableStatus::Closed;
        let Some(at) = self.held.iter().position(|h| h.id == table.id) else {
            return false;
        };
        if still_mine {
            let old = self.held[at].state.replace(table.clone());
            if let Some(said) = self.move_elsewhere(old.as_ref(), table) {
                self.message = said;
            }
        } else {
            let before = self.selected_table();
            self.held.remove(at);
            self.follow_selection(before.as_ref());
        }
        true
    }

    /// What to tell me when the state `new` of a table I hold, not shown,
    /// makes it my move there (its state before was `old`): which table
    /// (by my opponent), and in the lobby how to open it.
    fn move_elsewhere(&self, old: Option<&TableState>, new: &TableState) -> Option<String> {
        let mine = self.seat_at(new)?;
        if new.status != TableStatus::InProgress || new.turn != Some(mine) {
            return None;
        }
        let same = old.is_some_and(|o| {
            o.status == new.status && o.round == new.round && o.move_number == new.move_number
        });
        if same {
            return None;
        }
        let vs = new.players[!mine]
            .as_ref()
            .map_or_else(String::new, |p| format!(" vs {}", truncate(&p.name, 24)));
        Some(if self.table.is_some() {
            format!("Your move at your other table{vs}")
        } else {
            format!("Your move at your table{vs} (Enter on its row)")
        })
    }

    /// My seat at table `id` is given up: it is no longer listed.
    pub(super) fn let_go(&mut self, id: &TableId) {
        let before = self.selected_table();
        self.held.retain(|h| h.id != *id);
        self.follow_selection(before.as_ref());
    }

    /// Whether the state `new` of the table shown says that my seat there
    /// was given up elsewhere (another window left): I held one in `old`,
    /// and hold none now.
    pub(super) fn seat_gone(&self, old: &TableState, new: &TableState) -> bool {
        old.id == new.id && self.seat_at(old).is_some() && self.seat_at(new).is_none()
    }

    /// The lobby's rows: the tables held, then the open ones.
    pub(crate) fn lobby_rows(&self) -> usize {
        self.held.len() + self.open_tables().count()
    }

    /// The open tables the lobby lists below the tables held: the public
    /// lobby's, less those I hold a seat at (listed once, as mine).
    pub(crate) fn open_tables(&self) -> impl Iterator<Item = &LobbyTable> {
        self.lobby
            .iter()
            .filter(|t| !self.held.iter().any(|h| h.id == t.id))
    }

    /// The table of the lobby's selected row, if any.
    pub(super) fn selected_table(&self) -> Option<TableId> {
        match self.selected.checked_sub(self.held.len()) {
            None => self.held.get(self.selected).map(|h| h.id.clone()),
            Some(open) => self.open_tables().nth(open).map(|t| t.id.clone()),
        }
    }

    /// The lobby's row of table `id`, if it is listed.
    fn row_of(&self, id: &TableId) -> Option<usize> {
        self.held.iter().position(|h| h.id == *id).or_else(|| {
            self.open_tables()
                .position(|t| t.id == *id)
                .map(|open| self.held.len() + open)
        })
    }

    /// The lobby's rows changed: the selection stays on the table `before`
    /// (the one it was on), wherever its row is now. If that table is no
    /// longer listed the selection stays where it was (on a row), and
    /// `false` says so.
    pub(super) fn follow_selection(&mut self, before: Option<&TableId>) -> bool {
        match before.and_then(|id| self.row_of(id)) {
            Some(row) => {
                self.selected = row;
                true
            }
            None => {
                self.clamp_selection();
                before.is_none()
            }
        }
    }

    /// Keeps the selection on a row.
    pub(super) fn clamp_selection(&mut self) {
        self.selected = self.selected.min(self.lobby_rows().saturating_sub(1));
    }
}
