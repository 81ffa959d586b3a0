//! Why a session refused a change: a taken cell, a finished game, the bot's
//! turn, nothing to undo. A refusal always means that nothing changed; both
//! front ends word it for the player (`Display` is the line mode's wording).

use core::fmt;

use oxo_core::{MoveError, Player, Square};

/// Why the session refused a change. Nothing changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Refusal {
    /// The cell already holds a mark.
    Occupied {
        /// The cell asked for.
        square: Square,
        /// Whose mark is on it.
        by: Player,
    },
    /// The game is over: only the next round, a restart or a new set-up go on.
    GameOver,
    /// It is a bot's turn, not a person's.
    BotToMove,
    /// No move of a person is left to take back in this game.
    NothingToUndo,
    /// The next round starts only once this one is over.
    NotOver,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Occupied { square, by } => write!(f, "{square} is already taken (by {by})"),
            Refusal::GameOver => f.write_str("the game is over"),
            Refusal::BotToMove => f.write_str("it is the bot's turn"),
            Refusal::NothingToUndo => f.write_str("there is no move to undo"),
            Refusal::NotOver => f.write_str("the game is not over yet"),
        }
    }
}

impl std::error::Error for Refusal {}

impl From<MoveError> for Refusal {
    fn from(e: MoveError) -> Refusal {
        match e {
            MoveError::Occupied { square, by } => Refusal::Occupied { square, by },
            // A `Square` is always on the board, so only `GameOver` is left.
            MoveError::GameOver => Refusal::GameOver,
        }
    }
}
