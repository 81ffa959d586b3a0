//! How a game ended.

use core::fmt;

use crate::{Bitboard, Player};

/// Why the winner won.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(tag = "reason", rename_all = "snake_case"))]
pub enum WinReason {
    /// Three in a row. `cells` holds every square of every completed line
    /// (two lines when the last move completed both).
    Line {
        /// The squares of the winning line or lines.
        #[cfg_attr(feature = "schema", schemars(with = "Vec<crate::Square>"))]
        cells: Bitboard,
    },
    /// The loser resigned.
    Forfeit,
    /// The loser left and did not come back in time.
    Dropped,
    /// The loser ran out of time for a move.
    Timeout,
}

impl WinReason {
    /// The short stable name: `line`, `forfeit`, `dropped` or `timeout`.
    #[must_use]
    pub const fn as_str(&self) -> &'static str {
        match self {
            WinReason::Line { .. } => "line",
            WinReason::Forfeit => "forfeit",
            WinReason::Dropped => "dropped",
            WinReason::Timeout => "timeout",
        }
    }

    /// The concession this reason is, or `None` for a line.
    #[must_use]
    pub const fn concession(&self) -> Option<Concession> {
        match self {
            WinReason::Line { .. } => None,
            WinReason::Forfeit => Some(Concession::Forfeit),
            WinReason::Dropped => Some(Concession::Dropped),
            WinReason::Timeout => Some(Concession::Timeout),
        }
    }
}

/// Why a game was decided without a line: what [`Game::concede`] takes,
/// so that a line win can only come from the moves.
///
/// ```
/// use oxo_core::{Concession, WinReason};
///
/// assert_eq!(WinReason::from(Concession::Timeout), WinReason::Timeout);
/// assert_eq!(WinReason::Dropped.concession(), Some(Concession::Dropped));
/// ```
///
/// [`Game::concede`]: crate::Game::concede
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Concession {
    /// The loser resigned.
    Forfeit,
    /// The loser left and did not come back in time.
    Dropped,
    /// The loser ran out of time for a move.
    Timeout,
}

impl From<Concession> for WinReason {
    fn from(concession: Concession) -> WinReason {
        match concession {
            Concession::Forfeit => WinReason::Forfeit,
            Concession::Dropped => WinReason::Dropped,
            Concession::Timeout => WinReason::Timeout,
        }
    }
}

/// The result of a finished game.
///
/// ```
/// use oxo_core::{Game, Outcome, Player, Square::*, WinReason};
///
/// let mut game = Game::new();
/// for sq in [A1, A2, B1, B2, C1] {
///     game.play(sq)?;
/// }
/// let outcome = game.outcome().expect("X completed the top row");
/// assert_eq!(outcome.winner(), Some(Player::X));
/// assert_eq!(outcome.cells().to_string(), "a1 b1 c1");
/// assert_eq!(outcome.to_string(), "X wins (line a1 b1 c1)");
/// # Ok::<_, oxo_core::MoveError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(tag = "result", rename_all = "snake_case"))]
pub enum Outcome {
    /// One player won.
    Win {
        /// The winner.
        winner: Player,
        /// Why.
        #[cfg_attr(feature = "serde", serde(flatten))]
        reason: WinReason,
    },
    /// The board filled up with no line.
    Draw,
}

impl Outcome {
    /// The winner, or `None` for a draw.
    #[must_use]
    pub const fn winner(&self) -> Option<Player> {
        match self {
            Outcome::Win { winner, .. } => Some(*winner),
            Outcome::Draw => None,
        }
    }

    /// The squares of the winning line(s); empty for a draw or a win by
    /// forfeit, drop or timeout.
    pub const fn cells(&self) -> Bitboard {
        match self {
            Outcome::Win {
                reason: WinReason::Line { cells },
                ..
            } => *cells,
            _ => Bitboard::EMPTY,
        }
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Outcome::Draw => f.write_str("draw"),
            Outcome::Win {
                winner,
                reason: WinReason::Line { cells },
            } => write!(f, "{winner} wins (line {cells})"),
            Outcome::Win { winner, reason } => write!(f, "{winner} wins ({})", reason.as_str()),
        }
    }
}
