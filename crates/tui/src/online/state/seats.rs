//! What is said when the other seat changes hands at a table of mine, or
//! a seat at a table I watch: a player taking the free seat, or leaving
//! (which, mid-round, forfeits).

use oxo_core::Player;
use oxo_protocol::{TableState, TableStatus};

use super::Online;
use crate::text::{NAME_SAID, truncate};

/// `name` cut (with `…`) to [`NAME_SAID`] columns.
fn said(name: &str) -> String {
    truncate(name, NAME_SAID)
}

impl Online {
    /// What to say when `new` starts the round of a table that waited in
    /// `old` for a second player: who took the free seat (me, or the
    /// other player), if I am seated.
    pub(super) fn arrival(&self, old: &TableState, new: &TableState) -> Option<String> {
        if old.status != TableStatus::Waiting || new.status != TableStatus::InProgress {
            return None;
        }
        let Some(mine) = self.seat_at(new) else {
            // Watching: who took the free seat.
            let came = Player::ALL
                .into_iter()
                .find(|&p| old.players[p].is_none())
                .and_then(|p| new.players[p].as_ref())?;
            return Some(format!("{} joined: the round starts", said(&came.name)));
        };
        if self.seat_at(old).is_none() {
            return Some("You joined: the round starts".to_owned());
        }
        let other = new.players[!mine].as_ref()?;
        Some(format!("{} joined: the round starts", said(&other.name)))
    }

    /// What to say when the other player left my table between `old`
    /// and `new`: who, and that I win when a round was in play (leaving
    /// forfeits it, and the state says so).
    pub(super) fn departure(&self, old: &TableState, new: &TableState) -> Option<String> {
        let Some(mine) = self.seat_at(new) else {
            return watched_departure(old, new);
        };
        if new.players[!mine].is_some() {
            return None;
        }
        let other = old.players[!mine].as_ref()?;
        let name = said(&other.name);
        let won = new.outcome.and_then(|o| o.winner()) == Some(mine);
        Some(if old.status == TableStatus::InProgress && won {
            format!("{name} left the table: you win")
        } else {
            format!("{name} left the table")
        })
    }
}

/// What a watcher is told when players left the table between `old` and
/// `new`: who, and what it means (the other player wins a round in play;
/// the table closes when nobody is left).
fn watched_departure(old: &TableState, new: &TableState) -> Option<String> {
    let gone: Vec<Player> = Player::ALL
        .into_iter()
        .filter(|&p| old.players[p].is_some() && new.players[p].is_none())
        .collect();
    let name = |p: Player| {
        old.players[p]
            .as_ref()
            .map_or_else(|| "?".to_owned(), |i| said(&i.name))
    };
    let who = match gone.as_slice() {
        [] => return None,
        [one] => name(*one),
        _ => format!("{} and {}", name(Player::X), name(Player::O)),
    };
    if new.status == TableStatus::Closed {
        return Some(format!("{who} left: the table is closed"));
    }
    let winner = new.outcome.and_then(|o| o.winner());
    Some(match (old.status, winner, gone.as_slice()) {
        (TableStatus::InProgress, Some(w), [one]) if w != *one => {
            format!("{who} left the table: {} wins", name(w))
        }
        _ => format!("{who} left the table"),
    })
}
