//! SQLite's failures as [`ServerError`]s, told in a line: SQLite's own
//! message, never the statement that failed.

use crate::error::ServerError;

/// The longest SQLite message kept in an error.
const MAX_REASON: usize = 200;

/// A SQLite failure in one short phrase: SQLite's message (such as "file is
/// not a database" or "no such table: games") without the statement that
/// failed, which `rusqlite` would otherwise quote in full.
pub(super) fn describe(e: &rusqlite::Error) -> String {
    let text = match e {
        rusqlite::Error::SqliteFailure(_, Some(msg))
        | rusqlite::Error::SqlInputError { msg, .. } => msg.clone(),
        rusqlite::Error::SqliteFailure(code, None) => {
            rusqlite::ffi::code_to_str(code.extended_code).to_owned()
        }
        other => other.to_string(),
    };
    match text.char_indices().nth(MAX_REASON) {
        Some((at, _)) => format!("{}...", &text[..at]),
        None => text,
    }
}

impl From<rusqlite::Error> for ServerError {
    fn from(e: rusqlite::Error) -> ServerError {
        ServerError::Database(describe(&e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sqlite_failures_are_described_once_and_without_sql() {
        let conn = rusqlite::Connection::open_in_memory().expect("in memory");
        let sql = "CREATE TABLE t (a INTEGER); SELECT a FROM nowhere;";
        let err = ServerError::from(conn.execute_batch(sql).expect_err("no such table"));
        let text = err.to_string();
        assert_eq!(text, "database error: no such table: nowhere");
        assert!(
            std::error::Error::source(&err).is_none(),
            "no chain to repeat it"
        );

        let err = ServerError::from(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_NOTADB),
            None,
        ));
        assert_eq!(
            err.to_string(),
            "database error: File opened that is not a database file"
        );
    }
}
