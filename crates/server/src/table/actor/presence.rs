//! Storing and showing a seated player's coming and going, at a pace.
//!
//! A table's row holds when each away player's grace period ends, so that
//! it outlives this process (the table resumes, after a restart or on
//! another node, with the grace where it was). Coming and going is free
//! for a client, though: `step_away` then any request about the table,
//! or a connection opened and closed, toggles it as fast as the client
//! may send. Stored once per toggle, that is a database write per message
//! of a client that spends nothing. So presence alone is stored at most
//! once per [`PRESENCE_EVERY`] at a table: the first change after a quiet
//! spell at once, later ones together when the spell is over (a timer of
//! the table's; the writing is `Table::store_presence`). What a crash may lose is that last second of coming and
//! going; a shutdown stores it first. A stored change of the table (a
//! move, a join) writes the row with the presence in it anyway.
//!
//! Showing it is paced the same way: each change is a state sent to
//! everyone at the table, and a player toggling in a loop would flood
//! their opponent with them until the opponent's connection is closed as
//! too slow. The others see the first change after a quiet spell at once,
//! later ones together with the next state sent, a second after the last
//! shown at the latest; the connection coming back gets its state at once
//! all the same.

use std::time::Duration;

use tokio::time::Instant;

/// The least time between two stores of presence alone at one table.
pub(super) const PRESENCE_EVERY: Duration = Duration::from_secs(1);

/// Whether the table's row is behind its seats' presence, and when it may
/// be stored for that alone.
#[derive(Debug, Default)]
pub(super) struct Presence {
    /// A seated player came or went since the row was last stored.
    unsaved: bool,
    /// When presence alone was last stored.
    stored_at: Option<Instant>,
    /// When a change was last shown to everyone at once.
    shown_at: Option<Instant>,
    /// A change not shown yet is to be shown by then.
    show_by: Option<Instant>,
}

impl Presence {
    /// A seated player came or went.
    pub(super) fn changed(&mut self) {
        self.unsaved = true;
    }

    /// The row was stored with the presence as it is.
    pub(super) fn saved(&mut self) {
        self.unsaved = false;
    }

    /// When the change waiting is to be stored, if one waits and has to
    /// wait for the pace (one that need not wait is stored after the
    /// command that made it).
    pub(super) fn due(&self) -> Option<Instant> {
        self.stored_at
            .filter(|_| self.unsaved)
            .map(|t| t + PRESENCE_EVERY)
    }

    /// Whether a change waits and may be stored at `now`.
    fn is_due(&self, now: Instant) -> bool {
        self.unsaved && self.stored_at.is_none_or(|t| now >= t + PRESENCE_EVERY)
    }

    /// Whether to store the row at `now` for presence alone: a change
    /// waits, and the pace allows it (or, not `paced`, whatever the
    /// pace). If so, it counts as stored from now.
    pub(super) fn store(&mut self, now: Instant, paced: bool) -> bool {
        let store = if paced {
            self.is_due(now)
        } else {
            self.unsaved
        };
        if store {
            self.unsaved = false;
            self.stored_at = Some(now);
        }
        store
    }

    /// A change of presence is to be shown at `now`: whether it may go to
    /// everyone now (if so, it counts as shown from now); if not, it is
    /// due a second after the last one shown.
    pub(super) fn show(&mut self, now: Instant) -> bool {
        match self.shown_at.map(|t| t + PRESENCE_EVERY) {
            Some(next) if now < next => {
                self.show_by = Some(next);
                false
            }
            _ => {
                self.shown_at = Some(now);
                true
            }
        }
    }

    /// When a change not shown yet is due to be.
    pub(super) fn show_by(&self) -> Option<Instant> {
        self.show_by
    }

    /// The state went to everyone at `now`: every change is shown (and
    /// one that waited counts as shown from now).
    pub(super) fn shown(&mut self, now: Instant) {
        if self.show_by.take().is_some() {
            self.shown_at = Some(now);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_change_is_due_at_once_and_the_next_after_the_pace() {
        let now = Instant::now();
        let mut p = Presence::default();
        assert!(!p.is_due(now), "nothing changed");
        p.changed();
        assert!(p.is_due(now));
        assert_eq!(p.due(), None, "stored after the command, no timer");
        assert!(p.store(now, true));
        assert!(!p.store(now, true), "stored already");
        p.changed();
        assert!(!p.is_due(now + PRESENCE_EVERY / 2));
        assert_eq!(p.due(), Some(now + PRESENCE_EVERY));
        assert!(p.is_due(now + PRESENCE_EVERY));
        assert!(p.store(now, false), "a stop stores it whatever the pace");
        assert!(!p.store(now, false), "nothing left to store");
        p.changed();
        p.saved();
        assert_eq!(p.due(), None, "a stored change of the table stored it");
        assert!(!p.is_due(now + PRESENCE_EVERY));
    }

    #[test]
    fn the_first_change_is_shown_at_once_and_the_next_after_the_pace() {
        let now = Instant::now();
        let mut p = Presence::default();
        assert!(p.show(now));
        assert_eq!(p.show_by(), None);
        assert!(!p.show(now + PRESENCE_EVERY / 2));
        assert_eq!(p.show_by(), Some(now + PRESENCE_EVERY));
        p.shown(now + PRESENCE_EVERY);
        assert_eq!(p.show_by(), None, "a state sent showed it");
        assert!(
            !p.show(now + PRESENCE_EVERY * 3 / 2),
            "the one that waited counts as shown when it went"
        );
        p.shown(now + PRESENCE_EVERY * 2);
        assert!(p.show(now + PRESENCE_EVERY * 3));
    }
}
