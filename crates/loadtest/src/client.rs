//! One protocol client: a WebSocket connection that sends [`Request`]s and
//! reads [`ServerMsg`]s, both straight from the protocol crate.
//!
//! Buffers are kept small (4 KiB read buffer) because a run may hold 20,000
//! of these, and Nagle's algorithm is off because every message is a
//! latency-sensitive request or event.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use oxo_protocol::{
    ClientMsg, ErrorCode, PROTOCOL_VERSION, PlayerId, Request, ServerMsg, TableId, TableState,
};
use serde::Deserialize;
use tokio::net::{TcpSocket, TcpStream};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};

use crate::config::Target;

/// Why a connection failed or a reply was not what was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ConnError {
    /// The TCP connection or the WebSocket handshake failed.
    Connect(String),
    /// The server closed the connection (or it dropped).
    Closed,
    /// A message could not be read as a [`ServerMsg`].
    BadMessage(String),
    /// The server refused a request.
    Refused(ErrorCode, String),
    /// No reply in time.
    Timeout,
    /// A reply other than the one expected.
    Unexpected(String),
}

impl ConnError {
    /// The kind under which this is counted in the report.
    pub(crate) fn kind(&self) -> String {
        match self {
            ConnError::Connect(_) => "connect".to_owned(),
            ConnError::Closed => "disconnect".to_owned(),
            ConnError::BadMessage(_) => "bad_message".to_owned(),
            ConnError::Refused(code, _) => format!("refused:{code}"),
            ConnError::Timeout => "timeout".to_owned(),
            ConnError::Unexpected(_) => "unexpected_reply".to_owned(),
        }
    }
}

impl std::fmt::Display for ConnError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnError::Connect(e) => write!(f, "connect: {e}"),
            ConnError::Closed => f.write_str("connection closed"),
            ConnError::BadMessage(e) => write!(f, "unreadable message: {e}"),
            ConnError::Refused(code, msg) => write!(f, "refused ({code}): {msg}"),
            ConnError::Timeout => f.write_str("no reply in time"),
            ConnError::Unexpected(m) => write!(f, "unexpected reply: {m}"),
        }
    }
}

/// The parts of `welcome` the load tool uses.
#[derive(Debug, Clone)]
pub(crate) struct Welcome {
    /// The session token, to come back as the same player.
    pub(crate) token: String,
    /// The public player id.
    pub(crate) player_id: PlayerId,
    /// Tables where this player holds a seat.
    pub(crate) tables: Vec<TableId>,
}

/// A connected protocol client.
#[derive(Debug)]
pub(crate) struct Conn {
    ws: WebSocketStream<TcpStream>,
    next_id: u64,
}

impl Conn {
    /// Opens a WebSocket connection to `target`, giving up after `timeout`.
    pub(crate) async fn connect(target: &Target, timeout: Duration) -> Result<Conn, ConnError> {
        Conn::connect_with(target, timeout, None).await
    }

    /// Opens a WebSocket connection whose socket asks for a receive buffer
    /// of `recv_buffer` bytes (`SO_RCVBUF`, set before connecting so that
    /// the window the server sees is small from the first packet; Linux
    /// doubles the value and keeps a floor of about 2 KiB), or the system's
    /// default with `None`.
    pub(crate) async fn connect_with(
        target: &Target,
        timeout: Duration,
        recv_buffer: Option<u32>,
    ) -> Result<Conn, ConnError> {
        tokio::time::timeout(timeout, Conn::connect_now(target, recv_buffer))
            .await
            .unwrap_or(Err(ConnError::Timeout))
    }

    async fn connect_now(target: &Target, recv_buffer: Option<u32>) -> Result<Conn, ConnError> {
        let connect_error = |e: std::io::Error| ConnError::Connect(e.to_string());
        let tcp = match recv_buffer {
            None => TcpStream::connect(target.addr).await,
            Some(bytes) => {
                let socket = if target.addr.is_ipv4() {
                    TcpSocket::new_v4()
                } else {
                    TcpSocket::new_v6()
                }
                .map_err(connect_error)?;
                socket.set_recv_buffer_size(bytes).map_err(connect_error)?;
                socket.connect(target.addr).await
            }
        }
        .map_err(connect_error)?;
        tcp.set_nodelay(true).map_err(connect_error)?;
        let config = WebSocketConfig::default()
            .read_buffer_size(4096)
            .write_buffer_size(0)
            .max_message_size(Some(1 << 20))
            .max_frame_size(Some(1 << 20));
        let (ws, _) =
            tokio_tungstenite::client_async_with_config(target.url.as_str(), tcp, Some(config))
                .await
                .map_err(|e| ConnError::Connect(e.to_string()))?;
        Ok(Conn { ws, next_id: 1 })
    }

    /// Sends `msg` with a fresh request id and returns the id.
    pub(crate) async fn send(&mut self, msg: ClientMsg) -> Result<u64, ConnError> {
        let id = self.next_id;
        self.next_id += 1;
        let req = Request { id: Some(id), msg };
        let text = serde_json::to_string(&req).expect("requests always serialize");
        self.ws
            .send(Message::text(text))
            .await
            .map_err(|_| ConnError::Closed)?;
        Ok(id)
    }

    /// The next message from the server. Cancel-safe: dropping the future
    /// loses nothing.
    pub(crate) async fn recv(&mut self) -> Result<ServerMsg, ConnError> {
        loop {
            match self.ws.next().await {
                Some(Ok(Message::Text(text))) => {
                    return decode(text.as_str())
                        .map_err(|e| ConnError::BadMessage(format!("{e}: {}", clip(&text))));
                }
                Some(Ok(Message::Binary(_))) => {
                    return Err(ConnError::BadMessage("binary frame".to_owned()));
                }
                Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
                Some(Ok(Message::Close(_)) | Err(_)) | None => return Err(ConnError::Closed),
            }
        }
    }

    /// The next WebSocket message as it came, close frames and errors
    /// included (`None` once the stream has ended), for callers that must
    /// tell how a connection ended.
    pub(crate) async fn next_raw(&mut self) -> Option<Result<Message, tungstenite::Error>> {
        self.ws.next().await
    }

    /// The TCP socket under the WebSocket, to write frames of one's own or
    /// look at its readiness without reading. Whoever writes to it must
    /// write whole frames only.
    pub(crate) fn tcp(&self) -> &TcpStream {
        self.ws.get_ref()
    }

    /// Sends `msg` and waits up to `timeout` for its reply (`ok`, `error`,
    /// `welcome` or `pong` with the same id), handing every other message to
    /// `on_event` meanwhile.
    pub(crate) async fn call(
        &mut self,
        msg: ClientMsg,
        timeout: Duration,
        mut on_event: impl FnMut(ServerMsg),
    ) -> Result<ServerMsg, ConnError> {
        let id = self.send(msg).await?;
        let wait = async {
            loop {
                let msg = self.recv().await?;
                if reply_id(&msg) == Some(id) {
                    return match msg {
                        ServerMsg::Error { code, message, .. } => {
                            Err(ConnError::Refused(code, message))
                        }
                        reply => Ok(reply),
                    };
                }
                on_event(msg);
            }
        };
        tokio::time::timeout(timeout, wait)
            .await
            .unwrap_or(Err(ConnError::Timeout))
    }

    /// Says `hello` (with `token` to come back as an earlier player).
    pub(crate) async fn hello(
        &mut self,
        token: Option<String>,
        name: Option<String>,
        timeout: Duration,
    ) -> Result<Welcome, ConnError> {
        let hello = ClientMsg::Hello {
            version: PROTOCOL_VERSION,
            token,
            name,
        };
        match self.call(hello, timeout, |_| {}).await? {
            ServerMsg::Welcome {
                token,
                player_id,
                tables,
                ..
            } => Ok(Welcome {
                token,
                player_id,
                tables,
            }),
            other => Err(ConnError::Unexpected(format!(
                "{other:?} instead of welcome"
            ))),
        }
    }

    /// Closes the connection politely, waiting at most a moment.
    pub(crate) async fn close(mut self) {
        self.close_frame().await;
    }

    /// Sends a close frame (waiting at most a moment to write it) and keeps
    /// the connection, to read the server's answer.
    pub(crate) async fn close_frame(&mut self) {
        let _ = tokio::time::timeout(Duration::from_millis(500), self.ws.close(None)).await;
    }
}

/// Reads a [`ServerMsg`] in one pass.
///
/// `ServerMsg` is tagged by its `type` field, which serde reads by first
/// buffering the whole object into an intermediate tree and then decoding
/// that: at tens of thousands of messages per second that is most of the
/// load tool's own parsing time. The common messages (`table`, `ok`,
/// `error`, `welcome`, `pong`) are read here straight into a flat struct of
/// the protocol crate's field types; anything else, or anything the flat
/// reading does not accept, goes through `ServerMsg`'s own `Deserialize`,
/// which has the last word (and the exact error message).
pub(crate) fn decode(text: &str) -> Result<ServerMsg, serde_json::Error> {
    #[derive(Deserialize, PartialEq, Eq)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        Table,
        Ok,
        Error,
        Welcome,
        Pong,
        #[serde(other)]
        Other,
    }
    #[derive(Deserialize)]
    struct Flat {
        #[serde(rename = "type")]
        kind: Kind,
        id: Option<u64>,
        table: Option<TableState>,
        table_id: Option<TableId>,
        code: Option<ErrorCode>,
        message: Option<String>,
        version: Option<u32>,
        token: Option<String>,
        player_id: Option<PlayerId>,
        name: Option<String>,
        tables: Option<Vec<TableId>>,
    }
    let fast = serde_json::from_str::<Flat>(text).ok().and_then(|f| {
        let id = f.id;
        Some(match f.kind {
            Kind::Table => ServerMsg::Table { table: f.table? },
            Kind::Ok => ServerMsg::ok(id, f.table_id),
            Kind::Error => ServerMsg::Error {
                id,
                code: f.code?,
                message: f.message?,
            },
            Kind::Welcome => ServerMsg::Welcome {
                id,
                version: f.version?,
                token: f.token?,
                player_id: f.player_id?,
                name: f.name?,
                tables: f.tables?,
            },
            Kind::Pong => ServerMsg::Pong { id },
            Kind::Other => return None,
        })
    });
    match fast {
        Some(msg) => Ok(msg),
        None => serde_json::from_str(text),
    }
}

/// The request id a reply carries, if `msg` is a reply.
pub(crate) fn reply_id(msg: &ServerMsg) -> Option<u64> {
    match msg {
        ServerMsg::Ok { id, .. }
        | ServerMsg::Error { id, .. }
        | ServerMsg::Welcome { id, .. }
        | ServerMsg::Pong { id } => *id,
        _ => None,
    }
}

/// At most 200 bytes of `s`, for error messages.
fn clip(s: &str) -> &str {
    let mut end = s.len().min(200);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every message decodes exactly as `ServerMsg`'s own `Deserialize`
    /// reads it, including the ones the fast path leaves to it.
    #[test]
    fn decode_agrees_with_server_msg() {
        let table = r#"{"id":"T","status":"in_progress","options":{"public":false,"starter":"alternate","seat":"X"},
            "players":{"x":{"id":"p_a","name":"Alice","connected":true,"wants_rematch":false},
                       "o":{"id":"p_b","name":"Bob","connected":false,"grace_left_ms":45000,"wants_rematch":true}},
            "spectators":1,"round":2,"game_id":"G2","first":"O","board":"X...O....","moves":["b2","a1"],
            "move_number":2,"turn":"O","time_left_ms":27250,"scores":{"x":1,"o":0,"draws":0}}"#;
        let samples = [
            format!(r#"{{"type":"table","table":{table}}}"#),
            format!(r#"{{"type":"table","table":{}}}"#, table.replace("b2", "e2")),
            r#"{"type":"ok","id":7,"table_id":"T"}"#.to_owned(),
            r#"{"type":"ok"}"#.to_owned(),
            r#"{"type":"error","id":3,"code":"cell_taken","message":"b2 is already taken"}"#.to_owned(),
            r#"{"type":"error","code":"bad_request","message":"x"}"#.to_owned(),
            r#"{"type":"welcome","id":1,"version":1,"token":"s","player_id":"p","name":"N","tables":["T"]}"#.to_owned(),
            r#"{"type":"pong","id":9}"#.to_owned(),
            r#"{"type":"chat","table_id":"T","from_id":"p","from_name":"N","text":"gg"}"#.to_owned(),
            r#"{"type":"lobby","tables":[{"id":"T","status":"waiting","players":{"x":"A","o":null},"spectators":0,"options":{}}]}"#.to_owned(),
            r#"{"type":"closing","reason":"bye"}"#.to_owned(),
            // Not valid: both readers must refuse.
            r#"{"type":"error","id":3}"#.to_owned(),
            r#"{"type":"table"}"#.to_owned(),
            r#"{"type":"warp"}"#.to_owned(),
            r#"{"id":1}"#.to_owned(),
            "[]".to_owned(),
        ];
        for s in &samples {
            let ours = decode(s).map_err(|e| e.to_string());
            let theirs = serde_json::from_str::<ServerMsg>(s).map_err(|e| e.to_string());
            assert_eq!(ours, theirs, "{s}");
        }
        assert!(matches!(decode(&samples[0]), Ok(ServerMsg::Table { .. })));
        assert!(decode(&samples[1]).is_err(), "e2 is not a cell");
    }
}
