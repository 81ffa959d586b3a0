//! The table's actor: receives commands, asks the rules for a plan, stores
//! it, adopts it and tells people. Everything with I/O lives here: the
//! connections at the table, the bots' random choices, the store, the
//! lobby and the metrics.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use oxo_core::{Bot, ByPlayer, Player};
use oxo_protocol::{PlayerId, ServerMsg, TableId, TableStatus};
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::chat_log::ChatLog;
use super::env::Env;
use super::rules::{Cmd, Ctx, Event, GameKey, Plan, Reply, Rules};
use super::view::View;
use crate::accounts::Account;
use crate::conn::Conn;
use crate::error::{ClientError, ServerError};
use crate::handle::{TableCmd, TableRequest};
use crate::ids::new_game_id;
use crate::live::LiveStatus;
use presence::Presence;

/// How long a change in the number of spectators may wait to be
/// broadcast: watching and leaving cost the requester, not the table.
const SPECTATORS_DEBOUNCE: Duration = Duration::from_secs(1);

/// What a failed store does to the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OnFailure {
    /// Nothing changed; the requester is refused (`internal`).
    Refuse,
    /// The table's state is in doubt: it is read back from the store
    /// (see `Table::abort_or_step_down`).
    Abort,
}

/// What attaching a connection changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Attached {
    /// It was attached already.
    Already,
    /// A new spectator (or a second connection of a seated player who was
    /// connected already).
    Member,
    /// A seated player who was away is back: everyone should see it.
    Reconnected,
}

/// A table's actor state.
pub(super) struct Table {
    pub(super) env: Env,
    /// The integer key in the store.
    pub(super) seq: i64,
    pub(super) id: TableId,
    pub(super) created_ms: i64,
    pub(super) rules: Rules,
    /// The accounts of the people seated, by seat.
    pub(super) accounts: ByPlayer<Option<Arc<Account>>>,
    /// The bots, by seat.
    pub(super) bots: ByPlayer<Option<Box<dyn Bot>>>,
    /// Every attached connection: players' and spectators'.
    pub(super) members: Vec<Conn>,
    /// The status as connections and accounts see it.
    pub(super) live: LiveStatus,
    pub(super) lobby_dirty: bool,
    /// When the spectator count last changed without being broadcast: it
    /// goes out with the next state, or by this deadline.
    spectators_due: Option<Instant>,
    /// After a timer's change failed to store: no timer fires before then.
    retry_at: Option<Instant>,
    /// The connection whose request is being handled: its reply follows
    /// any state broadcast at once, so the state is queued without waking
    /// its task and both leave in one write.
    pub(super) replying_to: Option<u64>,
    /// The lease epoch this node holds the table under: every commit is
    /// fenced on it (see [`Write::Fence`]).
    pub(super) epoch: i64,
    /// Whether the stored row is behind the seats' presence (see
    /// [`presence`]).
    presence: Presence,
    /// The latest chat messages, for `chat_history`.
    pub(super) chat_log: ChatLog,
}

impl Table {
    pub(super) fn new(
        env: Env,
        seq: i64,
        id: TableId,
        live: LiveStatus,
        rules: Rules,
        created_ms: i64,
    ) -> Table {
        env.metrics.tables.fetch_add(1, Relaxed);
        Table {
            env,
            seq,
            id,
            created_ms,
            rules,
            accounts: ByPlayer { x: None, o: None },
            bots: ByPlayer { x: None, o: None },
            members: Vec::new(),
            live,
            lobby_dirty: false,
            spectators_due: None,
            retry_at: None,
            replying_to: None,
            epoch: 1,
            presence: Presence::default(),
            chat_log: ChatLog::default(),
        }
    }

    fn view(&self) -> View<'_> {
        View {
            id: &self.id,
            state: self.rules.state(),
            accounts: &self.accounts,
            members: &self.members,
        }
    }

    fn is_closed(&self) -> bool {
        self.rules.state().status() == TableStatus::Closed
    }

    /// Stores the new table with its creator on `conn` seated and replies;
    /// `false` if that failed (the creator got the error).
    pub(super) async fn open(
        &mut self,
        conn: Conn,
        req_id: Option<u64>,
        at: std::time::Instant,
    ) -> bool {
        let creator = PlayerId::from(Arc::clone(&conn.account.id));
        self.members.push(conn.clone());
        let made = match self.plan(Cmd::Create { creator: &creator }) {
            Ok(plan) => {
                self.seat_accounts(&plan, &conn.account);
                self.execute(plan, OnFailure::Abort).await
            }
            Err(e) => Err(e),
        };
        match made {
            Ok(_) => {
                self.reply_ok(&conn, req_id);
                tracing::debug!(table = %self.id, took = ?at.elapsed(), "table created");
                true
            }
            Err(e) => {
                conn.account.remove_table(self.id.as_str());
                self.reply_err(&conn, req_id, e);
                false
            }
        }
    }

    /// Receives commands and fires timers until the table closes or the
    /// server shuts down.
    pub(super) async fn run(&mut self, mut rx: mpsc::Receiver<TableCmd>) {
        // Publish recovered tables to the lobby.
        if self.lobby_dirty {
            self.publish_lobby();
        }
        // A child token, waited on by one future made once: polling the
        // server-wide token directly would lock its mutex (shared by every
        // task) on each command, and re-register a waiter each time.
        let shutdown = self.env.shutdown.child_token().cancelled_owned();
        tokio::pin!(shutdown);
        loop {
            self.fire_timers().await;
            if self.is_closed() {
                break;
            }
            let next = self.next_deadline();
            let wake = next.unwrap_or_else(|| Instant::now() + Duration::from_secs(86_400));
            tokio::select! {
                biased;
                () = &mut shutdown => break,
                // Handling is boxed out of this future, which every table
                // holds for its whole life: idle, a table's task is a third
                // of the size (most tables wait most of the time).
                cmd = rx.recv() => match cmd {
                    Some(cmd) => Box::pin(self.handle_and_store(cmd)).await,
                    None => break,
                },
                () = tokio::time::sleep_until(wake), if next.is_some() => {}
            }
            if self.is_closed() {
                break;
            }
        }
        // A change of presence still paced is stored before the table
        // stops (see [`presence`]).
        self.store_presence_now().await;
        self.drain(rx).await;
    }

    /// The actor is stopping: every request still queued gets its reply
    /// (every request is answered, and its connection waits for it).
    pub(super) async fn drain(&mut self, rx: mpsc::Receiver<TableCmd>) {
        let e = if self.env.shutdown.is_cancelled() && !self.is_closed() {
            ClientError::shutting_down()
        } else {
            ClientError::no_such_table()
        };
        self.live.set(self.rules.state().status());
        refuse_queued(rx, &self.env.metrics, &e).await;
    }

    /// Handles `cmd`, then stores what it changed of the seats' presence.
    async fn handle_and_store(&mut self, cmd: TableCmd) {
        self.handle(cmd).await;
        self.store_presence().await;
    }

    async fn handle(&mut self, cmd: TableCmd) {
        // A cluster node whose leases may have run out (it was paused, or
        // could not reach the database, for most of a lease) may have lost
        // this table: it shows and answers nothing (another node may have
        // newer state), not even a connection leaving (a node that slept
        // lets go of the other nodes' clients, which it heard nothing
        // from). It steps down; if the table was still its own, the next
        // cluster round resumes it from the database.
        if !matches!(cmd, TableCmd::IsMember(_) | TableCmd::Lost) && self.may_have_lost() {
            if let TableCmd::Request(r) = cmd {
                self.reply_err(&r.conn, r.id, ClientError::table_moved());
                if let Some(spent) = r.spent {
                    spent.give_back();
                }
            }
            self.stop_unsure();
            return;
        }
        match cmd {
            TableCmd::Request(r) => {
                let TableRequest {
                    conn,
                    id,
                    req,
                    at,
                    spent,
                } = *r;
                self.replying_to = Some(conn.id());
                let result = self.request(&conn, id, req, at).await;
                self.replying_to = None;
                if let (Err(_), Some(spent)) = (&result, spent) {
                    spent.give_back();
                }
                self.answer(&conn, id, result, at);
            }
            TableCmd::Attach(conn) => {
                if !self.is_closed() {
                    let attached = self.attach((*conn).clone());
                    self.show_attached(&conn, attached);
                }
            }
            TableCmd::Detach(conn_id) => self.detach(conn_id),
            TableCmd::Lost => self.step_down(),
            TableCmd::IsMember(q) => {
                let _ = q.answer.send(self.is_member(q.conn));
            }
            TableCmd::Renamed(renamed) => {
                self.lobby_dirty = true;
                self.broadcast();
                // Shown: the renaming connection's `ok` may follow.
                if let Some(shown) = renamed.shown {
                    let _ = shown.send(());
                }
            }
        }
    }

    /// Replies to a request handled with `result`, received at `at`.
    fn answer(
        &mut self,
        conn: &Conn,
        id: Option<u64>,
        result: Result<Reply, ClientError>,
        at: std::time::Instant,
    ) {
        match result {
            Ok(Reply::Done) => self.reply_ok(conn, id),
            Ok(Reply::Moved { game_id, ply }) => {
                self.live.set(self.rules.state().status());
                conn.outbox.reply(&ServerMsg::Ok {
                    id,
                    table_id: Some(self.id.clone()),
                    game_id: Some(game_id),
                    ply: Some(ply),
                });
                self.env.metrics.move_latency.observe(at.elapsed());
            }
            Err(e) => self.reply_err(conn, id, e),
        }
    }

    /// Plans `cmd` now.
    fn plan(&self, cmd: Cmd<'_>) -> Result<Plan, ClientError> {
        let store = &self.env.store;
        let mut new_game = || {
            let seq = store.next_game_seq();
            GameKey {
                id: new_game_id(seq).into(),
                seq,
            }
        };
        let mut ctx = Ctx {
            now: Instant::now(),
            new_game: &mut new_game,
        };
        self.rules.apply(cmd, &mut ctx)
    }

    /// Stores what `plan` changes, then adopts it and tells people. A
    /// store that fails leaves the state as it was (`OnFailure::Refuse`) or
    /// reads the table back from the store (`OnFailure::Abort`).
    async fn execute(&mut self, plan: Plan, on_failure: OnFailure) -> Result<Reply, ClientError> {
        let writes = self.writes(&plan);
        if !writes.is_empty() {
            if let Err(e) = self.commit(writes).await {
                let refused = self.refusal(&e, "a table change");
                let moved = matches!(e, ServerError::Fenced { .. });
                if on_failure == OnFailure::Abort && !moved {
                    self.abort_or_step_down().await;
                }
                return Err(refused);
            }
        }
        if plan.stored {
            // The row stored holds the seats' presence too.
            self.presence.saved();
        }
        let notify = plan.notify;
        let (events, reply) = self.rules.adopt(plan);
        let mut closed = false;
        for event in events {
            match event {
                Event::Moved { .. } => {
                    self.env.metrics.moves.fetch_add(1, Relaxed);
                }
                Event::RoundEnded { .. } => {
                    self.env.metrics.games_finished.fetch_add(1, Relaxed);
                }
                Event::Vacated { player } => {
                    for p in Player::ALL {
                        if self.accounts[p]
                            .as_ref()
                            .is_some_and(|a| *a.id == *player.as_str())
                        {
                            if let Some(a) = self.accounts[p].take() {
                                a.remove_table(self.id.as_str());
                            }
                        }
                    }
                    self.members.retain(|m| *m.account.id != *player.as_str());
                }
                Event::Closed => closed = true,
                Event::Seated { .. } | Event::RoundStarted { .. } => {}
            }
        }
        self.live.set(self.rules.state().status());
        if notify {
            self.lobby_dirty = true;
            self.broadcast();
        }
        if closed {
            self.finish_close();
        }
        Ok(reply)
    }

    pub(super) fn reply_ok(&self, conn: &Conn, id: Option<u64>) {
        self.live.set(self.rules.state().status());
        conn.outbox.reply(&ServerMsg::ok(id, Some(self.id.clone())));
    }

    pub(super) fn reply_err(&self, conn: &Conn, id: Option<u64>, e: ClientError) {
        self.live.set(self.rules.state().status());
        self.env.metrics.refused(e.code);
        conn.outbox
            .reply(&ServerMsg::error(id, e.code, e.message.into_owned()));
    }

    /// Sends the state to `conn` alone.
    fn send_state(&self, conn: &Conn) {
        conn.outbox.send_msg(&ServerMsg::Table {
            table: self.view().table_state(Instant::now()),
        });
    }
}

/// Refuses with `e` every request queued in `rx`, closing it first so
/// that this ends: every request is answered, and its connection waits for
/// the answer (a table that stops, or one that never started).
pub(super) async fn refuse_queued(
    mut rx: mpsc::Receiver<TableCmd>,
    metrics: &crate::metrics::Metrics,
    e: &ClientError,
) {
    rx.close();
    while let Some(cmd) = rx.recv().await {
        if let TableCmd::Request(r) = cmd {
            metrics.refused(e.code);
            r.conn.outbox.reply(&ServerMsg::error(
                r.id,
                e.code,
                e.message.clone().into_owned(),
            ));
            if let Some(spent) = r.spent {
                spent.give_back();
            }
        }
    }
}

mod chat;
mod people;
mod presence;
mod requests;
mod storage;
mod timers;
