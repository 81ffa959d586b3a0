//! A node's view of its cluster: who leads, where this node listens, and
//! the term its connections belong to. Written by `cluster`, read by the
//! accept loop (`relay`) and by new connections (`state`).

use std::net::SocketAddr;
use std::sync::{Mutex, OnceLock, PoisonError, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::Notify;
use tokio_util::sync::CancellationToken;

/// Who serves this node's clients.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Leader {
    /// Not known yet (start-up, or no leader has an unexpired lease).
    Unknown,
    /// This node.
    Me,
    /// Another node, serving at this address.
    Other(SocketAddr),
}

/// A node's view of the cluster.
#[derive(Debug)]
pub(crate) struct Node {
    /// Where this node serves, once it listens.
    pub(crate) addr: OnceLock<SocketAddr>,
    /// Wakes the rounds once the node listens, and the connections that
    /// wait for a leader once one is known.
    pub(crate) changed: Notify,
    /// Wakes the rounds early (see [`Node::wake`]).
    pub(crate) wake: Notify,
    leader: RwLock<Leader>,
    /// Until when this node surely holds its leases (see [`Node::renewed`]).
    holds_until: Mutex<Option<Instant>>,
    /// Until when this node's view of the leader is surely current (see
    /// [`Node::heard`]).
    fresh_until: Mutex<Option<Instant>>,
    /// Ends the connections this node relays to the leader; cancelled (and
    /// replaced) when the leader changes.
    term: Mutex<CancellationToken>,
}

impl Node {
    /// A node that knows no leader yet; `shutdown` is the server's token.
    pub(crate) fn new(shutdown: &CancellationToken) -> Node {
        Node {
            addr: OnceLock::new(),
            changed: Notify::new(),
            wake: Notify::new(),
            leader: RwLock::new(Leader::Unknown),
            holds_until: Mutex::new(None),
            fresh_until: Mutex::new(None),
            term: Mutex::new(shutdown.child_token()),
        }
    }

    /// Notes that this node held the leader's post and its leases as of
    /// `asked` (when the round that renewed them began), for `ttl`.
    pub(crate) fn renewed(&self, asked: Instant, ttl: Duration) {
        // A margin: the database's lease runs from when it got the
        // renewal, later than `asked`; this node gives up a quarter sooner.
        let until = asked + ttl.mul_f64(0.75);
        *self
            .holds_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(until);
    }

    /// Notes that the database told this node who leads, as of `asked`.
    pub(crate) fn heard(&self, asked: Instant, ttl: Duration) {
        let until = asked + ttl.mul_f64(0.75);
        *self
            .fresh_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(until);
    }

    /// Whether this node's view of the leader is current: a follower that
    /// was paused, or cut off from the database, for most of a lease may
    /// relay to a leader that is gone, or carry bytes its clients gave up
    /// on (see `relay`).
    pub(crate) fn fresh(&self) -> bool {
        self.fresh_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some_and(|until| Instant::now() < until)
    }

    /// Whether this node leads and its leases surely have not run out:
    /// renewed less than three quarters of a lease ago. A node that was
    /// paused or cut off for longer answers `false` until a round renews
    /// them again (or finds them lost).
    pub(crate) fn holds_now(&self) -> bool {
        self.leader() == Leader::Me
            && self
                .holds_until
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .is_some_and(|until| Instant::now() < until)
    }

    /// Asks for a cluster round now (a table needs resuming).
    pub(crate) fn wake(&self) {
        self.wake.notify_one();
    }

    /// Notes where this node serves (once it listens).
    pub(crate) fn listening(&self, addr: SocketAddr) {
        let _ = self.addr.set(addr);
        self.changed.notify_waiters();
    }

    /// The leader, waiting up to `limit` for one to be known (a node that
    /// has just started, or a takeover under way).
    pub(crate) async fn known_leader(&self, limit: std::time::Duration) -> Leader {
        let deadline = tokio::time::Instant::now() + limit;
        loop {
            let changed = self.changed.notified();
            let leader = self.leader();
            if leader != Leader::Unknown {
                return leader;
            }
            if tokio::time::timeout_at(deadline, changed).await.is_err() {
                return Leader::Unknown;
            }
        }
    }

    /// The leader as last learnt.
    pub(crate) fn leader(&self) -> Leader {
        *self.leader.read().unwrap_or_else(PoisonError::into_inner)
    }

    pub(crate) fn set_leader(&self, leader: Leader) {
        *self.leader.write().unwrap_or_else(PoisonError::into_inner) = leader;
        self.changed.notify_waiters();
    }

    /// The current term: cancelled when it ends, which ends the
    /// connections relayed to the leader during it (the connections this
    /// node serves itself end through the roster, see `cluster`).
    pub(crate) fn term(&self) -> CancellationToken {
        self.term
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Ends the term: the relays made so far end; later ones get a new term.
    pub(crate) fn end_term(&self, shutdown: &CancellationToken) {
        let mut term = self.term.lock().unwrap_or_else(PoisonError::into_inner);
        term.cancel();
        *term = shutdown.child_token();
    }
}
