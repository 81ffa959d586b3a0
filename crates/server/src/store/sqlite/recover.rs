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
//! # Six queries, not seven per table
//!
//! The open tables, their players, their current games, those games'
//! moves, the tables' chat and the request ids of their earlier rounds
//! are read with one query each and joined here, so start-up with
//! thousands of unfinished tables costs six statements rather than tens of
//! thousands of point queries. Start-up first reads the open tables' rows
//! alone ([`load_open_rows`]), to list them before the server listens; the
//! other queries follow in the background, a batch of tables at a time, or
//! for one table that is asked for first ([`Scope::Keys`]).
//!
//! This file only reads; rebuilding table actors is `table::recover`'s job.

use std::collections::HashMap;
use std::sync::Arc;

use oxo_core::ByPlayer;
use oxo_protocol::Scores;
use rusqlite::Connection;

use super::scope::{Read, Scope, keyed, rows};

use crate::error::ServerError;
use crate::store::replay::saved_game;
use crate::store::rows::{MoveRow, PlayerRow, SavedGame, SavedTable, TableRow};
use crate::store::text::{self, from_json, token_hash_of};

/// What recovery found: the tables to resume (whole, or their rows),
/// and those skipped.
#[derive(Debug)]
pub(super) struct Recovered<T> {
    pub(super) tables: Vec<T>,
    pub(super) skipped: Vec<Skipped>,
}

impl<T> Recovered<T> {
    fn new() -> Recovered<T> {
        Recovered {
            tables: Vec::new(),
            skipped: Vec::new(),
        }
    }

    /// Keeps `table`, or notes why it was skipped.
    fn push(&mut self, seq: i64, id: Option<String>, table: Result<T, ServerError>) {
        match table {
            Ok(table) => self.tables.push(table),
            Err(error) => self.skipped.push(Skipped {
                table: id.unwrap_or_else(|| format!("key {seq}")),
                error,
            }),
        }
    }
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
    away_until_ms: ByPlayer<Option<i64>>,
    rematch: ByPlayer<bool>,
}

/// A `games` row as read, before it is checked.
struct RawGame {
    id: String,
    first: String,
    outcome: Option<String>,
    started_ms: i64,
}

/// A `moves` row as read, before it is checked.
struct RawMove {
    player: String,
    cell: String,
    req_id: Option<i64>,
    at_ms: i64,
}

/// The seated players' rows by id, before they are checked.
type Players = HashMap<String, Read<RawPlayer>>;

/// A `players` row as read, before it is checked.
struct RawPlayer {
    token_hash: Vec<u8>,
    name: String,
}

/// An open table's row as read: its key, its id if that reads, and the
/// rest (or the error of the column that did not read).
struct OpenTable {
    seq: i64,
    id: Option<String>,
    raw: Read<RawTable>,
}

/// Every table that is not closed, with its seated players and current
/// game; the tables that do not read back are in [`Recovered::skipped`].
///
/// # Errors
///
/// Only if a query as a whole fails (e.g. a missing table); a bad row
/// skips its table instead.
pub(super) fn load_open_tables(
    conn: &Connection,
    scope: Scope,
) -> Result<Recovered<SavedTable>, ServerError> {
    let tables = open_tables(conn, scope)?;
    let open = scope.open();
    let games = keyed(
        conn,
        &format!(
            "SELECT seq, id, first, outcome, started_ms FROM games
             WHERE seq IN (SELECT t.game FROM tables t WHERE {open})"
        ),
        scope,
        |r| {
            Ok(RawGame {
                id: r.get(1)?,
                first: r.get(2)?,
                outcome: r.get(3)?,
                started_ms: r.get(4)?,
            })
        },
    )?;
    let mut moves: HashMap<i64, Vec<Read<RawMove>>> = HashMap::new();
    for (game, m) in rows(
        conn,
        &format!(
            "SELECT game, player, cell, req_id, at_ms FROM moves
             WHERE game IN (SELECT t.game FROM tables t WHERE {open})
             ORDER BY game, ply"
        ),
        scope,
        |r| {
            Ok(RawMove {
                player: r.get(1)?,
                cell: r.get(2)?,
                req_id: r.get(3)?,
                at_ms: r.get(4)?,
            })
        },
    )? {
        moves.entry(game).or_default().push(m);
    }
    let players = seated_players(conn, scope)?;
    let mut chat = super::chat::of_open_tables(conn, scope)?;
    let mut earlier = super::earlier::of_open_tables(conn, scope)?;
    let mut out = Recovered::new();
    for OpenTable { seq, id, raw } in tables {
        let rebuilt = raw
            .map_err(ServerError::from)
            .and_then(|raw| rebuild(seq, raw, &players, &games, &mut moves))
            .map(|table| SavedTable {
                chat: chat.remove(&seq).unwrap_or_default(),
                earlier: earlier.remove(&seq).unwrap_or_default(),
                ..table
            });
        out.push(seq, id, rebuilt);
    }
    Ok(out)
}

/// The open tables' rows, checked, without their players or games: the
/// first of [`load_open_tables`]' six queries.
///
/// # Errors
///
/// As [`load_open_tables`].
pub(super) fn load_open_rows(conn: &Connection) -> Result<Recovered<TableRow>, ServerError> {
    let mut out = Recovered::new();
    for OpenTable { seq, id, raw } in open_tables(conn, Scope::All)? {
        out.push(
            seq,
            id,
            raw.map_err(ServerError::from)
                .and_then(|raw| table_row(seq, raw)),
        );
    }
    Ok(out)
}

/// The players seated at the scope's open tables, by id.
fn seated_players(conn: &Connection, scope: Scope) -> Result<Players, ServerError> {
    let open = scope.open();
    keyed(
        conn,
        // A join per seat, not `IN (... UNION ...)`: no temporary B-tree
        // to sort and deduplicate the ids (a player seated twice comes
        // twice and is keyed once).
        &format!(
            "SELECT p.id, p.token_hash, p.name FROM tables t JOIN players p ON p.id = t.x_player
             WHERE {open}
             UNION ALL
             SELECT p.id, p.token_hash, p.name FROM tables t JOIN players p ON p.id = t.o_player
             WHERE {open}"
        ),
        scope,
        |r| {
            Ok(RawPlayer {
                token_hash: r.get(1)?,
                name: r.get(2)?,
            })
        },
    )
}

/// The open tables in key order.
fn open_tables(conn: &Connection, scope: Scope) -> Result<Vec<OpenTable>, ServerError> {
    let open = scope.open();
    let rows = rows(
        conn,
        &format!(
            "SELECT seq, id, options, status, x_player, o_player, bot_seat, round, score_x,
                    score_o, draws, game, created_ms, x_away_until_ms, o_away_until_ms,
                    x_rematch, o_rematch
             FROM tables t WHERE {open} ORDER BY seq"
        ),
        scope,
        // `seq` is the rowid: always an integer. Any other column may hold
        // anything; its error is kept for the table's own verdict.
        |r| {
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
                    away_until_ms: ByPlayer {
                        x: r.get(13)?,
                        o: r.get(14)?,
                    },
                    rematch: ByPlayer {
                        x: r.get(15)?,
                        o: r.get(16)?,
                    },
                })
            })();
            Ok((r.get(1).ok(), raw))
        },
    )?;
    Ok(rows
        .into_iter()
        .map(|(seq, read)| match read {
            Ok((id, raw)) => OpenTable { seq, id, raw },
            Err(e) => OpenTable {
                seq,
                id: None,
                raw: Err(e),
            },
        })
        .collect())
}

/// A table's row checked; its seats and its game key as stored.
fn table_row(seq: i64, raw: RawTable) -> Result<TableRow, ServerError> {
    let options = from_json("options", &raw.options)?;
    let status = text::parse("table status", &raw.status)?;
    let bot_seat = raw
        .bot_seat
        .as_deref()
        .map(|p| text::parse("player", p))
        .transpose()?;
    Ok(TableRow {
        seq,
        id: Arc::from(raw.id),
        options,
        status,
        seats: ByPlayer {
            x: raw.seats.x.map(Arc::from),
            o: raw.seats.o.map(Arc::from),
        },
        bot_seat,
        round: raw.round,
        scores: raw.scores,
        game: raw.game,
        created_ms: raw.created_ms,
        away_until_ms: raw.away_until_ms,
        rematch: raw.rematch,
    })
}

/// A table read back whole: its [`table_row`], its seated players and
/// its current game replayed.
fn rebuild(
    seq: i64,
    raw: RawTable,
    players: &Players,
    games: &HashMap<i64, Read<RawGame>>,
    moves: &mut HashMap<i64, Vec<Read<RawMove>>>,
) -> Result<SavedTable, ServerError> {
    let mut row = table_row(seq, raw)?;
    // A seat whose player row is gone counts as empty (as before).
    let player = |id: &Option<Arc<str>>| -> Result<Option<PlayerRow>, ServerError> {
        let Some(id) = id else { return Ok(None) };
        match players.get(&**id) {
            None => Ok(None),
            Some(Err(e)) => Err(ServerError::Corrupt(format!("player {id}: {e}"))),
            Some(Ok(p)) => Ok(Some(PlayerRow {
                id: id.to_string(),
                token_hash: token_hash_of(&p.token_hash)?,
                name: p.name.clone(),
            })),
        }
    };
    let players = ByPlayer {
        x: player(&row.seats.x)?,
        o: player(&row.seats.o)?,
    };
    row.seats = ByPlayer {
        x: players.x.as_ref().map(|p| Arc::from(p.id.as_str())),
        o: players.o.as_ref().map(|p| Arc::from(p.id.as_str())),
    };
    let game = match row.game {
        None => None,
        Some(key) => match games.get(&key) {
            None => None,
            Some(Err(e)) => return Err(ServerError::Corrupt(format!("game {key}: {e}"))),
            Some(Ok(head)) => Some(replay(key, head, moves.remove(&key).unwrap_or_default())?),
        },
    };
    row.game = game.as_ref().map(|g| g.seq);
    Ok(SavedTable {
        row,
        players,
        game,
        chat: Vec::new(),
        earlier: Vec::new(),
        epoch: 0,
    })
}

/// A game's current state: its rows checked, then replayed.
fn replay(seq: i64, head: &RawGame, moves: Vec<Read<RawMove>>) -> Result<SavedGame, ServerError> {
    let id = &head.id;
    let in_game = |e: ServerError| match e {
        ServerError::Corrupt(what) => ServerError::Corrupt(format!("game {id}: {what}")),
        other => other,
    };
    let moves = moves
        .into_iter()
        .map(|m| {
            let m = m?;
            Ok(MoveRow {
                player: text::parse("player", &m.player)?,
                cell: text::parse("cell", &m.cell)?,
                // Request ids are opaque 64-bit values, stored bit for bit.
                req_id: m.req_id.map(|r| r as u64),
                at_ms: m.at_ms,
            })
        })
        .collect::<Result<Vec<_>, ServerError>>()
        .map_err(in_game)?;
    let outcome = head
        .outcome
        .as_deref()
        .map(|o| from_json("outcome", o))
        .transpose()
        .map_err(in_game)?;
    let first = text::parse("player", &head.first)?;
    saved_game(
        seq,
        Arc::from(id.as_str()),
        first,
        head.started_ms,
        &moves,
        outcome,
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use oxo_core::{Player, Square};

    use super::super::writes::apply;
    use super::*;
    use crate::store::conformance::table_with_a_move;

    fn db() -> Connection {
        let mut conn = Connection::open_in_memory().unwrap();
        super::super::schema::migrate(&mut conn).unwrap();
        conn
    }

    #[test]
    fn a_table_that_does_not_read_back_is_skipped_alone() {
        let conn = db();
        for n in 1..=6 {
            for w in &table_with_a_move(n) {
                apply(&conn, w).unwrap();
            }
        }
        conn.execute_batch(
            "UPDATE tables SET status = 'bogus' WHERE id = 't2';
             UPDATE tables SET options = 'not json' WHERE id = 't3';
             UPDATE moves SET cell = 'z9' WHERE game = 4;
             UPDATE players SET token_hash = x'0102' WHERE id = 'o5';
             UPDATE tables SET round = 'many' WHERE id = 't6';",
        )
        .unwrap();
        let recovered = load_open_tables(&conn, Scope::All).unwrap();

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
