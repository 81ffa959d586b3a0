//! A node's part in a cluster: keep its table leases, give up the tables
//! another node took, take over the tables of nodes that stopped.
//!
//! Also the one way saved tables come back to life, at start-up as after
//! a takeover ([`resume`]).
//!
//! Runs only on the PostgreSQL store (see docs/cluster.md). Every third of
//! the lease time the node renews its leases; a table it runs whose lease
//! it no longer holds is stopped at once (`TableCmd::Lost`), and could not
//! have written anything since it lost it (the fence, see
//! `store::postgres`). Then it claims the tables whose lease ran out and
//! resumes them here, as at start-up.
//!
//! If renewing fails (the database is unreachable), the node keeps its
//! tables and tries again: their commits fail meanwhile, so nothing is
//! acknowledged that is not durable, and should another node take a table
//! over, the fence refuses the old owner's writes.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use oxo_core::ByPlayer;

use crate::accounts::Account;
use crate::handle::TableCmd;
use crate::state::Shared;
use crate::store::{PlayerRow, SavedTable};
use crate::table;

/// Renews, gives up and claims until the server shuts down.
pub(crate) async fn run(shared: Arc<Shared>) {
    let every = shared.config.lease_ttl / 3;
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            () = shared.shutdown.cancelled() => return,
            _ = tick.tick() => {}
        }
        round(&shared).await;
    }
}

/// One round: renew, let go of what was lost, claim what is orphaned.
async fn round(shared: &Shared) {
    let asked = Instant::now();
    match shared.store.renew_leases().await {
        Ok(Some(held)) => {
            let held: HashMap<i64, i64> = held.into_iter().collect();
            for lost in shared.tables.lost(&held, asked) {
                lost.send(TableCmd::Lost).await;
            }
        }
        Ok(None) => return,
        Err(e) => {
            tracing::warn!(error = %e, "could not renew table leases");
            return;
        }
    }
    match shared.store.claim_orphans().await {
        Ok(saved) if !saved.is_empty() => {
            let n = saved.len();
            shared.metrics.taken_over.fetch_add(n as u64, Relaxed);
            resume(shared, saved);
            tracing::info!(tables = n, "took over tables whose owner stopped");
        }
        Ok(_) => {}
        Err(e) => tracing::warn!(error = %e, "could not claim orphaned tables"),
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
        let accounts = ByPlayer {
            x: saved.players.x.as_ref().map(|p| load_account(shared, p)),
            o: saved.players.o.as_ref().map(|p| load_account(shared, p)),
        };
        rebuilt.extend(table::recover(&env, saved, accounts));
    }
    for table in rebuilt {
        table.start();
    }
}

fn load_account(shared: &Shared, row: &PlayerRow) -> Arc<Account> {
    shared.accounts.insert(Account::new(
        Arc::from(row.id.as_str()),
        row.token_hash,
        Arc::from(row.name.as_str()),
    ))
}
