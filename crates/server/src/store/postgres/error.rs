//! PostgreSQL's errors as the server's: the server's own short message,
//! never the statement.

use crate::error::ServerError;

/// The short message of `e`: the server's message for an error the
/// database reported, the client library's otherwise (e.g. "connection
/// closed").
pub(super) fn message(e: &tokio_postgres::Error) -> String {
    if let Some(d) = e.as_db_error() {
        return d.message().to_owned();
    }
    // "error connecting to server" says nothing without its cause.
    let mut out = e.to_string();
    let mut cause = std::error::Error::source(e);
    while let Some(c) = cause {
        out.push_str(": ");
        out.push_str(&c.to_string());
        cause = c.source();
    }
    out
}

/// `e` as [`ServerError::Database`].
pub(super) fn db(e: tokio_postgres::Error) -> ServerError {
    ServerError::Database(message(&e))
}

/// A connection that could not be had from the pool.
pub(super) fn pool(e: deadpool_postgres::PoolError) -> ServerError {
    match e {
        deadpool_postgres::PoolError::Backend(e) => db(e),
        other => ServerError::Database(other.to_string()),
    }
}
