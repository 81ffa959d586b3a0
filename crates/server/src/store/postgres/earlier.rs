//! Reading back the request ids of claimed tables' earlier rounds (see
//! [`EarlierMove`]), one query for all of them, with the rest of
//! [`load_tables`](super::reads::load_tables).

use std::collections::HashMap;
use std::sync::Arc;

use tokio_postgres::GenericClient;

use super::error::db;
use crate::error::ServerError;
use crate::store::rows::{EARLIER_ROUNDS, EarlierMove};
use crate::store::text;

/// The moves with a request id of the open tables with keys `seqs`, in
/// their rounds before the current one (the last [`EARLIER_ROUNDS`]), by
/// table key, oldest first.
///
/// They only let a late retry be answered: a row that does not read is
/// left out (and logged), and costs its table nothing else.
///
/// # Errors
///
/// Only if the query as a whole fails.
pub(super) async fn of_tables(
    client: &impl GenericClient,
    seqs: &[i64],
) -> Result<HashMap<i64, Vec<EarlierMove>>, ServerError> {
    let mut earlier: HashMap<i64, Vec<EarlierMove>> = HashMap::new();
    let rounds = i64::from(EARLIER_ROUNDS);
    for r in client
        .query(
            "SELECT t.seq, g.id, m.ply, m.player, m.cell, m.req_id
             FROM tables t
             JOIN games g ON g.table_id = t.id AND g.round < t.round
                 AND g.round >= t.round - $2
             JOIN moves m ON m.game = g.seq
             WHERE t.seq = ANY($1) AND t.status <> 'closed' AND m.req_id IS NOT NULL
             ORDER BY t.seq, g.round, m.ply",
            &[&seqs, &rounds],
        )
        .await
        .map_err(db)?
    {
        let table: i64 = r.get(0);
        let read = (|| {
            let ply: i64 = r.try_get(2).map_err(db)?;
            let req: i64 = r.try_get(5).map_err(db)?;
            Ok::<_, ServerError>(EarlierMove {
                game_id: Arc::from(r.try_get::<_, String>(1).map_err(db)?),
                ply: u32::try_from(ply).map_err(|_| ServerError::Corrupt(format!("ply {ply}")))?,
                player: text::parse("player", &r.try_get::<_, String>(3).map_err(db)?)?,
                cell: text::parse("cell", &r.try_get::<_, String>(4).map_err(db)?)?,
                // Request ids are opaque 64-bit values, stored bit for bit.
                req_id: req as u64,
            })
        })();
        match read {
            Ok(m) => earlier.entry(table).or_default().push(m),
            Err(e) => {
                tracing::warn!(table, error = %e, "an earlier round's move did not read back")
            }
        }
    }
    Ok(earlier)
}
