//! Errors, split by who caused them.
//!
//! - [`ClientError`]: the client asked for something it may not have (not its
//!   turn, a taken cell, malformed JSON). It becomes an `error` reply with a
//!   stable [`ErrorCode`] and the connection goes on.
//! - [`ServerError`]: something broke on our side (the database, a socket).
//!   It is logged; the request that met it gets an `internal` refusal, and
//!   nothing it would have changed is kept.
//!
//! HTTP handlers have their own [`ApiError`](crate::http::ApiError), which
//! turns these into 400/401/404/500 JSON bodies.

use std::borrow::Cow;

use oxo_protocol::ErrorCode;

use crate::config::RateLimit;

/// A refused request: the stable code and a message for people.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{code}: {message}")]
pub(crate) struct ClientError {
    /// The code clients act on.
    pub(crate) code: ErrorCode,
    /// What was wrong, e.g. "b2 is already taken".
    pub(crate) message: Cow<'static, str>,
}

impl ClientError {
    /// A refusal with `code` and `message`.
    pub(crate) fn new(code: ErrorCode, message: impl Into<Cow<'static, str>>) -> ClientError {
        ClientError {
            code,
            message: message.into(),
        }
    }

    /// `bad_request` with what was wrong.
    pub(crate) fn bad_request(message: impl Into<Cow<'static, str>>) -> ClientError {
        ClientError::new(ErrorCode::BadRequest, message)
    }

    /// `table_moving`: another node owns the table now (cluster).
    pub(crate) fn table_moved() -> ClientError {
        ClientError::new(
            ErrorCode::TableMoving,
            "The table is moving to another server; try again",
        )
    }

    /// `no_such_table`.
    pub(crate) fn no_such_table() -> ClientError {
        ClientError::new(ErrorCode::NoSuchTable, "No such table (it may have closed)")
    }

    /// `internal`: the server failed; nothing was applied.
    pub(crate) fn internal() -> ClientError {
        ClientError::new(
            ErrorCode::Internal,
            "The server could not complete the request; nothing was changed",
        )
    }

    /// `too_many_tables` for a player who holds `max` seats in play.
    pub(crate) fn too_many_seats(max: usize) -> ClientError {
        ClientError::new(
            ErrorCode::TooManyTables,
            format!(
                "You already hold seats at {max} tables in play, the most allowed; \
                 finish or leave one first"
            ),
        )
    }

    /// `rate_limited` for a player over `limit` of new rounds (tables
    /// created, rematches, joins that start a round).
    pub(crate) fn too_many_rounds(limit: RateLimit) -> ClientError {
        ClientError::new(
            ErrorCode::RateLimited,
            format!(
                "Too many new games: {} in a row, then one every {:.0} s",
                limit.burst,
                1.0 / limit.per_second
            ),
        )
    }

    /// `rate_limited` for a rename past the player's budget.
    pub(crate) fn too_many_renames(limit: RateLimit) -> ClientError {
        ClientError::new(
            ErrorCode::RateLimited,
            format!(
                "Too many renames: {} in a row, then one every {:.0} s",
                limit.burst,
                1.0 / limit.per_second
            ),
        )
    }

    /// `shutting_down`.
    pub(crate) fn shutting_down() -> ClientError {
        ClientError::new(
            ErrorCode::ShuttingDown,
            "The server is shutting down; reconnect with your token shortly",
        )
    }
}

/// A failure of the server itself: storage, start-up or I/O.
///
/// Each message says what failed once, in a line: no variant has a
/// [`source`](std::error::Error::source) (a chain printed by `{:#}` would
/// repeat it), and database failures are reduced to the database's own
/// short message, never the statement that failed (the store's job).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServerError {
    /// A database call failed: the database's own short message (for
    /// SQLite, such as "no such table: games").
    #[error("database error: {0}")]
    Database(String),
    /// A group commit failed; every write in it was rolled back.
    #[error("database commit failed: {0}")]
    CommitFailed(String),
    /// A schema migration failed; the database was left as it was before.
    #[error("database migration {version} failed: {reason}")]
    Migration {
        /// The migration that failed.
        version: u32,
        /// SQLite's message.
        reason: String,
    },
    /// Another process (or another server in this one) has the database
    /// file open: one server per database.
    #[error("the database is in use by {}; only one server may use it", holder(*.pid))]
    DatabaseInUse {
        /// The holder's process id, where the system says.
        pid: Option<u32>,
    },
    /// The file belongs to another application (another application id, or
    /// tables but no oxo schema); it is left untouched.
    #[error("not an oxo database ({reason}); leaving it untouched")]
    ForeignDatabase {
        /// What gave it away.
        reason: String,
    },
    /// SQLite could open the database only for reading (a read-only file or
    /// file system).
    #[error("the database is read-only; oxo needs to write to it")]
    ReadOnlyDatabase,
    /// The database was written by a newer oxo whose schema this build does
    /// not know.
    #[error("the database has schema version {found}, newer than this oxo knows ({known})")]
    SchemaTooNew {
        /// The database's `user_version`.
        found: u32,
        /// The newest version this build can migrate to.
        known: u32,
    },
    /// Stored data could not be read back (e.g. a move that is not a cell).
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    /// A commit for a table this node no longer owns: another node took the
    /// table over (its lease epoch is newer). Nothing of the commit was
    /// applied, and this node must not tell anyone about it.
    #[error(
        "table {table} has a newer owner (lease epoch {current}, ours {ours}); nothing was written"
    )]
    Fenced {
        /// The table's key.
        table: i64,
        /// The epoch this node held.
        ours: i64,
        /// The epoch in the database, if the table is still there.
        current: i64,
    },
    /// The database writer has stopped (the server is shutting down).
    #[error("the database writer has stopped")]
    StoreClosed,
    /// `AppState::new` was called outside a Tokio runtime.
    #[error("oxo-server needs a Tokio runtime: call AppState::new inside one")]
    NoRuntime,
    /// Listening or serving failed.
    #[error("i/o error: {0}")]
    Io(std::io::Error),
}

impl From<std::io::Error> for ServerError {
    fn from(e: std::io::Error) -> ServerError {
        ServerError::Io(e)
    }
}

fn holder(pid: Option<u32>) -> String {
    match pid {
        Some(pid) => format!("another process (pid {pid})"),
        None => "another process".to_owned(),
    }
}
