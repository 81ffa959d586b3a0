//! A connection as tables and the lobby see it: a bounded queue of
//! pre-serialized frames and a way to close it.
//!
//! Every message is serialized once ([`encode`]) into a reference-counted
//! [`Utf8Bytes`]; a broadcast to a table's players and spectators clones the
//! pointer, not the text. Senders never wait: a client whose queue is full
//! (in frames or in bytes) is too slow to keep up, and is disconnected
//! (1008) rather than allowed to hold up a table or grow the server's
//! memory.
//!
//! The outbox also keeps the count of requests still owed a reply and of
//! frames not yet handed to the socket. The connection waits for both to reach
//! zero before it reads the next frame (see `transport`), so replies leave
//! in the order the requests came, and a client's close frame is read only
//! once everything it asked for has been answered.

use std::borrow::Cow;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::{AcqRel, Acquire};
use std::sync::{Arc, Mutex, PoisonError};

use axum::extract::ws::Utf8Bytes;
use oxo_protocol::ServerMsg;
use tokio::sync::Notify;
use tokio::sync::mpsc::{self, error::TrySendError};
use tokio_util::sync::CancellationToken;

use crate::accounts::Account;
use crate::close;

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
    /// Bytes queued and not yet handed to the socket, and their bound.
    queued_bytes: AtomicUsize,
    max_bytes: usize,
    /// Frames queued and not yet handed to the socket.
    unsent: AtomicUsize,
    /// Requests forwarded to a table whose reply has not been queued yet.
    owed: AtomicUsize,
    /// Notified when `unsent` and `owed` both reach zero.
    idle: Notify,
    /// Cancelled when the connection must end; its task then sends the
    /// close frame in `close_frame`. A child of the server's shutdown token,
    /// so it also fires on shutdown: each connection's tasks wait on their
    /// own token, whose lock nobody else takes, instead of every task of
    /// the server polling (and locking) the one shutdown token.
    closing: CancellationToken,
    close_frame: Mutex<Option<(u16, Cow<'static, str>)>>,
}

impl Outbox {
    /// A new outbox and the receiver its connection task drains: at most
    /// `capacity` frames and `max_bytes` bytes queued; `shutdown` is the
    /// server's shutdown token (it closes the connection too).
    pub(crate) fn new(
        id: u64,
        capacity: usize,
        max_bytes: usize,
        shutdown: &CancellationToken,
    ) -> (Arc<Outbox>, mpsc::Receiver<Utf8Bytes>) {
        let (tx, rx) = mpsc::channel(capacity);
        let outbox = Outbox {
            id,
            tx,
            queued_bytes: AtomicUsize::new(0),
            max_bytes,
            unsent: AtomicUsize::new(0),
            owed: AtomicUsize::new(0),
            idle: Notify::new(),
            closing: shutdown.child_token(),
            close_frame: Mutex::new(None),
        };
        (Arc::new(outbox), rx)
    }

    /// Queues a frame. A full queue (in frames or bytes) closes the
    /// connection (too slow).
    pub(crate) fn send(&self, frame: Utf8Bytes) {
        let len = frame.len();
        let queued = self.queued_bytes.fetch_add(len, AcqRel) + len;
        if queued > self.max_bytes {
            self.queued_bytes.fetch_sub(len, AcqRel);
            self.close(close::POLICY, "too slow: too much unread data");
            return;
        }
        self.unsent.fetch_add(1, AcqRel);
        match self.tx.try_send(frame) {
            Ok(()) => {}
            Err(TrySendError::Closed(_)) => self.taken(len),
            Err(TrySendError::Full(_)) => {
                self.taken(len);
                self.close(close::POLICY, "too slow: the send queue is full");
            }
        }
    }

    /// Serializes and queues one message.
    pub(crate) fn send_msg(&self, msg: &ServerMsg) {
        self.send(encode(msg));
    }

    /// The connection has handed a frame of `len` bytes to the socket (or
    /// dropped it).
    pub(crate) fn taken(&self, len: usize) {
        self.queued_bytes.fetch_sub(len, AcqRel);
        if self.unsent.fetch_sub(1, AcqRel) == 1 && self.owed.load(Acquire) == 0 {
            self.idle.notify_one();
        }
    }

    /// A request was passed on to a table, which owes it a reply.
    pub(crate) fn owe_reply(&self) {
        self.owed.fetch_add(1, AcqRel);
    }

    /// Queues the reply to a request passed on with [`Outbox::owe_reply`].
    pub(crate) fn reply(&self, msg: &ServerMsg) {
        self.send_msg(msg);
        if self.owed.fetch_sub(1, AcqRel) == 1 && self.unsent.load(Acquire) == 0 {
            self.idle.notify_one();
        }
    }

    /// Whether every reply owed is queued and every queued frame has been
    /// handed to the socket.
    pub(crate) fn settled(&self) -> bool {
        self.unsent.load(Acquire) == 0 && self.owed.load(Acquire) == 0
    }

    /// Resolves once every reply owed is queued and every queued frame has
    /// been handed to the socket.
    pub(crate) async fn flushed(&self) {
        loop {
            let idle = self.idle.notified();
            if self.settled() {
                return;
            }
            idle.await;
        }
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
