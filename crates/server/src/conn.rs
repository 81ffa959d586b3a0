//! A connection as tables and the lobby see it: a bounded queue of
//! pre-serialized frames and a way to close it.
//!
//! Every message is serialized once ([`encode`]) into a reference-counted
//! [`Utf8Bytes`]; a broadcast to a table's players and spectators clones the
//! pointer, not the text. Senders never wait: a client whose queue is full is
//! too slow to keep up, and is disconnected (1008) rather than allowed to
//! hold up a table or grow the server's memory.

use std::borrow::Cow;
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::ws::Utf8Bytes;
use oxo_protocol::ServerMsg;
use tokio::sync::mpsc::{self, error::TrySendError};
use tokio_util::sync::CancellationToken;

use crate::accounts::Account;

/// WebSocket close codes the server uses.
pub(crate) mod close {
    /// Server shutting down, or idle timeout.
    pub(crate) const GOING_AWAY: u16 = 1001;
    /// A frame that breaks the WebSocket protocol.
    pub(crate) const PROTOCOL: u16 = 1002;
    /// A binary frame.
    pub(crate) const UNSUPPORTED: u16 = 1003;
    /// A text frame that is not UTF-8.
    pub(crate) const INVALID_DATA: u16 = 1007;
    /// Flooding, no `hello`, or too slow to read.
    pub(crate) const POLICY: u16 = 1008;
    /// A frame over the size limit.
    pub(crate) const TOO_BIG: u16 = 1009;
    /// The server is full.
    pub(crate) const TRY_AGAIN: u16 = 1013;

    /// The close code for a frame the WebSocket layer refused to read:
    /// 1007 for a text frame that is not UTF-8, 1009 for one over the
    /// transport's limit, 1002 for anything else. axum hides tungstenite's
    /// error type, so this goes by its message (the hostile-client tests
    /// pin the codes down).
    pub(crate) fn for_read_error(e: &axum::Error) -> u16 {
        let text = e.to_string();
        if text.contains("UTF-8") {
            INVALID_DATA
        } else if text.contains("Message too long") || text.contains("Space limit exceeded") {
            TOO_BIG
        } else {
            PROTOCOL
        }
    }
}

/// Serializes a message once, for any number of recipients.
pub(crate) fn encode(msg: &ServerMsg) -> Utf8Bytes {
    match serde_json::to_string(msg) {
        Ok(s) => Utf8Bytes::from(s),
        Err(e) => {
            tracing::error!(error = %e, "a server message failed to serialize");
            Utf8Bytes::from_static(
                r#"{"type":"error","code":"internal","message":"The server failed to encode a message"}"#,
            )
        }
    }
}

/// The sending half of one WebSocket connection.
#[derive(Debug)]
pub(crate) struct Outbox {
    /// Unique per process.
    pub(crate) id: u64,
    tx: mpsc::Sender<Utf8Bytes>,
    /// Cancelled when the connection must end; the writer then sends the
    /// close frame in `close_frame`. A child of the server's shutdown token,
    /// so it also fires on shutdown: each connection's tasks wait on their
    /// own token, whose lock nobody else takes, instead of every task of
    /// the server polling (and locking) the one shutdown token.
    closing: CancellationToken,
    close_frame: Mutex<Option<(u16, Cow<'static, str>)>>,
}

impl Outbox {
    /// A new outbox and the receiver its writer task drains; `shutdown` is
    /// the server's shutdown token (it closes the connection too).
    pub(crate) fn new(
        id: u64,
        capacity: usize,
        shutdown: &CancellationToken,
    ) -> (Arc<Outbox>, mpsc::Receiver<Utf8Bytes>) {
        let (tx, rx) = mpsc::channel(capacity);
        let outbox = Outbox {
            id,
            tx,
            closing: shutdown.child_token(),
            close_frame: Mutex::new(None),
        };
        (Arc::new(outbox), rx)
    }

    /// Queues a frame. A full queue closes the connection (too slow).
    pub(crate) fn send(&self, frame: Utf8Bytes) {
        match self.tx.try_send(frame) {
            Ok(()) | Err(TrySendError::Closed(_)) => {}
            Err(TrySendError::Full(_)) => {
                self.close(close::POLICY, "too slow: the send queue is full");
            }
        }
    }

    /// Serializes and queues one message.
    pub(crate) fn send_msg(&self, msg: &ServerMsg) {
        self.send(encode(msg));
    }

    /// Ends the connection with a close frame (the first reason given wins).
    pub(crate) fn close(&self, code: u16, reason: impl Into<Cow<'static, str>>) {
        let mut frame = self
            .close_frame
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if frame.is_none() {
            *frame = Some((code, reason.into()));
        }
        drop(frame);
        self.closing.cancel();
    }

    /// The close frame asked for, if any.
    pub(crate) fn close_frame(&self) -> Option<(u16, Cow<'static, str>)> {
        self.close_frame
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Resolves when the connection must end, or the server shuts down.
    pub(crate) fn closing(&self) -> &CancellationToken {
        &self.closing
    }
}

/// A connection after `hello`: where to send, and who is there.
#[derive(Clone, Debug)]
pub(crate) struct Conn {
    /// The connection's queue.
    pub(crate) outbox: Arc<Outbox>,
    /// The player.
    pub(crate) account: Arc<Account>,
}

impl Conn {
    /// The connection's id.
    pub(crate) fn id(&self) -> u64 {
        self.outbox.id
    }
}
