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
use std::collections::VecDeque;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::extract::ws::Utf8Bytes;
use oxo_protocol::ServerMsg;
use tokio::sync::Notify;

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

/// The frames waiting for the socket, each marked when it is the reply to
/// a request (which a cluster's bus needs to tell apart; see `bus`).
#[derive(Debug, Default)]
struct Queue {
    frames: VecDeque<(Utf8Bytes, bool)>,
    /// The connection has ended: frames sent now are dropped.
    shut: bool,
}

/// The sending half of one WebSocket connection.
///
/// The queue is a plain deque under a lock, empty (and unallocated) while
/// the connection is idle; the connection's task is woken through `ready`.
#[derive(Debug)]
pub(crate) struct Outbox {
    /// Unique per process.
    pub(crate) id: u64,
    queue: Mutex<Queue>,
    /// At most this many frames queued.
    capacity: usize,
    /// Notified when a frame is queued for the connection's task.
    ready: Notify,
    /// Bytes queued and not yet handed to the socket, and their bound.
    queued_bytes: AtomicUsize,
    max_bytes: usize,
    /// Frames queued and not yet handed to the socket.
    unsent: AtomicUsize,
    /// Requests forwarded to a table whose reply has not been queued yet.
    owed: AtomicUsize,
    /// Notified when `unsent` and `owed` both reach zero.
    idle: Notify,
    /// Set when the connection must end; its task then sends the close
    /// frame in `close_frame`, if any. Set on shutdown too (see
    /// `roster`): each connection waits on its own outbox, whose locks
    /// nobody else takes, not on one token of the whole server.
    closing: AtomicBool,
    /// Notified (all waiters) when `closing` is set.
    closed: Notify,
    close_frame: Mutex<Option<(u16, Cow<'static, str>)>>,
    /// When the connection's task next wants to be woken with nothing
    /// queued (its next ping or timeout), in the roster's milliseconds.
    wake_at: AtomicU64,
}

impl Outbox {
    /// A new outbox: at most `capacity` frames and `max_bytes` bytes
    /// queued.
    pub(crate) fn new(id: u64, capacity: usize, max_bytes: usize) -> Arc<Outbox> {
        let outbox = Outbox {
            id,
            queue: Mutex::default(),
            capacity,
            ready: Notify::new(),
            queued_bytes: AtomicUsize::new(0),
            max_bytes,
            unsent: AtomicUsize::new(0),
            owed: AtomicUsize::new(0),
            idle: Notify::new(),
            closing: AtomicBool::new(false),
            closed: Notify::new(),
            close_frame: Mutex::new(None),
            wake_at: AtomicU64::new(u64::MAX),
        };
        Arc::new(outbox)
    }

    fn queue(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues a frame and wakes the connection's task. A full queue (in
    /// frames or bytes) closes the connection (too slow).
    pub(crate) fn send(&self, frame: Utf8Bytes) {
        if self.push(frame, false) {
            self.ready.notify_one();
        }
    }

    /// Queues a frame without waking the connection's task: for a frame
    /// that a reply to the same client follows at once (the state a move
    /// made, then its `ok`), so that both leave in one write.
    pub(crate) fn send_quiet(&self, frame: Utf8Bytes) {
        self.push(frame, false);
    }

    /// Queues a frame, marked as a reply or not; whether it was queued.
    fn push(&self, frame: Utf8Bytes, reply: bool) -> bool {
        let len = frame.len();
        let queued = self.queued_bytes.fetch_add(len, AcqRel) + len;
        if queued > self.max_bytes {
            self.queued_bytes.fetch_sub(len, AcqRel);
            self.close(close::POLICY, "too slow: too much unread data");
            return false;
        }
        self.unsent.fetch_add(1, AcqRel);
        let mut queue = self.queue();
        if queue.shut {
            drop(queue);
            self.taken(len);
            false
        } else if queue.frames.len() >= self.capacity {
            drop(queue);
            self.taken(len);
            self.close(close::POLICY, "too slow: the send queue is full");
            false
        } else {
            queue.frames.push_back((frame, reply));
            true
        }
    }

    /// The next queued frame, if any. The caller hands it to the socket
    /// (or drops it) and then calls [`Outbox::taken`].
    pub(crate) fn try_recv(&self) -> Option<Utf8Bytes> {
        self.try_recv_marked().map(|(frame, _)| frame)
    }

    /// The next queued frame, if any, and whether it is a reply. Once the
    /// queue is empty its room is given back: most connections are idle
    /// most of the time, and an idle one holds no queue.
    pub(crate) fn try_recv_marked(&self) -> Option<(Utf8Bytes, bool)> {
        let mut queue = self.queue();
        let frame = queue.frames.pop_front();
        if frame.is_none() && queue.frames.capacity() > 0 {
            queue.frames = VecDeque::new();
        }
        frame
    }

    /// Resolves when the connection's task should look again: a frame was
    /// queued, the last reply owed was (see [`Outbox::settled`]), the
    /// connection must end, or its deadline ([`Outbox::wake_at`]) came. It
    /// can resolve when there is nothing to do, and a wake before it was
    /// made is not lost, so the task looks, then waits on this, then looks
    /// again. One small future for everything a connection's task waits on
    /// but its socket, all its life.
    pub(crate) fn stirred(&self) -> tokio::sync::futures::Notified<'_> {
        self.ready.notified()
    }

    /// The next queued frame, waiting for one. Cancel-safe.
    pub(crate) async fn recv(&self) -> Utf8Bytes {
        self.recv_marked().await.0
    }

    /// The next queued frame and whether it is a reply, waiting for one.
    /// Cancel-safe.
    pub(crate) async fn recv_marked(&self) -> (Utf8Bytes, bool) {
        loop {
            // Made before looking: a frame queued after the look wakes it.
            let ready = self.ready.notified();
            if let Some(frame) = self.try_recv_marked() {
                return frame;
            }
            ready.await;
        }
    }

    /// The connection has ended: what is queued is dropped, and so is
    /// anything sent from now on.
    pub(crate) fn shut(&self) {
        let frames = {
            let mut queue = self.queue();
            queue.shut = true;
            std::mem::take(&mut queue.frames)
        };
        for (frame, _) in frames {
            self.taken(frame.len());
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
        self.reply_frame(encode(msg));
    }

    /// Queues the reply to a request passed on with [`Outbox::owe_reply`],
    /// serialized already (by the node that ran the table, in a cluster).
    pub(crate) fn reply_frame(&self, frame: Utf8Bytes) {
        if self.push(frame, true) {
            self.ready.notify_one();
        }
        self.reply_queued();
    }

    /// A reply owed was queued (or dropped): one fewer is owed.
    fn reply_queued(&self) {
        if self.owed.fetch_sub(1, AcqRel) == 1 && self.unsent.load(Acquire) == 0 {
            self.idle.notify_one();
            // The connection's task may be waiting for this reply, whose
            // frame it took between the push and now (or that was
            // dropped): nothing else would wake it.
            self.ready.notify_one();
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
        self.end();
    }

    /// Ends the connection without a close frame of its own (the server
    /// shuts down, or a cluster node's term ended; see `roster`).
    pub(crate) fn end(&self) {
        if !self.closing.swap(true, AcqRel) {
            self.closed.notify_waiters();
            self.ready.notify_one();
        }
    }

    /// Whether the connection must end.
    pub(crate) fn is_closing(&self) -> bool {
        self.closing.load(Acquire)
    }

    /// Resolves once the connection must end, or the server shuts down.
    pub(crate) async fn closed(&self) {
        let notified = self.closed.notified();
        tokio::pin!(notified);
        // Registered before looking: an end after the look wakes it.
        notified.as_mut().enable();
        if self.is_closing() {
            return;
        }
        notified.await;
    }

    /// Asks to be woken (through [`Outbox::stirred`]) at `millis` on the
    /// roster's clock, even if nothing is queued (see `roster`).
    pub(crate) fn wake_at(&self, millis: u64) {
        self.wake_at.store(millis, Relaxed);
    }

    /// Wakes the connection's task if its deadline is at or before `now`
    /// (the roster's milliseconds).
    pub(crate) fn wake_if_due(&self, now: u64) {
        if self.wake_at.load(Relaxed) <= now {
            self.ready.notify_one();
        }
    }

    /// The close frame asked for, if any.
    pub(crate) fn close_frame(&self) -> Option<(u16, Cow<'static, str>)> {
        self.close_frame
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use futures_util::FutureExt;

    use super::*;

    fn outbox(capacity: usize, max_bytes: usize) -> Arc<Outbox> {
        Outbox::new(1, capacity, max_bytes)
    }

    fn frame(text: &'static str) -> Utf8Bytes {
        Utf8Bytes::from_static(text)
    }

    /// Whether the connection's task would be woken: a notification is
    /// pending (taking it).
    async fn wakes(outbox: &Outbox) -> bool {
        tokio::time::timeout(Duration::from_millis(50), outbox.ready.notified())
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn a_quiet_frame_waits_for_the_next_one_and_both_leave_in_order() {
        let out = outbox(8, 1 << 20);
        out.send_quiet(frame("state"));
        assert!(!wakes(&out).await, "a quiet frame woke the connection");
        assert!(!out.settled(), "a queued frame is not yet written");
        out.send(frame("ok"));
        assert!(wakes(&out).await, "the reply wakes the connection");
        let first = out.recv().now_or_never().expect("queued");
        out.taken(first.len());
        let second = out.try_recv().expect("queued");
        out.taken(second.len());
        assert_eq!((first.as_str(), second.as_str()), ("state", "ok"));
        assert!(out.settled());
        assert!(out.recv().now_or_never().is_none(), "nothing left");
    }

    #[tokio::test]
    async fn the_last_reply_owed_wakes_a_task_that_took_its_frame_before_the_count_went_down() {
        let out = outbox(8, 1 << 20);
        out.owe_reply();
        // The table queues the reply: its frame first...
        assert!(out.push(frame("ok"), true));
        // ...which the connection's task writes at once, and finds a
        // reply still owed: it waits.
        let reply = out.try_recv().expect("queued");
        out.taken(reply.len());
        assert!(!out.settled());
        while wakes(&out).await {}
        // Then the count goes down: the task must look again.
        out.reply_queued();
        assert!(out.settled());
        let stirred = tokio::time::timeout(Duration::from_millis(50), out.stirred()).await;
        assert!(
            stirred.is_ok(),
            "the task waiting for the reply was not woken"
        );
    }

    #[tokio::test]
    async fn a_frame_sent_while_waiting_wakes_the_receiver() {
        let out = outbox(8, 1 << 20);
        let waiter = {
            let out = Arc::clone(&out);
            tokio::spawn(async move { out.recv().await })
        };
        tokio::task::yield_now().await;
        out.send(frame("hello"));
        let got = tokio::time::timeout(Duration::from_secs(5), waiter)
            .await
            .expect("woken in time")
            .expect("no panic");
        assert_eq!(got.as_str(), "hello");
    }

    #[tokio::test]
    async fn a_full_queue_closes_the_connection_as_too_slow() {
        let out = outbox(2, 1 << 20);
        out.send(frame("a"));
        out.send(frame("b"));
        out.send(frame("c"));
        assert!(out.is_closing());
        let (code, reason) = out.close_frame().expect("a close frame");
        assert_eq!(code, close::POLICY);
        assert!(reason.contains("send queue is full"), "{reason}");

        let out = outbox(100, 10);
        out.send(frame("0123456789abc"));
        assert!(out.is_closing());
        let (_, reason) = out.close_frame().expect("a close frame");
        assert!(reason.contains("too much unread data"), "{reason}");
        assert!(out.settled(), "the refused frame is off the books");
    }

    #[tokio::test]
    async fn after_shut_frames_are_dropped_and_off_the_books() {
        let out = outbox(8, 1 << 20);
        out.send(frame("queued"));
        out.shut();
        out.send(frame("late"));
        assert!(out.try_recv().is_none());
        assert!(out.settled(), "dropped frames are not owed to the socket");
        assert!(!out.is_closing(), "dropping is not a refusal");
    }
}
