//! Recovery on start: every unfinished table read back, with its seated
//! players and its current game replayed from its moves.
//!
//! # One broken table costs that table, not the server
//!
//! Each table is rebuilt on its own. A row that does not read back (a
//! status that is no status, options that are not JSON, a move that is not
//! a cell or out of turn, a token hash of the wrong size) skips that table:
//! the store logs a warning naming it and the reason, the other tables
//! resume, and the skipped row stays in the database as it was, for a
//! person to look at.
//!
//! # Four queries, not five per table
//!
//! The open tables, their players, their current games and those games'
//! moves are read with one query each and joined here, so start-up with
//! thousands of unfinished tables costs four statements rather than tens of
//! thousands of point queries.
//!
//! This file only reads; rebuilding table actors is `table::recover`'s job.

use std::collections::HashMap;
use std::sync::Arc;

use oxo_core::{ByPlayer, Game, Outcome, Player, Square, WinReason};
use oxo_protocol::{Scores, TableOptions};
use rusqlite::Connection;

use super::reads::{PlayerRow, parse_player, parse_status, token_hash_of};
use super::writes::TableRow;
use crate::error::ServerError;

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

/// What recovery found: the tables to resume, and those skipped.
#[derive(Debug, Default)]
pub(super) struct Recovered {
    pub(super) tables: Vec<SavedTable>,
    pub(super) skipped: Vec<Skipped>,
}

/// A table that could not be read back.
#[derive(Debug)]
pub(super) struct Skipped {
    /// Its id, or `key <seq>` if even the id did not read.
    pub(super) table: String,
    pub(super) error: ServerError,
}

/// A `tables` row as read, before it is checked.
struct RawTable {
    id: String,
    options: String,
    status: String,
    seats: ByPlayer<Option<String>>,
    bot_seat: Option<String>,
    round: u32,
    scores: Scores,
    game: Option<i64>,
    created_ms: i64,
}

/// A `games` row as read: id, first mover, outcome JSON.
type RawGame = (String, String, Option<String>);
/// A `moves` row as read: player, cell, request id.
type RawMove = (String, String, Option<i64>);
/// `players` rows as read, by id: token hash, name.
type RawPlayers = HashMap<String, rusqlite::Result<(Vec<u8>, String)>>;

/// Every table that is not closed, with its seated players and current
/// game; the tables that do not read back are in [`Recovered::skipped`].
///
/// # Errors
///
/// Only if a query as a whole fails (e.g. a missing table); a bad row
/// skips its table instead.
pub(super) fn load_open_tables(conn: &Connection) -> Result<Recovered, ServerError> {
    let tables = open_tables(conn)?;
    let players = players(conn)?;
    let games = games(conn)?;
    let mut moves = moves(conn)?;
    let mut out = Recovered::default();
    for (seq, id, raw) in tables {
        let rebuilt = raw
            .map_err(ServerError::from)
            .and_then(|raw| rebuild(seq, raw, &players, &games, &mut moves));
        match rebuilt {
            Ok(table) => out.tables.push(table),
            Err(error) => out.skipped.push(Skipped {
                table: id.unwrap_or_else(|| format!("key {seq}")),
                error,
            }),
        }
    }
    Ok(out)
}

type TableRead = (i64, Option<String>, rusqlite::Result<RawTable>);

fn open_tables(conn: &Connection) -> Result<Vec<TableRead>, ServerError> {
    let mut stmt = conn.prepare(
        "SELECT seq, id, options, status, x_player, o_player, bot_seat, round, score_x,
                score_o, draws, game, created_ms
         FROM tables WHERE status <> 'closed' ORDER BY seq",
    )?;
    let rows = stmt.query_map([], |r| {
        // `seq` is the rowid: always an integer. Any other column may hold
        // anything; its error is kept for the table's own verdict.
        let raw = (|| {
            Ok(RawTable {
                id: r.get(1)?,
                options: r.get(2)?,
                status: r.get(3)?,
                seats: ByPlayer {
                    x: r.get(4)?,
                    o: r.get(5)?,
                },
                bot_seat: r.get(6)?,
                round: r.get(7)?,
                scores: Scores {
                    x: r.get(8)?,
                    o: r.get(9)?,
                    draws: r.get(10)?,
                },
                game: r.get(11)?,
                created_ms: r.get(12)?,
            })
        })();
        Ok((r.get(0)?, r.get(1).ok(), raw))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The players seated at open tables, by id.
fn players(conn: &Connection) -> Result<RawPlayers, ServerError> {
    let mut stmt = conn.prepare(
        "SELECT id, token_hash, name FROM players WHERE id IN (
             SELECT x_player FROM tables WHERE status <> 'closed'
             UNION SELECT o_player FROM tables WHERE status <> 'closed')",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, (|| Ok((r.get(1)?, r.get(2)?)))()))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The current games of open tables, by key.
fn games(conn: &Connection) -> Result<HashMap<i64, rusqlite::Result<RawGame>>, ServerError> {
    let mut stmt = conn.prepare(
        "SELECT seq, id, first, outcome FROM games
         WHERE seq IN (SELECT game FROM tables WHERE status <> 'closed')",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            (|| Ok((r.get(1)?, r.get(2)?, r.get(3)?)))(),
        ))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The moves of the current games of open tables, by game key, in order.
fn moves(conn: &Connection) -> Result<HashMap<i64, Vec<rusqlite::Result<RawMove>>>, ServerError> {
    let mut stmt = conn.prepare(
        "SELECT game, player, cell, req_id FROM moves
         WHERE game IN (SELECT game FROM tables WHERE status <> 'closed')
         ORDER BY game, ply",
    )?;
    let rows = stmt.query_map([], |r| {
        Ok((
            r.get::<_, i64>(0)?,
            (|| Ok((r.get(1)?, r.get(2)?, r.get(3)?)))(),
        ))
    })?;
    let mut out: HashMap<i64, Vec<_>> = HashMap::new();
    for row in rows {
        let (game, m) = row?;
        out.entry(game).or_default().push(m);
    }
    Ok(out)
}

fn rebuild(
    seq: i64,
    raw: RawTable,
    players: &RawPlayers,
    games: &HashMap<i64, rusqlite::Result<RawGame>>,
    moves: &mut HashMap<i64, Vec<rusqlite::Result<RawMove>>>,
) -> Result<SavedTable, ServerError> {
    let options: TableOptions = serde_json::from_str(&raw.options)
        .map_err(|e| ServerError::Corrupt(format!("options: {e}")))?;
    let status = parse_status(&raw.status)?;
    let bot_seat = raw.bot_seat.as_deref().map(parse_player).transpose()?;
    // A seat whose player row is gone counts as empty (as before).
    let player = |id: &Option<String>| -> Result<Option<PlayerRow>, ServerError> {
        let Some(id) = id else { return Ok(None) };
        match players.get(id) {
            None => Ok(None),
            Some(Err(e)) => Err(ServerError::Corrupt(format!("player {id}: {e}"))),
            Some(Ok((hash, name))) => Ok(Some(PlayerRow {
                id: id.clone(),
                token_hash: token_hash_of(hash)?,
                name: name.clone(),
            })),
        }
    };
    let seated = ByPlayer {
        x: player(&raw.seats.x)?,
        o: player(&raw.seats.o)?,
    };
    let game = match raw.game {
        None => None,
        Some(key) => match games.get(&key) {
            None => None,
            Some(Err(e)) => return Err(ServerError::Corrupt(format!("game {key}: {e}"))),
            Some(Ok(head)) => Some(replay(key, head, moves.remove(&key).unwrap_or_default())?),
        },
    };
    Ok(SavedTable {
        row: TableRow {
            seq,
            id: Arc::from(raw.id),
            options,
            status,
            seats: ByPlayer {
                x: seated.x.as_ref().map(|p| Arc::from(p.id.as_str())),
                o: seated.o.as_ref().map(|p| Arc::from(p.id.as_str())),
            },
            bot_seat,
            round: raw.round,
            scores: raw.scores,
            game: game.as_ref().map(|g| g.seq),
            created_ms: raw.created_ms,
        },
        players: seated,
        game,
    })
}

/// A game's current state, replayed from its moves.
fn replay(
    seq: i64,
    (id, first, outcome): &RawGame,
    moves: Vec<rusqlite::Result<RawMove>>,
) -> Result<SavedGame, ServerError> {
    let mut game = Game::with_first(parse_player(first)?);
    let mut accepted = Vec::new();
    for m in moves {
        let (player, cell, req_id) = m?;
        let player = parse_player(&player)?;
        let cell: Square = cell
            .parse()
            .map_err(|_| ServerError::Corrupt(format!("game {id}: cell {cell:?}")))?;
        if game.to_move() != Some(player) {
            return Err(ServerError::Corrupt(format!(
                "game {id}: {player} moved out of turn"
            )));
        }
        game.play(cell)
            .map_err(|e| ServerError::Corrupt(format!("game {id}: {e}")))?;
        if let Some(r) = req_id {
            // Request ids are opaque 64-bit values, stored bit for bit.
            accepted.push((player, r as u64, cell));
        }
    }
    if let Some(outcome) = outcome {
        let outcome: Outcome = serde_json::from_str(outcome)
            .map_err(|e| ServerError::Corrupt(format!("game {id}: outcome: {e}")))?;
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
    Ok(SavedGame {
        seq,
        id: Arc::from(id.as_str()),
        game,
        accepted,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use oxo_protocol::TableStatus;

    use super::super::writes::{GamePlayer, GameStart, Write, apply};
    use super::*;

    fn db() -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::schema::migrate(&mut conn).unwrap();
        conn
    }

    /// Table `t{n}` (key n) with players `x{n}` and `o{n}` and game n, in
    /// which X has played b2.
    fn table_with_a_move(conn: &Connection, n: i64) {
        let (x, o) = (format!("x{n}"), format!("o{n}"));
        let mut writes = Vec::new();
        for p in [&x, &o] {
            writes.push(Write::Player {
                id: p.as_str().into(),
                token_hash: crate::ids::new_token().1,
                name: p.as_str().into(),
            });
        }
        let seat = |id: &str| GamePlayer {
            id: id.into(),
            name: id.into(),
            bot: None,
        };
        writes.push(Write::GameStart(Box::new(GameStart {
            seq: n,
            id: format!("g{n}").into(),
            table_id: format!("t{n}").into(),
            round: 1,
            first: Player::X,
            players: ByPlayer {
                x: seat(&x),
                o: seat(&o),
            },
            at_ms: 0,
            public: true,
        })));
        writes.push(Write::Move {
            game: n,
            ply: 1,
            player: Player::X,
            cell: Square::B2,
            at_ms: 0,
            req_id: Some(7),
        });
        writes.push(Write::Table(Box::new(TableRow {
            seq: n,
            id: format!("t{n}").into(),
            options: TableOptions::default(),
            status: TableStatus::InProgress,
            seats: ByPlayer {
                x: Some(x.as_str().into()),
                o: Some(o.as_str().into()),
            },
            bot_seat: None,
            round: 1,
            scores: Scores::default(),
            game: Some(n),
            created_ms: 0,
        })));
        for w in &writes {
            apply(conn, w).unwrap();
        }
    }

    #[test]
    fn a_table_that_does_not_read_back_is_skipped_alone() {
        let conn = db();
        for n in 1..=6 {
            table_with_a_move(&conn, n);
        }
        conn.execute_batch(
            "UPDATE tables SET status = 'bogus' WHERE id = 't2';
             UPDATE tables SET options = 'not json' WHERE id = 't3';
             UPDATE moves SET cell = 'z9' WHERE game = 4;
             UPDATE players SET token_hash = x'0102' WHERE id = 'o5';
             UPDATE tables SET round = 'many' WHERE id = 't6';",
        )
        .unwrap();
        let recovered = load_open_tables(&conn).unwrap();

        assert_eq!(recovered.tables.len(), 1);
        let t1 = &recovered.tables[0];
        assert_eq!(&*t1.row.id, "t1");
        assert_eq!(t1.players.o.as_ref().unwrap().id, "o1");
        let game = t1.game.as_ref().unwrap();
        assert_eq!(game.game.to_move(), Some(Player::O));
        assert_eq!(game.accepted, [(Player::X, 7, Square::B2)]);

        let skipped: Vec<(&str, String)> = recovered
            .skipped
            .iter()
            .map(|s| (s.table.as_str(), s.error.to_string()))
            .collect();
        let ids: Vec<&str> = skipped.iter().map(|s| s.0).collect();
        assert_eq!(ids, ["t2", "t3", "t4", "t5", "t6"]);
        for ((_, reason), expected) in skipped.iter().zip([
            "table status \"bogus\"",
            "options: expected",
            "cell \"z9\"",
            "token hash is not 32 bytes",
            "round",
        ]) {
            assert!(reason.contains(expected), "{reason:?} lacks {expected:?}");
        }
    }
}
