//! Resuming the tables the last run left unfinished, on a store this
//! server owns alone (a cluster's nodes claim tables instead: `cluster`).
//!
//! Start-up lists the tables from their rows and seated players only
//! ([`list`]), which is quick, and the server listens. The rest of each
//! table (its players, its game replayed from its moves) is read in the
//! background, a batch of tables at a time, and each table's actor starts
//! as soon as its batch is read; a table sent a command before that is read alone and
//! started at once (see `table::asleep`). So a restart with thousands of
//! unfinished tables serves its first requests without waiting for them
//! all, and every table runs (its clocks, the lobby) a moment later.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use crate::error::ServerError;
use crate::state::Shared;
use crate::store::{SavedTable, Store};
use crate::table::{Asleep, ResumedAt};

/// Tables the background start reads back at once: a batch's rows are
/// freed before the next is read, so start-up's memory does not grow with
/// the number of tables, and the read connection is free between batches.
const READ_BATCH: usize = 512;

/// Lists every unfinished table, registering its queue and its players'
/// seats, and starts their actors in the background; returns how many
/// were listed.
///
/// # Errors
///
/// The store's, if it cannot list the tables at all.
pub(crate) fn list(shared: &Shared) -> Result<usize, ServerError> {
    let rows = shared.store.unfinished_rows()?;
    let at = ResumedAt::now();
    let env = shared.table_env();
    let listed: Vec<Arc<Asleep>> = rows
        .iter()
        .map(|row| Asleep::list(&env, &shared.accounts, row, at))
        .collect();
    let count = listed.len();
    if count > 0 {
        shared
            .tasks
            .spawn(start_all(Arc::clone(&shared.store), listed));
    }
    Ok(count)
}

/// Reads every listed table back whole, a batch at a time, and starts
/// each that has not started yet.
async fn start_all(store: Arc<dyn Store>, mut listed: Vec<Arc<Asleep>>) {
    let began = Instant::now();
    let count = listed.len();
    listed.sort_by_key(|table| table.seq());
    for batch in listed.chunks(READ_BATCH) {
        let (Some(first), Some(last)) = (batch.first(), batch.last()) else {
            continue;
        };
        let (first, last) = (first.seq(), last.seq());
        let store = Arc::clone(&store);
        let read =
            tokio::task::spawn_blocking(move || store.unfinished_tables_between(first, last)).await;
        let saved = match read {
            Ok(Ok(saved)) => saved,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "could not read unfinished tables back in a batch; reading each alone");
                batch.iter().for_each(Asleep::start_alone);
                continue;
            }
            Err(e) => {
                tracing::error!(error = %e, "reading unfinished tables back failed; reading each alone");
                batch.iter().for_each(Asleep::start_alone);
                continue;
            }
        };
        let mut saved: HashMap<i64, SavedTable> =
            saved.into_iter().map(|t| (t.row.seq, t)).collect();
        for table in batch {
            match saved.remove(&table.seq()) {
                Some(saved) => table.start(saved),
                // It did not read back (the store said why).
                None => table.give_up(),
            }
        }
    }
    tracing::info!(
        tables = count,
        ms = began.elapsed().as_millis(),
        "resumed unfinished tables"
    );
}

#[cfg(test)]
mod tests;
