//! `GET /api/analyze/game?first=X&moves=b2,a1,c3`: a whole game judged move
//! by move by the solver, in one answer.
//!
//! This module owns that endpoint: reading its parameters, replaying the
//! moves and asking [`oxo_core::solver`] about each. It does not own the
//! analysis of a single position (`GET /api/analyze`, in `http`), game
//! records (`store`) or the wording a person reads (the web UI's
//! `explain.js`).
//!
//! Decisions:
//!
//! - **Stateless.** The client sends the moves, not a game id: the replay
//!   page already holds them, the game page can ask before a round is even
//!   stored, and the answer depends on nothing but its input, so it needs
//!   no database read and may be cached forever.
//! - **One request per game**, not one per step: the page steps through a
//!   game without touching the network, and nine plies cost the solver at
//!   most 9 × 9 lookups in its table (solved once per process).
//! - **Only win, draw or loss count.** A slower win is still a kept win, so a
//!   verdict and the `best` cells compare results, not distances (the plies
//!   are reported all the same).

use std::collections::HashMap;

use axum::Json;
use axum::extract::Query;
use oxo_core::{Player, Position, Square, solver};
use oxo_protocol::{
    DecidingMove, FinalPosition, GameExplanation, PlyExplanation, SolvedValue, ValueKind, Verdict,
};

use crate::http::{ApiError, sent};

/// The most moves a game has.
const MAX_MOVES: usize = 9;

/// What the `moves` parameter looks like, for error messages.
const MOVES_EXAMPLE: &str =
    "comma-separated cells a1..c3 or indexes 0..8, e.g. ?first=X&moves=b2,a1,c3";

/// `GET /api/analyze/game?first=&moves=`.
pub(crate) async fn analyze_game(
    Query(params): Query<HashMap<String, String>>,
) -> Result<Json<GameExplanation>, ApiError> {
    let first = parse_first(params.get("first").map(String::as_str))?;
    let moves = parse_moves(params.get("moves").map(String::as_str))?;
    explain(first, &moves)
        .map(Json)
        .map_err(ApiError::BadRequest)
}

fn parse_first(text: Option<&str>) -> Result<Player, ApiError> {
    let text = text.ok_or_else(|| {
        ApiError::BadRequest("first is required: X or O, the player who moved first".into())
    })?;
    text.parse()
        .map_err(|_| ApiError::BadRequest(format!("first must be X or O, not {}", sent(text))))
}

fn parse_moves(text: Option<&str>) -> Result<Vec<Square>, ApiError> {
    let text =
        text.ok_or_else(|| ApiError::BadRequest(format!("moves is required: {MOVES_EXAMPLE}")))?;
    // An empty list is a game in which nobody moved (say, a forfeit at once).
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    // Counted before parsing, so a long query costs no more than ten cells.
    let items: Vec<&str> = text.split(',').take(MAX_MOVES + 1).collect();
    if items.len() > MAX_MOVES {
        return Err(ApiError::BadRequest(format!(
            "moves holds at most {MAX_MOVES} cells ({MOVES_EXAMPLE})"
        )));
    }
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            Square::from_wire(item)
                .map_err(|e| ApiError::BadRequest(format!("move {} of moves: {e}", i + 1)))
        })
        .collect()
}

/// Replays `moves` from the empty board with `first` to move and judges
/// each.
///
/// # Errors
///
/// A message naming the first illegal move and why (taken cell, game over).
pub(crate) fn explain(first: Player, moves: &[Square]) -> Result<GameExplanation, String> {
    let table = solver::table();
    let mut position = Position::empty(first);
    let mut plies = Vec::with_capacity(moves.len());
    for (i, &cell) in moves.iter().enumerate() {
        let ply = u32::try_from(i + 1).map_err(|_| "too many moves".to_owned())?;
        let player = position.turn();
        let next = position
            .play(cell)
            .map_err(|e| format!("move {ply} ({player} {cell}) is illegal: {e}"))?;
        let before = SolvedValue::from(table.value(&position));
        // `cell` and every legal move have a value: the table holds them.
        let after = SolvedValue::from(
            table
                .move_value(&position, cell)
                .expect("a move that was just played legally has a value"),
        );
        let best = position
            .legal_moves()
            .into_iter()
            .filter(|&sq| table.move_value(&position, sq).map(kind) == Some(before.result))
            .collect();
        plies.push(PlyExplanation {
            ply,
            player,
            cell,
            before,
            after,
            verdict: Verdict::of(before.result, after.result),
            best,
        });
        position = next;
    }
    let decided = plies
        .iter()
        .find(|p| p.verdict.is_mistake())
        .map(|p| DecidingMove {
            ply: p.ply,
            player: p.player,
            cell: p.cell,
            best: p.best.clone(),
        });
    Ok(GameExplanation {
        first,
        moves: plies,
        decided,
        end: FinalPosition {
            position: position.to_string(),
            turn: position.turn(),
            outcome: position.outcome(),
            value: SolvedValue::from(table.value(&position)),
        },
    })
}

fn kind(value: oxo_core::Value) -> ValueKind {
    SolvedValue::from(value).result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn squares(text: &str) -> Vec<Square> {
        text.split(',')
            .map(|s| s.parse().expect("a cell"))
            .collect()
    }

    #[test]
    fn a_corner_reply_to_the_centre_is_a_kept_draw_and_an_edge_loses() {
        let good = explain(Player::X, &squares("b2,a1")).expect("legal");
        assert_eq!(good.moves[1].verdict, Verdict::KeptDraw);
        assert_eq!(
            good.moves[1].best,
            squares("a1,c1,a3,c3"),
            "only the corners hold the draw"
        );
        assert_eq!(good.decided, None);
        let bad = explain(Player::X, &squares("b2,b1")).expect("legal");
        assert_eq!(bad.moves[1].verdict, Verdict::Blunder);
        assert_eq!(bad.moves[1].after.result, ValueKind::Loss);
        let decided = bad.decided.expect("O erred");
        assert_eq!((decided.ply, decided.player), (2, Player::O));
        assert_eq!(bad.end.value.result, ValueKind::Win, "X to move wins");
    }

    #[test]
    fn illegal_moves_are_named() {
        let taken = explain(Player::O, &squares("b2,b2")).expect_err("taken");
        assert!(taken.contains("move 2 (X b2)"), "{taken}");
        let over = explain(Player::X, &squares("a1,a2,b1,b2,c1,c2")).expect_err("over");
        assert!(over.contains("move 6") && over.contains("over"), "{over}");
    }

    #[test]
    fn moves_parse_as_cells_and_no_more_than_nine() {
        assert_eq!(parse_moves(Some("")).ok(), Some(Vec::new()));
        assert_eq!(parse_moves(Some("b2, A1")).ok(), Some(squares("b2,a1")));
        for bad in [
            None,
            Some("b2,,a1"),
            Some("d4"),
            Some("a1,a1,a1,a1,a1,a1,a1,a1,a1,a1"),
        ] {
            assert!(parse_moves(bad).is_err(), "{bad:?}");
        }
        assert!(parse_first(Some("o")).is_ok());
        assert!(parse_first(Some("Z")).is_err());
        assert!(parse_first(None).is_err());
    }
}
