//! `oxo serve`: the multiplayer game server, the HTTP API and the browser UI.
//!
//! The work is done by `oxo-server`; this module maps flags onto its
//! `Config`, sets up logging, prints where it listens and turns SIGINT and
//! SIGTERM into a graceful shutdown.

use std::io::{IsTerminal as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use oxo_loadtest::parse_duration;
use oxo_server::{AppState, Config, DbLocation, RateLimit};

use crate::fds;

mod flags;

/// How log lines look.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum LogFormat {
    /// Human-readable lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// Arguments of `oxo serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on, HOST:PORT (such as 0.0.0.0:8080 or [::1]:8080).
    /// Port 0 picks a free port; the address actually bound is printed.
    #[arg(long, default_value = "127.0.0.1:8080", env = "OXO_ADDR", value_parser = flags::addr)]
    addr: String,
    /// The database: a SQLite file, created on first start (`:memory:` for
    /// a throw-away database); or, for a cluster of nodes, a PostgreSQL URL
    /// (`postgres://USER@HOST:PORT/DB`, see docs/cluster.md), which needs
    /// --node-id.
    #[arg(
        long,
        visible_alias = "database",
        default_value = "oxo.db",
        env = "OXO_DB"
    )]
    db: String,
    /// This node's id in a cluster, 0 to 1023, different on every node
    /// (only with a PostgreSQL database).
    #[arg(long, env = "OXO_NODE_ID", value_parser = clap::value_parser!(u16).range(0..1024))]
    node_id: Option<u16>,
    /// Cluster only: the message bus, `nats://HOST:PORT`. With it every
    /// node runs its own share of the tables and forwards requests for the
    /// others' over the bus; without it one node (the leader) runs them
    /// all and the others relay their clients to it (see docs/cluster.md).
    #[arg(long, env = "OXO_BUS")]
    bus: Option<String>,
    /// Cluster only: how long a node keeps its tables without renewing its
    /// lease; a node that dies or stops loses them to the others this long
    /// after its last renewal, e.g. `2s` [default: 2s].
    #[arg(long, value_parser = flags::lease)]
    lease: Option<Duration>,
    /// How long a disconnected player keeps the seat before losing the
    /// round, e.g. `60s`, `500ms`, `2m`.
    #[arg(long, default_value = "60s", value_parser = parse_duration)]
    reconnect_grace: Duration,
    /// Log format on stderr (the level comes from RUST_LOG, default info).
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
    /// The most WebSocket connections at once [default: what the open-files
    /// limit allows, less 64 kept for the database and HTTP, at most 20000].
    #[arg(long, value_parser = flags::connection_limit)]
    max_connections: Option<usize>,
    /// The most WebSocket connections one client address may hold open at
    /// once (IPv6 by /64), and with it at most 64 plain HTTP ones (0, or
    /// --rate-limit 0: no cap).
    #[arg(long, default_value_t = 1000, value_parser = |s: &str| flags::count(s, "no cap"))]
    max_connections_per_address: u32,
    /// Messages per second per connection, with bursts of twice as many
    /// (0: no rate limits at all, e.g. for load tests: neither messages nor
    /// new players nor connections per address).
    #[arg(long, default_value_t = 50.0, value_parser = flags::rate)]
    rate_limit: f64,
    /// New players (a `hello` without a token) per minute from one client
    /// address, after a burst of as many (0: no limit).
    #[arg(long, default_value_t = 30, value_parser = |s: &str| flags::count(s, "no limit"))]
    new_players_per_minute: u32,
    /// Close connections from which nothing has arrived for this long.
    #[arg(long, default_value = "60s", value_parser = flags::idle_timeout)]
    idle_timeout: Duration,
    /// The most tables one player may hold a seat at.
    #[arg(long, default_value_t = 10, value_parser = flags::seat_limit)]
    max_tables_per_player: usize,
    /// A reverse proxy (HAProxy, nginx) whose X-Forwarded-For header names
    /// the client for per-address limits; repeat for several. Without it
    /// the header is never believed.
    #[arg(long = "trusted-proxy", value_name = "IP")]
    trusted_proxies: Vec<std::net::IpAddr>,
    /// A web origin (`https://example.com`) whose pages may open
    /// WebSockets here besides the server's own (`*`: any); repeat for
    /// several. Other sites' pages are refused (403).
    #[arg(long = "allowed-origin", value_name = "ORIGIN", value_parser = flags::origin)]
    allowed_origins: Vec<String>,
    /// Threads that serve connections and run the tables (the SQLite
    /// writer has a thread of its own besides). By default one per core
    /// the process may use.
    #[arg(long, env = "OXO_THREADS", value_parser = clap::value_parser!(u16).range(1..=1024))]
    threads: Option<u16>,
}

/// Logs to stderr. A log line that cannot be written (nobody reads stderr
/// any more) is dropped: by default tracing-subscriber then reports the
/// failure with `eprintln!`, which panics on the same closed stderr and
/// takes down whichever task was logging, such as the one that turns
/// SIGTERM into a shutdown.
fn init_logging(format: LogFormat) -> anyhow::Result<()> {
    use tracing_subscriber::EnvFilter;
    // A RUST_LOG that does not parse is said, once logging is up: silently
    // logging at info instead would leave the operator wondering.
    let mut unparsed = None;
    let filter = match std::env::var("RUST_LOG") {
        Ok(value) if !value.trim().is_empty() => EnvFilter::try_new(&value).unwrap_or_else(|e| {
            unparsed = Some((value, e));
            EnvFilter::new("info")
        }),
        _ => EnvFilter::new("info"),
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .log_internal_errors(false);
    let result = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
    result.map_err(|e| anyhow::anyhow!("cannot set up logging: {e}"))?;
    if let Some((value, e)) = unparsed {
        tracing::warn!(
            rust_log = %value,
            error = %e,
            "RUST_LOG does not parse, so the log is at info; it takes a level (error, warn, \
             info, debug, trace) and TARGET=LEVEL, comma-separated, such as \
             info,oxo_server=debug"
        );
    }
    Ok(())
}

/// Whether `db` names a PostgreSQL database rather than a SQLite file.
fn is_postgres_url(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}

/// `db` as it may be shown in logs and errors: a URL's password is hidden,
/// in its user part (`postgres://USER:PASSWORD@HOST/DB`) and as a
/// parameter (`?password=PASSWORD`, which libpq's URLs also take).
fn shown(db: &str) -> String {
    let Some((scheme, rest)) = db.split_once("://").filter(|_| is_postgres_url(db)) else {
        return db.to_owned();
    };
    let (place, query) = match rest.split_once('?') {
        Some((place, query)) => (place, Some(query)),
        None => (rest, None),
    };
    let place = match place.rsplit_once('@') {
        Some((user, host)) => {
            let user = user.split_once(':').map_or(user, |(u, _)| u);
            format!("{user}@{host}")
        }
        None => place.to_owned(),
    };
    let Some(query) = query else {
        return format!("{scheme}://{place}");
    };
    let query: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=..."),
            _ => pair.to_owned(),
        })
        .collect();
    format!("{scheme}://{place}?{}", query.join("&"))
}

/// Where the database is, from `--db`, checked with the cluster's flags:
/// why they do not go together, if they do not (a misuse of the flags,
/// refused as clap refuses a bad value).
fn db_location(args: &ServeArgs) -> Result<DbLocation, String> {
    const ACCEPTED: &str = "give a SQLite file (such as oxo.db), :memory: for a throw-away \
                            database, or a postgres:// URL for a cluster";
    if args.db.trim().is_empty() {
        return Err(format!("--db is empty: {ACCEPTED}"));
    }
    let db = if is_postgres_url(&args.db) {
        let Some(node) = args.node_id else {
            return Err(
                "a PostgreSQL database is shared by the nodes of a cluster: give \
                        this node --node-id N (0 to 1023, different on every node)"
                    .to_owned(),
            );
        };
        DbLocation::Postgres {
            url: args.db.clone(),
            node,
        }
    } else if let Some((scheme, _)) = args.db.split_once("://") {
        return Err(format!(
            "--db {scheme}:// is not a database oxo can use: {ACCEPTED} (postgresql:// too)"
        ));
    } else if args.db == ":memory:" {
        DbLocation::Memory
    } else {
        DbLocation::File(PathBuf::from(&args.db))
    };
    let clustered = matches!(db, DbLocation::Postgres { .. });
    for (flag, given) in [
        ("--node-id", args.node_id.is_some()),
        ("--lease", args.lease.is_some()),
        ("--bus", args.bus.is_some()),
    ] {
        if given && !clustered {
            return Err(format!(
                "{flag} is for a cluster on PostgreSQL; --db is a SQLite file here"
            ));
        }
    }
    if let Some(bus) = args
        .bus
        .as_deref()
        .filter(|bus| !bus.starts_with("nats://"))
    {
        return Err(format!(
            "--bus takes a NATS URL, nats://HOST:PORT (got {bus:?})"
        ));
    }
    Ok(db)
}

/// Refuses `oxo serve` as clap refuses a bad flag (exit status 2), saying
/// `why`.
fn refuse(why: &str) -> ! {
    let mut serve = <ServeArgs as clap::Args>::augment_args(clap::Command::new("oxo serve"));
    serve
        .error(clap::error::ErrorKind::ArgumentConflict, why)
        .exit()
}

fn config(args: &ServeArgs, db: DbLocation, max_connections: usize) -> Config {
    let rate_limit = if args.rate_limit > 0.0 {
        // Bursts of twice the rate, and at least a few messages.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let burst = (args.rate_limit * 2.0)
            .ceil()
            .clamp(4.0, f64::from(u32::MAX)) as u32;
        RateLimit::new(args.rate_limit, burst)
    } else {
        RateLimit::UNLIMITED
    };
    let new_players = if args.rate_limit > 0.0 && args.new_players_per_minute > 0 {
        let n = args.new_players_per_minute;
        RateLimit::new(f64::from(n) / 60.0, n)
    } else {
        RateLimit::UNLIMITED
    };
    // `--rate-limit 0` turns every limit off; otherwise the server's own.
    let defaults = Config::default();
    let or_off = |limit: RateLimit| {
        if args.rate_limit > 0.0 {
            limit
        } else {
            RateLimit::UNLIMITED
        }
    };
    Config {
        db,
        new_players,
        reconnect_grace: args.reconnect_grace,
        max_connections,
        max_connections_per_address: if args.rate_limit > 0.0 {
            args.max_connections_per_address
        } else {
            0
        },
        rate_limit,
        read_limit: or_off(defaults.read_limit),
        chat_limit: or_off(defaults.chat_limit),
        rounds_limit: or_off(defaults.rounds_limit),
        names_limit: or_off(defaults.names_limit),
        idle_timeout: args.idle_timeout,
        max_tables_per_player: args.max_tables_per_player,
        trusted_proxies: args.trusted_proxies.clone(),
        allowed_origins: args.allowed_origins.clone(),
        lease_ttl: args.lease.unwrap_or(defaults.lease_ttl),
        bus: args.bus.clone(),
        ..defaults
    }
}

/// A future that resolves on SIGINT (Ctrl-C) or SIGTERM. The handlers are
/// installed now, not when the future is first polled, so that a signal
/// sent as soon as the listening line is out is not lost (nor kills the
/// process uncleanly).
///
/// A second SIGINT or SIGTERM during the graceful shutdown ends the
/// process at once, with exit status 130 (SIGINT) or 143 (SIGTERM) as a
/// shell reports a process killed by them: the operator who presses
/// Ctrl-C twice means it. Nothing acknowledged is lost: every move is
/// stored before it is acknowledged, and the database lock is the
/// process's own.
#[cfg(unix)]
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut interrupt =
        signal(SignalKind::interrupt()).context("cannot install a SIGINT handler")?;
    let mut terminate =
        signal(SignalKind::terminate()).context("cannot install a SIGTERM handler")?;
    Ok(async move {
        tokio::select! {
            _ = interrupt.recv() => {}
            _ = terminate.recv() => {}
        }
        tracing::info!("shutting down (a second SIGINT or SIGTERM stops at once)");
        tokio::spawn(async move {
            let code = tokio::select! {
                _ = interrupt.recv() => 130,
                _ = terminate.recv() => 143,
            };
            tracing::warn!("a second signal: stopping at once");
            std::process::exit(code);
        });
    })
}

/// A future that resolves on Ctrl-C.
#[cfg(not(unix))]
fn shutdown_signal() -> anyhow::Result<impl std::future::Future<Output = ()>> {
    Ok(async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
        tracing::info!("shutting down");
    })
}

/// File descriptors kept back from WebSocket connections: the database
/// (file, WAL and shared memory for two connections, and the lock), the
/// listener, plain HTTP requests and the runtime's own.
const FD_RESERVE: u64 = 64;

/// The default connection limit where the open-files limit is higher.
const MAX_DEFAULT_CONNECTIONS: usize = 20_000;

/// Raises the soft open-files limit to the hard one (every connection is a
/// file descriptor, and the usual soft limit, 1024, is far below what a
/// server wants) and returns the connection limit: `requested` if given,
/// else what the open-files limit allows after [`FD_RESERVE`], at most
/// [`MAX_DEFAULT_CONNECTIONS`]. So the default never asks for more than the
/// system gives, and needs no warning; a `requested` limit above what the
/// open-files limit allows is raised to if the process may (root), and
/// warned about otherwise. The choice is logged.
fn connection_limit(requested: Option<usize>) -> usize {
    let needed = |n: usize| {
        u64::try_from(n)
            .unwrap_or(u64::MAX)
            .saturating_add(FD_RESERVE)
    };
    let open_files = match fds::raise_open_files_limit(requested.map(needed)) {
        Ok(limit) => Some(limit),
        Err(e) => {
            tracing::warn!(error = %e, "cannot raise the open-files limit");
            fds::open_files_limit()
        }
    };
    let fits = open_files
        .map(|limit| usize::try_from(limit.saturating_sub(FD_RESERVE)).unwrap_or(usize::MAX));
    let chosen = match (requested, fits) {
        (Some(n), Some(fits)) if n > fits => {
            tracing::warn!(
                max_connections = n,
                open_files = open_files.unwrap_or(0),
                "the open-files limit is below --max-connections; raise the hard limit \
                 (ulimit -Hn) or expect refused connections"
            );
            n
        }
        (Some(n), _) => n,
        (None, Some(fits)) => fits.clamp(1, MAX_DEFAULT_CONNECTIONS),
        (None, None) => MAX_DEFAULT_CONNECTIONS,
    };
    tracing::info!(
        max_connections = chosen,
        open_files = open_files.unwrap_or(0),
        "connection limit"
    );
    chosen
}

/// Why `oxo serve` cannot listen on `addr`: for an address that is not
/// `HOST:PORT` at all (a port or a host alone, a port past 65535), what
/// is accepted too.
fn listen_error(addr: &str, e: std::io::Error) -> anyhow::Error {
    let hint = if e.kind() == std::io::ErrorKind::InvalidInput {
        "; use HOST:PORT, such as 127.0.0.1:8080, 0.0.0.0:8080 or [::1]:8080 (port 0 picks a free port)"
    } else {
        ""
    };
    anyhow::anyhow!("cannot listen on {addr}: {e}{hint}")
}

async fn serve(args: ServeArgs, db: DbLocation) -> anyhow::Result<()> {
    let started = std::time::Instant::now();
    let max_connections = connection_limit(args.max_connections);
    let config = config(&args, db, max_connections);
    // Listen first: an address that cannot be had must not leave a new
    // database behind. Clients that come before the database is open
    // wait in the listener's backlog.
    let listener = tokio::net::TcpListener::bind(&args.addr)
        .await
        .map_err(|e| listen_error(&args.addr, e))?;
    let state = AppState::new(config)
        .with_context(|| format!("cannot open the database {}", shown(&args.db)))?;
    let shutdown = shutdown_signal()?;
    let addr = listener
        .local_addr()
        .context("cannot read the bound address")?;
    {
        let mut out = std::io::stdout().lock();
        writeln!(out, "oxo listening on http://{addr}")?;
        writeln!(out, "  websocket: ws://{addr}/ws")?;
        out.flush()?;
    }
    // How long opening the database and recovering its unfinished tables
    // took: the time clients wait after a restart.
    let ready_ms = (started.elapsed().as_secs_f64() * 1e4).round() / 10.0;
    tracing::info!(%addr, db = %shown(&args.db), ready_ms, "listening");
    oxo_server::run(listener, state, shutdown)
        .await
        .context("the server failed")?;
    tracing::info!("stopped");
    Ok(())
}

pub(crate) fn run(args: ServeArgs) -> anyhow::Result<ExitCode> {
    let db = db_location(&args).unwrap_or_else(|why| refuse(&why));
    let arenas = crate::arenas::limit();
    init_logging(args.log_format)?;
    tracing::debug!(?arenas, "allocator arenas");
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(n) = args.threads {
        builder.worker_threads(usize::from(n));
    }
    let runtime = builder
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    tracing::info!(threads = runtime.metrics().num_workers(), "serving threads");
    runtime.block_on(serve(args, db))?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_database_url_is_shown_without_its_password() {
        assert_eq!(
            shown("postgres://oxo:s3cret@db.example:5432/oxo"),
            "postgres://oxo@db.example:5432/oxo"
        );
        assert_eq!(shown("postgresql://oxo@h/db"), "postgresql://oxo@h/db");
        assert_eq!(shown("data/oxo.db"), "data/oxo.db");
        // libpq's URLs may carry the password as a parameter too.
        assert_eq!(
            shown("postgres://db.example/oxo?user=oxo&password=s3cret&sslmode=require"),
            "postgres://db.example/oxo?user=oxo&password=...&sslmode=require"
        );
        assert_eq!(
            shown("postgresql://oxo:a@b@h/db?PassWord=x%20y"),
            "postgresql://oxo@h/db?PassWord=..."
        );
        assert!(is_postgres_url("postgres://h/db"));
        assert!(!is_postgres_url("postgres.db"));
    }
}
