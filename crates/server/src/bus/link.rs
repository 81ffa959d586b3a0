//! This node's end of the bus: the connection to NATS, and what the node
//! keeps for its own clients whose tables run on other nodes (where their
//! frames go, the streams' numbering, which node runs what they are at).
//!
//! A leaf for the rest of the server: [`RemoteTable`] is how a
//! [`TableHandle`](crate::handle::TableHandle) reaches a table on another
//! node.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use async_nats::RequestErrorKind;
use axum::extract::ws::Utf8Bytes;
use futures_util::future::BoxFuture;

use super::peers::Peers;
use super::wire::{self, Ack, FrameHeader, FrameKind, RemoteCmd, ToTable, Who};
use crate::accounts::Account;
use crate::close;
use crate::conn::{Conn, Outbox};
use crate::handle::{Forward, TableCmd};
use crate::metrics::Metrics;

/// How a forwarded command fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sent {
    /// The table's node has it.
    Queued,
    /// The table does not run there (or no node listens there, or the bus
    /// is down): it closed, or is moving.
    NotHere,
    /// No answer in time: the node is stalled, and may yet act on it.
    NoAnswer,
}

/// One of this node's clients, as the bus sees it.
#[derive(Debug)]
struct Local {
    outbox: Weak<Outbox>,
    /// The last frame number seen on each stream (owner node, stream).
    streams: HashMap<(u16, u64), u64>,
    /// Tables on other nodes the connection is at, and their node.
    remote: HashMap<Arc<str>, u16>,
    /// Replies owed by other nodes, and since when the oldest is.
    owed: u32,
    since: Option<Instant>,
}

/// This node on the bus.
#[derive(Debug)]
pub(crate) struct Link {
    pub(crate) client: async_nats::Client,
    /// This node's id.
    pub(crate) node: u16,
    /// This run of the node (random): a node that restarts is a new run.
    pub(crate) run: u64,
    /// How long a forwarded command waits for its table's node.
    ask_timeout: Duration,
    metrics: Arc<Metrics>,
    locals: Mutex<HashMap<u64, Local>>,
    /// The other nodes, as their heartbeats tell.
    pub(crate) peers: Peers,
}

impl Link {
    /// This node's end of the bus, on the NATS connection `client`.
    pub(crate) fn new(
        client: async_nats::Client,
        node: u16,
        ask_timeout: Duration,
        metrics: Arc<Metrics>,
    ) -> Link {
        Link {
            client,
            node,
            run: rand::random(),
            ask_timeout,
            metrics,
            locals: Mutex::default(),
            peers: Peers::default(),
        }
    }

    fn locals(&self) -> MutexGuard<'_, HashMap<u64, Local>> {
        self.locals.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A handle on `table`, which runs on node `owner`.
    pub(crate) fn table(self: &Arc<Self>, owner: u16, table: Arc<str>) -> RemoteTable {
        RemoteTable {
            link: Arc::clone(self),
            owner,
            table,
            gone: AtomicBool::new(false),
        }
    }

    /// Sends `msg` to node `owner` and waits for its answer.
    async fn ask(&self, owner: u16, msg: &ToTable) -> Sent {
        let Ok(payload) = serde_json::to_vec(msg) else {
            return Sent::NotHere;
        };
        self.metrics.forwarded.fetch_add(1, Relaxed);
        let began = Instant::now();
        let asked = self
            .client
            .request(wire::tables_subject(owner), payload.into());
        match tokio::time::timeout(self.ask_timeout, asked).await {
            Ok(Ok(answer)) => {
                self.metrics.bus_latency.observe(began.elapsed());
                match Ack::from_bytes(&answer.payload) {
                    Ack::Queued => Sent::Queued,
                    Ack::NotHere => Sent::NotHere,
                }
            }
            Ok(Err(e)) if e.kind() == RequestErrorKind::TimedOut => Sent::NoAnswer,
            Ok(Err(e)) => {
                tracing::debug!(error = %e, owner, "a forwarded command found nobody");
                Sent::NotHere
            }
            Err(_) => Sent::NoAnswer,
        }
    }

    /// Sends `msg` to node `owner` without waiting.
    async fn tell(&self, owner: u16, msg: &ToTable) {
        if let Ok(payload) = serde_json::to_vec(msg) {
            if let Err(e) = self
                .client
                .publish(wire::tables_subject(owner), payload.into())
                .await
            {
                tracing::debug!(error = %e, "could not tell another node");
            }
        }
    }

    /// Notes `conn` as one of this node's clients that other nodes send
    /// frames to.
    fn register(&self, conn: &Conn) {
        self.locals().entry(conn.id()).or_insert_with(|| Local {
            outbox: Arc::downgrade(&conn.outbox),
            streams: HashMap::new(),
            remote: HashMap::new(),
            owed: 0,
            since: None,
        });
    }

    /// The connection `conn` closed.
    pub(crate) fn forget(&self, conn: u64) {
        self.locals().remove(&conn);
    }

    /// A forwarded request of `conn` is on its way to its table's node,
    /// which will owe it a reply. Counted before it is sent: the reply may
    /// come back (on the frames' subject) before the node's answer that it
    /// has the request.
    fn owe(&self, conn: u64) {
        if let Some(local) = self.locals().get_mut(&conn) {
            local.owed += 1;
            local.since.get_or_insert_with(Instant::now);
        }
    }

    /// The table's node did not take the request [`Link::owe`] counted.
    fn forgive(&self, conn: u64) {
        if let Some(local) = self.locals().get_mut(&conn) {
            local.owed = local.owed.saturating_sub(1);
            if local.owed == 0 {
                local.since = None;
            }
        }
    }

    /// Closes (1013) the connections that have waited longer than `limit`
    /// for a reply from another node: they come back and re-sync.
    pub(crate) fn overdue(&self, limit: Duration) {
        let late: Vec<Arc<Outbox>> = self
            .locals()
            .values()
            .filter(|l| l.since.is_some_and(|s| s.elapsed() > limit))
            .filter_map(|l| l.outbox.upgrade())
            .collect();
        for outbox in late {
            outbox.close(
                close::TRY_AGAIN,
                "no reply from the table's node; reconnect with your token",
            );
        }
    }

    /// This node was cut off from the bus: it cannot tell what its clients
    /// at other nodes' tables missed, so they close (1013) and re-sync.
    pub(crate) fn reset(&self) {
        let cut: Vec<Arc<Outbox>> = self
            .locals()
            .values()
            .filter(|l| !l.remote.is_empty() || l.owed > 0)
            .filter_map(|l| l.outbox.upgrade())
            .collect();
        for outbox in cut {
            outbox.close(
                close::TRY_AGAIN,
                "lost touch with the table's node; reconnect with your token",
            );
        }
    }

    fn note_remote(&self, conn: u64, table: &Arc<str>, owner: Option<u16>) {
        if let Some(local) = self.locals().get_mut(&conn) {
            match owner {
                Some(owner) => {
                    local.remote.insert(Arc::clone(table), owner);
                }
                None => {
                    local.remote.remove(table);
                }
            }
        }
    }

    /// A frame from another node for one of this node's clients: passed
    /// on in order, or, if one is missing, the connection closes so that
    /// the client re-syncs.
    pub(crate) fn deliver(&self, header: FrameHeader, body: &[u8]) {
        let outbox = {
            let mut locals = self.locals();
            let Some(local) = locals.get_mut(&header.conn) else {
                return;
            };
            let Some(outbox) = local.outbox.upgrade() else {
                locals.remove(&header.conn);
                return;
            };
            let last = local
                .streams
                .entry((header.owner, header.stream))
                .or_insert(0);
            if header.seq != *last + 1 {
                drop(locals);
                self.metrics.bus_gaps.fetch_add(1, Relaxed);
                tracing::warn!(
                    conn = header.conn,
                    owner = header.owner,
                    "a frame from another node went missing; the client re-syncs"
                );
                outbox.close(
                    close::TRY_AGAIN,
                    "missed a table update; reconnect with your token",
                );
                return;
            }
            *last = header.seq;
            if header.kind == FrameKind::Reply {
                local.owed = local.owed.saturating_sub(1);
                if local.owed == 0 {
                    local.since = None;
                }
            }
            outbox
        };
        self.metrics.relayed_frames.fetch_add(1, Relaxed);
        match header.kind {
            FrameKind::Close => {
                let code = body
                    .get(..2)
                    .and_then(|b| b.try_into().ok())
                    .map_or(close::TRY_AGAIN, u16::from_be_bytes);
                let reason = String::from_utf8_lossy(body.get(2..).unwrap_or_default());
                outbox.close(code, reason.into_owned());
            }
            FrameKind::Event | FrameKind::Reply => {
                let Ok(text) = std::str::from_utf8(body) else {
                    return;
                };
                let frame = Utf8Bytes::from(text.to_owned());
                if header.kind == FrameKind::Reply {
                    outbox.reply_frame(frame);
                } else {
                    outbox.send(frame);
                }
            }
        }
    }

    /// Node `owner` has taken `tables` over: this node's clients at them,
    /// whose frames came from another node, close (1013) and come back to
    /// find them where they run now.
    pub(crate) fn moved(&self, owner: u16, tables: &[Arc<str>]) {
        let mut closing = Vec::new();
        for local in self.locals().values() {
            let moved = tables
                .iter()
                .any(|t| local.remote.get(t).is_some_and(|&at| at != owner));
            if moved {
                closing.extend(local.outbox.upgrade());
            }
        }
        for outbox in closing {
            outbox.close(
                close::TRY_AGAIN,
                "the table moved to another node; reconnect with your token",
            );
        }
    }
}

/// A table that runs on another node, reached over the bus.
#[derive(Debug)]
pub(crate) struct RemoteTable {
    link: Arc<Link>,
    owner: u16,
    table: Arc<str>,
    gone: AtomicBool,
}

fn who(account: &Account) -> Who {
    Who {
        id: Arc::clone(&account.id),
        token_hash: account.token_hash,
        name: account.name(),
    }
}

impl RemoteTable {
    fn message(&self, conn: u64, who: Option<Who>, cmd: RemoteCmd) -> ToTable {
        ToTable {
            table: Arc::clone(&self.table),
            origin: self.link.node,
            origin_run: self.link.run,
            conn,
            who,
            cmd,
        }
    }

    /// Forwards a command of `conn` and waits for the table's node; with
    /// `stays`, the connection is at the table afterwards.
    async fn ask(&self, conn: &Conn, cmd: RemoteCmd, stays: bool) -> bool {
        let request = matches!(cmd, RemoteCmd::Request { .. });
        self.link.register(conn);
        let msg = self.message(conn.id(), Some(who(&conn.account)), cmd);
        if request {
            self.link.owe(conn.id());
        }
        match self.link.ask(self.owner, &msg).await {
            Sent::Queued => {
                let owner = stays.then_some(self.owner);
                self.link.note_remote(conn.id(), &self.table, owner);
                true
            }
            Sent::NotHere => {
                if request {
                    self.link.forgive(conn.id());
                }
                self.gone.store(true, Relaxed);
                self.link.note_remote(conn.id(), &self.table, None);
                false
            }
            Sent::NoAnswer => {
                // The command may yet be acted on: the client learns its
                // fate from the state it finds when it comes back.
                conn.outbox.close(
                    close::TRY_AGAIN,
                    "the table's node does not answer; reconnect with your token",
                );
                true
            }
        }
    }
}

impl Forward for RemoteTable {
    fn send(&self, cmd: TableCmd) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            match cmd {
                TableCmd::Request(r) => {
                    let stays = !r.req.detaches();
                    let cmd = RemoteCmd::Request {
                        id: r.id,
                        req: r.req,
                    };
                    self.ask(&r.conn, cmd, stays).await
                }
                TableCmd::Attach(conn) => self.ask(&conn, RemoteCmd::Attach, true).await,
                TableCmd::Detach(conn) => {
                    self.link.note_remote(conn, &self.table, None);
                    let msg = self.message(conn, None, RemoteCmd::Detach);
                    self.link.tell(self.owner, &msg).await;
                    true
                }
                TableCmd::Renamed(renamed) => {
                    let msg = self.message(0, Some(who(&renamed.account)), RemoteCmd::Renamed);
                    self.link.tell(self.owner, &msg).await;
                    true
                }
                TableCmd::Lost => true,
                // Not asked over the bus: a table on another node counts
                // as one the connection is at until it leaves it.
                TableCmd::IsMember(q) => {
                    let _ = q.answer.send(true);
                    true
                }
            }
        })
    }

    fn is_gone(&self) -> bool {
        self.gone.load(Relaxed)
    }
}

#[cfg(test)]
mod tests;
