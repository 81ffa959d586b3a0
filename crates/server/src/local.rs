//! An in-process client: the whole session without a socket.

use std::sync::Arc;

use axum::extract::ws::Utf8Bytes;
use tokio::sync::mpsc;

use crate::session::{Flow, Session};
use crate::state::Shared;

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
        let (outbox, rx) = shared.new_outbox();
        LocalClient {
            session: Session::new(shared, outbox, None),
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
        let frame = tokio::select! {
            biased;
            frame = self.rx.recv() => frame,
            () = closing.cancelled() => self.rx.try_recv().ok(),
        };
        frame.map(|f| self.taken(&f))
    }

    /// The next message if one is waiting.
    pub fn try_recv(&mut self) -> Option<String> {
        let frame = self.rx.try_recv().ok()?;
        Some(self.taken(&frame))
    }

    /// A frame read by the client: off the outbox's books.
    fn taken(&self, frame: &Utf8Bytes) -> String {
        self.session.outbox.taken(frame.len());
        frame.as_str().to_owned()
    }

    /// Disconnects, as a closed socket would (seats get their grace period).
    pub async fn close(mut self) {
        self.session.finish().await;
        self.session.outbox.close(1000, "");
    }
}
