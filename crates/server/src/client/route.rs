//! Requests after `hello`: each goes to its table's actor, which replies,
//! or is answered here (names, the lobby, `ping`).
//!
//! # Tables a connection is at
//!
//! A connection may be at [`MAX_ATTACHED`] tables at once (seated or
//! watching). `leave_table` frees the slot, and so does a table that
//! closes; when the slots are full, the tables that no longer count the
//! connection among their people (one that refused a request from it, or
//! that another connection of the player left) are forgotten, then tables
//! whose round is over are let go (as if the connection had walked away
//! from them), so that only tables in play can fill them.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use oxo_protocol::{ClientMsg, ErrorCode, Request, ServerMsg, TableId, TableOptions, TableStatus};

use super::attached::MAX_ATTACHED;
use super::validate;
use super::{Client, Reply};
use crate::accounts::{Budget, Spent};
use crate::conn::Conn;
use crate::error::ClientError;
use crate::handle::{IsMember, TableCmd, TableHandle, TableReq, TableRequest};
use crate::ids::new_id;
use crate::live::LiveStatus;
use crate::log_pace::Pace;
use crate::table;

impl Client {
    /// Handles a request of the player on `conn`, read at `at`.
    pub(super) async fn dispatch(
        &mut self,
        conn: Conn,
        req: Request,
        at: Instant,
    ) -> Result<Reply, ClientError> {
        let id = req.id;
        let mut spent = None;
        let (table_id, table_req) = match req.msg {
            ClientMsg::Hello { .. } => {
                return Err(ClientError::new(
                    ErrorCode::AlreadyHello,
                    "hello was already sent on this connection",
                ));
            }
            ClientMsg::SetName { name } => {
                let name = validate::name(&name)?;
                self.rename(&conn.account, name, true, at).await?;
                return Ok(Reply::Ok);
            }
            ClientMsg::CreateTable { options } => {
                validate::options(&options)?;
                let spent = self.spend_round(&conn, at)?;
                let created = self.create(conn, id, options, at).await;
                if created.is_err() {
                    spent.give_back();
                }
                return created;
            }
            ClientMsg::WatchLobby => {
                if self.shared.lobby.watch(&self.outbox) {
                    self.shared.metrics.lobby_watchers.fetch_add(1, Relaxed);
                }
                let tables = self
                    .shared
                    .lobby
                    .snapshot(self.shared.config.lobby_max_tables);
                self.outbox.send_msg(&ServerMsg::Lobby { tables });
                return Ok(Reply::Ok);
            }
            ClientMsg::UnwatchLobby => {
                if self.shared.lobby.unwatch(self.outbox.id) {
                    self.shared.metrics.lobby_watchers.fetch_sub(1, Relaxed);
                }
                return Ok(Reply::Ok);
            }
            ClientMsg::Ping => {
                self.outbox.send_msg(&ServerMsg::Pong { id });
                return Ok(Reply::Sent);
            }
            ClientMsg::JoinTable { table_id, seat } => (table_id, TableReq::Join(seat)),
            ClientMsg::WatchTable { table_id } => (table_id, TableReq::Watch),
            ClientMsg::LeaveTable { table_id } => (table_id, TableReq::Leave),
            ClientMsg::StepAway { table_id } => {
                // Idempotent: stepping away from a table the connection is
                // not at (never was, left, or that has closed) changes
                // nothing, and needs no trip to the table.
                if self
                    .attached
                    .get(table_id.as_str())
                    .is_none_or(TableHandle::is_closed)
                {
                    return Ok(Reply::OkAt(table_id));
                }
                (table_id, TableReq::StepAway)
            }
            ClientMsg::Move {
                table_id,
                cell,
                game_id,
            } => (table_id, TableReq::Move(cell, game_id)),
            ClientMsg::Forfeit { table_id } => (table_id, TableReq::Forfeit),
            ClientMsg::Rematch { table_id } => {
                spent = Some(self.spend_round(&conn, at)?);
                (table_id, TableReq::Rematch)
            }
            ClientMsg::Sync { table_id } => (table_id, TableReq::Sync),
            ClientMsg::ChatHistory { table_id } => (table_id, TableReq::ChatHistory),
            ClientMsg::Chat { table_id, text } => {
                let text = validate::chat(&text)?;
                let limit = self.shared.config.chat_limit;
                spent = Some(
                    conn.account
                        .spend(Budget::Chat, limit, at)
                        .ok_or_else(|| validate::chat_rate(limit))?,
                );
                (table_id, TableReq::Chat(text))
            }
        };
        let req = Box::new(TableRequest {
            conn,
            id,
            req: table_req,
            at,
            spent,
        });
        self.forward(table_id, req).await
    }

    /// Counts a new round (a table created, a rematch asked for) against
    /// the player's limit; refusing it gives it back.
    fn spend_round(&self, conn: &Conn, at: Instant) -> Result<Spent, ClientError> {
        let limit = self.shared.config.rounds_limit;
        conn.account
            .spend(Budget::Rounds, limit, at)
            .ok_or_else(|| ClientError::too_many_rounds(limit))
    }

    /// Makes room to be at one more table, unless the connection is at
    /// `table_id` already: forgets tables that have closed, then lets go of
    /// tables whose round is over (as if the connection had walked away
    /// from them). `false` when every slot holds a table in play.
    pub(super) async fn make_room(&mut self, table_id: &str) -> bool {
        if self.attached.contains(table_id) || self.attached.len() < MAX_ATTACHED {
            return true;
        }
        self.attached.retain(|h| !h.is_closed());
        if self.attached.len() < MAX_ATTACHED {
            return true;
        }
        self.forget_tables_not_at().await;
        if self.attached.len() < MAX_ATTACHED {
            return true;
        }
        let over: Vec<Arc<str>> = self
            .attached
            .iter()
            .filter(|(_, h)| h.status() == TableStatus::RoundOver)
            .map(|(id, _)| Arc::clone(id))
            .collect();
        for id in over {
            if let Some(handle) = self.attached.remove(&id) {
                let _ = handle.send(TableCmd::Detach(self.outbox.id)).await;
            }
        }
        self.attached.len() < MAX_ATTACHED
    }

    /// Forgets the tables that no longer count this connection among
    /// their people: one that refused a request from it (it was never
    /// there), or that another connection of the player left for it. Each
    /// table is asked and answers after the requests sent to it before.
    async fn forget_tables_not_at(&mut self) {
        let tables: Vec<(Arc<str>, TableHandle)> = self
            .attached
            .iter()
            .map(|(id, h)| (Arc::clone(id), h.clone()))
            .collect();
        let mut asked = Vec::with_capacity(tables.len());
        for (id, handle) in tables {
            let (answer, told) = tokio::sync::oneshot::channel();
            let question = IsMember {
                conn: self.outbox.id,
                answer,
            };
            if handle.send(TableCmd::IsMember(Box::new(question))).await {
                asked.push((id, told));
            } else {
                self.attached.remove(&id);
            }
        }
        for (id, told) in asked {
            // Unanswered: the table has stopped.
            if !told.await.unwrap_or(false) {
                self.attached.remove(&id);
            }
        }
    }

    /// Opens a table for the player on `conn`; its actor replies.
    async fn create(
        &mut self,
        conn: Conn,
        id: Option<u64>,
        options: TableOptions,
        at: Instant,
    ) -> Result<Reply, ClientError> {
        if self.shutting_down() {
            return Err(ClientError::shutting_down());
        }
        let table_id = new_id();
        if !self.make_room(&table_id).await {
            return Err(too_many_attached());
        }
        let live = LiveStatus::new(TableStatus::Waiting);
        let max = self.shared.config.max_tables_per_player;
        if !conn
            .account
            .try_take_seat(&*self.shared.store, &table_id, &live, max)
            .await
        {
            return Err(ClientError::too_many_seats(max));
        }
        self.outbox.owe_reply();
        let handle = table::create(
            &self.shared.table_env(),
            Arc::clone(&table_id),
            live,
            options,
            conn,
            id,
            at,
        );
        self.attached.insert(table_id, handle);
        Ok(Reply::Owed)
    }

    /// Sends a request to its table, whose actor replies. A request
    /// refused here gives back what it spent of its player's budget.
    async fn forward(
        &mut self,
        table_id: TableId,
        request: Box<TableRequest>,
    ) -> Result<Reply, ClientError> {
        match self.table_for(&table_id, &request.req).await {
            Ok(handle) => Ok(self.send_to(handle, table_id, request).await),
            Err(e) => {
                if let Some(spent) = request.spent {
                    spent.give_back();
                }
                Err(e)
            }
        }
    }

    /// The table a request goes to, with a place for it among the
    /// connection's tables unless the request leaves it.
    async fn table_for(
        &mut self,
        table_id: &TableId,
        req: &TableReq,
    ) -> Result<TableHandle, ClientError> {
        if self.shutting_down() {
            return Err(ClientError::shutting_down());
        }
        let handle = match self.attached.get(table_id.as_str()) {
            Some(h) if !h.is_closed() => h.clone(),
            _ => self.find(table_id.as_str()).await?,
        };
        // Any request but leaving may attach the connection (a seated
        // player acting from a connection that is not attached yet is
        // attached by the table): the connection must know, to detach
        // when it closes.
        let leaving = req.detaches();
        if !leaving && !self.attached.contains(table_id.as_str()) {
            if !self.make_room(table_id.as_str()).await {
                return Err(too_many_attached());
            }
            self.attached
                .insert(Arc::from(table_id.as_str()), handle.clone());
        }
        Ok(handle)
    }

    /// Hands `request` to its table's actor, which replies; or replies
    /// here if the table has stopped.
    async fn send_to(
        &mut self,
        handle: TableHandle,
        table_id: TableId,
        request: Box<TableRequest>,
    ) -> Reply {
        let leaving = request.req.detaches();
        let id = request.id;
        self.outbox.owe_reply();
        if handle.send(TableCmd::Request(request)).await {
            if leaving {
                self.attached.remove(table_id.as_str());
            }
        } else {
            self.attached.remove(table_id.as_str());
            let e = self.missing(table_id.as_str()).await;
            self.shared.metrics.refused(e.code);
            self.outbox
                .reply(&ServerMsg::error(id, e.code, e.message.into_owned()));
        }
        Reply::Owed
    }
}

impl Client {
    /// The table `table_id`: here, or in a cluster with a bus, on the node
    /// that runs it.
    pub(super) async fn find(&self, table_id: &str) -> Result<TableHandle, ClientError> {
        if let Some(handle) = self.shared.table(table_id) {
            return Ok(handle);
        }
        if !self.shared.on_bus() {
            return Err(self.missing(table_id).await);
        }
        let Some(link) = self.shared.bus.get() else {
            // Not on the bus yet (start-up, or it is down).
            return Err(ClientError::table_moved());
        };
        match self.shared.store.owner_of(table_id).await {
            Ok(Some((owner, true))) if owner != link.node => {
                let remote = link.table(owner, Arc::from(table_id));
                Ok(TableHandle::remote(Arc::new(remote)))
            }
            // Being taken over, or this node's and being reloaded.
            Ok(Some(_)) => Err(ClientError::table_moved()),
            Ok(None) => Err(ClientError::no_such_table()),
            Err(e) => {
                // Paced: while the database is down every request meets it.
                static FAILED: Pace = Pace::new();
                if let Some(skipped) = FAILED.check(std::time::Instant::now()) {
                    tracing::warn!(error = %e, skipped, "could not look up a table's node");
                }
                Err(ClientError::table_moved())
            }
        }
    }

    /// The refusal for a table that does not run here: `no_such_table`;
    /// in a cluster, `table_moving` (retryable) while the database still
    /// has it open (it is being taken over, or reloaded).
    async fn missing(&self, table_id: &str) -> ClientError {
        if self.shared.node.is_some() && self.shared.store.is_open(table_id).await.unwrap_or(true) {
            return ClientError::table_moved();
        }
        ClientError::no_such_table()
    }
}

fn too_many_attached() -> ClientError {
    ClientError::new(
        ErrorCode::TooManyTables,
        format!("One connection may be at {MAX_ATTACHED} tables in play at most; leave one first"),
    )
}
