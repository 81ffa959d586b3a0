//! Tables rebuilt from the store: as of when they count as resumed
//! ([`ResumedAt`]), started at once ([`recover`], a cluster's takeover) or
//! later (`asleep`, start-up).

use std::sync::Arc;
use std::time::Duration;

use oxo_core::{ByPlayer, Rng};
use oxo_protocol::{PlayerId, TableId};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::actor::Table;
use super::chat_log::ChatLog;
use super::env::Env;
use super::rules::recover::{Saved, SavedRound};
use super::rules::{Accepted, GameKey, Rules};
use crate::accounts::{Account, Accounts};
use crate::handle::{TABLE_QUEUE, TableCmd, TableHandle};
use crate::ids::{now_ms, seed};
use crate::live::LiveStatus;
use crate::store::SavedTable;

/// When resumed tables count as resumed: their clocks (what is left of a
/// move's time or of a grace period) run from here, however much later
/// their actor starts (see [`asleep`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ResumedAt {
    instant: Instant,
    wall_ms: i64,
}

impl ResumedAt {
    /// Now.
    pub(crate) fn now() -> ResumedAt {
        ResumedAt {
            instant: Instant::now(),
            wall_ms: now_ms(),
        }
    }
}

/// Rebuilds an unfinished table from the database, its players' accounts
/// loaded from `accounts`, and registers it; its actor starts with
/// [`Recovered::start`]. Its human players are disconnected: one whose
/// going away was stored keeps what is left of their grace period (see
/// `Rules::recover`), the others get a fresh one. A table whose saved state
/// is impossible is skipped with a warning.
pub(crate) fn recover(env: &Env, accounts: &Accounts, saved: SavedTable) -> Option<Recovered> {
    let (id, seq, epoch) = (Arc::clone(&saved.row.id), saved.row.seq, saved.epoch);
    let live = LiveStatus::new(saved.row.status);
    let table = rebuild_seated(env, accounts, saved, &live, ResumedAt::now())?;
    let (tx, rx) = mpsc::channel(TABLE_QUEUE);
    env.tables
        .register(&id, TableHandle::new(tx, live, (seq, epoch)));
    Some(Recovered { table, rx })
}

/// [`rebuild`], with the accounts of the people seated (not a bot) loaded
/// from `accounts`, each holding its seat at the table.
pub(super) fn rebuild_seated(
    env: &Env,
    accounts: &Accounts,
    saved: SavedTable,
    live: &LiveStatus,
    at: ResumedAt,
) -> Option<Table> {
    let bot = saved.row.bot_seat;
    let people = ByPlayer::new_with(|p| {
        let row = saved.players[p].as_ref().filter(|_| bot != Some(p));
        row.map(|row| accounts.load(row))
    });
    for account in [&people.x, &people.o].into_iter().flatten() {
        account.try_add_table(&saved.row.id, live, usize::MAX);
    }
    rebuild(env, saved, people, live.clone(), at)
}

/// A resumed table's actor state, as of `at`, publishing its status in
/// `live`; `None` (with a warning) if the saved state is impossible.
fn rebuild(
    env: &Env,
    saved: SavedTable,
    accounts: ByPlayer<Option<Arc<Account>>>,
    live: LiveStatus,
    at: ResumedAt,
) -> Option<Table> {
    let row = saved.row;
    let epoch = saved.epoch;
    let chat = ChatLog::restored(saved.chat);
    let earlier = saved
        .earlier
        .into_iter()
        .map(|m| Accepted::read_back(m.game_id.into(), m.ply, m.player, m.cell, m.req_id))
        .collect();
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
        rematch: row.rematch,
        earlier,
        away_left: ByPlayer::new_with(|p| {
            row.away_until_ms[p].map(|until| {
                Duration::from_millis(u64::try_from(until.saturating_sub(at.wall_ms)).unwrap_or(0))
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
                u64::try_from(at.wall_ms.saturating_sub(g.last_at_ms)).unwrap_or(0),
            ),
        }),
    };
    let grace = env.reconnect_grace;
    let rules = match Rules::recover(saved, grace, Rng::new(seed()), at.instant) {
        Ok(rules) => rules,
        Err(why) => {
            tracing::warn!(table = %row.id, why, "skipped an unfinished table that cannot resume");
            return None;
        }
    };
    live.set(rules.state().status());
    let mut table = Table::new(
        env.clone(),
        row.seq,
        TableId::from(Arc::clone(&row.id)),
        live,
        rules,
        row.created_ms,
    );
    table.epoch = epoch;
    table.chat_log = chat;
    table.accounts = accounts;
    table.lobby_dirty = true;
    Some(table)
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
