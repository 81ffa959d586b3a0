//! The PostgreSQL schema and its migrations.
//!
//! The same rows as the SQLite schema (`sqlite::schema`), in PostgreSQL's
//! types, plus what a cluster needs: every table row carries its owner
//! node, its lease epoch and when the lease runs out (see `lease`).
//!
//! Migrations are numbered like SQLite's and recorded in
//! `schema_migrations`; several nodes starting at once apply them once,
//! under a transaction-level advisory lock.

use tokio_postgres::Client;

use super::error::db;
use crate::error::ServerError;
use crate::ids::now_ms;

/// The key of the advisory lock that serializes migrations ("oxo1").
const MIGRATION_LOCK: i64 = 0x6F78_6F31;

/// The migrations, in order; migration `n` (1-based) brings the schema to
/// version `n`. Never edit one that has shipped: add another.
const MIGRATIONS: &[&str] = &[
    // 1: players, tables (with their lease), games, moves, the health row.
    "
    CREATE TABLE players (
        id         TEXT PRIMARY KEY,
        token_hash BYTEA NOT NULL UNIQUE,
        name       TEXT NOT NULL,
        created_ms BIGINT NOT NULL
    );
    CREATE TABLE tables (
        seq         BIGINT PRIMARY KEY,
        id          TEXT NOT NULL UNIQUE,
        options     TEXT NOT NULL,
        status      TEXT NOT NULL,
        x_player    TEXT,
        o_player    TEXT,
        bot_seat    TEXT,
        round       BIGINT NOT NULL,
        score_x     BIGINT NOT NULL,
        score_o     BIGINT NOT NULL,
        draws       BIGINT NOT NULL,
        game        BIGINT,
        created_ms  BIGINT NOT NULL,
        updated_ms  BIGINT NOT NULL,
        owner       INTEGER NOT NULL,
        epoch       BIGINT NOT NULL,
        lease_until BIGINT NOT NULL
    );
    CREATE INDEX tables_open ON tables (owner, lease_until) WHERE status <> 'closed';
    CREATE TABLE games (
        seq        BIGINT PRIMARY KEY,
        id         TEXT NOT NULL UNIQUE,
        table_id   TEXT NOT NULL,
        round      BIGINT NOT NULL,
        first      TEXT NOT NULL,
        x_id       TEXT NOT NULL,
        x_name     TEXT NOT NULL,
        x_bot      TEXT,
        o_id       TEXT NOT NULL,
        o_name     TEXT NOT NULL,
        o_bot      TEXT,
        started_ms BIGINT NOT NULL,
        ended_ms   BIGINT,
        outcome    TEXT,
        winner     TEXT,
        reason     TEXT,
        moves      BIGINT NOT NULL DEFAULT 0,
        public     BOOLEAN NOT NULL
    );
    CREATE INDEX games_ended ON games (ended_ms) WHERE ended_ms IS NOT NULL;
    CREATE TABLE moves (
        game    BIGINT NOT NULL,
        ply     BIGINT NOT NULL,
        player  TEXT NOT NULL,
        cell    TEXT NOT NULL,
        at_ms   BIGINT NOT NULL,
        req_id  BIGINT,
        PRIMARY KEY (game, ply)
    );
    CREATE TABLE health (
        id        INTEGER PRIMARY KEY CHECK (id = 1),
        probed_ms BIGINT NOT NULL
    );
    ",
    // 2: the cluster's leader: the one node that runs tables and serves
    // clients; the others relay to it (see `lease::lead`).
    "
    CREATE TABLE cluster_leader (
        id          INTEGER PRIMARY KEY CHECK (id = 1),
        node        INTEGER NOT NULL,
        addr        TEXT NOT NULL,
        epoch       BIGINT NOT NULL,
        lease_until BIGINT NOT NULL
    );
    ",
    // 3: when an away player's grace period ends (Unix ms), per seat: the
    // end stays where it was when another node takes the table over.
    "
    ALTER TABLE tables ADD COLUMN x_away_until_ms BIGINT;
    ALTER TABLE tables ADD COLUMN o_away_until_ms BIGINT;
    ",
    // 4: at a finished round, which seats asked for a rematch: an
    // acknowledged request outlives a takeover.
    "
    ALTER TABLE tables ADD COLUMN x_rematch BOOLEAN NOT NULL DEFAULT false;
    ALTER TABLE tables ADD COLUMN o_rematch BOOLEAN NOT NULL DEFAULT false;
    ",
    // 5: a table's latest chat messages (numbered from 1 at each table),
    // for `chat_history` after a takeover; deleted when the table closes.
    "
    CREATE TABLE chat (
        table_seq BIGINT NOT NULL,
        n         BIGINT NOT NULL,
        from_id   TEXT NOT NULL,
        from_name TEXT NOT NULL,
        text      TEXT NOT NULL,
        watching  BOOLEAN NOT NULL,
        at_ms     BIGINT NOT NULL,
        PRIMARY KEY (table_seq, n)
    );
    ",
    // 6: a player's finished games, newest first, as X and as O, for
    // `GET /api/games?player=` (as SQLite's migration 8).
    "
    CREATE INDEX games_x ON games (x_id, ended_ms, seq) WHERE ended_ms IS NOT NULL;
    CREATE INDEX games_o ON games (o_id, ended_ms, seq) WHERE ended_ms IS NOT NULL;
    ",
    // 7: a table's games by round, for the request ids of an open table's
    // earlier rounds (as SQLite's migration 9).
    "CREATE INDEX games_table ON games (table_id, round);",
    // 8: the finished games of public tables, newest first, for everyone's
    // `GET /api/games` (as SQLite's migration 10).
    "CREATE INDEX games_public ON games (ended_ms, seq) WHERE ended_ms IS NOT NULL AND public;",
];

/// The newest schema version this build knows.
pub(super) fn known() -> u32 {
    u32::try_from(MIGRATIONS.len()).unwrap_or(u32::MAX)
}

/// Applies the migrations `client`'s database lacks, each in its own
/// transaction, while holding the migration lock.
///
/// # Errors
///
/// [`ServerError::SchemaTooNew`] for a database a newer oxo migrated;
/// [`ServerError::Migration`] if one fails (it is rolled back).
pub(super) async fn migrate(client: &mut Client) -> Result<(), ServerError> {
    let tx = client.transaction().await.map_err(db)?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(db)?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version    INTEGER PRIMARY KEY,
             applied_ms BIGINT NOT NULL
         )",
    )
    .await
    .map_err(db)?;
    let found: i32 = tx
        .query_one(
            "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
            &[],
        )
        .await
        .map_err(db)?
        .get(0);
    let found = u32::try_from(found).unwrap_or(0);
    if found > known() {
        return Err(ServerError::SchemaTooNew {
            found,
            known: known(),
        });
    }
    for (version, sql) in (1..).zip(MIGRATIONS).skip(found as usize) {
        let failed = |e: tokio_postgres::Error| ServerError::Migration {
            version,
            reason: super::error::message(&e),
        };
        tx.batch_execute(sql).await.map_err(failed)?;
        tx.execute(
            "INSERT INTO schema_migrations (version, applied_ms) VALUES ($1, $2)",
            &[&i32::try_from(version).unwrap_or(i32::MAX), &now_ms()],
        )
        .await
        .map_err(failed)?;
    }
    tx.commit().await.map_err(db)
}
