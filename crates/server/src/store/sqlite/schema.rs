//! Opening the database file and bringing its schema up to date.
//!
//! Owns the checks made before anything is written, the connection
//! settings (WAL, `synchronous=FULL`, busy timeout) and the numbered
//! migrations. It does not read or write rows.
//!
//! # Checks first, then writes
//!
//! A file that is not oxo's to change is refused before a single byte of it
//! is written (switching to WAL is a write, and so is a migration). In
//! order: the lock (one server per file, see `lock`); a read-only look,
//! through a connection that cannot write or checkpoint, at whether it is a
//! SQLite database at all, whose it is and how new its schema is; then,
//! through the write connection, whether SQLite could open it for writing.
//!
//! Whose: new databases get `PRAGMA application_id` = [`APPLICATION_ID`]
//! (migration 2). A file with another application id is refused; so is one
//! with none (0) that has tables but no oxo schema (user_version 0), or that
//! has a user_version but no `schema_migrations` table. An oxo database from
//! before migration 2 (application id 0, user_version 1) is accepted and
//! tagged.
//!
//! # Schema
//!
//! Migrations are numbered SQL scripts applied in order on start, all in
//! one transaction; the database's `PRAGMA user_version` is the number
//! applied, and `schema_migrations` records when each was. A database from a
//! newer oxo is refused rather than guessed at.

use std::path::{Path, PathBuf};

use rusqlite::config::DbConfig;
use rusqlite::{Connection, MAIN_DB, OpenFlags, TransactionBehavior, params};

use super::error::describe;
use super::lock::{self, DbLock};
use crate::config::DbLocation;
use crate::error::ServerError;
use crate::ids::now_ms;

/// oxo's `PRAGMA application_id`: "oxo1" in ASCII.
pub(crate) const APPLICATION_ID: i32 = 0x6F78_6F31;

/// The migrations, in order; migration `n` (1-based) brings the schema to
/// version `n`. Never edit one that has shipped: add another.
const MIGRATIONS: &[&str] = &[
    // 1: players, tables, games and moves. Tables and games have a public
    // id and an integer key assigned in order (`seq`); moves are keyed by
    // (game key, ply). Rows written together then sit on the same few pages,
    // so a group commit of a thousand tables' moves touches few B-tree pages
    // (each one is written to the WAL and synced). For the same reason there
    // was no index by player at first (migration 8 adds one).
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
    // 2: mark the file as oxo's (APPLICATION_ID, 0x6F786F31 = "oxo1").
    "PRAGMA application_id = 1870163761;",
    // 3: one row that `/healthz` rewrites to prove the database takes
    // writes (see `Store::health`).
    "
    CREATE TABLE health (
        id        INTEGER PRIMARY KEY CHECK (id = 1),
        probed_ms INTEGER NOT NULL
    );
    ",
    // 4: games remember whether their table was public: the records of
    // private tables are listed only for their players. Backfilled from the
    // table's options, public unless they say `\"public\": false`; options
    // that are not JSON, or a table that is gone, count as private.
    "
    ALTER TABLE games ADD COLUMN public INTEGER NOT NULL DEFAULT 1;
    UPDATE games SET public = COALESCE(
        (SELECT CASE
             WHEN NOT json_valid(t.options) THEN 0
             WHEN json_type(t.options, '$.public') IS NULL THEN 1
             WHEN json_type(t.options, '$.public') = 'true' THEN 1
             ELSE 0
         END
         FROM tables t WHERE t.id = games.table_id),
        0);
    ",
    // 5: when an away player's grace period ends (Unix ms), per seat: the
    // end stays where it was across a restart.
    "
    ALTER TABLE tables ADD COLUMN x_away_until_ms INTEGER;
    ALTER TABLE tables ADD COLUMN o_away_until_ms INTEGER;
    ",
    // 6: at a finished round, which seats asked for a rematch: an
    // acknowledged request outlives a restart.
    "
    ALTER TABLE tables ADD COLUMN x_rematch INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE tables ADD COLUMN o_rematch INTEGER NOT NULL DEFAULT 0;
    ",
    // 7: a table's latest chat messages (numbered from 1 at each table),
    // for `chat_history` after a restart; deleted when the table closes.
    "
    CREATE TABLE chat (
        table_seq INTEGER NOT NULL,
        n         INTEGER NOT NULL,
        from_id   TEXT NOT NULL,
        from_name TEXT NOT NULL,
        text      TEXT NOT NULL,
        watching  INTEGER NOT NULL,
        at_ms     INTEGER NOT NULL,
        PRIMARY KEY (table_seq, n)
    ) WITHOUT ROWID;
    ",
    // 8: a player's finished games, newest first, as X and as O, for
    // `GET /api/games?player=`: without them a player's games older than
    // the newest 100,000 of everyone's were never found, and finding none
    // walked all 100,000. (This costs what migration 1 avoided: a game's
    // end now also writes two index pages keyed by player.)
    "
    CREATE INDEX games_x ON games(x_id, ended_ms) WHERE ended_ms IS NOT NULL;
    CREATE INDEX games_o ON games(o_id, ended_ms) WHERE ended_ms IS NOT NULL;
    ",
    // 9: a table's games by round, so that recovery reads the request ids
    // of an open table's earlier rounds without walking every game (a
    // retry of one is still answered after a restart). One index page
    // more per game started, none per move.
    "CREATE INDEX games_table ON games(table_id, round);",
    // 10: the finished games of public tables, newest first, for everyone's
    // `GET /api/games`: without it, a database of mostly private games was
    // walked 100,000 rows deep for each list (85 ms), and a public game
    // behind that many newer private ones was never listed. One index page
    // more when a public game ends.
    "CREATE INDEX games_public ON games(ended_ms) WHERE ended_ms IS NOT NULL AND public = 1;",
];
/// An opened database: the write connection, the read connection (files
/// only) and the lock on the file (files only).
///
/// Fields drop in order: the connections close before the lock is
/// released (see `lock`).
#[derive(Debug)]
pub(super) struct Opened {
    pub(super) writer: Connection,
    /// The read connections (files only): the HTTP API's, and the token
    /// look-ups'.
    pub(super) readers: Option<[Connection; 2]>,
    pub(super) lock: Option<DbLock>,
}

/// Opens the database after checking that it is oxo's to write (see the
/// module doc), and sets the connections up.
///
/// # Errors
///
/// [`ServerError::DatabaseInUse`], [`ServerError::ForeignDatabase`],
/// [`ServerError::SchemaTooNew`], [`ServerError::ReadOnlyDatabase`], or the
/// SQLite error (such as "file is not a database"); in every case nothing
/// has been written.
pub(super) fn open(location: &DbLocation) -> Result<Opened, ServerError> {
    match location {
        DbLocation::Postgres { .. } => Err(ServerError::Database(
            "a PostgreSQL URL is not a SQLite database".into(),
        )),
        DbLocation::Memory => Ok(Opened {
            writer: Connection::open_in_memory()?,
            readers: None,
            lock: None,
        }),
        DbLocation::File(path) => {
            let path = &as_file_name(path);
            let lock = lock::lock(path)?;
            inspect(path)?;
            let conn = Connection::open(path)?;
            check_writable(&conn)?;
            let mode: String =
                conn.pragma_update_and_check(None, "journal_mode", "WAL", |r| r.get(0))?;
            if !mode.eq_ignore_ascii_case("wal") {
                tracing::warn!(%mode, "the database could not switch to WAL mode");
            }
            conn.pragma_update(None, "synchronous", "FULL")?;
            conn.busy_timeout(std::time::Duration::from_secs(5))?;
            let reader = || -> Result<Connection, ServerError> {
                let reader = Connection::open_with_flags(
                    path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                reader.busy_timeout(std::time::Duration::from_secs(5))?;
                Ok(reader)
            };
            Ok(Opened {
                writer: conn,
                readers: Some([reader()?, reader()?]),
                lock: Some(lock),
            })
        }
    }
}

/// `path` as SQLite must be given it to open the file of that name. This
/// SQLite reads a name that starts with `file:` as a URI (`file:oxo.db`
/// is `oxo.db`, `file:oxo.db?mode=ro` opens it read-only), while the
/// operator, and the lock that keeps one server per file, mean the file so
/// named; `./` in front keeps a relative name a name.
fn as_file_name(path: &Path) -> PathBuf {
    let name = path.as_os_str().as_encoded_bytes();
    let uri_like = name
        .get(..5)
        .is_some_and(|start| start.eq_ignore_ascii_case(b"file:"));
    if uri_like && path.is_relative() {
        Path::new(".").join(path)
    } else {
        path.to_owned()
    }
}

/// Looks at the file through a connection that can neither write nor
/// checkpoint on close: is it a SQLite database, is it oxo's, and is its
/// schema one this build knows?
fn inspect(path: &Path) -> Result<(), ServerError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
    // Reading the schema reads the header: "file is not a database" here.
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_master
             WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'
             ORDER BY name",
        )?
        .query_map([], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let application_id: i32 = conn.pragma_query_value(None, "application_id", |r| r.get(0))?;
    let version: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    check_owner(application_id, version, &tables)?;
    let known = known_version();
    if version > known {
        return Err(ServerError::SchemaTooNew {
            found: version,
            known,
        });
    }
    Ok(())
}

/// Whether a database with this application id, user_version and tables
/// is oxo's (see the module doc).
fn check_owner(application_id: i32, version: u32, tables: &[String]) -> Result<(), ServerError> {
    let foreign = |reason: String| Err(ServerError::ForeignDatabase { reason });
    let listed = || {
        let mut names = tables
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join(", ");
        if tables.len() > 3 {
            names.push_str(", ...");
        }
        names
    };
    match application_id {
        APPLICATION_ID => Ok(()),
        0 if version == 0 && !tables.is_empty() => foreign(format!(
            "it has tables of its own ({}) and no oxo schema",
            listed()
        )),
        0 if version > 0 && !tables.iter().any(|t| t == "schema_migrations") => {
            foreign(format!("schema version {version} but no oxo schema"))
        }
        0 => Ok(()),
        other => foreign(format!("application id {other:#x}")),
    }
}

/// Refuses a database SQLite could open only for reading (a read-only file
/// or file system). SQLite asked for read-write falls back to read-only
/// without an error; this says so before anything is attempted.
fn check_writable(conn: &Connection) -> Result<(), ServerError> {
    if conn.is_readonly(MAIN_DB)? {
        return Err(ServerError::ReadOnlyDatabase);
    }
    Ok(())
}

fn known_version() -> u32 {
    u32::try_from(MIGRATIONS.len()).expect("a handful of migrations")
}

/// Brings the schema up to date.
pub(super) fn migrate(conn: &mut Connection) -> Result<(), ServerError> {
    let current: u32 = conn.pragma_query_value(None, "user_version", |r| r.get(0))?;
    let known = known_version();
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

    use super::super::temp::TempDb;
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

    #[test]
    fn an_oxo_database_from_before_application_ids_is_accepted_and_tagged() {
        let temp = TempDb::new("schema-v1");
        let path = temp.path();
        {
            let mut conn = Connection::open(&path).unwrap();
            let tx = conn.transaction().unwrap();
            apply_migration(&tx, 1, MIGRATIONS[0]).unwrap();
            tx.commit().unwrap();
        }
        let mut opened = open(&DbLocation::File(path.clone())).unwrap();
        migrate(&mut opened.writer).unwrap();
        let id: i32 = opened
            .writer
            .pragma_query_value(None, "application_id", |r| r.get(0))
            .unwrap();
        assert_eq!(id, APPLICATION_ID);
        drop(opened);
    }

    #[test]
    fn owners_are_told_apart() {
        let names = |n: &[&str]| n.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert!(check_owner(APPLICATION_ID, 3, &names(&["anything"])).is_ok());
        assert!(check_owner(0, 0, &[]).is_ok(), "new");
        assert!(check_owner(0, 1, &names(&["players", "schema_migrations"])).is_ok());
        let err = check_owner(0, 0, &names(&["a", "b", "c", "d"])).unwrap_err();
        assert_eq!(
            err.to_string(),
            "not an oxo database (it has tables of its own (a, b, c, ...) and no oxo \
             schema); leaving it untouched"
        );
        assert!(check_owner(0, 7, &names(&["notes"])).is_err());
        let err = check_owner(0x1234, 0, &[]).unwrap_err();
        assert!(err.to_string().contains("application id 0x1234"), "{err}");
    }

    #[test]
    fn a_database_sqlite_could_only_open_for_reading_is_refused() {
        // Tests run as root, which writes to files whatever their mode, so
        // the connection is opened read-only on purpose: SQLite reports it
        // the same way as a read-only file it fell back to.
        let temp = TempDb::new("schema-ro");
        let path = temp.path();
        drop(Connection::open(&path).unwrap());
        let conn = Connection::open_with_flags(&path, OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
        assert!(matches!(
            check_writable(&conn),
            Err(ServerError::ReadOnlyDatabase)
        ));
        let conn = Connection::open(&path).unwrap();
        assert!(check_writable(&conn).is_ok());
    }

    #[test]
    fn games_learn_whether_their_table_was_public() {
        let mut conn = Connection::open_in_memory().unwrap();
        let tx = conn.transaction().unwrap();
        for (version, sql) in (1..).zip(&MIGRATIONS[..3]) {
            apply_migration(&tx, version, sql).unwrap();
        }
        tx.commit().unwrap();
        for (n, options) in [
            (1, r#"{"public":true,"starter":"x"}"#),
            (2, r#"{"public":false,"starter":"x"}"#),
            (3, r#"{"starter":"x"}"#),
            (4, "not json"),
        ] {
            conn.execute(
                "INSERT INTO tables VALUES (?1, 't' || ?1, ?2, 'closed', NULL, NULL, NULL,
                                            1, 0, 0, 0, ?1, 0, 0)",
                params![n, options],
            )
            .unwrap();
        }
        // Games 1-4 at those tables; game 5 at a table that is gone.
        for n in 1..=5 {
            conn.execute(
                "INSERT INTO games (seq, id, table_id, round, first, x_id, x_name, o_id, o_name,
                                    started_ms)
                 VALUES (?1, 'g' || ?1, 't' || ?1, 1, 'X', 'a', 'A', 'b', 'B', 0)",
                params![n],
            )
            .unwrap();
        }
        migrate(&mut conn).unwrap();
        let public: Vec<bool> = conn
            .prepare("SELECT public FROM games ORDER BY seq")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(public, [true, false, true, false, false]);
    }
}
