//! Resuming the tables the last run left unfinished, on a store this
//! server owns alone (a cluster's nodes claim tables instead: `cluster`).
//!
//! Start-up lists the tables from their rows and seated players only
//! ([`list`]), which is quick, and the server listens. The rest of each
//! table (its game, replayed from its moves) is read for all of them at
//! once in the background, and each table's actor starts as soon as its
//! part is read; a table sent a command before that is read alone and
//! started at once (see `table::asleep`). So a restart with thousands of
//! unfinished tables serves its first requests without waiting for them
//! all, and every table runs (its clocks, the lobby) a moment later.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use crate::error::ServerError;
use crate::state::Shared;
use crate::store::Store;
use crate::table::{Asleep, ResumedAt};

/// Tables the background start hands over between two yields to the
/// runtime, so that requests arriving meanwhile are served.
const START_BATCH: usize = 256;

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

/// Reads every listed table back whole and starts each that has not
/// started yet.
async fn start_all(store: Arc<dyn Store>, listed: Vec<Arc<Asleep>>) {
    let began = Instant::now();
    let count = listed.len();
    let mut waiting: HashMap<i64, Arc<Asleep>> = listed.into_iter().map(|a| (a.seq(), a)).collect();
    let read = tokio::task::spawn_blocking(move || store.unfinished_tables()).await;
    match read {
        Ok(Ok(saved)) => {
            for (n, saved) in saved.into_iter().enumerate() {
                if let Some(table) = waiting.remove(&saved.row.seq) {
                    table.start(saved);
                }
                if n % START_BATCH == START_BATCH - 1 {
                    tokio::task::yield_now().await;
                }
            }
            // Not read back (the store logged why), or closed meanwhile.
            for table in waiting.into_values() {
                table.give_up();
            }
        }
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "could not read the unfinished tables back at once; reading each alone");
            for table in waiting.into_values() {
                table.start_alone();
            }
        }
        Err(e) => {
            tracing::error!(error = %e, "reading the unfinished tables back failed; reading each alone");
            for table in waiting.into_values() {
                table.start_alone();
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
