//! A node's part in a cluster (see docs/cluster.md): one node, the
//! leader, runs the tables and serves the clients; the others relay their
//! clients' connections to it (`relay`), and one of them takes over when
//! the leader stops.
//!
//! Every third of the lease time each node asks the database for the
//! leader's post ([`Store::lead`](crate::store::Store::lead)): it gets it
//! if the post is free or its lease ran out. The leader then renews its
//! table leases; a table whose lease it no longer holds is stopped at once
//! (`TableCmd::Lost`), and could not have written anything since it lost it
//! (the fence, see `store::postgres`). Then it claims the tables whose
//! lease ran out and resumes them here, as at start-up. A node that finds
//! it has lost the post (it was paused, or cut off from the database, for
//! longer than a lease) stops every table and closes every connection it
//! served: their clients reconnect, through the load balancer, to the new
//! leader.
//!
//! If the database cannot be reached, a node changes nothing and tries
//! again: the leader's commits fail meanwhile, so nothing is acknowledged
//! that is not durable, and should another node take the tables over, the
//! fence refuses the old leader's writes.
//!
//! Also the one way saved tables come back to life, at start-up as after a
//! takeover ([`resume`]).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, Instant};

use crate::handle::{TableCmd, TableHandle};
use crate::node::{Leader, Node};
use crate::state::Shared;
use crate::store::{CLAIM_BATCH, SavedTable};
use crate::table;

/// Leads or follows until the server shuts down.
pub(crate) async fn run(shared: Arc<Shared>, node: Arc<Node>) {
    if shared.on_bus() {
        return run_own_share(shared, node).await;
    }
    let addr = loop {
        let listening = node.changed.notified();
        if let Some(addr) = node.addr.get() {
            break addr.to_string();
        }
        tokio::select! {
            () = shared.shutdown.cancelled() => return,
            () = listening => {}
        }
    };
    let mut rounds = Rounds::new(&shared);
    while rounds.next(&shared, &node).await {
        round(&shared, &node, &addr).await;
    }
}

/// With a bus, every node runs its own share of the tables: every third of
/// a lease it renews its leases, lets go of what it lost, and claims what
/// is orphaned (no leader's post). A lease of another node's that runs out
/// before the next round (its node died or stalled) gets a round of its
/// own when it does.
async fn run_own_share(shared: Arc<Shared>, node: Arc<Node>) {
    // No leader's post: this node's leases are its own (`holds_now`).
    node.set_leader(Leader::Me);
    let mut rounds = Rounds::new(&shared);
    while rounds.next(&shared, &node).await {
        if renew(&shared, &node, Instant::now()).await {
            claim(&shared, false).await;
            if let Ok(Some(due)) = shared.store.next_expiry().await {
                rounds.extra_at(due, shared.config.lease_ttl);
            }
        }
    }
}

/// The cluster rounds' clock: every third of a lease, or sooner when a
/// table asks ([`Node::wake`]) or a lease runs out ([`Rounds::extra_at`]).
struct Rounds {
    tick: tokio::time::Interval,
    extra: Option<tokio::time::Instant>,
}

impl Rounds {
    fn new(shared: &Shared) -> Rounds {
        let mut tick = tokio::time::interval(shared.config.lease_ttl / 3);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        Rounds { tick, extra: None }
    }

    /// Adds a round just after `due` from now, if that comes within a
    /// regular round's period; never sooner than a tenth of the lease `ttl` (a
    /// lease that ran out but cannot be claimed yet, its row held by a
    /// stalled commit, is not polled in a loop).
    fn extra_at(&mut self, due: Duration, ttl: Duration) {
        if due < self.tick.period() {
            let wait = (due + EXTRA_ROUND_MARGIN).max(ttl / 10);
            self.extra = Some(tokio::time::Instant::now() + wait);
        }
    }

    /// Waits for the next round; `false` once the server shuts down.
    async fn next(&mut self, shared: &Shared, node: &Node) -> bool {
        let extra = self.extra;
        let extra_round = async {
            match extra {
                Some(at) => tokio::time::sleep_until(at).await,
                None => std::future::pending().await,
            }
        };
        let go = tokio::select! {
            () = shared.shutdown.cancelled() => false,
            _ = self.tick.tick() => true,
            () = node.wake.notified() => true,
            () = extra_round => true,
        };
        self.extra = None;
        go
    }
}

/// How long after a lease's end its extra round comes: the database's
/// clock and this node's tick apart, a lease claimed a moment early is not
/// claimed at all.
const EXTRA_ROUND_MARGIN: Duration = Duration::from_millis(20);

/// Renews this node's leases; stops the tables it lost and reloads those
/// it holds but does not run. Whether the database answered.
async fn renew(shared: &Shared, node: &Node, began: Instant) -> bool {
    match shared.store.renew_leases().await {
        Ok(Some(held)) => {
            node.renewed(began, shared.config.lease_ttl);
            let held: HashMap<i64, i64> = held.into_iter().collect();
            stop_lost(shared, shared.tables.lost(&held, began)).await;
            // Tables this node holds but does not run (one stopped after a
            // failed commit, or handed over by a node that stopped):
            // resumed from the database.
            let idle = shared.tables.not_running(&held);
            if !idle.is_empty() {
                match shared.store.load_held(idle).await {
                    Ok(saved) => take_up(shared, saved).await,
                    Err(e) => tracing::warn!(error = %e, "could not reload tables"),
                }
            }
            true
        }
        Ok(None) => false,
        Err(e) => {
            tracing::warn!(error = %e, "could not renew table leases");
            false
        }
    }
}

/// Stops the tables among `candidates` (running here, missing from this
/// node's renewed leases) that another node has claimed: those whose
/// stored epoch is no longer theirs. The others closed, or have not been
/// stored yet (their first commit was in flight during the renewal).
async fn stop_lost(shared: &Shared, candidates: Vec<TableHandle>) {
    if candidates.is_empty() {
        return;
    }
    let seqs = candidates.iter().map(|h| h.lease().0).collect();
    let stored: HashMap<i64, i64> = match shared.store.epochs(seqs).await {
        Ok(rows) => rows.into_iter().collect(),
        Err(e) => {
            tracing::warn!(error = %e, "could not check the leases of tables");
            return;
        }
    };
    for handle in candidates {
        let (seq, epoch) = handle.lease();
        if taken_over(epoch, stored.get(&seq).copied()) {
            tracing::warn!(
                table = seq,
                "another node took a table over: stopping it here"
            );
            handle.send(TableCmd::Lost).await;
        }
    }
}

/// Whether a table this node runs under `epoch`, stored now under
/// `stored` (`None`: not stored yet), was taken over by another node.
fn taken_over(epoch: i64, stored: Option<i64>) -> bool {
    stored.is_some_and(|now| now != epoch)
}

/// One round: who leads; if this node, renew, let go of what was lost and
/// claim what is orphaned.
async fn round(shared: &Shared, node: &Node, addr: &str) {
    let began = Instant::now();
    let was = node.leader();
    let leader = match shared.store.lead(addr).await {
        Ok(Some(leader)) => {
            node.heard(began, shared.config.lease_ttl);
            leader
        }
        Ok(None) => return,
        Err(e) => {
            tracing::warn!(error = %e, "could not reach the database to learn the leader");
            return;
        }
    };
    let now = if leader.me {
        Leader::Me
    } else {
        leader.addr.parse().map_or(Leader::Unknown, Leader::Other)
    };
    shared.metrics.leader.store(u64::from(leader.me), Relaxed);
    if now != was {
        // Relays to the old leader, or the connections this node served
        // as the leader (its roster), end: their clients reconnect to the
        // new one.
        node.end_term(&shared.shutdown);
        shared.roster.end_all();
    }
    if !leader.me {
        node.set_leader(now);
        if was == Leader::Me {
            tracing::warn!(
                leader = leader.node,
                "lost the leader's post: stopping every table"
            );
            for lost in shared.tables.all() {
                lost.send(TableCmd::Lost).await;
            }
        }
        return;
    }
    if was != Leader::Me {
        // Every table is the leader's: take them all over before serving
        // anyone, so that no client of this node finds its table missing.
        while claim(shared, true).await == Claimed::More {}
        tracing::info!("this node leads the cluster");
        node.renewed(began, shared.config.lease_ttl);
        node.set_leader(Leader::Me);
        return;
    }
    if renew(shared, node, began).await {
        claim(shared, false).await;
    }
}

/// What a claim found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Claimed {
    /// Less than a batch: nothing more to claim now (or it failed).
    Done,
    /// A full batch: there may be more.
    More,
}

/// Claims and resumes the tables whose lease ran out (with `all`, every
/// open table).
async fn claim(shared: &Shared, all: bool) -> Claimed {
    match shared.store.claim_orphans(all).await {
        Ok(saved) => {
            let n = saved.len();
            if n > 0 {
                shared.metrics.taken_over.fetch_add(n as u64, Relaxed);
                take_up(shared, saved).await;
                tracing::info!(tables = n, "took over tables");
            }
            if n >= CLAIM_BATCH {
                Claimed::More
            } else {
                Claimed::Done
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, "could not claim tables");
            Claimed::Done
        }
    }
}

/// Resumes `saved`, tables this node now holds, and with a bus tells the
/// other nodes, whose clients at them re-sync and find them here.
async fn take_up(shared: &Shared, saved: Vec<SavedTable>) {
    let ids: Vec<Arc<str>> = saved.iter().map(|t| Arc::clone(&t.row.id)).collect();
    resume(shared, saved);
    if let Some(link) = shared.bus.get() {
        crate::bus::announce_taken(link, ids).await;
    }
}

/// Rebuilds `saved` tables and starts their actors.
///
/// Every table is rebuilt and registered first, and only then are the
/// actors started: an actor started early would compete for the cores
/// with the rebuilding of the others. Requests that arrive before its actor
/// runs wait in its queue.
pub(crate) fn resume(shared: &Shared, saved: Vec<SavedTable>) {
    let env = shared.table_env();
    let mut rebuilt = Vec::with_capacity(saved.len());
    for saved in saved {
        rebuilt.extend(table::recover(&env, &shared.accounts, saved));
    }
    for table in rebuilt {
        table.start();
    }
}

#[cfg(test)]
mod tests {
    use super::taken_over;

    #[test]
    fn only_a_new_epoch_means_another_node_took_the_table() {
        // Missing from a renewal because its first commit was in flight:
        // not stored yet, still this node's.
        assert!(!taken_over(3, None));
        // Missing because it closed: same epoch, still this node's to end.
        assert!(!taken_over(3, Some(3)));
        // Claimed by another node: the claim raised the epoch.
        assert!(taken_over(3, Some(4)));
    }
}
