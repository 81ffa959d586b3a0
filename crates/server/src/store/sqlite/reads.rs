//! The queries of the HTTP API (game records, lists of games) and token
//! look-ups, in SQL.
//!
//! Everything here only reads; it runs on the read connection (or, for an
//! in-memory database, on the writer's). Stored text that does not parse is
//! reported as [`ServerError::Corrupt`], never trusted. Who may see what is
//! decided by the shared rules in `rows`, not here.

use std::sync::Arc;

use oxo_core::ByPlayer;
use oxo_protocol::{GameRecord, GameSummary, RecordedMove};
use rusqlite::{Connection, OptionalExtension, Row, params};

use crate::error::ServerError;
use crate::ids::TokenHash;
use crate::store::rows::{GamePlayer, GameRow, GameStart, GamesQuery, PLAYER_SCAN, PlayerRow};
use crate::store::text::{self, from_json};

/// The player holding `token_hash`, if any.
pub(super) fn player_by_token(
    conn: &Connection,
    token_hash: TokenHash,
) -> Result<Option<PlayerRow>, ServerError> {
    let row = conn
        .prepare_cached("SELECT id, name FROM players WHERE token_hash = ?1")?
        .query_row(params![&token_hash[..]], |r| {
            Ok(PlayerRow {
                id: r.get(0)?,
                token_hash,
                name: r.get(1)?,
            })
        })
        .optional()?;
    Ok(row)
}

/// The columns of `games` that [`game_row`] reads, in its order.
const GAME_COLUMNS: &str = "seq, id, table_id, round, first, x_id, x_name, x_bot, o_id, o_name,
                            o_bot, started_ms, ended_ms, outcome, public";

/// A `games` row whose columns are [`GAME_COLUMNS`].
fn game_row(r: &Row<'_>) -> Result<GameRow, ServerError> {
    let player = |at: usize| -> Result<GamePlayer, ServerError> {
        let bot: Option<String> = r.get(at + 2)?;
        Ok(GamePlayer {
            id: Arc::from(r.get::<_, String>(at)?),
            name: Arc::from(r.get::<_, String>(at + 1)?),
            bot: bot.map(|b| text::parse("bot level", &b)).transpose()?,
        })
    };
    let outcome: Option<String> = r.get(13)?;
    Ok(GameRow {
        start: GameStart {
            seq: r.get(0)?,
            id: Arc::from(r.get::<_, String>(1)?),
            table_id: Arc::from(r.get::<_, String>(2)?),
            round: r.get(3)?,
            first: text::parse("player", &r.get::<_, String>(4)?)?,
            players: ByPlayer {
                x: player(5)?,
                o: player(8)?,
            },
            at_ms: r.get(11)?,
            public: r.get(14)?,
        },
        ended_ms: r.get(12)?,
        outcome: outcome.map(|o| from_json("outcome", &o)).transpose()?,
    })
}

/// `GET /api/games/{id}`: the record of game `id` as `asker` may see it.
pub(super) fn game_record(
    conn: &Connection,
    id: &str,
    asker: Option<&str>,
) -> Result<Option<GameRecord>, ServerError> {
    let mut stmt =
        conn.prepare_cached(&format!("SELECT {GAME_COLUMNS} FROM games WHERE id = ?1"))?;
    let mut rows = stmt.query(params![id])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let game = game_row(row)?;
    let mut stmt = conn.prepare_cached(
        "SELECT ply, player, cell, at_ms FROM moves WHERE game = ?1 ORDER BY ply",
    )?;
    let mut rows = stmt.query(params![game.start.seq])?;
    let mut moves = Vec::new();
    while let Some(r) = rows.next()? {
        moves.push(RecordedMove {
            ply: r.get(0)?,
            player: text::parse("player", &r.get::<_, String>(1)?)?,
            cell: text::parse("cell", &r.get::<_, String>(2)?)?,
            at_ms: r.get(3)?,
        });
    }
    Ok(Some(game.record(moves, asker)))
}

/// `GET /api/games?player=&limit=`: finished games, newest first, that
/// `query` lists.
///
/// One scan walks down the newest finished games and stops after `limit`
/// matches or [`PLAYER_SCAN`] games looked at; only the player ids and the
/// privacy of a game are read before it is known to be listed.
pub(super) fn recent_games(
    conn: &Connection,
    query: &GamesQuery,
) -> Result<Vec<GameSummary>, ServerError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, x_id, x_name, o_id, o_name, outcome, moves, ended_ms, public FROM games
         WHERE ended_ms IS NOT NULL ORDER BY ended_ms DESC LIMIT ?1",
    )?;
    let mut rows = stmt.query(params![PLAYER_SCAN])?;
    let mut out = Vec::new();
    while out.len() < query.limit as usize {
        let Some(r) = rows.next()? else { break };
        let x_id = r.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?;
        let o_id = r.get_ref(3)?.as_str().map_err(rusqlite::Error::from)?;
        if !query.lists(x_id, o_id, r.get(8)?) {
            continue;
        }
        let id: String = r.get(0)?;
        let outcome = r
            .get::<_, Option<String>>(5)?
            .ok_or_else(|| ServerError::Corrupt(format!("game {id} has no outcome")))?;
        out.push(GameSummary {
            players: ByPlayer {
                x: r.get(2)?,
                o: r.get(4)?,
            },
            outcome: from_json("outcome", &outcome)?,
            moves: r.get(6)?,
            ended_at_ms: r.get(7)?,
            id: id.into(),
        });
    }
    Ok(out)
}
