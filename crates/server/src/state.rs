//! The state every handler shares: configuration, storage, accounts, the
//! table registry, the lobby and the shutdown signal.

use std::collections::HashMap;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering::Relaxed;

use axum::extract::ws::Utf8Bytes;
use std::sync::{Arc, Mutex, PoisonError};

use oxo_core::ByPlayer;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

use crate::accounts::{Account, Accounts};
use crate::config::Config;
use crate::conn::Outbox;
use crate::error::ServerError;
use crate::lobby::Lobby;
use crate::metrics::Metrics;
use crate::rate::PerAddress;
use crate::store::Store;
use crate::table::{self, TableHandle};

/// What every connection, table and HTTP handler reaches through an `Arc`.
#[derive(Debug)]
pub(crate) struct Shared {
    pub(crate) config: Config,
    pub(crate) store: Store,
    pub(crate) metrics: Arc<Metrics>,
    pub(crate) accounts: Accounts,
    /// Open tables by id. A std mutex: looked up and changed in short
    /// critical sections, never across `.await`.
    tables: Mutex<HashMap<Arc<str>, TableHandle>>,
    pub(crate) lobby: Lobby,
    /// New players per client address.
    pub(crate) new_players: PerAddress,
    /// Cancelled when the server shuts down: connections say `closing` and
    /// close (1001), tables stop, the lobby stops.
    pub(crate) shutdown: CancellationToken,
    /// Table actors, connections and the lobby task, so that shutdown can
    /// wait for them before the database is closed.
    pub(crate) tasks: TaskTracker,
    /// Source of connection ids.
    pub(crate) next_conn: AtomicU64,
}

impl Shared {
    /// The table with this id, if open.
    pub(crate) fn table(&self, id: &str) -> Option<TableHandle> {
        self.tables
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    /// The outbox of a new connection, with a fresh id and the configured
    /// bounds, and the receiver its writer drains.
    pub(crate) fn new_outbox(&self) -> (Arc<Outbox>, tokio::sync::mpsc::Receiver<Utf8Bytes>) {
        let id = self.next_conn.fetch_add(1, Relaxed);
        Outbox::new(
            id,
            self.config.send_queue,
            self.config.send_queue_bytes,
            &self.shutdown,
        )
    }

    pub(crate) fn register_table(&self, id: &Arc<str>, handle: TableHandle) {
        self.tables
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(Arc::clone(id), handle);
    }

    pub(crate) fn unregister_table(&self, id: &str) {
        self.tables
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
    }
}

/// The server's state: cheap to clone, shared by every request handler.
///
/// Built by [`AppState::new`], served by [`app`](crate::app) or
/// [`run`](crate::run).
#[derive(Clone, Debug)]
pub struct AppState {
    pub(crate) shared: Arc<Shared>,
}

impl AppState {
    /// Opens the database (creating it and applying migrations as needed),
    /// rebuilds every unfinished table from it, and starts their actors.
    /// Players of recovered tables count as disconnected, with a fresh
    /// grace period to come back.
    ///
    /// Must be called inside a Tokio runtime.
    ///
    /// # Errors
    ///
    /// [`ServerError::NoRuntime`] outside a runtime. A database file that is
    /// not this server's to write is refused before anything is written to
    /// it: [`ServerError::DatabaseInUse`] (another server has it),
    /// [`ServerError::ForeignDatabase`], [`ServerError::SchemaTooNew`],
    /// [`ServerError::ReadOnlyDatabase`], or a database error such as "file
    /// is not a database". A database error also if it cannot be migrated or
    /// read.
    pub fn new(config: Config) -> Result<AppState, ServerError> {
        tokio::runtime::Handle::try_current().map_err(|_| ServerError::NoRuntime)?;
        let metrics = Arc::new(Metrics::default());
        let (store, saved) = Store::open(&config.db, Arc::clone(&metrics))?;
        let shared = Arc::new(Shared {
            new_players: PerAddress::new(config.new_players),
            config,
            store,
            metrics,
            accounts: Accounts::default(),
            tables: Mutex::new(HashMap::new()),
            lobby: Lobby::default(),
            shutdown: CancellationToken::new(),
            tasks: TaskTracker::new(),
            next_conn: AtomicU64::new(1),
        });
        let recovered = saved.len();
        for saved in saved {
            let accounts = ByPlayer {
                x: saved.players.x.as_ref().map(|p| load_account(&shared, p)),
                o: saved.players.o.as_ref().map(|p| load_account(&shared, p)),
            };
            table::recover(&shared, saved, accounts);
        }
        if recovered > 0 {
            tracing::info!(tables = recovered, "resumed unfinished tables");
        }
        shared.tasks.spawn(crate::lobby::run(Arc::clone(&shared)));
        Ok(AppState { shared })
    }

    /// Connects an in-process client (no socket; see [`LocalClient`]).
    ///
    /// [`LocalClient`]: crate::LocalClient
    #[must_use]
    pub fn connect_local(&self) -> crate::LocalClient {
        crate::local::LocalClient::new(Arc::clone(&self.shared))
    }

    /// The configuration in force.
    #[must_use]
    pub fn config(&self) -> &Config {
        &self.shared.config
    }

    /// Shuts down: every connection gets `closing` and a close frame (1001),
    /// table actors stop, and once they have (or after
    /// [`Config::shutdown_timeout`]) the database commits what is queued,
    /// checkpoints and closes. Nothing is lost: every acknowledged change is
    /// already durable, and unfinished tables resume at the next start.
    pub async fn shutdown(&self) {
        self.shared.shutdown.cancel();
        self.shared.tasks.close();
        if tokio::time::timeout(
            self.shared.config.shutdown_timeout,
            self.shared.tasks.wait(),
        )
        .await
        .is_err()
        {
            tracing::warn!("shutdown timed out waiting for connections and tables");
        }
        self.shared.store.close().await;
    }
}

fn load_account(shared: &Shared, row: &crate::store::PlayerRow) -> Arc<Account> {
    shared.accounts.insert(Account::new(
        Arc::from(row.id.as_str()),
        row.token_hash,
        Arc::from(row.name.as_str()),
    ))
}
