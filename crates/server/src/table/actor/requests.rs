//! Clients' requests to a table.

use std::sync::Arc;
use std::time::Instant;

use oxo_core::Player;
use oxo_protocol::{ErrorCode, GameId, PlayerId};

use super::{OnFailure, Table};
use crate::accounts::Budget;
use crate::conn::Conn;
use crate::error::ClientError;
use crate::handle::TableReq;
use crate::table::rules::{Cmd, Event, MoveReq, Plan, Reply};

impl Table {
    /// Answers `req` from `conn` (request id `id`, read at `at`).
    pub(super) async fn request(
        &mut self,
        conn: &Conn,
        id: Option<u64>,
        req: TableReq,
        at: Instant,
    ) -> Result<Reply, ClientError> {
        if self.is_closed() {
            return Err(ClientError::no_such_table());
        }
        let player = PlayerId::from(Arc::clone(&conn.account.id));
        // A seated player who acts here from a connection that is not
        // attached (it came back before the table did, e.g. while the table
        // moved to another node) is attached now: it hears what its
        // request changes, like every other member.
        let acts = !matches!(req, TableReq::Join(_) | TableReq::Watch) && !req.detaches();
        if acts && !self.is_member(conn.id()) && self.rules.state().is_seated(&conn.account.id) {
            let attached = self.attach(conn.clone());
            if attached == super::Attached::Reconnected {
                self.show_presence(Some(conn));
            }
        }
        match req {
            TableReq::Join(seat) => self.join(conn, &player, seat, at).await,
            TableReq::Watch => {
                let attached = self.attach(conn.clone());
                self.show_attached(conn, attached);
                Ok(Reply::Done)
            }
            TableReq::Leave => self.leave(conn, &player).await,
            TableReq::StepAway => {
                self.detach(conn.id());
                Ok(Reply::Done)
            }
            TableReq::Move(cell, game) => {
                let plan = self.plan(Cmd::Move(MoveReq {
                    player: &player,
                    cell,
                    req: id,
                    conn: conn.id(),
                    game: game.as_ref().map(GameId::as_str),
                }))?;
                self.execute(plan, OnFailure::Refuse).await
            }
            TableReq::Forfeit => {
                let plan = self.plan(Cmd::Forfeit { player: &player })?;
                self.execute(plan, OnFailure::Refuse).await
            }
            TableReq::Rematch => {
                let plan = self.plan(Cmd::Rematch { player: &player })?;
                self.room_for_a_round(conn, &plan).await?;
                self.execute(plan, OnFailure::Abort).await
            }
            TableReq::Chat(text) => self.chat(conn, text).await,
            TableReq::ChatHistory => {
                self.must_see(conn, "read its chat")?;
                self.send_chat_history(conn);
                Ok(Reply::Done)
            }
            TableReq::Sync => {
                self.must_see(conn, "see its state")?;
                self.send_state(conn);
                Ok(Reply::Done)
            }
        }
    }

    /// Refuses (`not_seated`) a connection that may not see the table: one
    /// neither seated nor watching, asking to `what`.
    fn must_see(&self, conn: &Conn, what: &str) -> Result<(), ClientError> {
        if self.may_see(conn) {
            Ok(())
        } else {
            Err(ClientError::new(
                ErrorCode::NotSeated,
                format!("Join or watch the table to {what}"),
            ))
        }
    }

    /// Seats `player` (their seat counts against their limit), or
    /// re-attaches a player seated already. A join that starts a round
    /// makes a game, as a rematch does: it counts against the joiner's new
    /// games (read at `at`), or joining and leaving one table would write
    /// game records without end.
    async fn join(
        &mut self,
        conn: &Conn,
        player: &PlayerId,
        seat: Option<Player>,
        at: Instant,
    ) -> Result<Reply, ClientError> {
        let plan = self.plan(Cmd::Join { player, seat })?;
        if plan.events().is_empty() {
            let attached = self.attach(conn.clone());
            self.show_attached(conn, attached);
            return Ok(Reply::Done);
        }
        let spent = if starts_a_round(&plan) {
            let limit = self.env.rounds_limit;
            let spent = conn.account.spend(Budget::Rounds, limit, at);
            Some(spent.ok_or_else(|| ClientError::too_many_rounds(limit))?)
        } else {
            None
        };
        let seated = self.seat(conn, plan).await;
        if let (Err(_), Some(spent)) = (&seated, spent) {
            spent.give_back();
        }
        seated
    }

    /// Seats `conn`'s player as `plan` says, if their seats in play leave
    /// room for one more.
    async fn seat(&mut self, conn: &Conn, plan: Plan) -> Result<Reply, ClientError> {
        let max = self.env.max_tables_per_player;
        if !conn
            .account
            .try_take_seat(&*self.env.store, &Arc::from(&self.id), &self.live, max)
            .await
        {
            return Err(ClientError::too_many_seats(max));
        }
        self.seat_accounts(&plan, &conn.account);
        if !self.members.iter().any(|m| m.id() == conn.id()) {
            self.members.push(conn.clone());
        }
        self.execute(plan, OnFailure::Abort).await
    }

    /// A rematch puts a finished round back in play, so it counts against
    /// the seat limit: refused when the one asking holds the most seats in
    /// play elsewhere already, or when the round would start and their
    /// opponent does.
    // `&mut`: a table is not `Sync` (its bots), and this awaits.
    async fn room_for_a_round(&mut self, conn: &Conn, plan: &Plan) -> Result<(), ClientError> {
        let max = self.env.max_tables_per_player;
        let store = &*self.env.store;
        if conn
            .account
            .seats_full_elsewhere(store, self.id.as_str(), max)
            .await
        {
            return Err(ClientError::too_many_seats(max));
        }
        if starts_a_round(plan) {
            for account in [&self.accounts.x, &self.accounts.o].into_iter().flatten() {
                if account.id != conn.account.id
                    && account
                        .seats_full_elsewhere(store, self.id.as_str(), max)
                        .await
                {
                    return Err(ClientError::new(
                        ErrorCode::TooManyTables,
                        format!(
                            "Your opponent holds seats at {max} tables in play, the most \
                             allowed; the round starts when they finish or leave one"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// A seated player gives up their seats; a spectator stops watching.
    async fn leave(&mut self, conn: &Conn, player: &PlayerId) -> Result<Reply, ClientError> {
        if !self.rules.state().is_seated(player.as_str()) {
            return if self.unwatch(conn) {
                Ok(Reply::Done)
            } else {
                Err(ClientError::new(
                    ErrorCode::NotSeated,
                    "You are not at this table",
                ))
            };
        }
        // Leaving gives up the seat for all of the player's connections:
        // the others (another tab) are let go too, and told how the table
        // is without them, or they would show a seat that is gone.
        let others: Vec<Conn> = self
            .members
            .iter()
            .filter(|m| m.account.id == conn.account.id && m.id() != conn.id())
            .cloned()
            .collect();
        let plan = self.plan(Cmd::Leave { player })?;
        let reply = self.execute(plan, OnFailure::Abort).await?;
        self.send_state(conn);
        for other in &others {
            self.send_state(other);
        }
        Ok(reply)
    }
}

/// Whether `plan` starts a round (and so makes a game record).
fn starts_a_round(plan: &Plan) -> bool {
    plan.events()
        .iter()
        .any(|e| matches!(e, Event::RoundStarted { .. }))
}
