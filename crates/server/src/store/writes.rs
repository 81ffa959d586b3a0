//! Row changes ([`Write`]) and the SQL that applies each one.
//!
//! The writer thread (in the parent module) decides when and in which
//! transaction a write runs; this file only says what it does to the rows.

use std::sync::Arc;

use oxo_core::{BotLevel, ByPlayer, Outcome, Player, Square};
use oxo_protocol::{Scores, TableOptions, TableStatus};
use rusqlite::{Connection, params};

use crate::ids::{TokenHash, now_ms};

/// One row-level change.
#[derive(Debug)]
pub(crate) enum Write {
    /// A new player.
    Player {
        id: Arc<str>,
        token_hash: TokenHash,
        name: Arc<str>,
    },
    /// A player's new display name.
    PlayerName { id: Arc<str>, name: Arc<str> },
    /// A table's whole row (insert or update).
    Table(Box<TableRow>),
    /// A round started.
    GameStart(Box<GameStart>),
    /// A move (`ply` from 1) of the game with key `game`.
    Move {
        game: i64,
        ply: u32,
        player: Player,
        cell: Square,
        at_ms: i64,
        req_id: Option<u64>,
    },
    /// The game with key `game` ended.
    GameEnd {
        game: i64,
        outcome: Outcome,
        moves: u32,
        at_ms: i64,
    },
    /// A health probe: rewrites the one row of `health`.
    HealthProbe { at_ms: i64 },
}

/// A table as stored.
#[derive(Clone, Debug)]
pub(crate) struct TableRow {
    /// The integer key.
    pub(crate) seq: i64,
    pub(crate) id: Arc<str>,
    pub(crate) options: TableOptions,
    pub(crate) status: TableStatus,
    /// Player ids of the human seats.
    pub(crate) seats: ByPlayer<Option<Arc<str>>>,
    pub(crate) bot_seat: Option<Player>,
    pub(crate) round: u32,
    pub(crate) scores: Scores,
    /// The key of the current (or last) game.
    pub(crate) game: Option<i64>,
    pub(crate) created_ms: i64,
}

/// One side of a game as stored.
#[derive(Clone, Debug)]
pub(crate) struct GamePlayer {
    pub(crate) id: Arc<str>,
    pub(crate) name: Arc<str>,
    pub(crate) bot: Option<BotLevel>,
}

/// The start of a round.
#[derive(Clone, Debug)]
pub(crate) struct GameStart {
    /// The integer key.
    pub(crate) seq: i64,
    pub(crate) id: Arc<str>,
    pub(crate) table_id: Arc<str>,
    pub(crate) round: u32,
    pub(crate) first: Player,
    pub(crate) players: ByPlayer<GamePlayer>,
    pub(crate) at_ms: i64,
    /// Whether the table is public; the records of private tables are
    /// listed only for their players.
    pub(crate) public: bool,
}

fn player_str(p: Player) -> &'static str {
    p.fold_xo("X", "O")
}

fn status_str(s: TableStatus) -> &'static str {
    match s {
        TableStatus::Waiting => "waiting",
        TableStatus::InProgress => "in_progress",
        TableStatus::RoundOver => "round_over",
        TableStatus::Closed => "closed",
    }
}

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
        }
        Write::Table(row) => {
            let options = serde_json::to_string(&row.options)
                .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
            conn.prepare_cached(
                "INSERT INTO tables (seq, id, options, status, x_player, o_player, bot_seat, round,
                     score_x, score_o, draws, game, created_ms, updated_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
                 ON CONFLICT (seq) DO UPDATE SET
                     status = excluded.status, x_player = excluded.x_player,
                     o_player = excluded.o_player, bot_seat = excluded.bot_seat,
                     round = excluded.round, score_x = excluded.score_x,
                     score_o = excluded.score_o, draws = excluded.draws,
                     game = excluded.game, updated_ms = excluded.updated_ms",
            )?
            .execute(params![
                row.seq,
                row.id,
                options,
                status_str(row.status),
                row.seats.x,
                row.seats.o,
                row.bot_seat.map(player_str),
                row.round,
                row.scores.x,
                row.scores.o,
                row.scores.draws,
                row.game,
                row.created_ms,
                now_ms(),
            ])?;
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
                player_str(g.first),
                g.players.x.id,
                g.players.x.name,
                g.players.x.bot.map(|b| b.as_str()),
                g.players.o.id,
                g.players.o.name,
                g.players.o.bot.map(|b| b.as_str()),
                g.at_ms,
                g.public,
            ])?;
        }
        Write::Move {
            game,
            ply,
            player,
            cell,
            at_ms,
            req_id,
        } => {
            conn.prepare_cached(
                "INSERT INTO moves (game, ply, player, cell, at_ms, req_id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            )?
            .execute(params![
                game,
                ply,
                player_str(*player),
                cell.to_string(),
                at_ms,
                // Request ids are opaque 64-bit values; stored bit for bit.
                req_id.map(|r| r as i64),
            ])?;
        }
        Write::GameEnd {
            game,
            outcome,
            moves,
            at_ms,
        } => {
            let json = serde_json::to_string(outcome)
                .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))?;
            let (winner, reason) = match outcome {
                Outcome::Draw => (None, "draw"),
                Outcome::Win { winner, reason } => (Some(player_str(*winner)), reason.as_str()),
            };
            conn.prepare_cached(
                "UPDATE games SET ended_ms = ?2, outcome = ?3, winner = ?4, reason = ?5, moves = ?6
                 WHERE seq = ?1",
            )?
            .execute(params![game, at_ms, json, winner, reason, moves])?;
        }
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
