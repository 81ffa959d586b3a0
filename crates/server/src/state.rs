//! The state every connection, table and HTTP handler shares:
//! configuration, storage, accounts, the table registry, the lobby and the
//! shutdown signal.
//!
//! This file only holds them. Starting the server (opening the store,
//! resuming tables, starting the lobby task) is `boot`'s job, and nothing
//! here imports `boot`, a table's actor or a connection: the parts are leaf
//! types, composed at the top (as mini-redis composes `Db`, `Connection`
//! and `Shutdown` in its `Listener`).

use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::{Arc, OnceLock};

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::accounts::Accounts;
use crate::address_cap::AddressCap;
use crate::bus::link::Link;
use crate::config::{Config, DbLocation};
use crate::conn::Outbox;
use crate::handle::{TableHandle, Tables};
use crate::lobby::Lobby;
use crate::metrics::Metrics;
use crate::node::Node;
use crate::rate::PerAddress;
use crate::roster::Roster;
use crate::store::Store;
use crate::table;

/// What every connection, table and HTTP handler reaches through an `Arc`.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) config: Config,
    /// Where everything durable goes (see `store`).
    pub(crate) store: Arc<dyn Store>,
    pub(crate) metrics: Arc<Metrics>,
    pub(crate) accounts: Arc<Accounts>,
    /// The open tables.
    pub(crate) tables: Arc<Tables>,
    /// Shared with the lobby task, which needs nothing else of this.
    pub(crate) lobby: Arc<Lobby>,
    /// New players per client address.
    pub(crate) new_players: PerAddress,
    /// WebSockets open per client address.
    pub(crate) sockets_per_address: Arc<AddressCap>,
    /// Cancelled when the server shuts down: connections say `closing` and
    /// close (1001), tables stop, the lobby stops.
    pub(crate) shutdown: CancellationToken,
    /// Table actors, connections and the lobby task, so that shutdown can
    /// wait for them before the database is closed.
    pub(crate) tasks: TaskTracker,
    /// Source of connection ids.
    pub(crate) next_conn: AtomicU64,
    /// Every connection's outbox: their deadlines, and ending them all on
    /// shutdown or when a cluster node's term ends.
    pub(crate) roster: Arc<Roster>,
    /// This node's view of its cluster; `None` for a server on its own.
    pub(crate) node: Option<Arc<Node>>,
    /// In a cluster with a bus, this node's end of it, once connected.
    pub(crate) bus: OnceLock<Arc<Link>>,
}

impl Shared {
    /// Nothing open yet: no tables, no players in memory, no connections.
    pub(crate) fn new(config: Config, store: Arc<dyn Store>, metrics: Arc<Metrics>) -> Shared {
        let shutdown = CancellationToken::new();
        let node = matches!(config.db, DbLocation::Postgres { .. })
            .then(|| Arc::new(Node::new(&shutdown)));
        Shared {
            new_players: PerAddress::new(config.new_players),
            sockets_per_address: AddressCap::new(config.max_connections_per_address),
            config,
            store,
            metrics,
            accounts: Arc::default(),
            tables: Arc::default(),
            lobby: Arc::default(),
            shutdown,
            tasks: TaskTracker::new(),
            next_conn: AtomicU64::new(1),
            roster: Arc::default(),
            node,
            bus: OnceLock::new(),
        }
    }

    /// The table with this id, if open.
    pub(crate) fn table(&self, id: &str) -> Option<TableHandle> {
        self.tables.get(id)
    }

    /// Whether this node is in a cluster with a bus: each node runs its own
    /// share of the tables.
    pub(crate) fn on_bus(&self) -> bool {
        self.node.is_some() && self.config.bus.is_some()
    }

    /// What a table's actor uses of the server.
    pub(crate) fn table_env(&self) -> table::Env {
        table::Env {
            store: Arc::clone(&self.store),
            metrics: Arc::clone(&self.metrics),
            lobby: Arc::clone(&self.lobby),
            tables: Arc::clone(&self.tables),
            tasks: self.tasks.clone(),
            shutdown: self.shutdown.clone(),
            reconnect_grace: self.config.reconnect_grace,
            max_tables_per_player: self.config.max_tables_per_player,
            rounds_limit: self.config.rounds_limit,
            accounts: Arc::clone(&self.accounts),
            node: self.node.clone(),
        }
    }

    /// The outbox of a new connection, with a fresh id and the configured
    /// bounds.
    pub(crate) fn new_outbox(&self) -> Arc<Outbox> {
        let id = self.next_conn.fetch_add(1, Relaxed);
        let outbox = Outbox::new(id, self.config.send_queue, self.config.send_queue_bytes);
        self.roster.enroll(&outbox);
        // Enrolled after the roster ended them all: it ends now.
        if self.shutdown.is_cancelled() {
            outbox.end();
        }
        outbox
    }
}

/// The server's state: cheap to clone, shared by every request handler.
///
/// Built by [`AppState::new`], served by [`app`](crate::app) or
/// [`run`](crate::run), stopped by [`AppState::shutdown`].
#[derive(Clone, Debug)]
pub struct AppState {
    pub(crate) shared: Arc<Shared>,
}

impl AppState {
    /// The configuration in force.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.shared.config
    }
}
