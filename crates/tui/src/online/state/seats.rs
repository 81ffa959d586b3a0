//! What is said when the other seat changes hands at a table of mine: a
//! player taking the free seat, or leaving (which, mid-round, forfeits).

use oxo_protocol::{TableState, TableStatus};

use super::Online;

impl Online {
    /// What to say when `new` starts the round of a table that waited in
    /// `old` for a second player: who took the free seat (me, or the
    /// other player), if I am seated.
    pub(super) fn arrival(&self, old: &TableState, new: &TableState) -> Option<String> {
        if old.status != TableStatus::Waiting || new.status != TableStatus::InProgress {
            return None;
        }
        let mine = self.seat_at(new)?;
        if self.seat_at(old).is_none() {
            return Some("You joined: the round starts".to_owned());
        }
        let other = new.players[!mine].as_ref()?;
        Some(format!("{} joined: the round starts", other.name))
    }

    /// What to say when the other player left my table between `old`
    /// and `new`: who, and that I win when a round was in play (leaving
    /// forfeits it, and the state says so).
    pub(super) fn departure(&self, old: &TableState, new: &TableState) -> Option<String> {
        let mine = self.seat_at(new)?;
        if new.players[!mine].is_some() {
            return None;
        }
        let other = old.players[!mine].as_ref()?;
        let name = &other.name;
        let won = new.outcome.and_then(|o| o.winner()) == Some(mine);
        Some(if old.status == TableStatus::InProgress && won {
            format!("{name} left the table: you win")
        } else {
            format!("{name} left the table")
        })
    }
}
