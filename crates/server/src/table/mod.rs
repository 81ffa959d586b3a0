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
//! change closes the table in memory (its durable state comes back at the
//! next start).

mod actor;
mod env;
mod rules;
mod view;

pub(crate) use env::Env;

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use oxo_core::{ByPlayer, Rng};
use oxo_protocol::{PlayerId, TableId, TableOptions};
use tokio::sync::mpsc;
use tokio::time::Instant;

use crate::accounts::Account;
use crate::conn::Conn;
use crate::handle::{TableCmd, TableHandle};
use crate::ids::{now_ms, seed};
use crate::live::LiveStatus;
use crate::store::SavedTable;
use actor::Table;
use rules::recover::{Saved, SavedRound};
use rules::{GameKey, Rules};

/// Commands a table's queue holds before the actor applies them.
const QUEUE: usize = 256;

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
    let (tx, rx) = mpsc::channel(QUEUE);
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

/// Rebuilds an unfinished table from the database and starts its actor.
/// Its human players are disconnected: one whose going away was stored
/// keeps what is left of their grace period (see `Rules::recover`), the
/// others get a fresh one. A table whose saved state is impossible is
/// skipped with a warning.
pub(crate) fn recover(
    env: &Env,
    saved: SavedTable,
    accounts: ByPlayer<Option<Arc<Account>>>,
) -> Option<Recovered> {
    let row = saved.row;
    let epoch = saved.epoch;
    // People sit where no bot does.
    let accounts = ByPlayer::new_with(|p| accounts[p].clone().filter(|_| row.bot_seat != Some(p)));
    let players = ByPlayer::new_with(|p| {
        accounts[p]
            .as_ref()
            .map(|a| PlayerId::from(Arc::clone(&a.id)))
    });
    let saved = Saved {
        options: row.options,
        status: row.status,
        players,
        bot_seat: row.bot_seat,
        round: row.round,
        scores: row.scores,
        away_left: ByPlayer::new_with(|p| {
            row.away_until_ms[p].map(|until| {
                Duration::from_millis(u64::try_from(until.saturating_sub(now_ms())).unwrap_or(0))
            })
        }),
        game: saved.game.map(|g| SavedRound {
            key: GameKey {
                id: g.id.into(),
                seq: g.seq,
            },
            game: g.game,
            accepted: g.accepted,
            idle: Duration::from_millis(
                u64::try_from(now_ms().saturating_sub(g.last_at_ms)).unwrap_or(0),
            ),
        }),
    };
    let grace = env.reconnect_grace;
    let rules = match Rules::recover(saved, grace, Rng::new(seed()), Instant::now()) {
        Ok(rules) => rules,
        Err(why) => {
            tracing::warn!(table = %row.id, why, "skipped an unfinished table that cannot resume");
            return None;
        }
    };
    let live = LiveStatus::new(rules.state().status());
    let mut table = Table::new(
        env.clone(),
        row.seq,
        TableId::from(Arc::clone(&row.id)),
        live.clone(),
        rules,
        row.created_ms,
    );
    table.epoch = epoch;
    for account in [&accounts.x, &accounts.o].into_iter().flatten() {
        account.try_add_table(&row.id, &live, usize::MAX);
    }
    table.accounts = accounts;
    table.lobby_dirty = true;
    let (tx, rx) = mpsc::channel(QUEUE);
    env.tables
        .register(&row.id, TableHandle::new(tx, live, (row.seq, epoch)));
    Some(Recovered { table, rx })
}

/// A table rebuilt from the store and registered, whose actor is not
/// running yet: requests sent to it wait in its queue until
/// [`Recovered::start`].
pub(crate) struct Recovered {
    table: Table,
    rx: mpsc::Receiver<TableCmd>,
}

impl Recovered {
    /// Starts the table's actor.
    pub(crate) fn start(self) {
        let tasks = self.table.env.tasks.clone();
        let Recovered { mut table, rx } = self;
        tasks.spawn(async move { table.run(rx).await });
    }
}
