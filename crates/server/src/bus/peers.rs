//! The other nodes on the bus, as their heartbeats (`oxo.alive`) tell:
//! which run of each was heard from last, and when.
//!
//! Two things ask: the proxies, which a node keeps for another node's
//! clients until that node falls silent or restarts, and a clean stop,
//! which hands this node's tables to the nodes heard from lately.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// The last heartbeat of every other node: its run, and when it came.
#[derive(Debug, Default)]
pub(crate) struct Peers(Mutex<HashMap<u16, (u64, Instant)>>);

impl Peers {
    fn lock(&self) -> MutexGuard<'_, HashMap<u16, (u64, Instant)>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes a heartbeat of `node`, in its run `run`, now.
    pub(crate) fn heard(&self, node: u16, run: u64) {
        self.lock().insert(node, (run, Instant::now()));
    }

    /// The run `node` was last heard from in, and when; `None` if never.
    pub(crate) fn last(&self, node: u16) -> Option<(u64, Instant)> {
        self.lock().get(&node).copied()
    }

    /// The nodes heard from within `within` of now, `me` aside, in order.
    pub(crate) fn live(&self, me: u16, within: Duration) -> Vec<u16> {
        let now = Instant::now();
        let mut live: Vec<u16> = self
            .lock()
            .iter()
            .filter(|&(&node, &(_, at))| node != me && now.duration_since(at) <= within)
            .map(|(&node, _)| node)
            .collect();
        live.sort_unstable();
        live
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_nodes_heard_from_lately_are_live_and_never_this_one() {
        let peers = Peers::default();
        assert!(peers.live(1, Duration::from_secs(1)).is_empty());
        peers.heard(3, 7);
        peers.heard(1, 5);
        peers.heard(2, 9);
        assert_eq!(peers.live(1, Duration::from_secs(1)), vec![2, 3]);
        assert_eq!(peers.last(3).map(|(run, _)| run), Some(7));
        // Heard from longer ago than asked: not live.
        std::thread::sleep(Duration::from_millis(20));
        assert!(peers.live(1, Duration::from_millis(10)).is_empty());
    }
}
