//! One WebSocket connection: limits, `hello`, and routing requests to tables.
//!
//! Each connection is two tasks. The reader (this module's [`Session`])
//! parses frames, enforces the limits and forwards table requests to the
//! table's actor, which replies straight into the connection's outbox. The
//! writer drains the outbox into the socket, batching whatever is queued
//! into one flush, pings on a timer, and sends the close frame. A slow
//! reader of ours never blocks a table, and a slow client never blocks the
//! reader.
//!
//! Limits, in the order they are checked for each frame: size
//! ([`Config::max_frame_bytes`], else close 1009), text only (else close
//! 1003), rate (token bucket, else `rate_limited`; a flood closes with 1008),
//! JSON shape (else `bad_request` naming the problem), `hello` first (else
//! `hello_required`; the third strike closes with 1008). A connection from
//! which nothing at all arrives for [`Config::idle_timeout`] is closed (1001).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use axum::extract::State;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use oxo_protocol::limits::{MAX_BOT_THINK_MS, MAX_CHAT_CHARS, MAX_MOVE_TIME_MS, MIN_MOVE_TIME_MS};
use oxo_protocol::{ClientMsg, ErrorCode, PROTOCOL_VERSION, Request, ServerMsg, TableOptions};
use serde::Deserialize;
use tokio::sync::mpsc;

use crate::accounts::{Account, validate_name};
use crate::config::{Config, RateLimit};
use crate::conn::{Conn, Outbox, close, encode};
use crate::error::ClientError;
use crate::ids::{hash_token, is_token_shaped, new_id, new_token};
use crate::state::{AppState, Shared};
use crate::store::{self, Write};
use crate::table::{self, TableCmd, TableHandle, TableReq};

/// Messages before `hello` that are tolerated before the connection closes.
const HELLO_STRIKES: u32 = 3;
/// The most tables one connection may be attached to (seated or watching).
const MAX_ATTACHED: usize = 64;
/// Per-connection WebSocket buffers (see [`upgrade`]).
const READ_BUFFER: usize = 1024;
const WRITE_BUFFER: usize = 16 * 1024;
const MAX_WRITE_BUFFER: usize = 512 * 1024;

/// Holds one of the server's connection slots; frees it when dropped.
#[derive(Debug)]
struct Slot(Arc<Shared>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.metrics.connections.fetch_sub(1, Relaxed);
    }
}

/// `GET /ws`: upgrades to a WebSocket unless the server is full or closing.
pub(crate) async fn upgrade(State(state): State<AppState>, ws: WebSocketUpgrade) -> Response {
    let shared = state.shared;
    if shared.shutdown.is_cancelled() {
        return refuse_upgrade("The server is shutting down");
    }
    let open = shared.metrics.connections.fetch_add(1, Relaxed);
    let slot = Slot(Arc::clone(&shared));
    if open >= shared.config.max_connections as u64 {
        shared.metrics.connections_refused.fetch_add(1, Relaxed);
        drop(slot);
        // A browser cannot read the body of a refused upgrade, so accept it
        // and say why before closing (1013, try again later).
        return ws.on_upgrade(|mut socket| async move {
            let refusal = encode(&ServerMsg::error(
                None,
                ErrorCode::ServerFull,
                "The server is full; try again later",
            ));
            let _ = socket.send(Message::Text(refusal)).await;
            let frame = CloseFrame {
                code: close::TRY_AGAIN,
                reason: Utf8Bytes::from_static("server full"),
            };
            let _ = socket.send(Message::Close(Some(frame))).await;
        });
    }
    // The transport limit is well above the protocol's, so that a frame that
    // is merely too big is refused with a clear close reason by the session.
    let hard_limit = shared
        .config
        .max_frame_bytes
        .saturating_mul(4)
        .max(16 * 1024);
    // Buffers sized for many small frames on many mostly idle connections:
    // requests are a few hundred bytes, so a 1 KiB read buffer (allocated
    // up front for every connection) is one read per frame; the write
    // buffer is only grown as frames are queued, and gathers a burst into
    // one send of up to 16 KiB. The cap bounds what one slow client can
    // pin beyond its outbox (the connection fails rather than grows).
    ws.max_message_size(hard_limit)
        .max_frame_size(hard_limit)
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_BUFFER)
        .max_write_buffer_size(MAX_WRITE_BUFFER)
        .on_upgrade(move |socket| {
            let tasks = shared.tasks.clone();
            tasks.track_future(serve(shared, socket, slot))
        })
}

fn refuse_upgrade(message: &str) -> Response {
    (
        StatusCode::SERVICE_UNAVAILABLE,
        axum::Json(oxo_protocol::ApiError {
            error: message.to_owned(),
        }),
    )
        .into_response()
}

async fn serve(shared: Arc<Shared>, socket: WebSocket, _slot: Slot) {
    shared.metrics.connections_total.fetch_add(1, Relaxed);
    let id = shared.next_conn.fetch_add(1, Relaxed);
    let (outbox, rx) = Outbox::new(id, shared.config.send_queue, &shared.shutdown);
    let (sink, stream) = socket.split();
    let writer = tokio::spawn(write_loop(
        sink,
        rx,
        Arc::clone(&outbox),
        Arc::clone(&shared),
    ));
    let mut session = Session::new(Arc::clone(&shared), Arc::clone(&outbox));
    session.read_loop(stream).await;
    session.finish().await;
    outbox.close(1000, "");
    let _ = writer.await;
}

/// Drains the outbox into the socket; pings; sends the close frame.
async fn write_loop(
    mut sink: SplitSink<WebSocket, Message>,
    mut rx: mpsc::Receiver<Utf8Bytes>,
    outbox: Arc<Outbox>,
    shared: Arc<Shared>,
) {
    let every = shared.config.ping_interval;
    let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    // Made once, not per frame: a fresh `cancelled()` future registers
    // with the token's waiter list every time it is polled first.
    let closing = outbox.closing().clone().cancelled_owned();
    tokio::pin!(closing);
    loop {
        tokio::select! {
            biased;
            () = &mut closing => {
                // Deliver what is queued (e.g. the error that explains the
                // close), then the close frame.
                while let Ok(frame) = rx.try_recv() {
                    if sink.feed(Message::Text(frame)).await.is_err() {
                        break;
                    }
                }
                if shared.shutdown.is_cancelled() {
                    let bye = encode(&ServerMsg::Closing {
                        reason: "The server is shutting down; reconnect with your token".into(),
                    });
                    let _ = sink.feed(Message::Text(bye)).await;
                    let frame = CloseFrame {
                        code: close::GOING_AWAY,
                        reason: Utf8Bytes::from_static("server shutting down"),
                    };
                    let _ = sink.send(Message::Close(Some(frame))).await;
                } else if let Some((code, reason)) = outbox.close_frame() {
                    shared.metrics.closed(code);
                    let reason = Utf8Bytes::from(truncate(&reason, 120));
                    let _ = sink.send(Message::Close(Some(CloseFrame { code, reason }))).await;
                }
                break;
            }
            frame = rx.recv() => {
                let Some(frame) = frame else { break };
                if sink.feed(Message::Text(frame)).await.is_err() {
                    break;
                }
                let mut ok = true;
                while let Ok(frame) = rx.try_recv() {
                    if sink.feed(Message::Text(frame)).await.is_err() {
                        ok = false;
                        break;
                    }
                }
                if !ok || sink.flush().await.is_err() {
                    break;
                }
            }
            _ = ping.tick() => {
                if sink.send(Message::Ping(axum::body::Bytes::new())).await.is_err() {
                    break;
                }
            }
        }
    }
    // Tell the reader, if it is still going.
    outbox.closing().cancel();
}

fn truncate(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}

/// A token bucket.
#[derive(Debug)]
struct Bucket {
    tokens: f64,
    last: Instant,
    limit: RateLimit,
}

impl Bucket {
    fn new(limit: RateLimit, now: Instant) -> Bucket {
        Bucket {
            tokens: f64::from(limit.burst),
            last: now,
            limit,
        }
    }

    fn take(&mut self, now: Instant) -> bool {
        if self.limit.per_second.is_infinite() {
            return true;
        }
        let elapsed = now.saturating_duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens =
            (self.tokens + elapsed * self.limit.per_second).min(f64::from(self.limit.burst));
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Whether the connection goes on after a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    Continue,
    Close,
}

/// The reading side of a connection and everything it knows.
#[derive(Debug)]
struct Session {
    shared: Arc<Shared>,
    outbox: Arc<Outbox>,
    /// Set by `hello`.
    conn: Option<Conn>,
    /// Handles of tables used lately (saves the registry look-up per move).
    handles: HashMap<Arc<str>, TableHandle>,
    /// Tables this connection may be attached to; told on close.
    attached: Vec<Arc<str>>,
    rate: Bucket,
    chat: Bucket,
    /// Refusals for rate in the current flood window.
    flood: (Instant, u32),
    strikes: u32,
}

/// Just the `id` of a request that failed to parse, to echo it back.
#[derive(Deserialize)]
struct PeekId {
    id: Option<u64>,
}

impl Session {
    fn new(shared: Arc<Shared>, outbox: Arc<Outbox>) -> Session {
        let now = Instant::now();
        let config: &Config = &shared.config;
        Session {
            rate: Bucket::new(config.rate_limit, now),
            chat: Bucket::new(config.chat_limit, now),
            flood: (now, 0),
            shared,
            outbox,
            conn: None,
            handles: HashMap::new(),
            attached: Vec::new(),
            strikes: 0,
        }
    }

    async fn read_loop(&mut self, mut stream: SplitStream<WebSocket>) {
        let idle = self.shared.config.idle_timeout;
        // The closing token fires on shutdown too (see `Outbox::closing`).
        // Both futures live across frames: re-creating them per frame would
        // register a waiter and a timer for every message. The idle timer
        // is re-armed lazily: a frame only notes the time, and when the
        // timer fires early it is pushed back to the last frame + `idle`.
        let closing = self.outbox.closing().clone().cancelled_owned();
        tokio::pin!(closing);
        let mut last_frame = tokio::time::Instant::now();
        let idle_timer = tokio::time::sleep_until(last_frame + idle);
        tokio::pin!(idle_timer);
        loop {
            let msg = tokio::select! {
                biased;
                () = &mut closing => return,
                () = &mut idle_timer => {
                    let due = last_frame + idle;
                    if tokio::time::Instant::now() < due {
                        idle_timer.as_mut().reset(due);
                        continue;
                    }
                    self.outbox.close(close::GOING_AWAY, "idle timeout");
                    return;
                }
                msg = stream.next() => msg,
            };
            last_frame = tokio::time::Instant::now();
            match msg {
                None | Some(Ok(Message::Close(_))) => return,
                Some(Err(e)) => {
                    tracing::debug!(conn = self.outbox.id, error = %e, "websocket read failed");
                    self.outbox
                        .close(close::for_read_error(&e), format!("protocol error: {e}"));
                    return;
                }
                Some(Ok(Message::Text(text))) => {
                    if self.on_text(text.as_str()).await == Flow::Close {
                        return;
                    }
                }
                Some(Ok(Message::Binary(_))) => {
                    self.outbox.close(
                        close::UNSUPPORTED,
                        "binary frames are not supported: send JSON text frames",
                    );
                    return;
                }
                // Pings are answered by the WebSocket layer; pongs only
                // prove the client is alive.
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
            }
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

    async fn on_text(&mut self, text: &str) -> Flow {
        let now = Instant::now();
        let max = self.shared.config.max_frame_bytes;
        if text.len() > max {
            self.refuse(
                None,
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
        if !self.rate.take(now) {
            let limit = self.shared.config.rate_limit;
            self.refuse(
                None,
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
                return Flow::Close;
            }
            return Flow::Continue;
        }
        let req: Request = match serde_json::from_str(text) {
            Ok(req) => req,
            Err(e) => {
                let id = serde_json::from_str::<PeekId>(text).ok().and_then(|p| p.id);
                self.refuse(
                    id,
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
        let tables = account.tables();
        self.outbox.send_msg(&ServerMsg::Welcome {
            id,
            version: PROTOCOL_VERSION,
            token,
            player_id: account.id.to_string(),
            name: account.name().to_string(),
            tables: tables.iter().map(|t| t.to_string()).collect(),
        });
        // Back in every seat: each table sends its state.
        for table_id in tables {
            if let Some(handle) = self.shared.table(&table_id) {
                self.note_attached(&table_id);
                let _ = handle.send(TableCmd::Attach(conn.clone())).await;
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
                self.create(conn, id, options, at).map(|()| false)
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
            ClientMsg::Move { table_id, cell } => {
                self.forward(conn, id, table_id, TableReq::Move(cell), at)
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
            Ok(true) => self.outbox.send_msg(&ServerMsg::Ok { id, table_id: None }),
            Ok(false) => {}
            Err(e) => self.refuse(id, e),
        }
    }

    fn note_attached(&mut self, table_id: &Arc<str>) {
        if !self.attached.contains(table_id) {
            self.attached.push(Arc::clone(table_id));
        }
    }

    fn create(
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
        if self.attached.len() >= MAX_ATTACHED {
            return Err(too_many_attached());
        }
        let table_id = new_id();
        let max = self.shared.config.max_tables_per_player;
        if !conn.account.try_add_table(&table_id, max) {
            return Err(ClientError::new(
                ErrorCode::TooManyTables,
                format!(
                    "You already hold seats at {max} tables, the most allowed; leave one first"
                ),
            ));
        }
        self.note_attached(&table_id);
        let handle = table::create(&self.shared, Arc::clone(&table_id), options, conn, id, at);
        self.handles.insert(table_id, handle);
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
        let handle = match self.handles.get(table_id.as_str()) {
            Some(h) => h.clone(),
            None => {
                let h = self
                    .shared
                    .table(&table_id)
                    .ok_or_else(ClientError::no_such_table)?;
                if self.handles.len() >= MAX_ATTACHED {
                    self.handles.clear();
                }
                self.handles.insert(Arc::from(table_id.as_str()), h.clone());
                h
            }
        };
        if matches!(req, TableReq::Join(_) | TableReq::Watch) {
            let known = self.attached.iter().any(|t| **t == *table_id);
            if !known {
                if self.attached.len() >= MAX_ATTACHED {
                    return Err(too_many_attached());
                }
                self.attached.push(Arc::from(table_id.as_str()));
            }
        }
        if handle.send(TableCmd::Request { conn, id, req, at }).await {
            Ok(false)
        } else {
            self.handles.remove(table_id.as_str());
            Err(ClientError::no_such_table())
        }
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
    async fn finish(&mut self) {
        if self.shared.lobby.unwatch(self.outbox.id) {
            self.shared.metrics.lobby_watchers.fetch_sub(1, Relaxed);
        }
        for table_id in std::mem::take(&mut self.attached) {
            if let Some(handle) = self.shared.table(&table_id) {
                let _ = handle.send(TableCmd::Detach(self.outbox.id)).await;
            }
        }
    }
}

fn too_many_attached() -> ClientError {
    ClientError::new(
        ErrorCode::TooManyTables,
        format!("One connection may be at {MAX_ATTACHED} tables at most"),
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

/// An in-process client: speaks the protocol to the server without a
/// socket or a network (benchmarks, tests, embedding). Limits, `hello` and
/// every reply work as over WebSocket; there are no pings or idle timeout.
#[derive(Debug)]
pub struct LocalClient {
    session: Session,
    rx: mpsc::Receiver<Utf8Bytes>,
}

impl LocalClient {
    pub(crate) fn new(shared: Arc<Shared>) -> LocalClient {
        let id = shared.next_conn.fetch_add(1, Relaxed);
        let (outbox, rx) = Outbox::new(id, shared.config.send_queue, &shared.shutdown);
        LocalClient {
            session: Session::new(shared, outbox),
            rx,
        }
    }

    /// Sends one request (a JSON text, as in a WebSocket text frame). The
    /// replies and events arrive through [`LocalClient::recv`]. Returns
    /// `false` once the server has closed this connection.
    pub async fn send(&mut self, text: &str) -> bool {
        if self.session.outbox.closing().is_cancelled() {
            return false;
        }
        self.session.on_text(text).await == Flow::Continue
    }

    /// The next message from the server (JSON text), or `None` once the
    /// server has closed this connection and nothing is left.
    pub async fn recv(&mut self) -> Option<String> {
        let closing = self.session.outbox.closing().clone();
        tokio::select! {
            biased;
            frame = self.rx.recv() => frame.map(|f| f.as_str().to_owned()),
            () = closing.cancelled() => self.rx.try_recv().ok().map(|f| f.as_str().to_owned()),
        }
    }

    /// The next message if one is waiting.
    pub fn try_recv(&mut self) -> Option<String> {
        self.rx.try_recv().ok().map(|f| f.as_str().to_owned())
    }

    /// Disconnects, as a closed socket would (seats get their grace period).
    pub async fn close(mut self) {
        self.session.finish().await;
        self.session.outbox.close(1000, "");
    }
}
