//! [`Postgres`]: the store of a cluster, shared by every node.
//!
//! - `schema`: the tables and their migrations;
//! - `writes`: each [`Write`] in SQL, and the fence on a table's epoch;
//! - `lease`: which node owns which table (claim, renew);
//! - `reads`: the HTTP API's reads and the loading of claimed tables.
//!
//! # Why tokio-postgres and deadpool-postgres
//!
//! tokio-postgres is the asynchronous PostgreSQL client the rest of the
//! ecosystem builds on (sqlx's compile-time checks need a database at build
//! time, which our one-command build cannot assume); deadpool-postgres
//! adds a small pool with statement caching and nothing else.
//!
//! # Durability and fencing
//!
//! A commit is one transaction with PostgreSQL's default synchronous
//! commit: it returns once the WAL is flushed, and only then does a table
//! tell anyone. A table's commits begin with [`Write::Fence`]; a node whose
//! lease was taken over cannot commit anything more (see `lease`).
//!
//! # Keys without a round trip
//!
//! [`Store::next_table_seq`] and [`Store::next_game_seq`] are synchronous,
//! so keys cannot come from a database sequence. Each node numbers its own
//! keys instead: `counter × 1024 + node`, the counter starting above every
//! key in the database when the node starts. Nodes never collide (the low
//! bits differ), and a restarted node never repeats a key.

mod earlier;
mod error;
mod lease;
mod reads;
mod schema;
#[cfg(test)]
pub(crate) mod testdb;
#[cfg(test)]
mod tests;
mod writes;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::time::{Duration, Instant};

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use futures_util::future::{BoxFuture, join_all};
use oxo_protocol::{GameRecord, GameSummary};
use tokio_postgres::NoTls;

use self::error::{db, pool};
pub(crate) use self::lease::CLAIM_BATCH;
pub(crate) use self::lease::Held;
use self::lease::Lease;
use crate::error::ServerError;
use crate::ids::TokenHash;
use crate::metrics::Metrics;
use crate::store::contract::{Store, StoreFuture, probe_write};
use crate::store::rows::{GamesQuery, LeaderRow, PlayerRow, SavedTable, Write};

/// How many node ids there are: keys are `counter × NODES + node`.
pub(crate) const NODES: u16 = 1024;

/// Connections per node.
const POOL_SIZE: usize = 16;

/// The longest a statement may run, and how long a transaction may sit
/// idle (a node paused mid-commit) before PostgreSQL ends it and releases
/// its locks, so that a takeover is not held up by a stopped node.
const SESSION_OPTIONS: &str =
    "-c statement_timeout=10000 -c idle_in_transaction_session_timeout=2000";

/// The cluster's store: PostgreSQL, shared by every node.
#[derive(Debug)]
pub(crate) struct Postgres {
    pool: Pool,
    lease: Lease,
    next_table: AtomicI64,
    next_game: AtomicI64,
    closed: AtomicBool,
    metrics: Arc<Metrics>,
    /// Where to connect for the synchronous start-up reads.
    config: tokio_postgres::Config,
}

impl Postgres {
    /// Connects to `url` as node `node` (below [`NODES`]) whose leases last
    /// `lease_ttl`, and applies the migrations the database lacks.
    ///
    /// Blocks (on a thread of its own) until the database answers, waiting
    /// up to a minute for one that is down (see [`connect_when_up`]).
    ///
    /// # Errors
    ///
    /// A URL that does not parse, a database that cannot be reached, or a
    /// migration that fails ([`ServerError::Database`],
    /// [`ServerError::Migration`], [`ServerError::SchemaTooNew`]).
    pub(crate) fn open(
        url: &str,
        node: u16,
        lease_ttl: Duration,
        metrics: Arc<Metrics>,
    ) -> Result<Postgres, ServerError> {
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|e: tokio_postgres::Error| ServerError::Database(format!("bad URL: {e}")))?;
        config.options(SESSION_OPTIONS);
        config.connect_timeout(Duration::from_secs(5));
        let (max_table, max_game) = on_own_runtime(&config, |mut client| async move {
            schema::migrate(&mut client).await?;
            let row = client
                .query_one(
                    "SELECT (SELECT COALESCE(MAX(seq), 0) FROM tables),
                            (SELECT COALESCE(MAX(seq), 0) FROM games)",
                    &[],
                )
                .await
                .map_err(db)?;
            Ok((row.get::<_, i64>(0), row.get::<_, i64>(1)))
        })?;
        let manager = Manager::from_config(
            config.clone(),
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_secs(5)))
            .create_timeout(Some(Duration::from_secs(5)))
            .build()
            .map_err(|e| ServerError::Database(e.to_string()))?;
        let counter = |max: i64| max / i64::from(NODES) + 1;
        Ok(Postgres {
            pool,
            lease: Lease {
                node: node % NODES,
                ttl_ms: i64::try_from(lease_ttl.as_millis()).unwrap_or(i64::MAX),
            },
            next_table: AtomicI64::new(counter(max_table)),
            next_game: AtomicI64::new(counter(max_game)),
            closed: AtomicBool::new(false),
            metrics,
            config,
        })
    }

    fn key(&self, counter: &AtomicI64) -> i64 {
        counter.fetch_add(1, Ordering::Relaxed) * i64::from(NODES) + i64::from(self.lease.node)
    }

    async fn client(&self) -> Result<deadpool_postgres::Object, ServerError> {
        if self.closed.load(Ordering::Acquire) {
            return Err(ServerError::StoreClosed);
        }
        self.pool.get().await.map_err(pool)
    }

    async fn commit_now(&self, writes: Vec<Write>) -> Result<(), ServerError> {
        let start = Instant::now();
        let mut client = self.client().await?;
        let tx = client.transaction().await.map_err(db)?;
        let mut statements = Vec::with_capacity(writes.len());
        for w in &writes {
            statements.push(writes::prepare(&tx, w).await?);
        }
        // One round trip for all the writes: sent in order (each on its
        // first poll, its statement prepared), answered in order. A failed
        // one fails the rest; the first error is the one that counts.
        let applied = join_all(
            writes
                .iter()
                .zip(&statements)
                .map(|(w, stmt)| writes::apply(&tx, self.lease, w, stmt)),
        )
        .await;
        applied.into_iter().collect::<Result<(), ServerError>>()?;
        tx.commit()
            .await
            .map_err(|e| ServerError::CommitFailed(error::message(&e)))?;
        self.metrics.commit_latency.observe(start.elapsed());
        self.metrics.commits.fetch_add(1, Ordering::Relaxed);
        self.metrics
            .writes
            .fetch_add(writes.len() as u64, Ordering::Relaxed);
        Ok(())
    }

    async fn claim_now(&self, all: bool) -> Result<Vec<SavedTable>, ServerError> {
        let mut client = self.client().await?;
        let held = lease::claim(&**client, self.lease, all).await?;
        reads::load_tables(&mut client, &held).await
    }
}

impl Store for Postgres {
    fn next_table_seq(&self) -> i64 {
        self.key(&self.next_table)
    }

    fn next_game_seq(&self) -> i64 {
        self.key(&self.next_game)
    }

    fn commit(&self, writes: Vec<Write>) -> StoreFuture<'_, ()> {
        Box::pin(self.commit_now(writes))
    }

    fn player_by_token(&self, token_hash: TokenHash) -> StoreFuture<'_, Option<PlayerRow>> {
        Box::pin(async move {
            let client = self.client().await?;
            reads::player_by_token(&**client, token_hash).await
        })
    }

    fn game_record<'a>(
        &'a self,
        id: &'a str,
        asker: Option<&'a str>,
    ) -> StoreFuture<'a, Option<GameRecord>> {
        Box::pin(async move {
            let client = self.client().await?;
            reads::game_record(&**client, id, asker).await
        })
    }

    fn recent_games(&self, query: GamesQuery) -> StoreFuture<'_, Vec<GameSummary>> {
        Box::pin(async move {
            let client = self.client().await?;
            reads::recent_games(&**client, &query).await
        })
    }

    fn health(&self, limit: Duration) -> BoxFuture<'_, Result<(), String>> {
        Box::pin(probe_write(self, limit))
    }

    /// Claims, for this node, every open table, and reads them back (a
    /// server that starts alone on the database).
    fn unfinished_tables(&self) -> Result<Vec<SavedTable>, ServerError> {
        let lease = self.lease;
        on_own_runtime(&self.config, |mut client| async move {
            let mut out = Vec::new();
            loop {
                let held = lease::claim(&client, lease, true).await?;
                let more = held.len() >= CLAIM_BATCH;
                out.extend(reads::load_tables(&mut client, &held).await?);
                if !more {
                    return Ok(out);
                }
            }
        })
    }

    fn claim_orphans(&self, all: bool) -> StoreFuture<'_, Vec<SavedTable>> {
        Box::pin(self.claim_now(all))
    }

    fn next_expiry(&self) -> StoreFuture<'_, Option<Duration>> {
        Box::pin(async move {
            let client = self.client().await?;
            lease::next_expiry(&**client, self.lease).await
        })
    }

    fn is_open<'a>(&'a self, id: &'a str) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let client = self.client().await?;
            let row = client
                .query_opt(
                    "SELECT 1 FROM tables WHERE id = $1 AND status <> 'closed'",
                    &[&id],
                )
                .await
                .map_err(db)?;
            Ok(row.is_some())
        })
    }

    fn epochs(&self, seqs: Vec<i64>) -> StoreFuture<'_, Vec<Held>> {
        Box::pin(async move {
            let client = self.client().await?;
            lease::epochs(&**client, &seqs).await
        })
    }

    fn owner_of<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<(u16, bool)>> {
        Box::pin(async move {
            let client = self.client().await?;
            lease::owner_of(&**client, id).await
        })
    }

    fn seats_in_play<'a>(&'a self, player: &'a str) -> StoreFuture<'a, Vec<String>> {
        Box::pin(async move {
            let client = self.client().await?;
            reads::seats_in_play(&**client, player).await
        })
    }

    fn load_held(&self, held: Vec<Held>) -> StoreFuture<'_, Vec<SavedTable>> {
        Box::pin(async move {
            let mut client = self.client().await?;
            reads::load_tables(&mut client, &held).await
        })
    }

    fn lead<'a>(&'a self, addr: &'a str) -> StoreFuture<'a, Option<LeaderRow>> {
        Box::pin(async move {
            let client = self.client().await?;
            lease::lead(&**client, self.lease, addr).await.map(Some)
        })
    }

    fn renew_leases(&self) -> StoreFuture<'_, Option<Vec<Held>>> {
        Box::pin(async move {
            let client = self.client().await?;
            lease::renew(&**client, self.lease).await.map(Some)
        })
    }

    fn hand_over(&self, to: Vec<u16>) -> StoreFuture<'_, u64> {
        Box::pin(async move {
            let client = self.client().await?;
            lease::hand_over(&**client, self.lease, &to).await
        })
    }

    /// Lets go of this node's leases (its tables have stopped by now), so
    /// that the other nodes take its tables over at once rather than a
    /// lease later, then closes the pool.
    fn close(&self) -> BoxFuture<'_, ()> {
        Box::pin(async move {
            if let Ok(client) = self.client().await {
                if let Err(e) = lease::release(&**client, self.lease).await {
                    tracing::warn!(error = %e, "could not hand the tables over");
                }
                if let Err(e) = lease::resign(&**client, self.lease).await {
                    tracing::warn!(error = %e, "could not give up the leader's post");
                }
            }
            self.closed.store(true, Ordering::Release);
            self.pool.close();
        })
    }
}

/// How long a node starting waits for a database that does not answer
/// (restarting, or not up yet after a reboot) before it gives up.
const START_WAIT: Duration = Duration::from_secs(60);

/// Connects to `config`, trying again for up to [`START_WAIT`] while the
/// database cannot be reached or says it is starting or stopping; any
/// other refusal (a wrong password, no such database) fails at once.
async fn connect_when_up(
    config: &tokio_postgres::Config,
) -> Result<
    (
        tokio_postgres::Client,
        tokio_postgres::Connection<tokio_postgres::Socket, tokio_postgres::tls::NoTlsStream>,
    ),
    ServerError,
> {
    let deadline = Instant::now() + START_WAIT;
    let mut pause = Duration::from_millis(100);
    loop {
        match config.connect(NoTls).await {
            Ok(connected) => return Ok(connected),
            Err(e) if not_up_yet(&e) && Instant::now() + pause < deadline => {
                tracing::warn!(
                    error = %error::message(&e),
                    "waiting for the database (for {} s at most)",
                    START_WAIT.as_secs()
                );
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(Duration::from_secs(2));
            }
            Err(e) => return Err(db(e)),
        }
    }
}

/// Whether `e` is a database that is not there right now (no answer, a
/// connection closed, or a server starting up or shutting down), rather
/// than one that refused us.
fn not_up_yet(e: &tokio_postgres::Error) -> bool {
    use tokio_postgres::error::SqlState;
    match e.code() {
        None => true,
        Some(code) => [
            SqlState::CANNOT_CONNECT_NOW,
            SqlState::ADMIN_SHUTDOWN,
            SqlState::CRASH_SHUTDOWN,
            SqlState::TOO_MANY_CONNECTIONS,
        ]
        .contains(code),
    }
}

/// Runs `job` with a fresh connection on a runtime of its own, on a thread
/// of its own: for the synchronous start-up calls, which may be made from
/// inside the server's runtime (where blocking on it would panic). A
/// database that does not answer yet is waited for ([`connect_when_up`]).
fn on_own_runtime<T, F, Fut>(config: &tokio_postgres::Config, job: F) -> Result<T, ServerError>
where
    T: Send,
    F: FnOnce(tokio_postgres::Client) -> Fut + Send,
    Fut: std::future::Future<Output = Result<T, ServerError>>,
{
    std::thread::scope(|s| {
        s.spawn(|| {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(async {
                let (client, connection) = connect_when_up(config).await?;
                let driver = tokio::spawn(connection);
                let out = job(client).await;
                driver.abort();
                out
            })
        })
        .join()
        .unwrap_or_else(|_| Err(ServerError::Database("start-up reads panicked".into())))
    })
}
