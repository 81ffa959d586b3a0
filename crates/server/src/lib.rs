//! oxo-server: the authoritative multiplayer server for oxo.
//!
//! Clients speak the WebSocket protocol of [`oxo_protocol`] at `/ws` (one
//! JSON message per text frame); an HTTP API under `/api` serves lobbies,
//! game records, replays and analysis; the browser UI in `web/` is embedded
//! and served at `/`. Everything that matters is stored in SQLite before it
//! is acknowledged, so a restart, even after `kill -9`, loses nothing that a
//! client was told had happened.
//!
//! # Architecture
//!
//! Modules (private; their docs explain the decisions):
//!
//! - `table`: one actor task per table owns its game, seats, spectators,
//!   scores and timers (move clock, reconnect grace, bot delay).
//! - `transport`: one reader and one writer task per connection: the
//!   socket, its deadlines and the close handshake; `accept` is the accept
//!   loop, `close` the close codes.
//! - `client`: the protocol side of a connection: limits, `hello`,
//!   routing to tables; `local` runs one in process, without a socket.
//! - `store`: storage behind the `Store` trait; SQLite with a dedicated
//!   writer thread and group commit, and an in-memory store for tests.
//! - `lobby`: public tables and their watchers, updates debounced.
//! - `http`, `assets`, `metrics`: the HTTP side; `explain` judges a whole
//!   game's moves with the solver (`GET /api/analyze/game`).
//! - `state` holds what they share, as leaf parts (`conn`, `accounts`,
//!   `rate`, `live`, ...); `boot` composes them at start and stops them
//!   at the end. No module imports one that imports it back (the
//!   `modules` test of `tests/server` checks).
//!
//! # Examples
//!
//! ```no_run
//! use oxo_server::{AppState, Config};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let state = AppState::new(Config::default())?;
//! let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//! oxo_server::run(listener, state, async {
//!     let _ = tokio::signal::ctrl_c().await;
//! })
//! .await?;
//! # Ok(())
//! # }
//! ```

mod accept;
mod accounts;
mod address_cap;
mod assets;
mod boot;
mod bus;
mod client;
mod close;
mod cluster;
mod config;
mod conn;
mod error;
mod explain;
mod forwarded;
mod handle;
mod head;
mod http;
mod ids;
mod linger;
mod live;
mod lobby;
mod local;
mod log_pace;
mod metrics;
mod node;
mod origin;
mod rate;
mod relay;
mod resume;
mod roster;
mod state;
mod store;
mod table;
mod text;
mod throttle;
mod transport;

use std::future::Future;
use std::sync::Arc;

use axum::Router;
use axum::routing::{any, get};
use tower_http::trace::TraceLayer;

pub use config::{Config, DbLocation, RateLimit};
pub use error::ServerError;
pub use forwarded::client_address;
pub use local::LocalClient;
pub use state::AppState;

/// The routes: `/ws`, `/api/...`, `/healthz`, `/metrics` and the web UI,
/// with security headers on every response.
pub fn app(state: AppState) -> Router {
    Router::new()
        .route("/ws", get(transport::upgrade))
        .route("/healthz", get(http::healthz))
        .route("/metrics", get(http::metrics))
        .route("/api/tables", get(http::tables))
        .route("/api/games", get(http::games))
        .route("/api/games/{id}", get(http::game))
        .route("/api/games/{id}/log", get(http::game_log))
        .route("/api/analyze", get(http::analyze))
        .route("/api/analyze/game", get(explain::analyze_game))
        .route("/api", any(http::not_found))
        .route("/api/", any(http::not_found))
        .route("/api/{*rest}", any(http::not_found))
        .route("/", get(assets::index))
        .route("/t/{table_id}", get(assets::index))
        .route("/games/{game_id}", get(assets::index))
        .route("/t/{table_id}/", get(assets::without_slash))
        .route("/games/{game_id}/", get(assets::without_slash))
        .method_not_allowed_fallback(http::method_not_allowed)
        .fallback(assets::asset)
        .layer(axum::middleware::from_fn(head::limits))
        .layer(axum::middleware::map_response(assets::security_headers))
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// Serves [`app`] on `listener` until `shutdown` resolves, then shuts down
/// gracefully: stops accepting, sends every WebSocket client `closing` and
/// a close frame (1001), stops the tables and closes the database after
/// committing what is queued (see [`AppState::shutdown`]).
///
/// A connection that does not send a complete request head within
/// [`Config::handshake_timeout`] is closed (slowloris); accept errors such
/// as running out of file descriptors are logged and retried after a pause.
///
/// # Errors
///
/// None at present: the loop outlives every I/O error. The `Result` leaves
/// room for start-up failures.
pub async fn run(
    listener: tokio::net::TcpListener,
    state: AppState,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    let token = state.shared.shutdown.clone();
    let signal = token.clone();
    tokio::spawn(async move {
        tokio::select! {
            () = shutdown => signal.cancel(),
            () = signal.cancelled() => {}
        }
    });
    let config = state.config();
    let node = state.shared.node.clone();
    if let Some(node) = &node {
        node.listening(listener.local_addr()?);
    }
    let settings = accept::Settings {
        head_timeout: config.handshake_timeout,
        lifetime: config.http_lifetime,
        finish: config.write_timeout,
        // Connections past the 64 wait their turn, as many as WebSockets
        // an address may hold.
        http_per_address: address_cap::AddressCap::queued(
            if config.max_connections_per_address > 0 {
                Config::HTTP_PER_ADDRESS
            } else {
                0
            },
            config.max_connections_per_address,
        ),
        drain: config.shutdown_timeout,
        trusted_proxies: Arc::from(config.trusted_proxies.as_slice()),
        read_limit: Arc::new(throttle::ReadLimit::new(
            config.read_limit,
            Arc::clone(&state.shared.metrics),
        )),
        metrics: Arc::clone(&state.shared.metrics),
        // With a bus, every node serves its own clients; without one,
        // followers relay them to the leader.
        node: node.filter(|_| config.bus.is_none()),
    };
    // The accept loop runs as a task of its own, on a worker: run inside
    // `block_on` it would accept on the caller's thread, and every
    // connection it starts would have to wake a worker from outside. It
    // stops with this future, as it did when it ran inside it.
    let accepting = tokio_util::task::AbortOnDropHandle::new(tokio::spawn(accept::serve(
        listener,
        app(state.clone()),
        settings,
        token,
    )));
    if let Err(e) = accepting.await {
        if e.is_panic() {
            std::panic::resume_unwind(e.into_panic());
        }
    }
    state.shutdown().await;
    Ok(())
}
