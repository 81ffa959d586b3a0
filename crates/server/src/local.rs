//! An in-process client: a whole connection's protocol without a socket.
//!
//! [`LocalClient`] is to a [`Client`] what `transport` is: it hands it
//! requests and drains its outbox, with no wire in between.

use std::sync::Arc;

use axum::extract::ws::Utf8Bytes;

use crate::client::{Client, Flow};
use crate::close;
use crate::state::AppState;

/// An in-process client: speaks the protocol to the server without a
/// socket or a network (benchmarks, tests, embedding). Limits, `hello` and
/// every reply work as over WebSocket; there are no pings or idle timeout.
#[derive(Debug)]
pub struct LocalClient {
    client: Client,
}

impl AppState {
    /// Connects an in-process client (no socket; see [`LocalClient`]).
    #[must_use]
    pub fn connect_local(&self) -> LocalClient {
        let shared = Arc::clone(&self.shared);
        let outbox = shared.new_outbox();
        LocalClient {
            client: Client::new(shared, outbox, None),
        }
    }
}

impl Drop for LocalClient {
    fn drop(&mut self) {
        // Nobody reads what the tables send from now on.
        self.client.outbox.shut();
    }
}

impl LocalClient {
    /// Sends one request (a JSON text, as in a WebSocket text frame). The
    /// replies and events arrive through [`LocalClient::recv`]. Returns
    /// `false` once the server has closed this connection.
    pub async fn send(&mut self, text: &str) -> bool {
        if self.client.outbox.is_closing() {
            return false;
        }
        self.client.on_text(text).await == Flow::Continue
    }

    /// The next message from the server (JSON text), or `None` once the
    /// server has closed this connection and nothing is left.
    pub async fn recv(&mut self) -> Option<String> {
        let outbox = &self.client.outbox;
        let frame = tokio::select! {
            biased;
            frame = outbox.recv() => Some(frame),
            () = outbox.closed() => outbox.try_recv(),
        };
        frame.map(|f| self.taken(&f))
    }

    /// The next message if one is waiting.
    pub fn try_recv(&mut self) -> Option<String> {
        let frame = self.client.outbox.try_recv()?;
        Some(self.taken(&frame))
    }

    /// A frame read by the client: off the outbox's books.
    fn taken(&self, frame: &Utf8Bytes) -> String {
        self.client.outbox.taken(frame.len());
        frame.as_str().to_owned()
    }

    /// Disconnects, as a closed socket would (seats get their grace period).
    pub async fn close(mut self) {
        self.client.finish().await;
        self.client.outbox.close(close::NORMAL, "");
        self.client.outbox.shut();
    }
}
