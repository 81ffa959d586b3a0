//! How the rest of the server talks to tables: each table's command queue
//! and published status, and the registry of open tables. A leaf: it knows
//! nothing of the actors behind the queues, nor of the bus behind a table
//! that runs on another node of a cluster ([`Forward`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::future::BoxFuture;
use oxo_core::{Player, Square};
use oxo_protocol::{GameId, TableStatus};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::accounts::Account;
use crate::conn::Conn;
use crate::live::LiveStatus;

/// Commands a table's queue holds before its actor applies them.
pub(crate) const TABLE_QUEUE: usize = 256;

/// A request for a table, from a connection. (Serializable: in a cluster
/// it may travel to the node that runs the table.)
#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum TableReq {
    Join(Option<Player>),
    Watch,
    Leave,
    /// A cell, and the game the client meant it for, if it said.
    Move(Square, Option<GameId>),
    Forfeit,
    Rematch,
    Chat(String),
    Sync,
    ChatHistory,
    StepAway,
}

impl TableReq {
    /// Whether the request takes the connection off the table (its
    /// connection stops hearing from it), rather than attaching it.
    pub(crate) const fn detaches(&self) -> bool {
        matches!(self, TableReq::Leave | TableReq::StepAway)
    }
}

/// A client's request to a table; the actor sends the reply.
#[derive(Debug)]
pub(crate) struct TableRequest {
    /// Where the reply goes.
    pub(crate) conn: Conn,
    /// The request id, echoed in the reply.
    pub(crate) id: Option<u64>,
    /// What is asked.
    pub(crate) req: TableReq,
    /// When the connection read it (for the latency histogram).
    pub(crate) at: std::time::Instant,
    /// What it spent of its player's budget (a chat line, a new round),
    /// given back if the table refuses it.
    pub(crate) spent: Option<crate::accounts::Spent>,
}

/// What a table's actor is asked to do.
///
/// Small on purpose: each table's queue allocates room for a block of
/// commands up front, so a request travels boxed.
#[derive(Debug)]
pub(crate) enum TableCmd {
    /// A client request.
    Request(Box<TableRequest>),
    /// A player came back (`hello` with a token): attach this connection
    /// (boxed, like a request: every variant is one word, so a table's
    /// queue reserves 16 bytes a slot rather than 24).
    Attach(Box<Conn>),
    /// A connection closed.
    Detach(u64),
    /// A seated player changed their name.
    Renamed(Box<Renamed>),
    /// Another node took the table over (cluster): stop here without
    /// writing anything.
    Lost,
    /// Is this connection among the table's people? (A connection at as
    /// many tables as it may be asks, to forget those it is no longer at.)
    IsMember(Box<IsMember>),
}

/// A connection's question to a table: is it among its people?
#[derive(Debug)]
pub(crate) struct IsMember {
    /// The connection.
    pub(crate) conn: u64,
    /// Told the answer; dropped unanswered by a table that has stopped.
    pub(crate) answer: tokio::sync::oneshot::Sender<bool>,
}

/// A seated player's new name, for a table to show.
#[derive(Debug)]
pub(crate) struct Renamed {
    /// The player, with the new name.
    pub(crate) account: Arc<Account>,
    /// Told (or dropped) once the table has sent its state with the new
    /// name: the renaming connection's `ok` follows the state (the
    /// ordering the protocol promises).
    pub(crate) shown: Option<tokio::sync::oneshot::Sender<()>>,
}

impl TableCmd {
    /// `account` changed their name; `shown`, if any, is told once the
    /// table has shown it.
    pub(crate) fn renamed(
        account: Arc<Account>,
        shown: Option<tokio::sync::oneshot::Sender<()>>,
    ) -> TableCmd {
        TableCmd::Renamed(Box::new(Renamed { account, shown }))
    }
}

// Every table's queue reserves room for its commands up front (tokio's
// blocks of 32 slots): keep them two words.
const _: () = assert!(std::mem::size_of::<TableCmd>() <= 16);

/// How commands reach a table that runs on another node of a cluster
/// (implemented by the bus).
pub(crate) trait Forward: Send + Sync + std::fmt::Debug {
    /// Passes `cmd` on to the table's node; `false` if the table is not
    /// there (it closed, or is moving to another node).
    fn send(&self, cmd: TableCmd) -> BoxFuture<'_, bool>;

    /// Whether the table's node has said it no longer runs the table.
    fn is_gone(&self) -> bool;
}

/// Starts a resumed table's actor on the first command sent to it (see
/// `table::asleep`): a table listed on start runs only once it is used or
/// its turn in the background comes.
pub(crate) trait Wake: Send + Sync + std::fmt::Debug {
    /// A command was queued: start the actor if it is not running yet.
    fn wake(self: Arc<Self>);
}

/// Where a handle's commands go.
#[derive(Clone, Debug)]
enum Route {
    /// The queue of an actor on this node.
    Local(mpsc::Sender<TableCmd>),
    /// A table on another node.
    Remote(Arc<dyn Forward>),
}

/// A handle to send commands to a table.
#[derive(Clone, Debug)]
pub(crate) struct TableHandle {
    route: Route,
    live: LiveStatus,
    /// The table's key and the lease epoch its actor holds it under.
    lease: (i64, i64),
    /// When the handle was made (the table opened or was resumed here).
    since: std::time::Instant,
    /// For a table resumed on start: what starts its actor.
    wake: Option<Arc<dyn Wake>>,
}

impl TableHandle {
    /// A handle on the queue `tx` of a table publishing its status in
    /// `live`, held under `lease` (key, epoch).
    pub(crate) fn new(
        tx: mpsc::Sender<TableCmd>,
        live: LiveStatus,
        lease: (i64, i64),
    ) -> TableHandle {
        TableHandle {
            route: Route::Local(tx),
            live,
            lease,
            since: std::time::Instant::now(),
            wake: None,
        }
    }

    /// A handle on the queue `tx` of a table resumed on start whose actor
    /// may not run yet: a command sent through it calls `wake` once queued.
    pub(crate) fn asleep(
        tx: mpsc::Sender<TableCmd>,
        live: LiveStatus,
        lease: (i64, i64),
        wake: Arc<dyn Wake>,
    ) -> TableHandle {
        TableHandle {
            wake: Some(wake),
            ..TableHandle::new(tx, live, lease)
        }
    }

    /// A handle on a table that runs on another node. Its status is not
    /// followed here: it reads as in progress (never let go of to make
    /// room) until the table's node says it is gone.
    pub(crate) fn remote(forward: Arc<dyn Forward>) -> TableHandle {
        TableHandle {
            route: Route::Remote(forward),
            live: LiveStatus::new(TableStatus::InProgress),
            lease: (0, 0),
            since: std::time::Instant::now(),
            wake: None,
        }
    }

    /// Queues a command; `false` if the table has gone.
    pub(crate) async fn send(&self, cmd: TableCmd) -> bool {
        match &self.route {
            Route::Local(tx) => {
                let queued = tx.send(cmd).await.is_ok();
                if let (true, Some(wake)) = (queued, &self.wake) {
                    Arc::clone(wake).wake();
                }
                queued
            }
            Route::Remote(forward) => forward.send(cmd).await,
        }
    }

    /// The table's status as last published by its actor.
    pub(crate) fn status(&self) -> TableStatus {
        self.live.get()
    }

    /// The table's key and the lease epoch its actor holds it under.
    pub(crate) fn lease(&self) -> (i64, i64) {
        self.lease
    }

    /// Whether the table has closed (or its actor stopped).
    pub(crate) fn is_closed(&self) -> bool {
        let gone = match &self.route {
            Route::Local(tx) => tx.is_closed(),
            Route::Remote(forward) => forward.is_gone(),
        };
        gone || self.live.get() == TableStatus::Closed
    }
}

/// The open tables by id. A std mutex: looked up and changed in short
/// critical sections, never across `.await`.
#[derive(Debug, Default)]
pub(crate) struct Tables(Mutex<HashMap<Arc<str>, TableHandle>>);

impl Tables {
    /// The table with this id, if open.
    pub(crate) fn get(&self, id: &str) -> Option<TableHandle> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    /// Lists an open table under `id`.
    pub(crate) fn register(&self, id: &Arc<str>, handle: TableHandle) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(Arc::clone(id), handle);
    }

    /// Forgets a table that has closed.
    pub(crate) fn unregister(&self, id: &str) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
    }

    /// Every table open here.
    pub(crate) fn all(&self) -> Vec<TableHandle> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .cloned()
            .collect()
    }

    /// The tables in `held` (key to epoch) that do not run here.
    pub(crate) fn not_running(&self, held: &HashMap<i64, i64>) -> Vec<(i64, i64)> {
        let tables = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        let running: std::collections::HashSet<i64> = tables.values().map(|h| h.lease.0).collect();
        held.iter()
            .filter(|(seq, _)| !running.contains(seq))
            .map(|(&seq, &epoch)| (seq, epoch))
            .collect()
    }

    /// The tables here, opened before `asked`, whose lease is not among
    /// `held` (key to epoch, as the database answered when asked at
    /// `asked`): another node may have taken them over, or they closed, or
    /// their first commit had not landed yet (the caller tells which).
    /// Tables opened since may be missing from `held` only because they
    /// are newer than the answer.
    pub(crate) fn lost(
        &self,
        held: &HashMap<i64, i64>,
        asked: std::time::Instant,
    ) -> Vec<TableHandle> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .filter(|h| h.since < asked && held.get(&h.lease.0) != Some(&h.lease.1))
            .cloned()
            .collect()
    }
}
