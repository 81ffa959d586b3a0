//! A table's status as others see it: a shared atomic the table's actor
//! writes and connections and accounts read without asking the actor.
//!
//! Accounts use it to count only the seats that are in play against the
//! seat limit; connections use it to let go of tables whose use has ended.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

use oxo_protocol::TableStatus;

/// A table's current status, shared.
#[derive(Clone, Debug)]
pub(crate) struct LiveStatus(Arc<AtomicU8>);

fn code(s: TableStatus) -> u8 {
    match s {
        TableStatus::Waiting => 0,
        TableStatus::InProgress => 1,
        TableStatus::RoundOver => 2,
        TableStatus::Closed => 3,
    }
}

impl LiveStatus {
    /// A status to share.
    pub(crate) fn new(s: TableStatus) -> LiveStatus {
        LiveStatus(Arc::new(AtomicU8::new(code(s))))
    }

    /// The status now.
    pub(crate) fn get(&self) -> TableStatus {
        match self.0.load(Ordering::Acquire) {
            0 => TableStatus::Waiting,
            1 => TableStatus::InProgress,
            2 => TableStatus::RoundOver,
            _ => TableStatus::Closed,
        }
    }

    /// Publishes a new status.
    pub(crate) fn set(&self, s: TableStatus) {
        self.0.store(code(s), Ordering::Release);
    }

    /// Whether the table is in play: waiting for a player or playing a
    /// round. A seat there counts against the seat limit; a seat at a
    /// finished round does not.
    pub(crate) fn in_play(&self) -> bool {
        matches!(self.get(), TableStatus::Waiting | TableStatus::InProgress)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_round_trips() {
        let live = LiveStatus::new(TableStatus::Waiting);
        for s in [
            TableStatus::Waiting,
            TableStatus::InProgress,
            TableStatus::RoundOver,
            TableStatus::Closed,
        ] {
            live.clone().set(s);
            assert_eq!(live.get(), s);
        }
    }
}
