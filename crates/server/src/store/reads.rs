//! Queries: the HTTP API's (records, lists of games), token look-ups, and
//! the recovery of unfinished tables on start.
//!
//! Everything here only reads; it runs on the read connection (or, for an
//! in-memory database, on the writer's). Stored text that does not parse is
//! reported as [`ServerError::Corrupt`], never trusted.

use std::sync::Arc;

use oxo_core::{BotLevel, ByPlayer, Game, Outcome, Player, Square, WinReason};
use oxo_protocol::{
    GameRecord, GameSummary, RecordPlayer, RecordedMove, Scoreboard, TableOptions, TableStatus,
};
use rusqlite::{Connection, OptionalExtension, params};

use super::writes::TableRow;
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

/// An unfinished table read back on start.
#[derive(Debug)]
pub(crate) struct SavedTable {
    pub(crate) row: TableRow,
    pub(crate) players: ByPlayer<Option<PlayerRow>>,
    pub(crate) game: Option<SavedGame>,
}

/// The current round of a saved table.
#[derive(Debug)]
pub(crate) struct SavedGame {
    pub(crate) seq: i64,
    pub(crate) id: Arc<str>,
    pub(crate) game: Game,
    /// Request ids of the moves that had one: seat, id, cell.
    pub(crate) accepted: Vec<(Player, u64, Square)>,
}
fn parse_status(s: &str) -> Result<TableStatus, ServerError> {
    Ok(match s {
        "waiting" => TableStatus::Waiting,
        "in_progress" => TableStatus::InProgress,
        "round_over" => TableStatus::RoundOver,
        "closed" => TableStatus::Closed,
        other => return Err(ServerError::Corrupt(format!("table status {other:?}"))),
    })
}

fn parse_player(s: &str) -> Result<Player, ServerError> {
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
fn token_hash_of(blob: Vec<u8>) -> Result<TokenHash, ServerError> {
    TokenHash::try_from(blob.as_slice())
        .map_err(|_| ServerError::Corrupt("token hash is not 32 bytes".into()))
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

fn player_by_id(conn: &Connection, id: &str) -> Result<Option<PlayerRow>, ServerError> {
    let row = conn
        .prepare_cached("SELECT token_hash, name FROM players WHERE id = ?1")?
        .query_row(params![id], |r| {
            Ok((r.get::<_, Vec<u8>>(0)?, r.get::<_, String>(1)?))
        })
        .optional()?;
    row.map(|(hash, name)| {
        Ok(PlayerRow {
            id: id.to_owned(),
            token_hash: token_hash_of(hash)?,
            name,
        })
    })
    .transpose()
}

/// Every table that is not closed, with its seated players and current game.
pub(super) fn load_open_tables(conn: &Connection) -> Result<Vec<SavedTable>, ServerError> {
    let mut stmt = conn.prepare(
        "SELECT id, options, status, x_player, o_player, bot_seat, round, score_x, score_o,
                draws, game, created_ms, seq
         FROM tables WHERE status <> 'closed' ORDER BY seq",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, String>(2)?,
            r.get::<_, Option<String>>(3)?,
            r.get::<_, Option<String>>(4)?,
            r.get::<_, Option<String>>(5)?,
            r.get::<_, u32>(6)?,
            Scoreboard {
                x: r.get(7)?,
                o: r.get(8)?,
                draws: r.get(9)?,
            },
            r.get::<_, Option<i64>>(10)?,
            r.get::<_, i64>(11)?,
            r.get::<_, i64>(12)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, options, status, x, o, bot_seat, round, scores, game, created_ms, seq) = row?;
        let options: TableOptions = serde_json::from_str(&options)?;
        let players = ByPlayer {
            x: x.as_deref()
                .map(|id| player_by_id(conn, id))
                .transpose()?
                .flatten(),
            o: o.as_deref()
                .map(|id| player_by_id(conn, id))
                .transpose()?
                .flatten(),
        };
        let saved_game = game.map(|g| load_game(conn, g)).transpose()?.flatten();
        out.push(SavedTable {
            row: TableRow {
                seq,
                id: Arc::from(id),
                options,
                status: parse_status(&status)?,
                seats: ByPlayer {
                    x: players.x.as_ref().map(|p| Arc::from(p.id.as_str())),
                    o: players.o.as_ref().map(|p| Arc::from(p.id.as_str())),
                },
                bot_seat: bot_seat.as_deref().map(parse_player).transpose()?,
                round,
                scores,
                game: saved_game.as_ref().map(|g| g.seq),
                created_ms,
            },
            players,
            game: saved_game,
        });
    }
    Ok(out)
}

/// A game's current state, replayed from its moves.
fn load_game(conn: &Connection, seq: i64) -> Result<Option<SavedGame>, ServerError> {
    let head = conn
        .prepare_cached("SELECT id, first, outcome FROM games WHERE seq = ?1")?
        .query_row(params![seq], |r| {
            Ok((
                r.get::<_, String>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<String>>(2)?,
            ))
        })
        .optional()?;
    let Some((id, first, outcome)) = head else {
        return Ok(None);
    };
    let first = parse_player(&first)?;
    let mut game = Game::with_first(first);
    let mut accepted = Vec::new();
    let mut stmt =
        conn.prepare_cached("SELECT player, cell, req_id FROM moves WHERE game = ?1 ORDER BY ply")?;
    let moves = stmt.query_map(params![seq], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Option<i64>>(2)?,
        ))
    })?;
    for m in moves {
        let (player, cell, req_id) = m?;
        let player = parse_player(&player)?;
        let cell: Square = cell
            .parse()
            .map_err(|_| ServerError::Corrupt(format!("cell {cell:?}")))?;
        if game.to_move() != Some(player) {
            return Err(ServerError::Corrupt(format!(
                "game {id}: {player} moved out of turn"
            )));
        }
        game.play(cell)
            .map_err(|e| ServerError::Corrupt(format!("game {id}: {e}")))?;
        if let Some(r) = req_id {
            accepted.push((player, r as u64, cell));
        }
    }
    if let Some(outcome) = outcome {
        let outcome: Outcome = serde_json::from_str(&outcome)?;
        if game.outcome().is_none() {
            if let Outcome::Win { winner, reason } = outcome {
                let loser = !winner;
                let _ = match reason {
                    WinReason::Forfeit => game.forfeit(loser),
                    WinReason::Dropped => game.drop_player(loser),
                    WinReason::Timeout => game.time_out(loser),
                    WinReason::Line { .. } => {
                        return Err(ServerError::Corrupt(format!(
                            "game {id}: a line win the moves do not show"
                        )));
                    }
                };
            }
        }
    }
    Ok(Some(SavedGame {
        seq,
        id: Arc::from(id),
        game,
        accepted,
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
