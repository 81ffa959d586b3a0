//! Tables: one actor task per table owns its game, seats, spectators,
//! scores and timers.
//!
//! # Why an actor per table
//!
//! Everything that happens at a table is ordered: moves, joins, timeouts,
//! disconnects. One task that owns the table and takes commands from a queue
//! gives that order for free, with no locks around the game and no way for
//! two racing moves on the same cell to both win: the second is refused with
//! `cell_taken` (or `not_your_turn`). Tables share nothing, so a thousand
//! tables run on all cores without contention. Timers (the per-move clock,
//! the reconnect grace, the bot's thinking pause, closing an abandoned table)
//! are deadlines, raced against the queue in one `select!`.
//!
//! # Rules apart from effects
//!
//! [`rules`] is the table as a pure state machine: a command and the time in,
//! a refusal or a plan out (the next state and its events), unit-tested on
//! its own. [`actor`] does the I/O: it stores a plan's events, and only once
//! they are durable adopts the plan and tells people; `view` renders what
//! people see.
//!
//! # Order of effects
//!
//! A change is written to the database and awaited (group commit) before
//! anyone hears of it; then the new state goes to every player and spectator
//! (serialized once), then the `ok` goes to the requester. Requester and
//! broadcast share the connection's queue, so the requester always sees the
//! `table` event before its `ok`. If the database fails, a move or a
//! decision is refused with `internal` and nothing changed; any other failed
//! change is refused with `internal` too, and the table is read back from the
//! database as it stands (in a cluster: stopped and resumed from it).

mod actor;
mod asleep;
mod chat_log;
mod env;
mod resumed;
mod rules;
mod view;

pub(crate) use asleep::Asleep;
pub(crate) use env::Env;
pub(crate) use resumed::{ResumedAt, recover};

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

use oxo_core::Rng;
use oxo_protocol::{TableId, TableOptions};
use tokio::sync::mpsc;

use crate::conn::Conn;
use crate::handle::{TABLE_QUEUE, TableHandle};
use crate::ids::{now_ms, seed};
use crate::live::LiveStatus;
use actor::Table;
use rules::Rules;

/// Creates a table for `conn`'s player, who already holds the seat slot
/// (`Account::try_add_table`), and starts its actor; the actor replies to
/// the `create_table` request.
pub(crate) fn create(
    env: &Env,
    id: Arc<str>,
    live: LiveStatus,
    options: TableOptions,
    conn: Conn,
    req_id: Option<u64>,
    at: std::time::Instant,
) -> TableHandle {
    let seq = env.store.next_table_seq();
    let rules = Rules::new(options, env.reconnect_grace, Rng::new(seed()));
    let mut table = Table::new(
        env.clone(),
        seq,
        TableId::from(Arc::clone(&id)),
        live.clone(),
        rules,
        now_ms(),
    );
    let (tx, rx) = mpsc::channel(TABLE_QUEUE);
    // A new table's lease starts at epoch 1 (see `store::postgres`).
    let handle = TableHandle::new(tx, live, (seq, 1));
    env.tables.register(&id, handle.clone());
    env.metrics.tables_created.fetch_add(1, Relaxed);
    env.tasks.spawn(async move {
        // Opening is boxed, like every command's handling (see
        // `Table::run`): this future lives as long as the table.
        if Box::pin(table.open(conn, req_id, at)).await {
            table.run(rx).await;
        } else {
            table.drain(rx).await;
        }
    });
    handle
}
