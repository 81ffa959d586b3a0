//! The people at a table: connections attaching and detaching, what they
//! are sent, the lobby entry, and letting go of everything at the end.

use std::sync::Arc;

use oxo_core::Player;
use oxo_protocol::{PlayerId, ServerMsg, TableStatus};
use tokio::time::Instant;

use super::super::resumed::{ResumedAt, rebuild_seated};
use super::{Attached, SPECTATORS_DEBOUNCE, Table};
use crate::conn::{Conn, encode};
use crate::error::ServerError;
use crate::log_pace::Pace;
use crate::store::Write;
use crate::table::rules::{Cmd, Plan};

impl Table {
    pub(super) fn is_member(&self, conn_id: u64) -> bool {
        self.members.iter().any(|m| m.id() == conn_id)
    }

    fn is_connected(&self, account_id: &str) -> bool {
        self.members.iter().any(|m| *m.account.id == *account_id)
    }

    /// Attaches a connection (idempotent); a seated player who was away is
    /// connected again and keeps the seat.
    pub(super) fn attach(&mut self, conn: Conn) -> Attached {
        if self.is_member(conn.id()) {
            return Attached::Already;
        }
        let account = Arc::clone(&conn.account);
        let was_connected = self.is_connected(&account.id);
        self.members.push(conn);
        if !self.rules.state().is_seated(&account.id) {
            return Attached::Member;
        }
        if was_connected {
            return Attached::Already;
        }
        let player = PlayerId::from(Arc::clone(&account.id));
        self.adopt_presence(Cmd::Present { player: &player });
        Attached::Reconnected
    }

    /// Adopts a change of presence at once (the rules store nothing for
    /// it); [`Table::store_presence`] stores it after the command.
    fn adopt_presence(&mut self, cmd: Cmd<'_>) {
        if let Ok(plan) = self.plan(cmd) {
            debug_assert!(plan.events().is_empty() && !plan.stored);
            let _ = self.rules.adopt(plan);
            self.lobby_dirty = true;
            self.presence.changed();
        }
    }

    /// Stores the table's row after a seated player came or went, so
    /// that the end of an away player's grace period outlives this
    /// process, if the pace allows (see [`super::presence`]).
    pub(super) async fn store_presence(&mut self) {
        if self.presence.store(Instant::now(), true) {
            self.write_presence().await;
        }
    }

    /// Stores the table's row if a seated player came or went since it
    /// was, whatever the pace: the table is stopping.
    pub(super) async fn store_presence_now(&mut self) {
        if self.presence.store(Instant::now(), false) {
            self.write_presence().await;
        }
    }

    /// Writes the table's row for its presence. Nothing waits on it: a
    /// failure is logged, and the table's next stored change writes the
    /// row again; a newer owner's lease means the table moved (as for any
    /// commit).
    async fn write_presence(&mut self) {
        if self.is_closed() {
            return;
        }
        // Room for the fence `commit` puts first.
        let mut writes = Vec::with_capacity(2);
        writes.push(Write::Table(Box::new(self.row(self.rules.state()))));
        match self.commit(writes).await {
            Ok(()) | Err(ServerError::Fenced { .. }) => {}
            Err(e) => {
                static FAILED: Pace = Pace::new();
                if let Some(skipped) = FAILED.check(std::time::Instant::now()) {
                    tracing::warn!(
                        table = %self.id,
                        error = %e,
                        skipped,
                        "could not store a player coming or going; the table's next change will"
                    );
                }
            }
        }
    }

    /// After attaching `conn`: everyone hears of a player who is back; a
    /// new spectator is counted in a later broadcast; the requester gets
    /// the state now.
    pub(super) fn show_attached(&mut self, conn: &Conn, attached: Attached) {
        match attached {
            Attached::Reconnected => self.show_presence(Some(conn)),
            Attached::Member => {
                self.spectators_changed();
                self.send_state(conn);
            }
            Attached::Already => self.send_state(conn),
        }
    }

    /// A connection closed: a seated player who has no other connection
    /// here is away, and the grace period starts.
    pub(super) fn detach(&mut self, conn_id: u64) {
        let Some(i) = self.members.iter().position(|m| m.id() == conn_id) else {
            return;
        };
        let conn = self.members.swap_remove(i);
        if self.is_closed() {
            return;
        }
        if !self.rules.state().is_seated(&conn.account.id) {
            self.spectators_changed();
            return;
        }
        if self.is_connected(&conn.account.id) {
            // Another of the player's connections is still at the table:
            // nothing anyone sees has changed.
            return;
        }
        self.lobby_dirty = true;
        let player = PlayerId::from(Arc::clone(&conn.account.id));
        self.adopt_presence(Cmd::Absent { player: &player });
        self.show_presence(None);
    }

    /// A seated player came (on `back`) or went: everyone sees it now, or
    /// with the next state sent, as the pace allows (see
    /// [`super::presence`]); the connection coming back gets its state
    /// now either way.
    pub(super) fn show_presence(&mut self, back: Option<&Conn>) {
        if self.presence.show(Instant::now()) {
            self.broadcast();
        } else if let Some(conn) = back {
            self.send_state(conn);
        }
    }

    /// A spectator stops watching; `false` if `conn` was not at the table.
    pub(super) fn unwatch(&mut self, conn: &Conn) -> bool {
        let before = self.members.len();
        self.members.retain(|m| m.id() != conn.id());
        if self.members.len() == before {
            return false;
        }
        self.spectators_changed();
        self.send_state(conn);
        true
    }

    /// The number of spectators changed: it goes out at once after a
    /// quiet spell (the timers fire right after the command, so the
    /// requester's reply comes first), else with the next state, at the
    /// latest [`SPECTATORS_DEBOUNCE`] after the last change shown: paced
    /// like the seats' presence (see [`super::presence`]), so a spectator
    /// coming and going in a loop sends the others a state a second.
    pub(super) fn spectators_changed(&mut self) {
        self.lobby_dirty = true;
        if self.spectators_due.is_none() {
            let now = Instant::now();
            self.spectators_due = Some(if self.presence.show(now) {
                now
            } else {
                self.presence.show_by().unwrap_or(now + SPECTATORS_DEBOUNCE)
            });
        }
    }

    /// Whether `conn` may see the state: it holds a seat or watches.
    pub(super) fn may_see(&self, conn: &Conn) -> bool {
        self.rules.state().is_seated(&conn.account.id) || self.is_member(conn.id())
    }

    /// Before storing a plan that seats `account`: its seats get the
    /// account, for the names in the records.
    pub(super) fn seat_accounts(&mut self, plan: &Plan, account: &Arc<crate::accounts::Account>) {
        for p in Player::ALL {
            if plan
                .next()
                .human(p)
                .is_some_and(|h| *h.player.as_str() == *account.id)
            {
                self.accounts[p] = Some(Arc::clone(account));
            }
        }
    }

    /// Lists the table in the lobby as it is now, or takes it out: a
    /// public table is listed unless it is closed, or waits for an
    /// opponent with nobody there to play them (its player's connection
    /// dropped: listed again when they come back).
    pub(super) fn publish_lobby(&mut self) {
        self.lobby_dirty = false;
        let state = self.rules.state();
        if !state.options().public {
            return;
        }
        let deserted = state.status() == TableStatus::Waiting && !state.any_human_connected();
        if self.is_closed() || deserted {
            self.env.lobby.remove(self.id.as_str());
        } else {
            self.env
                .lobby
                .upsert(&Arc::from(self.id.as_str()), self.view().lobby_entry());
        }
    }

    /// Sends the state to every member (serialized once).
    pub(super) fn broadcast(&mut self) {
        self.live.set(self.rules.state().status());
        self.spectators_due = None;
        self.presence.shown(Instant::now());
        if !self.members.is_empty() {
            let frame = encode(&ServerMsg::Table {
                table: self.view().table_state(Instant::now()),
            });
            for m in &self.members {
                if self.replying_to == Some(m.id()) {
                    m.outbox.send_quiet(frame.clone());
                } else {
                    m.outbox.send(frame.clone());
                }
            }
        }
        if self.lobby_dirty {
            self.publish_lobby();
        }
    }

    /// Releases everything a closed table holds.
    pub(super) fn finish_close(&mut self) {
        for p in Player::ALL {
            if let Some(account) = &self.accounts[p] {
                account.remove_table(self.id.as_str());
            }
        }
        self.env.lobby.remove(self.id.as_str());
        self.env.tables.unregister(self.id.as_str());
        tracing::debug!(table = %self.id, "table closed");
    }

    /// Another node owns the table now (cluster): it stops here at once,
    /// writing nothing more; the new owner has its durable state. The
    /// connections at the table close (1013): their clients come back, by
    /// way of any node, and see the table as its new owner has it.
    pub(super) fn step_down(&mut self) {
        for m in &self.members {
            m.outbox.close(
                crate::close::TRY_AGAIN,
                "the table is moving to another node; reconnect with your token",
            );
        }
        self.rules.close();
        self.live.set(self.rules.state().status());
        self.members.clear();
        self.finish_close();
    }

    /// Whether this table runs on a cluster node whose leases may have run
    /// out (not renewed for most of a lease): another node may have taken
    /// the table over.
    pub(super) fn may_have_lost(&self) -> bool {
        self.env.node.as_ref().is_some_and(|node| !node.holds_now())
    }

    /// Stops the table here, unsure it is still this node's (see
    /// `Table::handle`), and asks for a cluster round to resume it if it
    /// is.
    pub(super) fn stop_unsure(&mut self) {
        tracing::warn!(
            table = %self.id,
            "this node's leases were not renewed lately: the table stops here"
        );
        self.step_down();
        if let Some(node) = &self.env.node {
            node.wake();
        }
    }

    /// After a storage failure that leaves the table in doubt: in a
    /// cluster it stops here, its players' connections close (they come
    /// back and re-attach), and the node resumes it from the database as
    /// soon as it can (its lease is still this node's). On a server of its
    /// own it is read back from the database in place ([`Table::reload`]);
    /// only if that fails too does it close in memory ([`Table::abort`])
    /// until the next start.
    pub(super) async fn abort_or_step_down(&mut self) {
        if let Some(node) = self.env.node.clone() {
            self.step_down();
            node.wake();
            return;
        }
        if let Err(why) = self.reload().await {
            tracing::error!(
                table = %self.id,
                why,
                "could not read a table back after a failed commit: it closes until the next start"
            );
            self.abort();
        }
    }

    /// Replaces the table's state with what the database holds of it, as a
    /// restart would resume it (its clocks as of now), and shows it to the
    /// connections at the table, which stay attached. The actor, and so
    /// the queue of requests sent meanwhile, stays the same.
    ///
    /// # Errors
    ///
    /// Why the table could not be read back (nothing was changed then).
    async fn reload(&mut self) -> Result<(), String> {
        let saved = match self.env.store.unfinished_table(self.seq).await {
            Ok(Some(saved)) => saved,
            Ok(None) => return Err("it is not open in the database".into()),
            Err(e) => return Err(e.to_string()),
        };
        // The seats as stored are taken again by the rebuilt table; a seat
        // taken only in memory (a join whose commit failed) is let go.
        for account in [&self.accounts.x, &self.accounts.o].into_iter().flatten() {
            account.remove_table(self.id.as_str());
        }
        let accounts = Arc::clone(&self.env.accounts);
        let fresh = rebuild_seated(&self.env, &accounts, saved, &self.live, ResumedAt::now())
            .ok_or_else(|| String::from("its stored state cannot resume"))?;
        let members = std::mem::take(&mut self.members);
        let replying_to = self.replying_to;
        // The old state's drop counts it out of the open tables; the
        // rebuilt one counted itself in.
        drop(std::mem::replace(self, fresh));
        self.replying_to = replying_to;
        for conn in members {
            self.attach(conn);
        }
        self.broadcast();
        tracing::info!(table = %self.id, "read a table back after a failed commit");
        Ok(())
    }

    /// Closes the table in memory after a storage failure.
    pub(super) fn abort(&mut self) {
        self.rules.close();
        self.live.set(self.rules.state().status());
        self.lobby_dirty = true;
        self.broadcast();
        self.finish_close();
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        self.env
            .metrics
            .tables
            .fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
    }
}
