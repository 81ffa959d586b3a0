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
/// One walk down the newest finished games stops after `limit` matches or
/// [`PLAYER_SCAN`] games looked at; only the player ids and the privacy of
/// a game are read before it is known to be listed. With a player, the walk
/// goes down that player's games only: the indexes `games_x` and `games_o`
/// (migration 8), merged newest first, so a player's games are found however
/// many newer games others have played.
pub(super) fn recent_games(
    conn: &Connection,
    query: &GamesQuery,
) -> Result<Vec<GameSummary>, ServerError> {
    const COLUMNS: &str = "id, x_id, x_name, o_id, o_name, outcome, moves, ended_ms, public, seq";
    let mut stmt;
    let mut rows = match (&query.player, &query.asker) {
        // The public games only, on their own index: the private ones are
        // never walked.
        (None, None) => {
            stmt = conn.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM games WHERE ended_ms IS NOT NULL AND public = 1
                 ORDER BY ended_ms DESC, seq DESC LIMIT ?1"
            ))?;
            stmt.query(params![PLAYER_SCAN])?
        }
        // The public games, and the asker's own at private tables (as X,
        // then as O against someone else), merged as below.
        (None, Some(asker)) => {
            stmt = conn.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM games WHERE ended_ms IS NOT NULL AND public = 1
                 UNION ALL
                 SELECT {COLUMNS} FROM games WHERE x_id = ?2 AND ended_ms IS NOT NULL
                     AND public = 0
                 UNION ALL
                 SELECT {COLUMNS} FROM games
                 WHERE o_id = ?2 AND x_id <> ?2 AND ended_ms IS NOT NULL AND public = 0
                 ORDER BY ended_ms DESC, seq DESC LIMIT ?1"
            ))?;
            stmt.query(params![PLAYER_SCAN, asker])?
        }
        // Each arm walks its index backwards and SQLite merges the two
        // (`MERGE (UNION ALL)`): no sort, and the walk stops when we do. A
        // game against oneself would be in both; the second arm skips it.
        (Some(player), _) => {
            stmt = conn.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM games WHERE x_id = ?2 AND ended_ms IS NOT NULL
                 UNION ALL
                 SELECT {COLUMNS} FROM games
                 WHERE o_id = ?2 AND x_id <> ?2 AND ended_ms IS NOT NULL
                 ORDER BY ended_ms DESC, seq DESC LIMIT ?1"
            ))?;
            stmt.query(params![PLAYER_SCAN, player])?
        }
    };
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::super::schema::migrate;
    use super::*;

    /// A migrated in-memory database holding `others` finished games
    /// between other players (ended at 1000 ms and later; at public tables
    /// or not, as `public_others`), then finished games of `p`: g-old
    /// (ended at 1 ms, p playing X) and g-private (at 2 ms, p playing O, at
    /// a private table).
    fn games(others: u32, public_others: bool) -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        conn.execute(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?1)
             INSERT INTO games (seq, id, table_id, round, first, x_id, x_name, o_id, o_name,
                                started_ms, ended_ms, outcome, moves, public)
             SELECT i + 10, 'g' || i, 't', i, 'X', 'a', 'A', 'b', 'B', 0, 1000 + i,
                    '{\"result\":\"draw\"}', 9, ?2 FROM n",
            params![others, public_others],
        )
        .unwrap();
        for (seq, id, x, o, ended, public) in [
            (1, "g-old", "p", "q", 1, true),
            (2, "g-private", "q", "p", 2, false),
        ] {
            conn.execute(
                "INSERT INTO games (seq, id, table_id, round, first, x_id, x_name, o_id, o_name,
                                    started_ms, ended_ms, outcome, moves, public)
                 VALUES (?1, ?2, 't', 1, 'X', ?3, ?3, ?4, ?4, 0, ?5, '{\"result\":\"draw\"}', 9, ?6)",
                params![seq, id, x, o, ended, public],
            )
            .unwrap();
        }
        conn
    }

    fn listed(conn: &Connection, player: Option<&str>, asker: Option<&str>) -> Vec<String> {
        let query = GamesQuery {
            player: player.map(str::to_owned),
            asker: asker.map(str::to_owned),
            limit: 20,
        };
        let games = recent_games(conn, &query).unwrap();
        games.into_iter().map(|g| g.id.to_string()).collect()
    }

    #[test]
    fn a_players_games_are_found_behind_a_scan_worth_of_newer_games() {
        let conn = games(PLAYER_SCAN, true);
        assert_eq!(listed(&conn, Some("p"), None), ["g-old"]);
        assert_eq!(listed(&conn, Some("p"), Some("p")), ["g-private", "g-old"]);
        assert_eq!(listed(&conn, Some("q"), Some("q")), ["g-private", "g-old"]);
        assert!(listed(&conn, Some("nobody"), None).is_empty());
    }

    /// Everyone's list walks the public games only (and the asker's own):
    /// a scan's worth of newer private games neither hides an older public
    /// game nor costs a walk over them.
    #[test]
    fn public_games_are_found_behind_a_scan_worth_of_newer_private_games() {
        let conn = games(PLAYER_SCAN, false);
        assert_eq!(listed(&conn, None, None), ["g-old"]);
        assert_eq!(listed(&conn, None, Some("p")), ["g-private", "g-old"]);
        assert_eq!(listed(&conn, None, Some("a"))[..2], ["g100000", "g99999"]);
        assert_eq!(listed(&conn, None, Some("nobody")), ["g-old"]);
    }
}
