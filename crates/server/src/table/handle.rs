//! How the rest of the server talks to a table: its command queue and the
//! status it publishes. A leaf: it knows nothing of the actor behind it.

use oxo_core::{Player, Square};
use oxo_protocol::TableStatus;
use tokio::sync::mpsc;

use crate::conn::Conn;
use crate::live::LiveStatus;

/// A request for a table, from a connection.
#[derive(Debug)]
pub(crate) enum TableReq {
    Join(Option<Player>),
    Watch,
    Leave,
    /// A cell, and the game the client meant it for, if it said.
    Move(Square, Option<String>),
    Forfeit,
    Rematch,
    Chat(String),
    Sync,
}

/// What a table's actor is asked to do.
#[derive(Debug)]
pub(crate) enum TableCmd {
    /// A client request; the actor sends the reply.
    Request {
        conn: Conn,
        id: Option<u64>,
        req: TableReq,
        /// When the connection read it (for the latency histogram).
        at: std::time::Instant,
    },
    /// A player came back (`hello` with a token): attach this connection.
    Attach(Conn),
    /// A connection closed.
    Detach(u64),
    /// A seated player changed their name.
    Renamed,
}

/// A handle to send commands to a table.
#[derive(Clone, Debug)]
pub(crate) struct TableHandle {
    tx: mpsc::Sender<TableCmd>,
    live: LiveStatus,
}

impl TableHandle {
    /// A handle on the queue `tx` of a table publishing its status in
    /// `live`.
    pub(crate) const fn new(tx: mpsc::Sender<TableCmd>, live: LiveStatus) -> TableHandle {
        TableHandle { tx, live }
    }

    /// Queues a command; `false` if the table has gone.
    pub(crate) async fn send(&self, cmd: TableCmd) -> bool {
        self.tx.send(cmd).await.is_ok()
    }

    /// The table's status as last published by its actor.
    pub(crate) fn status(&self) -> TableStatus {
        self.live.get()
    }

    /// Whether the table has closed (or its actor stopped).
    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed() || self.live.get() == TableStatus::Closed
    }
}
