//! The protocol side of one connection: the [`Client`], what the server
//! knows and keeps about one connected client. The wire side (reading,
//! writing, closing) is in `transport`; this module sees text frames and
//! answers through the connection's [`Outbox`].
//!
//! Limits, in the order they are checked for each frame: size
//! ([`Config::max_frame_bytes`], else close 1009), rate (token bucket; every
//! frame counts, WebSocket pings too; else `rate_limited`, with the
//! request's `id` when it can be read; a flood closes with 1008), JSON shape
//! (else `bad_request` naming the problem), `hello` first (else
//! `hello_required`; the third strike closes with 1008).
//!
//! # Names
//!
//! A *client* is one connection's protocol state (this module); its
//! [`Conn`] is how tables and the lobby reach it once it has said `hello`;
//! a *token* (the "session token" of the protocol's wording) is what lets a
//! player come back as themselves on another connection. The TUI's and the
//! browser's sessions are theirs: the server has no "session".
//!
//! # Layout
//!
//! - this file: the [`Client`], its limits, and the order of checks;
//! - `hello`: who the client is (a new player, or a token), and names;
//! - `route`: requests routed to tables, and the tables a client is at;
//! - `validate`: checks on what a request carries (chat text, names,
//!   table options).
//!
//! Rate limiting itself is `rate`'s, the in-process client `local`'s.
//!
//! [`Config::max_frame_bytes`]: crate::Config::max_frame_bytes

mod attached;
mod hello;
mod route;
mod validate;

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use oxo_protocol::{ErrorCode, Request, ServerMsg, TableId, parse_request, peek_id};

use crate::accounts::Account;
use crate::close;
use crate::conn::{Conn, Outbox};
use crate::error::ClientError;
use crate::handle::TableCmd;
use crate::rate::{Bucket, Flood};
use crate::state::Shared;
use attached::Attached;

/// Whether the connection goes on after a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    Close,
}

/// How a request that was not refused is answered.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Reply {
    /// With `ok`, now.
    Ok,
    /// With `ok` naming the table asked about, now.
    OkAt(TableId),
    /// It was answered already (`pong`).
    Sent,
    /// A table's actor answers it (see [`Outbox::owe_reply`]).
    Owed,
}

/// One connected client, as the protocol sees it.
#[derive(Debug)]
pub(crate) struct Client {
    shared: Arc<Shared>,
    pub(crate) outbox: Arc<Outbox>,
    /// Who the client is: known from `hello` on.
    who: Who,
    /// Tables this connection is at (seated or watching), and the handles
    /// of tables it used lately; told when the connection closes.
    attached: Attached,
    rate: Bucket,
    /// Refusals for rate, to tell a flood.
    flood: Flood,
}

/// Who a client is.
#[derive(Debug)]
enum Who {
    /// Before `hello`: the client's address, for the limit on new players
    /// per address (`None` in process), and the requests refused so far for
    /// not being `hello`.
    Stranger { peer: Option<IpAddr>, strikes: u32 },
    /// Welcomed: the player.
    Player(Arc<Account>),
}

impl Client {
    /// A client that has not said `hello` yet, on a connection from `peer`
    /// (`None` in process).
    pub(crate) fn new(
        shared: Arc<Shared>,
        outbox: Arc<Outbox>,
        peer: Option<SocketAddr>,
    ) -> Client {
        let now = Instant::now();
        Client {
            rate: Bucket::new(now),
            flood: Flood::new(now),
            shared,
            outbox,
            who: Who::Stranger {
                peer: peer.map(|p| p.ip()),
                strikes: 0,
            },
            attached: Attached::default(),
        }
    }

    /// Whether the client has said `hello` (and was welcomed).
    pub(crate) fn welcomed(&self) -> bool {
        matches!(self.who, Who::Player(_))
    }

    /// How tables and the lobby reach the player, once welcomed.
    fn conn(&self) -> Option<Conn> {
        let Who::Player(account) = &self.who else {
            return None;
        };
        Some(Conn {
            outbox: Arc::clone(&self.outbox),
            account: Arc::clone(account),
        })
    }

    /// Whether the server is shutting down. Asks the connection's own token
    /// first: the server-wide one is locked only once that has fired.
    fn shutting_down(&self) -> bool {
        self.outbox.is_closing() && self.shared.shutdown.is_cancelled()
    }

    /// Refuses request `id` with `e` (counted in the metrics).
    fn refuse(&self, id: Option<u64>, e: ClientError) {
        self.shared.metrics.refused(e.code);
        self.outbox
            .send_msg(&ServerMsg::error(id, e.code, e.message.into_owned()));
    }

    /// Counts a frame against the rate limit. Over the limit, refuses it
    /// (`rate_limited`, with `id` if it has one) and says whether the
    /// connection goes on: a flood of refusals closes it (1008).
    fn admit(&mut self, now: Instant, id: impl FnOnce() -> Option<u64>) -> Result<(), Flow> {
        let limit = self.shared.config.rate_limit;
        if self.rate.take(limit, now) {
            return Ok(());
        }
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
        let config = &self.shared.config;
        if self
            .flood
            .refused(config.flood_window, config.flood_refusals, now)
        {
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

    /// The most bytes a client's message may have.
    pub(crate) fn max_frame_bytes(&self) -> usize {
        self.shared.config.max_frame_bytes
    }

    /// Handles one text frame.
    pub(crate) async fn on_text(&mut self, text: &str) -> Flow {
        let now = Instant::now();
        let max = self.max_frame_bytes();
        if text.len() > max {
            self.refuse(
                peek_id(text),
                ClientError::bad_request(format!(
                    "The message has {} bytes; at most {max} are allowed",
                    text.len()
                )),
            );
            self.outbox.close(close::TOO_BIG, close::too_big(max));
            return Flow::Close;
        }
        if let Err(flow) = self.admit(now, || peek_id(text)) {
            return flow;
        }
        let req: Request = match parse_request(text) {
            Ok(req) => req,
            Err(e) => {
                self.refuse(
                    peek_id(text),
                    ClientError::bad_request(format!("Invalid request: {e}")),
                );
                if !self.welcomed() {
                    return self.strike();
                }
                return Flow::Continue;
            }
        };
        let Some(conn) = self.conn() else {
            return self.before_hello(req).await;
        };
        let id = req.id;
        match self.dispatch(conn, req, now).await {
            Ok(Reply::Ok) => self.outbox.send_msg(&ServerMsg::ok(id, None)),
            Ok(Reply::OkAt(table)) => self.outbox.send_msg(&ServerMsg::ok(id, Some(table))),
            Ok(Reply::Sent | Reply::Owed) => {}
            Err(e) => self.refuse(id, e),
        }
        Flow::Continue
    }

    /// The connection is gone: leave the lobby, tell the tables.
    pub(crate) async fn finish(&mut self) {
        if self.shared.lobby.unwatch(self.outbox.id) {
            self.shared.metrics.lobby_watchers.fetch_sub(1, Relaxed);
        }
        for handle in self.attached.take() {
            let _ = handle.send(TableCmd::Detach(self.outbox.id)).await;
        }
        if let Some(link) = self.shared.bus.get() {
            link.forget(self.outbox.id);
        }
    }
}
