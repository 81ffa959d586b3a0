//! Opening the database file and bringing its schema up to date.
//!
//! Owns the connection settings (WAL, `synchronous=FULL`, busy timeout) and
//! the numbered migrations. It does not read or write rows.
//!
//! # Schema
//!
//! Migrations are numbered SQL scripts applied in order on start; the
//! database's `PRAGMA user_version` is the number applied, and
//! `schema_migrations` records when each was. A database from a newer oxo is
//! refused rather than guessed at.

use rusqlite::{Connection, TransactionBehavior, params};

use super::lock::{self, DbLock};
use crate::config::DbLocation;
use crate::error::{ServerError, describe};
use crate::ids::now_ms;

/// The migrations, in order; migration `n` (1-based) brings the schema to
/// version `n`. Never edit one that has shipped: add another.
const MIGRATIONS: &[&str] = &[
    // 1: players, tables, games and moves. Tables and games have a public
    // id and an integer key assigned in order (`seq`); moves are keyed by
    // (game key, ply). Rows written together then sit on the same few pages,
    // so a group commit of a thousand tables' moves touches few B-tree pages
    // (each one is written to the WAL and synced). For the same reason there
    // is no index by player: `recent_games` scans the newest games instead.
    "
    CREATE TABLE schema_migrations (
        version    INTEGER PRIMARY KEY,
        applied_ms INTEGER NOT NULL
    );
    CREATE TABLE players (
        id         TEXT PRIMARY KEY,
        token_hash BLOB NOT NULL UNIQUE,
        name       TEXT NOT NULL,
        created_ms INTEGER NOT NULL
    );
    CREATE TABLE tables (
        seq        INTEGER PRIMARY KEY,
        id         TEXT NOT NULL UNIQUE,
        options    TEXT NOT NULL,
        status     TEXT NOT NULL,
        x_player   TEXT,
        o_player   TEXT,
        bot_seat   TEXT,
        round      INTEGER NOT NULL,
        score_x    INTEGER NOT NULL,
        score_o    INTEGER NOT NULL,
        draws      INTEGER NOT NULL,
        game       INTEGER,
        created_ms INTEGER NOT NULL,
        updated_ms INTEGER NOT NULL
    );
    CREATE INDEX tables_open ON tables(status) WHERE status <> 'closed';
    CREATE TABLE games (
        seq        INTEGER PRIMARY KEY,
        id         TEXT NOT NULL UNIQUE,
        table_id   TEXT NOT NULL,
        round      INTEGER NOT NULL,
        first      TEXT NOT NULL,
        x_id       TEXT NOT NULL,
        x_name     TEXT NOT NULL,
        x_bot      TEXT,
        o_id       TEXT NOT NULL,
        o_name     TEXT NOT NULL,
        o_bot      TEXT,
        started_ms INTEGER NOT NULL,
        ended_ms   INTEGER,
        outcome    TEXT,
        winner     TEXT,
        reason     TEXT,
        moves      INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX games_ended ON games(ended_ms) WHERE ended_ms IS NOT NULL;
    CREATE TABLE moves (
        game    INTEGER NOT NULL,
        ply     INTEGER NOT NULL,
        player  TEXT NOT NULL,
        cell    TEXT NOT NULL,
        at_ms   INTEGER NOT NULL,
        req_id  INTEGER,
        PRIMARY KEY (game, ply)
    ) WITHOUT ROWID;
    ",
];
/// An opened database: the write connection, the read connection (files
/// only) and the lock on the file (files only).
///
/// Fields drop in order: the connections close before the lock is
/// released (see `lock`).
#[derive(Debug)]
pub(super) struct Opened {
    pub(super) writer: Connection,
    pub(super) reader: Option<Connection>,
    pub(super) lock: Option<DbLock>,
}

pub(super) fn open(location: &DbLocation) -> Result<Opened, ServerError> {
    match location {
        DbLocation::Memory => Ok(Opened {
            writer: Connection::open_in_memory()?,
            reader: None,
            lock: None,
        }),
        DbLocation::File(path) => {
            let lock = lock::lock(path)?;
            let conn = Connection::open(path)?;
            let mode: String =
                conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
            if !mode.eq_ignore_ascii_case("wal") {
                tracing::warn!(%mode, "the database could not switch to WAL mode");
            }
            conn.pragma_update(None, "synchronous", "FULL")?;
            conn.busy_timeout(std::time::Duration::from_secs(5))?;
            let reader = Connection::open_with_flags(
                path,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY
                    | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            reader.busy_timeout(std::time::Duration::from_secs(5))?;
            Ok(Opened {
                writer: conn,
                reader: Some(reader),
                lock: Some(lock),
            })
        }
    }
}

/// Brings the schema up to date.
pub(super) fn migrate(conn: &mut Connection) -> Result<(), ServerError> {
    let current: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let known = u32::try_from(MIGRATIONS.len()).expect("a handful of migrations");
    if current > known {
        return Err(ServerError::SchemaTooNew {
            found: current,
            known,
        });
    }
    if current == known {
        return Ok(());
    }
    // All pending migrations in one transaction: the database is either
    // fully brought up to date or left as it was.
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    for (version, sql) in (1..).zip(MIGRATIONS).skip(current as usize) {
        apply_migration(&tx, version, sql).map_err(|e| ServerError::Migration {
            version,
            reason: describe(&e),
        })?;
    }
    tx.commit()?;
    tracing::info!(from = current, to = known, "applied database migrations");
    Ok(())
}

fn apply_migration(conn: &Connection, version: u32, sql: &str) -> rusqlite::Result<()> {
    conn.execute_batch(sql)?;
    conn.execute(
        "INSERT INTO schema_migrations (version, applied_ms) VALUES (?1, ?2)",
        params![version, now_ms()],
    )?;
    conn.pragma_update(None, "user_version", version)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_failed_migration_is_reported_briefly_and_rolled_back() {
        let mut conn = Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE players (x)").unwrap();
        let err = migrate(&mut conn).unwrap_err();
        assert_eq!(
            err.to_string(),
            "database migration 1 failed: table players already exists"
        );
        let version: u32 = conn
            .pragma_query_value(None, "user_version", |r| r.get(0))
            .unwrap();
        assert_eq!(version, 0);
        let tables: u32 = conn
            .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
            .unwrap();
        assert_eq!(tables, 1, "only the table that was there");
    }
}
