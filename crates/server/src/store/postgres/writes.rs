//! The SQL that applies each row change ([`Write`]) in a PostgreSQL
//! transaction, and the fence that makes a stale owner's commit fail.

use std::sync::LazyLock;

use deadpool_postgres::Transaction;
use oxo_core::Outcome;
use tokio_postgres::Statement;

use super::error::db;
use super::lease::{DB_NOW_MS, Lease};
use crate::error::ServerError;
use crate::ids::now_ms;
use crate::store::rows::{CHAT_KEPT, TABLE_ROW_UPDATE, Write};
use crate::store::text::{self, json};

/// A `u32` column, stored as `BIGINT`.
fn big(n: u32) -> i64 {
    i64::from(n)
}

/// The statement that applies `w`, prepared (once per connection: the
/// statements are cached). Given it, [`apply`] sends its statement on its
/// first poll, so the writes of a commit go to the database in one
/// pipeline, in order.
///
/// # Errors
///
/// The database's.
pub(super) async fn prepare(tx: &Transaction<'_>, w: &Write) -> Result<Statement, ServerError> {
    tx.prepare_cached(sql(w)).await.map_err(db)
}

/// The statement that applies `w`.
fn sql(w: &Write) -> &'static str {
    match w {
        Write::Fence { .. } => "SELECT epoch FROM tables WHERE seq = $1 FOR SHARE",
        Write::Player { .. } => {
            "INSERT INTO players (id, token_hash, name, created_ms) VALUES ($1, $2, $3, $4)"
        }
        // The new name shows in the records of the games they are playing
        // (found through the tables in play); finished games keep theirs.
        Write::PlayerName { .. } => {
            "WITH renamed AS (UPDATE players SET name = $2 WHERE id = $1)
             UPDATE games SET
                 x_name = CASE WHEN x_id = $1 THEN $2 ELSE x_name END,
                 o_name = CASE WHEN o_id = $1 THEN $2 ELSE o_name END
             WHERE ended_ms IS NULL
               AND seq IN (SELECT game FROM tables
                           WHERE status <> 'closed' AND (x_player = $1 OR o_player = $1))"
        }
        Write::Table(_) => &UPSERT_TABLE,
        Write::GameStart(_) => {
            "INSERT INTO games (seq, id, table_id, round, first, x_id, x_name, x_bot,
                 o_id, o_name, o_bot, started_ms, public)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)"
        }
        Write::Move(_) => {
            "INSERT INTO moves (game, ply, player, cell, at_ms, req_id)
             VALUES ($1, $2, $3, $4, $5, $6)"
        }
        Write::GameEnd(_) => {
            "UPDATE games SET ended_ms = $2, outcome = $3, winner = $4, reason = $5,
                 moves = $6
             WHERE seq = $1"
        }
        // The table keeps its latest messages: older ones go as this one
        // comes (the delete does not see the row inserted beside it, which
        // it would keep anyway). A row of that number can only be one that
        // did not read back: the new message takes its place.
        Write::Chat(_) => {
            "WITH said AS (
                 INSERT INTO chat (table_seq, n, from_id, from_name, text, watching, at_ms)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)
                 ON CONFLICT (table_seq, n) DO UPDATE SET from_id = excluded.from_id,
                     from_name = excluded.from_name, text = excluded.text,
                     watching = excluded.watching, at_ms = excluded.at_ms)
             DELETE FROM chat WHERE table_seq = $1 AND n <= $2 - $8"
        }
        Write::ChatCleared { .. } => "DELETE FROM chat WHERE table_seq = $1",
        Write::HealthProbe { .. } => {
            "INSERT INTO health (id, probed_ms) VALUES (1, $1)
             ON CONFLICT (id) DO UPDATE SET probed_ms = excluded.probed_ms"
        }
    }
}

/// A table's row, new (leased to the writing node at epoch 1) or updated.
static UPSERT_TABLE: LazyLock<String> = LazyLock::new(|| {
    format!(
        "INSERT INTO tables (seq, id, options, status, x_player, o_player, bot_seat, round,
             score_x, score_o, draws, game, created_ms, updated_ms, owner, epoch,
             lease_until, x_away_until_ms, o_away_until_ms, x_rematch, o_rematch)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, 1,
             {DB_NOW_MS} + $16, $17, $18, $19, $20)
         ON CONFLICT (seq) DO UPDATE SET {TABLE_ROW_UPDATE}"
    )
});

/// Applies one write inside `tx` with its statement `stmt` (from
/// [`prepare`]); new tables are leased to `lease.node`.
///
/// # Errors
///
/// The database's, or [`ServerError::Fenced`] for a [`Write::Fence`] that
/// no longer holds (the caller rolls back).
pub(super) async fn apply(
    tx: &Transaction<'_>,
    lease: Lease,
    w: &Write,
    stmt: &Statement,
) -> Result<(), ServerError> {
    match w {
        Write::Fence { table, epoch } => fence(tx, stmt, *table, *epoch).await?,
        Write::Player {
            id,
            token_hash,
            name,
        } => {
            tx.execute(stmt, &[&&**id, &&token_hash[..], &&**name, &now_ms()])
                .await
                .map_err(db)?;
        }
        Write::PlayerName { id, name } => {
            tx.execute(stmt, &[&&**id, &&**name]).await.map_err(db)?;
        }
        Write::Table(row) => {
            let options = json(&row.options).map_err(|e| ServerError::Database(e.to_string()))?;
            tx.execute(
                stmt,
                &[
                    &row.seq,
                    &&*row.id,
                    &options,
                    &text::name(&row.status),
                    &row.seats.x.as_deref(),
                    &row.seats.o.as_deref(),
                    &row.bot_seat.as_ref().map(text::name),
                    &big(row.round),
                    &big(row.scores.x),
                    &big(row.scores.o),
                    &big(row.scores.draws),
                    &row.game,
                    &row.created_ms,
                    &now_ms(),
                    &i32::from(lease.node),
                    &lease.ttl_ms,
                    &row.away_until_ms.x,
                    &row.away_until_ms.o,
                    &row.rematch.x,
                    &row.rematch.o,
                ],
            )
            .await
            .map_err(db)?;
        }
        Write::GameStart(g) => {
            tx.execute(
                stmt,
                &[
                    &g.seq,
                    &&*g.id,
                    &&*g.table_id,
                    &big(g.round),
                    &text::name(&g.first),
                    &&*g.players.x.id,
                    &&*g.players.x.name,
                    &g.players.x.bot.as_ref().map(text::name),
                    &&*g.players.o.id,
                    &&*g.players.o.name,
                    &g.players.o.bot.as_ref().map(text::name),
                    &g.at_ms,
                    &g.public,
                ],
            )
            .await
            .map_err(db)?;
        }
        Write::Move(m) => {
            // Request ids are opaque 64-bit values; stored bit for bit.
            let req = m.req_id.map(|r| r as i64);
            tx.execute(
                stmt,
                &[
                    &m.game,
                    &big(m.ply),
                    &text::name(&m.player),
                    &text::name(&m.cell),
                    &m.at_ms,
                    &req,
                ],
            )
            .await
            .map_err(db)?;
        }
        Write::GameEnd(end) => {
            let (winner, reason) = match end.outcome {
                Outcome::Draw => (None, "draw"),
                Outcome::Win { winner, reason } => (Some(text::name(&winner)), reason.as_str()),
            };
            let outcome = json(&end.outcome).map_err(|e| ServerError::Database(e.to_string()))?;
            tx.execute(
                stmt,
                &[
                    &end.game,
                    &end.at_ms,
                    &outcome,
                    &winner,
                    &reason,
                    &big(end.moves),
                ],
            )
            .await
            .map_err(db)?;
        }
        Write::Chat(c) => {
            tx.execute(
                stmt,
                &[
                    &c.table,
                    &c.n,
                    &c.line.from_id.as_str(),
                    &c.line.from_name,
                    &c.line.text,
                    &c.line.watching,
                    &c.at_ms,
                    &CHAT_KEPT,
                ],
            )
            .await
            .map_err(db)?;
        }
        Write::ChatCleared { table } => {
            tx.execute(stmt, &[table]).await.map_err(db)?;
        }
        Write::HealthProbe { at_ms } => {
            tx.execute(stmt, &[at_ms]).await.map_err(db)?;
        }
    }
    Ok(())
}

/// Holds the table's row against a takeover until the transaction ends,
/// and fails if its epoch is no longer `epoch`.
///
/// `FOR SHARE` conflicts with the takeover's `UPDATE`: a takeover waits for
/// a commit under the old epoch to finish, and a commit that starts after
/// a takeover sees the new epoch. So no write is ever applied under an
/// epoch that is not the table's current one. A table not stored yet (the
/// commit that creates it) passes.
async fn fence(
    tx: &Transaction<'_>,
    stmt: &Statement,
    table: i64,
    epoch: i64,
) -> Result<(), ServerError> {
    match tx.query_opt(stmt, &[&table]).await.map_err(db)? {
        Some(row) => {
            let current: i64 = row.get(0);
            if current == epoch {
                Ok(())
            } else {
                Err(ServerError::Fenced {
                    table,
                    ours: epoch,
                    current,
                })
            }
        }
        None => Ok(()),
    }
}
