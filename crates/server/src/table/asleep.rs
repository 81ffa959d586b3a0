//! Tables listed on start whose actors have not started yet.
//!
//! Start-up reads only each unfinished table's row
//! ([`Store::unfinished_rows`]) and lists the table: its queue, its status,
//! its players' seats (which an account loaded meanwhile takes up:
//! [`Accounts::seat_waiting`]). The server then listens. Each table's game is read
//! back, and its actor started, by whichever comes first:
//!
//! - the read of every table that start-up leaves running in the background
//!   (`resume`), which hands each table its game ([`Asleep::start`]);
//! - a command sent to the table (a returning player, a spectator, a move):
//!   the table is read alone ([`Store::unfinished_table`]) and started at
//!   once, without waiting for the others. The command waits in the
//!   table's queue meanwhile, as any command waits for its actor.
//!
//! The one that comes second finds the table started and does nothing.
//! A table started late behaves as if it had started when it was listed:
//! its clocks run from then ([`ResumedAt`]).
//!
//! [`Store::unfinished_rows`]: crate::store::Store::unfinished_rows
//! [`Accounts::seat_waiting`]: crate::accounts::Accounts::seat_waiting
//! [`Store::unfinished_table`]: crate::store::Store::unfinished_table

use std::sync::{Arc, Mutex, PoisonError};

use oxo_core::ByPlayer;
use oxo_protocol::TableStatus;
use tokio::sync::mpsc;

use super::actor::refuse_queued;
use super::env::Env;
use super::resumed::{ResumedAt, rebuild_seated};
use crate::accounts::Accounts;
use crate::error::ClientError;
use crate::handle::{TABLE_QUEUE, TableCmd, TableHandle, Wake};
use crate::live::LiveStatus;
use crate::store::{SavedTable, TableRow};

/// A table listed on start, until its actor starts.
#[derive(Debug)]
pub(crate) struct Asleep {
    env: Env,
    /// Where its players' accounts are loaded when it starts.
    accounts: Arc<Accounts>,
    /// The ids of the people seated, as listed (see
    /// [`Accounts::seat_waiting`]).
    players: ByPlayer<Option<Arc<str>>>,
    seq: i64,
    id: Arc<str>,
    at: ResumedAt,
    /// Until the table is taken to start (or to be refused).
    sleeping: Mutex<Option<Sleeping>>,
}

/// What a listed table holds until it starts.
#[derive(Debug)]
struct Sleeping {
    rx: mpsc::Receiver<TableCmd>,
    /// For the plain handle that replaces the listed one once the table
    /// runs (so that the registry no longer holds this).
    tx: mpsc::Sender<TableCmd>,
    live: LiveStatus,
}

impl Asleep {
    /// Lists the table of `row`, resumed at `at`: registers its queue, and
    /// its seats with `accounts`; its actor starts later.
    pub(crate) fn list(
        env: &Env,
        accounts: &Arc<Accounts>,
        row: &TableRow,
        at: ResumedAt,
    ) -> Arc<Asleep> {
        let live = LiveStatus::new(row.status);
        let players =
            ByPlayer::new_with(|p| row.seats[p].clone().filter(|_| row.bot_seat != Some(p)));
        for player in [&players.x, &players.o].into_iter().flatten() {
            accounts.seat_waiting(player, &row.id, &live);
        }
        let (tx, rx) = mpsc::channel(TABLE_QUEUE);
        let asleep = Arc::new(Asleep {
            env: env.clone(),
            accounts: Arc::clone(accounts),
            players,
            seq: row.seq,
            id: Arc::clone(&row.id),
            at,
            sleeping: Mutex::new(Some(Sleeping {
                rx,
                tx: tx.clone(),
                live: live.clone(),
            })),
        });
        let wake: Arc<dyn Wake> = asleep.clone();
        env.tables
            .register(&row.id, TableHandle::asleep(tx, live, (row.seq, 0), wake));
        asleep
    }

    /// The table's key.
    pub(crate) fn seq(&self) -> i64 {
        self.seq
    }

    /// Starts the table with `saved`, its state read back, unless it has
    /// started already.
    pub(crate) fn start(&self, saved: SavedTable) {
        if let Some(sleeping) = self.take() {
            self.wake_up(sleeping, Some(saved));
        }
    }

    /// Starts the table on its own: reads it back first. The background
    /// read of every table calls this for a table it did not find.
    pub(crate) fn start_alone(self: &Arc<Self>) {
        let Some(sleeping) = self.take() else { return };
        let table = Arc::clone(self);
        self.env.tasks.spawn(async move {
            let saved = match table.env.store.unfinished_table(table.seq).await {
                Ok(saved) => saved,
                Err(e) => {
                    tracing::warn!(table = %table.id, error = %e, "an unfinished table could not be read back");
                    None
                }
            };
            table.wake_up(sleeping, saved);
        });
    }

    /// Takes the table down without starting it: it did not read back.
    pub(crate) fn give_up(&self) {
        if let Some(sleeping) = self.take() {
            self.wake_up(sleeping, None);
        }
    }

    /// Starts the table's actor from `saved`; without it (the table is
    /// gone or does not read back) takes the table down and refuses what
    /// was sent to it.
    fn wake_up(&self, sleeping: Sleeping, saved: Option<SavedTable>) {
        let Sleeping { rx, tx, live } = sleeping;
        let env = &self.env;
        let table =
            saved.and_then(|saved| rebuild_seated(env, &self.accounts, saved, &live, self.at));
        for player in [&self.players.x, &self.players.o].into_iter().flatten() {
            self.accounts.seat_started(player, &self.id);
        }
        match table {
            Some(mut table) => {
                // Registered before the actor runs: it may close and
                // unregister the table as soon as it does.
                let handle = TableHandle::new(tx, live, (self.seq, table.epoch));
                env.tables.register(&self.id, handle);
                env.tasks.spawn(async move { table.run(rx).await });
            }
            None => {
                drop(tx);
                env.tables.unregister(&self.id);
                live.set(TableStatus::Closed);
                let e = if env.shutdown.is_cancelled() {
                    ClientError::shutting_down()
                } else {
                    ClientError::no_such_table()
                };
                let metrics = Arc::clone(&env.metrics);
                env.tasks
                    .spawn(async move { refuse_queued(rx, &metrics, &e).await });
            }
        }
    }

    /// The sleeping table, once: `None` if it was taken already.
    fn take(&self) -> Option<Sleeping> {
        self.sleeping
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
    }
}

impl Wake for Asleep {
    fn wake(self: Arc<Self>) {
        self.start_alone();
    }
}
