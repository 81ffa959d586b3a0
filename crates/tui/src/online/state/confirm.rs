//! Keys that act only when pressed twice in a row while a round of mine
//! is in play (quit, forfeit, leave): the first press says what the
//! second does.

use oxo_protocol::{ClientMsg, TableId, TableStatus};

use super::Online;

/// A key that acts only when pressed twice in a row during a round in
/// play at a seat of mine: its first press arms it and says what the
/// second one does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Armed {
    /// `q`: quit (the seat waits a while, then the round is lost).
    Quit,
    /// `f`: forfeit the round.
    Forfeit,
    /// `Esc` (or `L`): leave the table, which forfeits the round.
    Leave,
}

impl Armed {
    /// What the second press does, said after the first.
    const fn prompt(self) -> &'static str {
        match self {
            // Two rows at the narrowest (32 columns), where a message
            // gets no more.
            Armed::Quit => "Press q again to quit: come back soon, or the round is lost",
            Armed::Forfeit => "Press f again to forfeit: the round is lost",
            Armed::Leave => "Press Esc again to leave the table: the round is lost",
        }
    }
}

impl Online {
    /// Forfeits, leaves table `id` or quits (`key`), once confirmed.
    pub(super) fn confirm_then(&mut self, key: Armed, armed: Option<Armed>, id: TableId) {
        if !self.confirmed(key, armed) {
            return;
        }
        match key {
            Armed::Forfeit => self.ask(ClientMsg::Forfeit { table_id: id }),
            Armed::Leave => self.leave(id),
            Armed::Quit => self.running = false,
        }
    }

    /// Whether `key`'s action goes ahead now: at once when no round of
    /// mine is in play, else on its second press in a row (`armed` is
    /// what the key before armed). A first press arms it and says so.
    fn confirmed(&mut self, key: Armed, armed: Option<Armed>) -> bool {
        let at_stake = self.my_seat().is_some()
            && self
                .table
                .as_ref()
                .is_some_and(|t| t.status == TableStatus::InProgress);
        if !at_stake || armed == Some(key) {
            return true;
        }
        self.armed = Some(key);
        self.message = key.prompt().to_owned();
        false
    }
}
