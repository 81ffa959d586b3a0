//! One WebSocket connection on the shared: the upgrade, the connection's
//! task, and how the connection ends.
//!
//! Each connection is one task, which owns the socket. It hands text
//! frames to its [`Client`], which enforces the limits and forwards table
//! requests to the table's actor; the actor replies straight into the
//! connection's [`Outbox`]. The same task drains the outbox into the
//! socket, batching whatever is queued into one flush, pings when a ping
//! is due, and sends the close frame. One task, not a reader and a writer: a frame
//! costs no hand-over between tasks, and an idle connection holds one
//! task's memory.
//!
//! # Replies in order, and the close handshake
//!
//! Before it reads the next frame, the task waits until every reply owed
//! is queued and handed to the socket ([`Outbox::settled`]). So replies
//! leave in the order the requests came, and a client that sends requests
//! and then a close frame gets every reply before the server's answering
//! close frame (once the WebSocket layer has read a close frame it sends
//! nothing but that answer).
//!
//! # Clients that stop reading
//!
//! Nothing a client does can make a write wait for long: every write to
//! the socket has a deadline ([`Config::write_timeout`]); the outbox is
//! bounded in frames and bytes ([`Config::send_queue`],
//! [`Config::send_queue_bytes`]); the WebSocket layer's own buffer is capped;
//! and the kernel's send buffer is set small by the accept loop. A client
//! that passes any of these is closed as too slow (1008).
//!
//! [`Config::write_timeout`]: crate::Config::write_timeout
//! [`Config::send_queue`]: crate::Config::send_queue
//! [`Config::send_queue_bytes`]: crate::Config::send_queue_bytes

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use axum::Extension;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket, WebSocketUpgrade};
use axum::extract::{ConnectInfo, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use futures_util::{FutureExt, Sink, SinkExt, StreamExt};
use oxo_protocol::{ErrorCode, ServerMsg};

use crate::address_cap::{Full, Place};
use crate::client::{Client, Flow};
use crate::conn::{Outbox, encode};
use crate::http::ApiError;
use crate::metrics::Metrics;
use crate::state::{AppState, Shared};
use crate::{close, origin};

mod clock;
mod handshake;
use clock::{Clock, Fired};
use handshake::{bad_fields, not_a_handshake};

/// Per-connection WebSocket buffers (see [`upgrade`]).
const READ_BUFFER: usize = 128;
const WRITE_BUFFER: usize = 16 * 1024;
const MAX_WRITE_BUFFER: usize = 128 * 1024;
/// How long the answer to a client's close, or our own close frame, may
/// take to leave before the connection is simply dropped; and how long the
/// client's answer to our close frame is awaited.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(1);
/// [`CLOSE_TIMEOUT`] while the server shuts down: every connection closes
/// at once then, and the shutdown waits for the slowest, so one client that
/// never answers would hold it for the whole second. A client that answers
/// at all does so within a round trip.
const SHUTDOWN_CLOSE_TIMEOUT: Duration = Duration::from_millis(200);

/// How long each step of closing a connection may take (see
/// [`CLOSE_TIMEOUT`] and [`SHUTDOWN_CLOSE_TIMEOUT`]).
fn close_timeout(shared: &Shared) -> Duration {
    if shared.shutdown.is_cancelled() {
        SHUTDOWN_CLOSE_TIMEOUT
    } else {
        CLOSE_TIMEOUT
    }
}

/// Holds one of the server's connection slots, and the connection's place
/// under its address's cap (boxed: none without the cap); frees both when
/// dropped. The connection reaches the server's settings, metrics and
/// shutdown signal through it: a pointer, not copies of them, in every
/// connection.
struct Slot(Arc<Shared>, Option<Box<Place>>);

impl Drop for Slot {
    fn drop(&mut self) {
        self.0.metrics.connections.fetch_sub(1, Relaxed);
    }
}

/// `GET /ws`: upgrades to a WebSocket unless the server is full or closing.
pub(crate) async fn upgrade(
    State(state): State<AppState>,
    peer: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let ws = match ws {
        Ok(ws) => ws,
        Err(rejection) => return not_a_handshake(&rejection),
    };
    if let Some(refused) = bad_fields(&headers) {
        return refused;
    }
    let shared = state.shared;
    if shared.shutdown.is_cancelled() {
        return ApiError::Unavailable("The server is shutting down".into()).into_response();
    }
    if let Err(origin) = origin::check(&headers, &shared.config.allowed_origins) {
        shared.metrics.origin_refusals.fetch_add(1, Relaxed);
        return ApiError::Forbidden(format!(
            "Pages from {origin:.100} may not connect to this server (only its own pages and \
             those it allows with --allowed-origin)"
        ))
        .into_response();
    }
    let peer = peer.map(|Extension(ConnectInfo(addr))| addr);
    let open = shared.metrics.connections.fetch_add(1, Relaxed);
    let mut slot = Slot(Arc::clone(&shared), None);
    if open >= shared.config.max_connections as u64 {
        shared.metrics.connections_refused.fetch_add(1, Relaxed);
        drop(slot);
        return refuse_socket(
            ws,
            &shared.metrics,
            "The server is full; try again later",
            "server full",
        );
    }
    if let Some(addr) = peer {
        match shared.sockets_per_address.take(addr.ip()) {
            Ok(place) => slot.1 = place.map(Box::new),
            Err(Full) => {
                shared.metrics.address_refusals.fetch_add(1, Relaxed);
                drop(slot);
                let max = shared.sockets_per_address.max();
                return refuse_socket(
                    ws,
                    &shared.metrics,
                    &format!(
                        "Too many connections from your address (at most {max} at once); \
                         close some and try again"
                    ),
                    "too many connections from your address",
                );
            }
        }
    }
    // The transport limit is well above the protocol's, so that a frame that
    // is merely too big is refused with a clear close reason by the client.
    let hard_limit = shared
        .config
        .max_frame_bytes
        .saturating_mul(4)
        .max(16 * 1024);
    // Buffers sized for many small frames on many mostly idle connections:
    // most requests (a move, a sync) are under a hundred bytes, so a
    // 128-byte read buffer (allocated up front for every connection) is one
    // read per frame; a larger frame (a hello with its token, a chat line)
    // takes one more, the buffer growing to the frame's length once its
    // header is read. The write buffer is only grown as
    // frames are queued, and gathers a burst into one send of up to 16 KiB.
    // The cap bounds what one slow client can pin beyond its outbox (the
    // connection fails rather than grows).
    ws.max_message_size(hard_limit)
        .max_frame_size(hard_limit)
        .read_buffer_size(READ_BUFFER)
        .write_buffer_size(WRITE_BUFFER)
        .max_write_buffer_size(MAX_WRITE_BUFFER)
        .on_upgrade(move |socket| {
            // A task of its own rather than axum's upgrade task, which
            // would hold the connection inside its own state for as long
            // as it lasts: that one ends here.
            let tasks = shared.tasks.clone();
            tasks.spawn(serve(socket, peer, slot));
            std::future::ready(())
        })
}

/// Refuses a WebSocket with `server_full` and `message`, then close 1013
/// with `reason` (try again later). A browser cannot read the body of a
/// refused upgrade, so the upgrade is accepted to say why. Counted like
/// every refusal and close in `metrics`.
fn refuse_socket(
    ws: WebSocketUpgrade,
    metrics: &Metrics,
    message: &str,
    reason: &'static str,
) -> Response {
    metrics.refused(ErrorCode::ServerFull);
    metrics.closed(close::TRY_AGAIN);
    let refusal = encode(&ServerMsg::error(None, ErrorCode::ServerFull, message));
    ws.on_upgrade(move |mut socket| async move {
        let _ = socket.send(Message::Text(refusal)).await;
        let frame = CloseFrame {
            code: close::TRY_AGAIN,
            reason: Utf8Bytes::from_static(reason),
        };
        let _ = socket.send(Message::Close(Some(frame))).await;
    })
}

/// How the client's side of the connection ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum End {
    /// The client sent a close frame.
    CloseFrame,
    /// The TCP connection ended (or was reset) without a close frame.
    Dropped,
    /// The server ended it (a limit, shutdown, idle): see the outbox's
    /// close frame.
    Server,
    /// A write failed or stalled past its deadline: nothing more can be
    /// sent (the close was decided and counted by [`write`]).
    WriteFailed,
}

/// The connection's task: its state, made before the task starts (see
/// [`Connection`]), and its run.
fn serve(socket: WebSocket, peer: Option<SocketAddr>, slot: Slot) -> impl Future<Output = ()> {
    let shared = &slot.0;
    shared.metrics.connections_total.fetch_add(1, Relaxed);
    let outbox = shared.new_outbox();
    let mut conn = Connection {
        client: Client::new(Arc::clone(shared), outbox, peer),
        socket,
        slot,
    };
    // The task holds `conn` once: an `async fn` taking the socket would
    // hold it twice (its argument, and the local the body uses).
    async move { conn.serve().await }
}

/// What one connection's task holds for its whole life.
///
/// Most of an idle player's cost: tokio allocates a task in steps of 128
/// bytes (it aligns tasks to cache lines), and this task's future is 784
/// bytes (504 of them this, the rest `run`'s wait), which takes 896 with
/// the task's header. A few more bytes take 1,024: 1.3 MB more for 10,000
/// idle players (README, "10,000 idle connected players").
struct Connection {
    client: Client,
    socket: WebSocket,
    slot: Slot,
}

const _: () = assert!(std::mem::size_of::<Connection>() <= 504);

impl Connection {
    async fn serve(&mut self) {
        let end = run(&mut self.client, &mut self.socket, &self.slot.0).await;
        // Boxed: the connection's task need not hold its end all its life.
        Box::pin(self.close(end)).await;
    }

    /// Ends the connection after its run: the client's tables are told,
    /// what is queued and the close frame are delivered, and the client's
    /// answer awaited for a while.
    async fn close(&mut self, end: End) {
        let Connection {
            client,
            socket,
            slot: Slot(shared, _),
        } = self;
        let outbox = Arc::clone(&client.outbox);
        match end {
            End::CloseFrame => shared.metrics.disconnect(true),
            End::Dropped => shared.metrics.disconnect(false),
            End::Server | End::WriteFailed => {}
        }
        client.finish().await;
        outbox.close(close::NORMAL, "");
        if end == End::WriteFailed {
            outbox.shut();
            return;
        }
        finish(socket, &outbox, shared, end).await;
        outbox.shut();
        if end == End::Server {
            // Read (and drop) what the client still sends until it answers
            // our close frame: closing a socket with unread data resets the
            // connection, and the client could lose the close frame and the
            // reason in it.
            let answered = async {
                while let Some(Ok(msg)) = socket.next().await {
                    if matches!(msg, Message::Close(_)) {
                        break;
                    }
                }
            };
            let _ = tokio::time::timeout(close_timeout(shared), answered).await;
        }
    }
}

/// The connection's one task: writes what its outbox queues (in batches,
/// one flush each), pings, and reads the client's frames, each only once
/// every reply owed to the ones before is written (see the module's docs);
/// returns how the connection ended.
async fn run(client: &mut Client, socket: &mut WebSocket, shared: &Shared) -> End {
    let outbox = Arc::clone(&client.outbox);
    // The deadlines are kept here and served by the roster's one timer
    // (see `Clock` and `roster`): an idle connection holds no timer.
    let mut clock = Clock::new(&shared.config);
    loop {
        // What is queued leaves before anything is read, unless the
        // connection is closing (then `finish` delivers it).
        if outbox.is_closing() {
            return End::Server;
        }
        if let Some(frame) = outbox.try_recv() {
            // Boxed, like a request's handling: an idle connection does
            // not hold a write's state.
            if !Box::pin(send_batch(socket, &outbox, shared, frame)).await {
                return End::WriteFailed;
            }
            continue;
        }
        match clock.fired(&shared.config, tokio::time::Instant::now()) {
            Fired::Idle if client.welcomed() => {
                outbox.close(close::GOING_AWAY, "idle timeout");
                return End::Server;
            }
            Fired::Idle => {
                outbox.close(close::POLICY, "no hello in time");
                return End::Server;
            }
            Fired::Ping => {
                let ping = Message::Ping(axum::body::Bytes::new());
                // Boxed: a write's state is larger than the wait.
                if !Box::pin(write(&outbox, shared, socket.send(ping))).await {
                    return End::WriteFailed;
                }
            }
            Fired::Nothing => {}
        }
        let now_waiting = clock.waiting(outbox.settled());
        outbox.wake_at(shared.roster.millis(clock.next(now_waiting)));
        tokio::select! {
            biased;
            // A frame was queued, the last reply owed was, the connection
            // must end, or a deadline came: the loop looks again.
            () = outbox.stirred() => {}
            msg = socket.next(), if !now_waiting => {
                // Boxed: handling a request is the largest state of this
                // task, and an idle connection should not hold it.
                if let Some(end) = Box::pin(on_frame(client, msg)).await {
                    return end;
                }
                clock.frame_read(&shared.config, client.welcomed());
            }
        }
    }
}

/// Handles one frame read from the client; `Some` when the connection ends.
async fn on_frame(client: &mut Client, msg: Option<Result<Message, axum::Error>>) -> Option<End> {
    let outbox = &client.outbox;
    let flow = match msg {
        None => return Some(End::Dropped),
        Some(Ok(Message::Close(_))) => return Some(End::CloseFrame),
        Some(Err(e)) => match close::for_read_error(&e) {
            None => return Some(End::Dropped),
            Some(code) => {
                tracing::debug!(conn = outbox.id, error = %e, "websocket read failed");
                let reason = match code {
                    close::TOO_BIG => close::too_big(client.max_frame_bytes()),
                    // The decoder's own words quote the bad bytes.
                    close::INVALID_DATA => close::NOT_UTF8.to_owned(),
                    _ => format!("protocol error: {e}"),
                };
                outbox.close(code, reason);
                return Some(End::Server);
            }
        },
        Some(Ok(Message::Text(text))) => client.on_text(text.as_str()).await,
        Some(Ok(Message::Binary(_))) => {
            outbox.close(
                close::UNSUPPORTED,
                "binary frames are not supported: send JSON text frames",
            );
            return Some(End::Server);
        }
        // The WebSocket layer answers pings by itself; they and pongs
        // still count against the rate limit (every frame counts).
        Some(Ok(Message::Ping(_) | Message::Pong(_))) => client.on_control_frame(),
    };
    (flow == Flow::Close).then_some(End::Server)
}

/// Runs one write with the stall deadline; `false` if the socket failed or
/// made no progress in time (then the connection is closed as too slow).
///
/// A combinator, not an `async fn`: that would hold `op` twice (the
/// argument, and again inside the timeout), and the ping's write lives in
/// the connection's task.
fn write<'a, F>(outbox: &'a Outbox, shared: &'a Shared, op: F) -> impl Future<Output = bool> + 'a
where
    F: Future<Output = Result<(), axum::Error>> + 'a,
{
    tokio::time::timeout(shared.config.write_timeout, op).map(move |written| match written {
        Ok(Ok(())) => true,
        Ok(Err(_)) => false,
        Err(_) => {
            outbox.close(close::POLICY, "too slow: the client is not reading");
            shared.metrics.closed(close::POLICY);
            false
        }
    })
}

/// Writes `first` and whatever else is queued, in one flush; `false` if
/// the socket failed or stalled.
async fn send_batch(
    socket: &mut WebSocket,
    outbox: &Outbox,
    shared: &Shared,
    first: Utf8Bytes,
) -> bool {
    feed_batch(socket, outbox, shared, first).await && write(outbox, shared, socket.flush()).await
}

/// Feeds `first` and whatever else is queued, without flushing.
async fn feed_batch(
    sink: &mut WebSocket,
    outbox: &Outbox,
    shared: &Shared,
    first: Utf8Bytes,
) -> bool {
    let mut next = Some(first);
    while let Some(frame) = next {
        let len = frame.len();
        let ok = write(outbox, shared, sink.feed(Message::Text(frame))).await;
        outbox.taken(len);
        if !ok {
            return false;
        }
        next = outbox.try_recv();
    }
    true
}

/// Ends the connection: delivers what is queued and the close frame.
async fn finish<S>(sink: &mut S, outbox: &Outbox, shared: &Shared, end: End)
where
    S: Sink<Message, Error = axum::Error> + Unpin,
{
    match end {
        // Nobody to talk to.
        End::Dropped | End::WriteFailed => {}
        // Everything the client asked for was handed to the socket before
        // its close frame was read; flushing sends the answering close.
        End::CloseFrame => {
            let _ = tokio::time::timeout(close_timeout(shared), sink.close()).await;
        }
        End::Server => {
            // Deliver what is queued (e.g. the error that explains the
            // close), then the close frame.
            let deliver = async {
                while let Some(frame) = outbox.try_recv() {
                    let len = frame.len();
                    let fed = sink.feed(Message::Text(frame)).await;
                    outbox.taken(len);
                    if fed.is_err() {
                        return;
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
                    let _ = sink
                        .send(Message::Close(Some(CloseFrame { code, reason })))
                        .await;
                }
            };
            let _ = tokio::time::timeout(close_timeout(shared), deliver).await;
        }
    }
}

fn truncate(s: &str, max: usize) -> String {
    let mut end = s.len().min(max);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    s[..end].to_owned()
}
