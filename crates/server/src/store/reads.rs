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

/// How many of the newest finished games a listing looks at, at most.
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

/// `GET /api/games/{id}`: the record of game `id` as `asker` (the player
/// id the request proved, if any) may see it: a game at a private table
/// names its table only to its two players.
pub(crate) fn game_record(
    conn: &Connection,
    id: &str,
    asker: Option<&str>,
) -> Result<Option<GameRecord>, ServerError> {
    type Head = (
        String,
        u32,
        String,
        [(String, String, Option<String>); 2],
        i64,
        Option<i64>,
        Option<String>,
        i64,
        bool,
    );
    let head: Option<Head> = conn
        .prepare_cached(
            "SELECT table_id, round, first, x_id, x_name, x_bot, o_id, o_name, o_bot,
                    started_ms, ended_ms, outcome, seq, public
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
                r.get(13)?,
            ))
        })
        .optional()?;
    let Some((table_id, round, first, [x, o], started_at_ms, ended_at_ms, outcome, seq, public)) =
        head
    else {
        return Ok(None);
    };
    let played = asker.is_some_and(|a| a == x.0 || a == o.0);
    let table_id = (public || played).then_some(table_id);
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

/// `GET /api/games?player=&limit=`: finished games, newest first, as
/// `asker` (the player id the request proved, if any) may see them.
///
/// Without `player`: the games of public tables, and the asker's own. With
/// `player`: that player's games at public tables, and their games at
/// private tables too if the asker is that player.
///
/// There is no index by player or by privacy (see the schema): one scan
/// walks down the newest finished games and stops after `limit` matches or
/// [`PLAYER_SCAN`] games looked at.
pub(crate) fn recent_games(
    conn: &Connection,
    player: Option<&str>,
    asker: Option<&str>,
    limit: u32,
) -> Result<Vec<GameSummary>, ServerError> {
    let mut stmt = conn.prepare_cached(
        "SELECT id, x_id, x_name, o_id, o_name, outcome, moves, ended_ms, public FROM games
         WHERE ended_ms IS NOT NULL ORDER BY ended_ms DESC LIMIT ?1",
    )?;
    let mut rows = stmt.query(params![PLAYER_SCAN])?;
    let mut out = Vec::new();
    while out.len() < limit as usize {
        let Some(r) = rows.next()? else { break };
        let x_id = r.get_ref(1)?.as_str().map_err(rusqlite::Error::from)?;
        let o_id = r.get_ref(3)?.as_str().map_err(rusqlite::Error::from)?;
        let public: bool = r.get(8)?;
        let visible = match player {
            None => public || asker.is_some_and(|a| a == x_id || a == o_id),
            Some(p) => (p == x_id || p == o_id) && (public || asker == Some(p)),
        };
        if !visible {
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
            outcome: serde_json::from_str(&outcome)?,
            moves: r.get(6)?,
            ended_at_ms: r.get(7)?,
            id,
        });
    }
    Ok(out)
}
