//! The protocol side of one connection: limits, `hello`, and routing
//! requests to tables. The wire side (reading, writing, closing) is in
//! `transport`; this module sees text frames and answers through the
//! connection's [`Outbox`].
//!
//! Limits, in the order they are checked for each frame: size
//! ([`Config::max_frame_bytes`], else close 1009), rate (token bucket; every
//! frame counts, WebSocket pings too; else `rate_limited`, with the
//! request's `id` when it can be read; a flood closes with 1008), JSON shape
//! (else `bad_request` naming the problem), `hello` first (else
//! `hello_required`; the third strike closes with 1008).
//!
//! # Tables a connection is at
//!
//! A connection may be at [`MAX_ATTACHED`] tables at once (seated or
//! watching). `leave_table` frees the slot, and so does a table that
//! closes; when the slots are full, tables whose round is over are let go
//! first (as if the connection had walked away from them), so that only
//! tables in play can fill them.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use oxo_protocol::limits::{MAX_BOT_THINK_MS, MAX_CHAT_CHARS, MAX_MOVE_TIME_MS, MIN_MOVE_TIME_MS};
use oxo_protocol::{
    ClientMsg, ErrorCode, PROTOCOL_VERSION, Request, ServerMsg, TableOptions, TableStatus, peek_id,
};

use crate::accounts::{Account, validate_name};
use crate::config::Config;
use crate::conn::{Conn, Outbox, close};
use crate::error::ClientError;
use crate::ids::{hash_token, is_token_shaped, new_id, new_token};
use crate::live::LiveStatus;
use crate::rate::Bucket;
use crate::state::Shared;
use crate::store::{self, Write};
use crate::table::{self, TableCmd, TableHandle, TableReq};

/// Messages before `hello` that are tolerated before the connection closes.
const HELLO_STRIKES: u32 = 3;
/// The most tables one connection may be attached to (seated or watching).
pub(crate) const MAX_ATTACHED: usize = 64;

/// Whether the connection goes on after a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Close,
}

/// The protocol state of one connection.
#[derive(Debug)]
pub(crate) struct Session {
    shared: Arc<Shared>,
    pub(crate) outbox: Arc<Outbox>,
    /// The client's address, for per-address limits (`None` in process).
    peer: Option<IpAddr>,
    /// Set by `hello`.
    conn: Option<Conn>,
    /// Tables this connection is at (seated or watching), and the handles
    /// of tables it used lately; told when the connection closes.
    attached: HashMap<Arc<str>, TableHandle>,
    rate: Bucket,
    chat: Bucket,
    /// Refusals for rate in the current flood window.
    flood: (Instant, u32),
    strikes: u32,
}

impl Session {
    pub(crate) fn new(
        shared: Arc<Shared>,
        outbox: Arc<Outbox>,
        peer: Option<SocketAddr>,
    ) -> Session {
        let now = Instant::now();
        let config: &Config = &shared.config;
        Session {
            rate: Bucket::new(config.rate_limit, now),
            chat: Bucket::new(config.chat_limit, now),
            flood: (now, 0),
            shared,
            outbox,
            peer: peer.map(|p| p.ip()),
            conn: None,
            attached: HashMap::new(),
            strikes: 0,
        }
    }

    /// Whether the server is shutting down. Asks the connection's own token
    /// first: the server-wide one is locked only once that has fired.
    fn shutting_down(&self) -> bool {
        self.outbox.closing().is_cancelled() && self.shared.shutdown.is_cancelled()
    }

    fn refuse(&self, id: Option<u64>, e: ClientError) {
        self.shared.metrics.refused(e.code);
        self.outbox
            .send_msg(&ServerMsg::error(id, e.code, e.message.into_owned()));
    }

    /// Counts a frame against the rate limit. Over the limit, refuses it
    /// (`rate_limited`, with `id` if it has one) and says whether the
    /// connection goes on: a flood of refusals closes it (1008).
    fn admit(&mut self, now: Instant, id: impl FnOnce() -> Option<u64>) -> Result<(), Flow> {
        if self.rate.take(now) {
            return Ok(());
        }
        let limit = self.shared.config.rate_limit;
        self.refuse(
            id(),
            ClientError::new(
                ErrorCode::RateLimited,
                format!(
                    "Too many messages: at most {} per second (bursts of {}); slow down",
                    limit.per_second, limit.burst
                ),
            ),
        );
        let window = self.shared.config.flood_window;
        if now.saturating_duration_since(self.flood.0) > window {
            self.flood = (now, 0);
        }
        self.flood.1 += 1;
        if self.flood.1 >= self.shared.config.flood_refusals {
            self.outbox
                .close(close::POLICY, "rate limit exceeded: too many messages");
            return Err(Flow::Close);
        }
        Err(Flow::Continue)
    }

    /// A WebSocket ping or pong from the client: it counts like a message.
    pub(crate) fn on_control_frame(&mut self) -> Flow {
        match self.admit(Instant::now(), || None) {
            Ok(()) => Flow::Continue,
            Err(flow) => flow,
        }
    }

    /// Handles one text frame.
    pub(crate) async fn on_text(&mut self, text: &str) -> Flow {
        let now = Instant::now();
        let max = self.shared.config.max_frame_bytes;
        if text.len() > max {
            self.refuse(
                peek_id(text),
                ClientError::bad_request(format!(
                    "The message has {} bytes; at most {max} are allowed",
                    text.len()
                )),
            );
            self.outbox.close(
                close::TOO_BIG,
                format!("message too big: at most {max} bytes"),
            );
            return Flow::Close;
        }
        if let Err(flow) = self.admit(now, || peek_id(text)) {
            return flow;
        }
        let req: Request = match serde_json::from_str(text) {
            Ok(req) => req,
            Err(e) => {
                self.refuse(
                    peek_id(text),
                    ClientError::bad_request(format!("Invalid request: {e}")),
                );
                return Flow::Continue;
            }
        };
        let Some(conn) = self.conn.clone() else {
            return self.before_hello(req).await;
        };
        self.dispatch(conn, req, now).await;
        Flow::Continue
    }

    async fn before_hello(&mut self, req: Request) -> Flow {
        match req.msg {
            ClientMsg::Hello {
                version,
                token,
                name,
            } => {
                if let Err(e) = self.hello(req.id, version, token, name).await {
                    self.refuse(req.id, e);
                }
                Flow::Continue
            }
            _ => {
                self.strikes += 1;
                self.refuse(
                    req.id,
                    ClientError::new(
                        ErrorCode::HelloRequired,
                        "Send hello first: {\"type\":\"hello\",\"version\":1}",
                    ),
                );
                if self.strikes >= HELLO_STRIKES {
                    self.outbox
                        .close(close::POLICY, "hello required as the first message");
                    return Flow::Close;
                }
                Flow::Continue
            }
        }
    }

    async fn hello(
        &mut self,
        id: Option<u64>,
        version: u32,
        token: Option<String>,
        name: Option<String>,
    ) -> Result<(), ClientError> {
        if version != PROTOCOL_VERSION {
            return Err(ClientError::new(
                ErrorCode::UnsupportedVersion,
                format!(
                    "Protocol version {version} is not supported; this server speaks {PROTOCOL_VERSION}"
                ),
            ));
        }
        let name = name
            .map(|n| validate_name(&n).map_err(|m| ClientError::new(ErrorCode::InvalidName, m)))
            .transpose()?;
        let store = &self.shared.store;
        let (account, token) = match token {
            Some(token) => {
                let account = self.resume(&token).await?;
                if let Some(name) = name {
                    if *account.name() != *name {
                        // The tables hear of it when this connection attaches.
                        self.rename(&account, name, false).await?;
                    }
                }
                (account, token)
            }
            None => {
                if let Some(addr) = self.peer {
                    if let Err(wait) = self.shared.new_players.take(addr, Instant::now()) {
                        return Err(ClientError::new(
                            ErrorCode::RateLimited,
                            format!(
                                "Too many new players from your address; try again in {:.0} s, \
                                 or say hello with your token to come back as yourself",
                                wait.ceil()
                            ),
                        ));
                    }
                }
                let (token, token_hash) = new_token();
                let name = name.unwrap_or_else(|| Arc::from("Player"));
                let account = Account::new(new_id(), token_hash, Arc::clone(&name));
                store
                    .commit(vec![Write::Player {
                        id: Arc::clone(&account.id),
                        token_hash,
                        name,
                    }])
                    .await
                    .map_err(|e| {
                        tracing::error!(error = %e, "could not store a new player");
                        ClientError::internal()
                    })?;
                (self.shared.accounts.insert(account), token)
            }
        };
        let conn = Conn {
            outbox: Arc::clone(&self.outbox),
            account: Arc::clone(&account),
        };
        self.conn = Some(conn.clone());
        // The games to resume: tables in play. Finished rounds are not
        // listed or re-attached; a client that wants one back joins it.
        let tables = account.tables_in_play();
        self.outbox.send_msg(&ServerMsg::Welcome {
            id,
            version: PROTOCOL_VERSION,
            token,
            player_id: account.id.to_string(),
            name: account.name().to_string(),
            tables: tables.iter().map(|t| t.to_string()).collect(),
        });
        // Back in every seat in play: each table sends its state.
        for table_id in tables {
            if let Some(handle) = self.shared.table(&table_id) {
                if self.make_room(&table_id).await {
                    self.attached.insert(Arc::clone(&table_id), handle.clone());
                    let _ = handle.send(TableCmd::Attach(conn.clone())).await;
                }
            }
        }
        Ok(())
    }

    /// The account holding `token`.
    async fn resume(&self, token: &str) -> Result<Arc<Account>, ClientError> {
        let invalid = || {
            ClientError::new(
                ErrorCode::InvalidToken,
                "Unknown session token; send hello without a token to start afresh",
            )
        };
        if !is_token_shaped(token) {
            return Err(invalid());
        }
        let hash = hash_token(token);
        if let Some(account) = self.shared.accounts.get(&hash) {
            return Ok(account);
        }
        let row = self
            .shared
            .store
            .read(move |c| store::player_by_token(c, hash))
            .await
            .map_err(|e| {
                tracing::error!(error = %e, "could not look up a token");
                ClientError::internal()
            })?
            .ok_or_else(invalid)?;
        Ok(self
            .shared
            .accounts
            .insert(Account::new(Arc::from(row.id), hash, Arc::from(row.name))))
    }

    async fn rename(
        &self,
        account: &Account,
        name: Arc<str>,
        tell_tables: bool,
    ) -> Result<(), ClientError> {
        self.shared
            .store
            .commit(vec![Write::PlayerName {
                id: Arc::clone(&account.id),
                name: Arc::clone(&name),
            }])
            .await
            .map_err(|e| {
                tracing::error!(error = %e, "could not store a name");
                ClientError::internal()
            })?;
        account.set_name(name);
        if !tell_tables {
            return Ok(());
        }
        for table_id in account.tables() {
            if let Some(handle) = self.shared.table(&table_id) {
                let _ = handle.send(TableCmd::Renamed).await;
            }
        }
        Ok(())
    }

    async fn dispatch(&mut self, conn: Conn, req: Request, at: Instant) {
        let id = req.id;
        let result = match req.msg {
            ClientMsg::Hello { .. } => Err(ClientError::new(
                ErrorCode::AlreadyHello,
                "hello was already sent on this connection",
            )),
            ClientMsg::SetName { name } => match validate_name(&name) {
                Ok(name) => self.rename(&conn.account, name, true).await.map(|()| true),
                Err(m) => Err(ClientError::new(ErrorCode::InvalidName, m)),
            },
            ClientMsg::CreateTable { options } => {
                self.create(conn, id, options, at).await.map(|()| false)
            }
            ClientMsg::JoinTable { table_id, seat } => {
                self.forward(conn, id, table_id, TableReq::Join(seat), at)
                    .await
            }
            ClientMsg::WatchTable { table_id } => {
                self.forward(conn, id, table_id, TableReq::Watch, at).await
            }
            ClientMsg::LeaveTable { table_id } => {
                self.forward(conn, id, table_id, TableReq::Leave, at).await
            }
            ClientMsg::Move {
                table_id,
                cell,
                game_id,
            } => {
                self.forward(conn, id, table_id, TableReq::Move(cell, game_id), at)
                    .await
            }
            ClientMsg::Forfeit { table_id } => {
                self.forward(conn, id, table_id, TableReq::Forfeit, at)
                    .await
            }
            ClientMsg::Rematch { table_id } => {
                self.forward(conn, id, table_id, TableReq::Rematch, at)
                    .await
            }
            ClientMsg::Sync { table_id } => {
                self.forward(conn, id, table_id, TableReq::Sync, at).await
            }
            ClientMsg::Chat { table_id, text } => match self.check_chat(&text, at) {
                Ok(text) => {
                    self.forward(conn, id, table_id, TableReq::Chat(text), at)
                        .await
                }
                Err(e) => Err(e),
            },
            ClientMsg::WatchLobby => {
                if self.shared.lobby.watch(&self.outbox) {
                    self.shared.metrics.lobby_watchers.fetch_add(1, Relaxed);
                }
                let tables = self
                    .shared
                    .lobby
                    .snapshot(self.shared.config.lobby_max_tables);
                self.outbox.send_msg(&ServerMsg::Lobby { tables });
                Ok(true)
            }
            ClientMsg::UnwatchLobby => {
                if self.shared.lobby.unwatch(self.outbox.id) {
                    self.shared.metrics.lobby_watchers.fetch_sub(1, Relaxed);
                }
                Ok(true)
            }
            ClientMsg::Ping => {
                self.outbox.send_msg(&ServerMsg::Pong { id });
                Ok(false)
            }
        };
        match result {
            Ok(true) => self.outbox.send_msg(&ServerMsg::ok(id, None)),
            Ok(false) => {}
            Err(e) => self.refuse(id, e),
        }
    }

    /// Makes room to be at one more table, unless the connection is at
    /// `table_id` already: forgets tables that have closed, then lets go of
    /// tables whose round is over (as if the connection had walked away
    /// from them). `false` when every slot holds a table in play.
    async fn make_room(&mut self, table_id: &str) -> bool {
        if self.attached.contains_key(table_id) || self.attached.len() < MAX_ATTACHED {
            return true;
        }
        self.attached.retain(|_, h| !h.is_closed());
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

    async fn create(
        &mut self,
        conn: Conn,
        id: Option<u64>,
        options: TableOptions,
        at: Instant,
    ) -> Result<(), ClientError> {
        if self.shutting_down() {
            return Err(ClientError::shutting_down());
        }
        check_options(&options)?;
        let table_id = new_id();
        if !self.make_room(&table_id).await {
            return Err(too_many_attached());
        }
        let live = LiveStatus::new(TableStatus::Waiting);
        let max = self.shared.config.max_tables_per_player;
        if !conn.account.try_add_table(&table_id, &live, max) {
            return Err(ClientError::too_many_seats(max));
        }
        self.outbox.owe_reply();
        let handle = table::create(
            &self.shared,
            Arc::clone(&table_id),
            live,
            options,
            conn,
            id,
            at,
        );
        self.attached.insert(table_id, handle);
        Ok(())
    }

    /// Sends a request to its table, whose actor replies.
    async fn forward(
        &mut self,
        conn: Conn,
        id: Option<u64>,
        table_id: String,
        req: TableReq,
        at: Instant,
    ) -> Result<bool, ClientError> {
        if self.shutting_down() {
            return Err(ClientError::shutting_down());
        }
        let handle = match self.attached.get(table_id.as_str()) {
            Some(h) => h.clone(),
            None => self
                .shared
                .table(&table_id)
                .ok_or_else(ClientError::no_such_table)?,
        };
        if matches!(req, TableReq::Join(_) | TableReq::Watch)
            && !self.attached.contains_key(table_id.as_str())
        {
            if !self.make_room(&table_id).await {
                return Err(too_many_attached());
            }
            self.attached
                .insert(Arc::from(table_id.as_str()), handle.clone());
        }
        let leaving = matches!(req, TableReq::Leave);
        self.outbox.owe_reply();
        if handle.send(TableCmd::Request { conn, id, req, at }).await {
            if leaving {
                self.attached.remove(table_id.as_str());
            }
        } else {
            self.attached.remove(table_id.as_str());
            let e = ClientError::no_such_table();
            self.shared.metrics.refused(e.code);
            self.outbox
                .reply(&ServerMsg::error(id, e.code, e.message.into_owned()));
        }
        Ok(false)
    }

    /// Cleans a chat message (control characters become spaces) and checks
    /// its length and the chat rate.
    fn check_chat(&mut self, text: &str, now: Instant) -> Result<String, ClientError> {
        let cleaned: String = text
            .chars()
            .map(|c| if c.is_control() { ' ' } else { c })
            .collect();
        let cleaned = cleaned.trim();
        let chars = cleaned.chars().count();
        if chars == 0 {
            return Err(ClientError::new(
                ErrorCode::ChatTooLong,
                "The chat message is empty",
            ));
        }
        if chars > MAX_CHAT_CHARS {
            return Err(ClientError::new(
                ErrorCode::ChatTooLong,
                format!(
                    "The chat message has {chars} characters; at most {MAX_CHAT_CHARS} are allowed"
                ),
            ));
        }
        if !self.chat.take(now) {
            let limit = self.shared.config.chat_limit;
            return Err(ClientError::new(
                ErrorCode::RateLimited,
                format!(
                    "Too many chat messages: {} in a row, then one every {:.1} s",
                    limit.burst,
                    1.0 / limit.per_second
                ),
            ));
        }
        Ok(cleaned.to_owned())
    }

    /// The connection is gone: leave the lobby, tell the tables.
    pub(crate) async fn finish(&mut self) {
        if self.shared.lobby.unwatch(self.outbox.id) {
            self.shared.metrics.lobby_watchers.fetch_sub(1, Relaxed);
        }
        for (_, handle) in std::mem::take(&mut self.attached) {
            let _ = handle.send(TableCmd::Detach(self.outbox.id)).await;
        }
    }
}

fn too_many_attached() -> ClientError {
    ClientError::new(
        ErrorCode::TooManyTables,
        format!("One connection may be at {MAX_ATTACHED} tables in play at most; leave one first"),
    )
}

/// Checks a new table's options against the protocol's limits.
fn check_options(o: &TableOptions) -> Result<(), ClientError> {
    if let Some(ms) = o.move_time_ms {
        if !(MIN_MOVE_TIME_MS..=MAX_MOVE_TIME_MS).contains(&ms) {
            return Err(ClientError::bad_request(format!(
                "options.move_time_ms must be from {MIN_MOVE_TIME_MS} to {MAX_MOVE_TIME_MS}, not {ms}"
            )));
        }
    }
    if let Some(bot) = o.bot {
        if bot.think_ms > MAX_BOT_THINK_MS {
            return Err(ClientError::bad_request(format!(
                "options.bot.think_ms must be at most {MAX_BOT_THINK_MS}, not {}",
                bot.think_ms
            )));
        }
        if o.pass_and_play {
            return Err(ClientError::bad_request(
                "options.bot and options.pass_and_play cannot be combined",
            ));
        }
    }
    Ok(())
}
