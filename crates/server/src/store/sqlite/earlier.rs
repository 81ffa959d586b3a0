//! Reading back the request ids of the open tables' earlier rounds (see
//! [`EarlierMove`]), one query for a whole scope of tables, with the rest
//! of recovery (`recover`).

use std::collections::HashMap;
use std::sync::Arc;

use rusqlite::Connection;

use super::scope::{Scope, rows};
use crate::error::ServerError;
use crate::store::rows::{EARLIER_ROUNDS, EarlierMove};
use crate::store::text;

/// The moves with a request id of the scope's open tables' rounds before
/// their current one (the last [`EARLIER_ROUNDS`]), by table key, oldest
/// first.
///
/// They only let a late retry be answered: a row that does not read (a
/// person edited the file) is left out, and costs its table nothing else.
///
/// # Errors
///
/// Only if the query as a whole fails.
pub(super) fn of_open_tables(
    conn: &Connection,
    scope: Scope,
) -> Result<HashMap<i64, Vec<EarlierMove>>, ServerError> {
    let open = scope.open();
    let mut earlier: HashMap<i64, Vec<EarlierMove>> = HashMap::new();
    let read = rows(
        conn,
        &format!(
            "SELECT t.seq, g.id, m.ply, m.player, m.cell, m.req_id
             FROM tables t
             JOIN games g ON g.table_id = t.id AND g.round < t.round
                 AND g.round >= t.round - {EARLIER_ROUNDS}
             JOIN moves m ON m.game = g.seq
             WHERE {open} AND m.req_id IS NOT NULL
             ORDER BY t.seq, g.round, m.ply"
        ),
        scope,
        |r| {
            Ok((
                r.get::<_, String>(1)?,
                r.get::<_, u32>(2)?,
                r.get::<_, String>(3)?,
                r.get::<_, String>(4)?,
                r.get::<_, i64>(5)?,
            ))
        },
    )?;
    for (table, row) in read {
        let checked = row
            .map_err(ServerError::from)
            .and_then(|(game, ply, player, cell, req)| {
                Ok(EarlierMove {
                    game_id: Arc::from(game),
                    ply,
                    player: text::parse("player", &player)?,
                    cell: text::parse("cell", &cell)?,
                    // Request ids are opaque 64-bit values, stored bit for bit.
                    req_id: req as u64,
                })
            });
        match checked {
            Ok(m) => earlier.entry(table).or_default().push(m),
            Err(e) => {
                tracing::warn!(table, error = %e, "an earlier round's move did not read back")
            }
        }
    }
    Ok(earlier)
}
