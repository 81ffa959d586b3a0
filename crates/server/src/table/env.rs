//! What a table's actor may reach of the server.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::accounts::Accounts;
use crate::config::RateLimit;
use crate::handle::Tables;
use crate::lobby::Lobby;
use crate::metrics::Metrics;
use crate::node::Node;
use crate::store::Store;

/// What a table's actor uses of the server, and nothing else.
#[derive(Clone, Debug)]
pub(crate) struct Env {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) metrics: Arc<Metrics>,
    /// Public tables are listed here.
    pub(crate) lobby: Arc<Lobby>,
    /// A table registers here when it opens, and leaves when it closes.
    pub(crate) tables: Arc<Tables>,
    /// Actors are spawned here, so that shutdown can wait for them.
    pub(crate) tasks: TaskTracker,
    /// Cancelled when the server shuts down: actors stop.
    pub(crate) shutdown: CancellationToken,
    /// How long a disconnected player keeps a seat.
    pub(crate) reconnect_grace: Duration,
    /// Seats in play one player may hold.
    pub(crate) max_tables_per_player: usize,
    /// New rounds one player may start (a join that fills a table counts).
    pub(crate) rounds_limit: RateLimit,
    /// Every account in memory: a table read back from the store after a
    /// failed commit seats its players' accounts from here.
    pub(crate) accounts: Arc<Accounts>,
    /// In a cluster, this node's view of it (see `cluster`).
    pub(crate) node: Option<Arc<Node>>,
}
