//! Server settings, with defaults that suit `oxo serve` on a laptop.
//!
//! Tests and the load tool build a [`Config`] by hand (short grace periods,
//! in-memory database, higher rate limits); the CLI maps its flags onto it.

use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use oxo_protocol::limits;

/// Where the database lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DbLocation {
    /// A SQLite file, created on first start.
    File(PathBuf),
    /// A private in-memory database that vanishes with the server (tests,
    /// benchmarks).
    Memory,
    /// A PostgreSQL database shared by the nodes of a cluster (see
    /// docs/cluster.md): `url` is a `postgres://` URL, `node` this node's
    /// id, unique in the cluster and below 1024.
    Postgres {
        /// Where the database is, e.g.
        /// `postgres://oxo@127.0.0.1:5432/oxo`.
        url: String,
        /// This node's id, 0 to 1023.
        node: u16,
    },
}

/// A token bucket: up to `burst` messages at once, refilled at `per_second`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateLimit {
    /// Sustained rate, in messages per second.
    pub per_second: f64,
    /// Bucket size: how many messages may arrive back to back.
    pub burst: u32,
}

impl RateLimit {
    /// No limit at all (load tests).
    pub const UNLIMITED: RateLimit = RateLimit {
        per_second: f64::INFINITY,
        burst: u32::MAX,
    };

    /// `per_second` messages per second with a burst of `burst`.
    #[must_use]
    pub const fn new(per_second: f64, burst: u32) -> RateLimit {
        RateLimit { per_second, burst }
    }
}

/// Everything that can be tuned about a server.
#[derive(Clone, Debug)]
pub struct Config {
    /// The database.
    pub db: DbLocation,
    /// How long a disconnected player keeps a seat in a running game before
    /// losing it (reason `dropped`); also how long a table with nobody
    /// connected stays open.
    pub reconnect_grace: Duration,
    /// The most WebSocket connections at once; more are refused with 503.
    pub max_connections: usize,
    /// The most WebSocket connections one client address may hold open
    /// at once (IPv6 by /64); 0: no cap. While it is on, an address may
    /// also hold at most [`Config::HTTP_PER_ADDRESS`] plain HTTP
    /// connections (behind a trusted proxy, that one is not counted), and
    /// as many more as this cap wait their turn for at most
    /// `handshake_timeout`.
    pub max_connections_per_address: u32,
    /// Messages per connection (every frame counts).
    pub rate_limit: RateLimit,
    /// Bytes a connection may send, per second and in a burst: every
    /// byte, whole messages or not. Past it the server reads the socket no
    /// faster (the client's sends back up), so that frames that never make
    /// a message (empty continuation frames) cannot spend its CPU without
    /// end; honest traffic stays far below it.
    pub read_limit: RateLimit,
    /// Chat messages per player (all their connections together), on top
    /// of `rate_limit`.
    pub chat_limit: RateLimit,
    /// New rounds per player (tables created and rematches asked for, by
    /// all their connections together): what bounds the game records one
    /// player can make.
    pub rounds_limit: RateLimit,
    /// Renames per player (`set_name`, and a `hello` that changes the
    /// name; all their connections together): each is a durable write and
    /// a new state at every table where the player sits. Setting the name
    /// one has already costs nothing.
    pub names_limit: RateLimit,
    /// New players (`hello` without a token) per client address (IPv4
    /// address or IPv6 /64); returning players are not counted.
    pub new_players: RateLimit,
    /// A connection that gets this many `rate_limited` refusals within
    /// [`Config::flood_window`] is closed (code 1008).
    pub flood_refusals: u32,
    /// The window for [`Config::flood_refusals`].
    pub flood_window: Duration,
    /// The most tables a player may hold a seat at.
    pub max_tables_per_player: usize,
    /// A connection from which no frame at all (not even a pong) arrives for
    /// this long is closed (code 1001).
    pub idle_timeout: Duration,
    /// How often the server pings each connection.
    pub ping_interval: Duration,
    /// How long a new TCP connection (and a kept-alive HTTP connection
    /// between requests) may take to send a complete request head; slower
    /// ones, such as slowloris clients that never finish, are closed. Once a
    /// connection is a WebSocket, [`Config::idle_timeout`] applies instead.
    pub handshake_timeout: Duration,
    /// How long a plain HTTP connection may stay open (kept alive between
    /// requests, or writing to a client that does not read): then it is
    /// closed once the request in flight is answered, or at once if that
    /// makes no progress for [`Config::write_timeout`]. A WebSocket is no
    /// longer a plain HTTP connection.
    pub http_lifetime: Duration,
    /// The largest text frame accepted; bigger ones close the connection
    /// (code 1009).
    pub max_frame_bytes: usize,
    /// Frames queued for one client before it counts as too slow and is
    /// disconnected (code 1008).
    pub send_queue: usize,
    /// Bytes queued for one client before it counts as too slow (1008).
    pub send_queue_bytes: usize,
    /// How long one write to a client's socket may make no progress before
    /// the client counts as too slow (1008): a client that stops reading.
    pub write_timeout: Duration,
    /// How long shutdown waits for connections and tables to finish.
    pub shutdown_timeout: Duration,
    /// How long lobby changes are gathered before one `lobby` message goes
    /// to every watcher.
    pub lobby_debounce: Duration,
    /// The most tables listed in a `lobby` message or `GET /api/tables`.
    pub lobby_max_tables: usize,
    /// Reverse proxies (HAProxy, nginx) whose `X-Forwarded-For` names the
    /// client for the per-address limits. Empty (the default): the
    /// header is never believed, and the TCP peer is the client.
    pub trusted_proxies: Vec<IpAddr>,
    /// Web origins (`https://example.com`) whose pages may open a
    /// WebSocket here besides the server's own pages; `*`: any. A browser
    /// names the page's origin in every WebSocket request (`Origin`), and
    /// one from another site is refused (403), so no other site's page
    /// can play, or spend an address's limits, in its visitors' name.
    /// Clients that are not browsers send no `Origin` and are not
    /// concerned.
    pub allowed_origins: Vec<String>,
    /// Cluster (PostgreSQL) only: how long a node's lease on its tables
    /// lasts without renewal. A node that dies or stops loses its tables
    /// to the others this long after its last renewal (it renews every
    /// third of it).
    pub lease_ttl: Duration,
    /// Cluster only: the message bus (a `nats://` URL) through which the
    /// nodes forward requests and events, so that each node runs its own
    /// share of the tables (see docs/cluster.md). Without it, one node
    /// leads and runs every table, and the others relay their clients'
    /// connections to it.
    pub bus: Option<String>,
}

impl Config {
    /// Plain HTTP connections (not yet WebSockets) one address may hold
    /// open at once while [`Config::max_connections_per_address`] is on: a
    /// browser opens six at most.
    pub const HTTP_PER_ADDRESS: u32 = 64;

    /// How often each connection is pinged: the configured interval, or
    /// half the idle timeout when that is shorter, so that a client that
    /// answers pings is never idle.
    #[must_use]
    pub fn ping_every(&self) -> Duration {
        self.ping_interval.min(self.idle_timeout / 2)
    }

    /// How long a new WebSocket has to say `hello`: the handshake timeout,
    /// or the idle timeout when that is shorter. Frames other than a
    /// `hello` (pongs included) do not extend it.
    #[must_use]
    pub fn hello_within(&self) -> Duration {
        self.handshake_timeout.min(self.idle_timeout)
    }
}

#[cfg(test)]
impl Config {
    /// The defaults, with this idle timeout and ping interval (tests of the
    /// connections' deadlines).
    pub(crate) fn with_timing(idle_timeout: Duration, ping_interval: Duration) -> Config {
        Config {
            idle_timeout,
            ping_interval,
            ..Config::default()
        }
    }
}

impl Default for Config {
    fn default() -> Config {
        Config {
            db: DbLocation::File(PathBuf::from("oxo.db")),
            reconnect_grace: Duration::from_secs(60),
            max_connections: 20_000,
            max_connections_per_address: 1_000,
            allowed_origins: Vec::new(),
            rate_limit: RateLimit::new(50.0, 100),
            read_limit: RateLimit::new(256.0 * 1024.0, 1024 * 1024),
            chat_limit: RateLimit::new(0.5, 5),
            rounds_limit: RateLimit::new(0.5, 20),
            names_limit: RateLimit::new(0.2, 5),
            new_players: RateLimit::new(0.5, 30),
            flood_refusals: 200,
            flood_window: Duration::from_secs(10),
            max_tables_per_player: 10,
            idle_timeout: Duration::from_secs(60),
            ping_interval: Duration::from_secs(20),
            handshake_timeout: Duration::from_secs(10),
            http_lifetime: Duration::from_secs(60),
            max_frame_bytes: limits::MAX_FRAME_BYTES,
            send_queue: 256,
            send_queue_bytes: 256 * 1024,
            write_timeout: Duration::from_secs(5),
            shutdown_timeout: Duration::from_secs(5),
            lobby_debounce: Duration::from_millis(20),
            lobby_max_tables: limits::LOBBY_TABLES,
            trusted_proxies: Vec::new(),
            lease_ttl: Duration::from_secs(2),
            bus: None,
        }
    }
}

impl Config {
    /// The defaults with an in-memory database: what tests start from.
    #[must_use]
    pub fn in_memory() -> Config {
        Config {
            db: DbLocation::Memory,
            ..Config::default()
        }
    }
}
