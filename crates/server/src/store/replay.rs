//! A stored game brought back to life: its moves replayed by the rules,
//! and its stored outcome applied where the moves alone do not end it.
//!
//! One home for this, used by recovery (every store) and by the game log
//! of the HTTP API, which then asks core's [`Game::log`] for the events.
//! Stored rows are never trusted: a move out of turn or on a taken cell,
//! or a line win the moves do not show, is [`ServerError::Corrupt`].

use std::sync::Arc;

use oxo_core::{Game, Outcome, Player, Square};

use super::rows::{MoveRow, SavedGame};
use crate::error::ServerError;

/// Replays the game `id`: `first` to move, then `moves` (who moved, and
/// where) in order, then the stored `outcome` if the moves did not end the
/// game themselves (a forfeit, a player who dropped, a timeout).
///
/// # Errors
///
/// [`ServerError::Corrupt`], naming the game, if a move is out of turn or
/// illegal, or the outcome is a line win the moves do not show.
pub(crate) fn replay(
    id: &str,
    first: Player,
    moves: impl IntoIterator<Item = (Player, Square)>,
    outcome: Option<Outcome>,
) -> Result<Game, ServerError> {
    let corrupt = |what: String| ServerError::Corrupt(format!("game {id}: {what}"));
    let mut game = Game::with_first(first);
    for (player, cell) in moves {
        if game.to_move() != Some(player) {
            return Err(corrupt(format!("{player} moved out of turn")));
        }
        game.play(cell).map_err(|e| corrupt(e.to_string()))?;
    }
    if let (Some(Outcome::Win { winner, reason }), None) = (outcome, game.outcome()) {
        let Some(concession) = reason.concession() else {
            return Err(corrupt("a line win the moves do not show".into()));
        };
        game.concede(!winner, concession)
            .map_err(|e| corrupt(e.to_string()))?;
    }
    Ok(game)
}

/// The current round of an unfinished table, from its rows: the game
/// replayed, and the moves that carried a request id (so that a client's
/// retry after the restart is recognised).
///
/// # Errors
///
/// As [`replay`].
pub(crate) fn saved_game(
    seq: i64,
    id: Arc<str>,
    first: Player,
    started_ms: i64,
    moves: &[MoveRow],
    outcome: Option<Outcome>,
) -> Result<SavedGame, ServerError> {
    let game = replay(
        &id,
        first,
        moves.iter().map(|m| (m.player, m.cell)),
        outcome,
    )?;
    let accepted = moves
        .iter()
        .filter_map(|m| m.req_id.map(|req| (m.player, req, m.cell)))
        .collect();
    let last_at_ms = moves.last().map_or(started_ms, |m| m.at_ms);
    Ok(SavedGame {
        seq,
        id,
        game,
        accepted,
        last_at_ms,
    })
}

#[cfg(test)]
mod tests {
    use oxo_core::Square::*;

    use super::*;
    use oxo_core::WinReason;

    #[test]
    fn outcomes_the_moves_do_not_show_are_applied_and_lines_must_be_there() {
        let moves = [(Player::X, A1), (Player::O, B2)];
        let forfeit = Outcome::Win {
            winner: Player::X,
            reason: WinReason::Forfeit,
        };
        let game = replay("g", Player::X, moves, Some(forfeit)).expect("a forfeit");
        assert_eq!(game.outcome(), Some(forfeit));
        assert_eq!(game.log().len(), 4, "start, two moves, end");

        let line = Outcome::Win {
            winner: Player::X,
            reason: WinReason::Line {
                cells: oxo_core::Bitboard::EMPTY,
            },
        };
        let err = replay("g", Player::X, moves, Some(line)).expect_err("no line");
        assert!(err.to_string().contains("game g: a line win"), "{err}");

        let err = replay("g", Player::O, moves, None).expect_err("X cannot start");
        assert!(err.to_string().contains("X moved out of turn"), "{err}");
    }
}
