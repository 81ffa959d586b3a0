//! Queries: the HTTP API's (records, lists of games) and token look-ups,
//! and the parsers of stored text that recovery shares.
//!
//! Everything here only reads; it runs on the read connection (or, for an
//! in-memory database, on the writer's). Stored text that does not parse is
//! reported as [`ServerError::Corrupt`], never trusted.

use oxo_core::{BotLevel, ByPlayer, Player};
use oxo_protocol::{GameRecord, GameSummary, RecordPlayer, RecordedMove, TableStatus};
use rusqlite::{Connection, OptionalExtension, params};

use crate::error::ServerError;
use crate::ids::TokenHash;

/// How many of the newest finished games a search by player looks at.
pub(crate) const PLAYER_SCAN: u32 = 100_000;

/// A player as stored.
#[derive(Clone, Debug)]
pub(crate) struct PlayerRow {
    pub(crate) id: String,
    pub(crate) token_hash: TokenHash,
    pub(crate) name: String,
}

pub(super) fn parse_status(s: &str) -> Result<TableStatus, ServerError> {
    Ok(match s {
        "waiting" => TableStatus::Waiting,
        "in_progress" => TableStatus::InProgress,
        "round_over" => TableStatus::RoundOver,
        "closed" => TableStatus::Closed,
        other => return Err(ServerError::Corrupt(format!("table status {other:?}"))),
    })
}

pub(super) fn parse_player(s: &str) -> Result<Player, ServerError> {
    s.parse()
        .map_err(|_| ServerError::Corrupt(format!("player {s:?}")))
}

fn parse_bot(s: Option<String>) -> Result<Option<BotLevel>, ServerError> {
    s.map(|s| {
        s.parse()
            .map_err(|_| ServerError::Corrupt(format!("bot level {s:?}")))
    })
    .transpose()
}

pub(super) fn token_hash_of(blob: &[u8]) -> Result<TokenHash, ServerError> {
    TokenHash::try_from(blob).map_err(|_| ServerError::Corrupt("token hash is not 32 bytes".into()))
}

/// The player holding `token_hash`, if any.
pub(crate) fn player_by_token(
    conn: &Connection,
    token_hash: TokenHash,
) -> Result<Option<PlayerRow>, ServerError> {
    let row = conn
        .prepare_cached("SELECT id, name FROM players WHERE token_hash = ?1")?
        .query_row(params![&token_hash[..]], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?))
        })
        .optional()?;
    Ok(row.map(|(id, name)| PlayerRow {
        id,
        token_hash,
        name,
    }))
}

/// `GET /api/games/{id}`.
pub(crate) fn game_record(conn: &Connection, id: &str) -> Result<Option<GameRecord>, ServerError> {
    type Head = (
        String,
        u32,
        String,
        [(String, String, Option<String>); 2],
        i64,
        Option<i64>,
        Option<String>,
        i64,
    );
    let head: Option<Head> = conn
        .prepare_cached(
            "SELECT table_id, round, first, x_id, x_name, x_bot, o_id, o_name, o_bot,
                    started_ms, ended_ms, outcome, seq
             FROM games WHERE id = ?1",
        )?
        .query_row(params![id], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                [
                    (r.get(3)?, r.get(4)?, r.get(5)?),
                    (r.get(6)?, r.get(7)?, r.get(8)?),
                ],
                r.get(9)?,
                r.get(10)?,
                r.get(11)?,
                r.get(12)?,
            ))
        })
        .optional()?;
    let Some((table_id, round, first, [x, o], started_at_ms, ended_at_ms, outcome, seq)) = head
    else {
        return Ok(None);
    };
    let record_player = |(id, name, bot): (String, String, Option<String>)| {
        Ok::<_, ServerError>(RecordPlayer {
            id,
            name,
            bot: parse_bot(bot)?,
        })
    };
    let mut stmt = conn.prepare_cached(
        "SELECT ply, player, cell, at_ms FROM moves WHERE game = ?1 ORDER BY ply",
    )?;
    let rows = stmt.query_map(params![seq], |r| {
        Ok((
            r.get::<_, u32>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, i64>(3)?,
        ))
    })?;
    let mut moves = Vec::new();
    for row in rows {
        let (ply, player, cell, at_ms) = row?;
        moves.push(RecordedMove {
            ply,
            player: parse_player(&player)?,
            cell: cell
                .parse()
                .map_err(|_| ServerError::Corrupt(format!("cell {cell:?}")))?,
            at_ms,
        });
    }
    Ok(Some(GameRecord {
        id: id.to_owned(),
        table_id,
        round,
        players: ByPlayer {
            x: record_player(x)?,
            o: record_player(o)?,
        },
        first: parse_player(&first)?,
        moves,
        outcome: outcome.map(|o| serde_json::from_str(&o)).transpose()?,
        started_at_ms,
        ended_at_ms,
    }))
}

/// `GET /api/games?player=&limit=`: finished games, newest first.
pub(crate) fn recent_games(
    conn: &Connection,
    player: Option<&str>,
    limit: u32,
) -> Result<Vec<GameSummary>, ServerError> {
    let sql_all = "SELECT id, x_name, o_name, outcome, moves, ended_ms FROM games
                   WHERE ended_ms IS NOT NULL ORDER BY ended_ms DESC LIMIT ?1";
    // No index by player (see the schema): look through the newest
    // finished games only.
    let sql_player = "SELECT id, x_name, o_name, outcome, moves, ended_ms FROM
                          (SELECT * FROM games WHERE ended_ms IS NOT NULL
                           ORDER BY ended_ms DESC LIMIT ?3)
                      WHERE x_id = ?2 OR o_id = ?2
                      ORDER BY ended_ms DESC LIMIT ?1";
    let map = |r: &rusqlite::Row<'_>| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, Option<String>>(3)?,
            r.get::<_, u32>(4)?,
            r.get::<_, i64>(5)?,
        ))
    };
    let rows: Vec<_> = match player {
        None => conn
            .prepare_cached(sql_all)?
            .query_map(params![limit], map)?
            .collect::<Result<_, _>>()?,
        Some(p) => conn
            .prepare_cached(sql_player)?
            .query_map(params![limit, p, PLAYER_SCAN], map)?
            .collect::<Result<_, _>>()?,
    };
    rows.into_iter()
        .map(|(id, x, o, outcome, moves, ended_at_ms)| {
            let outcome =
                outcome.ok_or_else(|| ServerError::Corrupt(format!("game {id} has no outcome")))?;
            Ok(GameSummary {
                id,
                players: ByPlayer { x, o },
                outcome: serde_json::from_str(&outcome)?,
                moves,
                ended_at_ms,
            })
        })
        .collect()
}
