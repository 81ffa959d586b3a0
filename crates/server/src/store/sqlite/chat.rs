//! Reading back the open tables' chat (see [`Write::Chat`]), one query for
//! a whole scope of tables, with the rest of recovery (`recover`).
//!
//! [`Write::Chat`]: crate::store::Write::Chat

use std::collections::HashMap;

use oxo_protocol::{ChatLine, PlayerId};
use rusqlite::Connection;

use super::scope::{Scope, rows};
use crate::error::ServerError;

/// The chat messages of the scope's open tables, by table key, each with
/// its number, oldest first.
///
/// The history is a convenience: a message whose row does not read (a
/// person edited the file) is left out, and costs its table nothing else.
///
/// # Errors
///
/// Only if the query as a whole fails.
pub(super) fn of_open_tables(
    conn: &Connection,
    scope: Scope,
) -> Result<HashMap<i64, Vec<(i64, ChatLine)>>, ServerError> {
    let open = scope.open();
    let mut chat: HashMap<i64, Vec<(i64, ChatLine)>> = HashMap::new();
    let read = rows(
        conn,
        &format!(
            "SELECT c.table_seq, c.n, c.from_id, c.from_name, c.text, c.watching
             FROM tables t JOIN chat c ON c.table_seq = t.seq
             WHERE {open} ORDER BY c.table_seq, c.n"
        ),
        scope,
        |r| {
            Ok((
                r.get::<_, i64>(1)?,
                ChatLine {
                    from_id: PlayerId::from(r.get::<_, String>(2)?),
                    from_name: r.get(3)?,
                    text: r.get(4)?,
                    watching: r.get(5)?,
                },
            ))
        },
    )?;
    for (table, line) in read {
        match line {
            Ok(line) => chat.entry(table).or_default().push(line),
            Err(e) => tracing::warn!(table, error = %e, "a chat message did not read back"),
        }
    }
    Ok(chat)
}
