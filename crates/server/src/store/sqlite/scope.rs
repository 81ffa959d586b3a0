//! What a recovery read covers ([`Scope`]) and the query helpers that keep
//! a bad row's error for its table's verdict instead of failing the query
//! (shared by `recover` and `chat`).

use std::collections::HashMap;

use rusqlite::{Connection, Row};

use crate::error::ServerError;

/// Which open tables a read covers: all of them, or those with keys in a
/// range (start-up reads them a batch at a time; a table needed before
/// that reaches it is a range of one).
#[derive(Clone, Copy, Debug)]
pub(super) enum Scope {
    All,
    /// Keys from the first to the second, both included.
    Keys(i64, i64),
}

impl Scope {
    /// The condition on `tables t` that selects the scope's open tables.
    pub(super) fn open(self) -> &'static str {
        match self {
            Scope::All => "t.status <> 'closed'",
            Scope::Keys(..) => "t.status <> 'closed' AND t.seq BETWEEN ?1 AND ?2",
        }
    }

    /// The values of the condition's parameters.
    pub(super) fn params(self) -> Vec<i64> {
        match self {
            Scope::All => Vec::new(),
            Scope::Keys(first, last) => vec![first, last],
        }
    }
}

/// One row of a query, or the error of the column that did not read: kept
/// for the verdict on the row's table, not fatal to the query.
pub(super) type Read<T> = rusqlite::Result<T>;

/// The rows of `sql`, each with its first column (the key, which always
/// reads: an id or an integer key) and the rest as `read` makes them.
pub(super) fn rows<K: rusqlite::types::FromSql, T>(
    conn: &Connection,
    sql: &str,
    scope: Scope,
    read: impl Fn(&Row<'_>) -> Read<T>,
) -> Result<Vec<(K, Read<T>)>, ServerError> {
    let mut stmt = conn.prepare(sql)?;
    let rows = stmt.query_map(rusqlite::params_from_iter(scope.params()), |r| {
        Ok((r.get(0)?, read(r)))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// [`rows`] by key.
pub(super) fn keyed<K: rusqlite::types::FromSql + Eq + std::hash::Hash, T>(
    conn: &Connection,
    sql: &str,
    scope: Scope,
    read: impl Fn(&Row<'_>) -> Read<T>,
) -> Result<HashMap<K, Read<T>>, ServerError> {
    Ok(rows(conn, sql, scope, read)?.into_iter().collect())
}
