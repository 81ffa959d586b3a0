//! The SQL that applies each row change ([`Write`]).
//!
//! The writer thread (`writer`) decides when and in which transaction a
//! write runs; this file only says what it does to the rows.

use std::sync::LazyLock;

use oxo_core::Outcome;
use rusqlite::{Connection, params};

use crate::ids::now_ms;
use crate::store::rows::{CHAT_KEPT, TABLE_ROW_UPDATE, Write};
use crate::store::text;

/// A table's row, new or updated.
static UPSERT_TABLE: LazyLock<String> = LazyLock::new(|| {
    format!(
        "INSERT INTO tables (seq, id, options, status, x_player, o_player, bot_seat, round,
             score_x, score_o, draws, game, created_ms, updated_ms, x_away_until_ms,
             o_away_until_ms, x_rematch, o_rematch)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16,
             ?17, ?18)
         ON CONFLICT (seq) DO UPDATE SET {TABLE_ROW_UPDATE}"
    )
});

/// A new name (?2 for player ?1) in the records of the games they are
/// playing, found through the tables in play (indexed); finished games keep
/// the names their players had.
const RENAME_IN_PLAY: &str = "
    UPDATE games SET
        x_name = CASE WHEN x_id = ?1 THEN ?2 ELSE x_name END,
        o_name = CASE WHEN o_id = ?1 THEN ?2 ELSE o_name END
    WHERE ended_ms IS NULL
      AND seq IN (SELECT game FROM tables
                  WHERE status <> 'closed' AND (x_player = ?1 OR o_player = ?1))";

/// The stored JSON of `value`, failing the write if it does not serialize.
fn json<T: serde::Serialize>(value: &T) -> rusqlite::Result<String> {
    text::json(value).map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
}

/// Applies one write on `conn` (inside the writer's transaction).
pub(super) fn apply(conn: &Connection, w: &Write) -> rusqlite::Result<()> {
    match w {
        Write::Player {
            id,
            token_hash,
            name,
        } => {
            conn.prepare_cached(
                "INSERT INTO players (id, token_hash, name, created_ms) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![id, &token_hash[..], name, now_ms()])?;
        }
        Write::PlayerName { id, name } => {
            conn.prepare_cached("UPDATE players SET name = ?2 WHERE id = ?1")?
                .execute(params![id, name])?;
            conn.prepare_cached(RENAME_IN_PLAY)?
                .execute(params![id, name])?;
        }
        Write::Table(row) => {
            let options = json(&row.options)?;
            conn.prepare_cached(&UPSERT_TABLE)?.execute(params![
                row.seq,
                row.id,
                options,
                text::name(&row.status),
                row.seats.x,
                row.seats.o,
                row.bot_seat.as_ref().map(text::name),
                row.round,
                row.scores.x,
                row.scores.o,
                row.scores.draws,
                row.game,
                row.created_ms,
                now_ms(),
                row.away_until_ms.x,
                row.away_until_ms.o,
                row.rematch.x,
                row.rematch.o,
            ])?;
        }
        Write::Chat(c) => {
            conn.prepare_cached(
                // A row of that number can only be one that did not read
                // back (see `chat`): the new message takes its place.
                "INSERT OR REPLACE INTO chat (table_seq, n, from_id, from_name, text, watching,
                     at_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )?
            .execute(params![
                c.table,
                c.n,
                c.line.from_id.as_str(),
                c.line.from_name,
                c.line.text,
                c.line.watching,
                c.at_ms,
            ])?;
            conn.prepare_cached("DELETE FROM chat WHERE table_seq = ?1 AND n <= ?2")?
                .execute(params![c.table, c.n - CHAT_KEPT])?;
        }
        Write::ChatCleared { table } => {
            conn.prepare_cached("DELETE FROM chat WHERE table_seq = ?1")?
                .execute(params![table])?;
        }
        Write::GameStart(g) => {
            conn.prepare_cached(
                "INSERT INTO games (seq, id, table_id, round, first, x_id, x_name, x_bot,
                     o_id, o_name, o_bot, started_ms, public)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
            )?
            .execute(params![
                g.seq,
                g.id,
                g.table_id,
                g.round,
                text::name(&g.first),
                g.players.x.id,
                g.players.x.name,
                g.players.x.bot.as_ref().map(text::name),
                g.players.o.id,
                g.players.o.name,
                g.players.o.bot.as_ref().map(text::name),
                g.at_ms,
                g.public,
            ])?;
        }
        Write::Move(m) => {
            conn.prepare_cached(
                "INSERT INTO moves (game, ply, player, cell, at_ms, req_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                m.game,
                m.ply,
                text::name(&m.player),
                text::name(&m.cell),
                m.at_ms,
                // Request ids are opaque 64-bit values; stored bit for bit.
                m.req_id.map(|r| r as i64),
            ])?;
        }
        Write::GameEnd(end) => {
            // `winner` and `reason` repeat the outcome for SQL's sake.
            let (winner, reason) = match end.outcome {
                Outcome::Draw => (None, "draw"),
                Outcome::Win { winner, reason } => (Some(text::name(&winner)), reason.as_str()),
            };
            conn.prepare_cached(
                "UPDATE games SET ended_ms = ?2, outcome = ?3, winner = ?4, reason = ?5, moves = ?6
                 WHERE seq = ?1",
            )?
            .execute(params![
                end.game,
                end.at_ms,
                json(&end.outcome)?,
                winner,
                reason,
                end.moves
            ])?;
        }
        // One server owns the file (see `lock`): no other owner to fence.
        Write::Fence { .. } => {}
        Write::HealthProbe { at_ms } => {
            conn.prepare_cached(
                "INSERT INTO health (id, probed_ms) VALUES (1, ?1)
                 ON CONFLICT (id) DO UPDATE SET probed_ms = excluded.probed_ms",
            )?
            .execute(params![at_ms])?;
        }
    }
    Ok(())
}
