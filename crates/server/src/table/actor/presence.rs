//! Storing a seated player's coming and going, at a pace.
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
            *self = Presence {
                unsaved: false,
                stored_at: Some(now),
            };
        }
        store
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
        p.changed();
        p.saved();
        assert_eq!(p.due(), None, "a stored change of the table stored it");
        assert!(!p.is_due(now + PRESENCE_EVERY));
    }
}
