//! A reachable position: the board plus the side to move.

use core::fmt;

use crate::{Bitboard, Board, Outcome, Player, Square, WinReason};

/// Why a move was refused. The game or position is left unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MoveError {
    /// The square already holds a mark.
    Occupied {
        /// The square that was asked for.
        square: Square,
        /// Whose mark is on it.
        by: Player,
    },
    /// The game is already over.
    GameOver,
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Occupied { square, by } => {
                write!(f, "{square} is already taken (by {by})")
            }
            MoveError::GameOver => f.write_str("the game is over"),
        }
    }
}

impl std::error::Error for MoveError {}

/// A position some game can reach (with X or O moving first), and the side
/// to move.
///
/// Built by [`Position::new`], by playing moves, or from notation with
/// [`str::parse`] (see [`crate::notation`]), which checks legality.
///
/// ```
/// use oxo_core::{Player, Position, Square};
///
/// let pos = Position::new().play(Square::B2)?;
/// assert_eq!(pos.turn(), Player::O);
/// assert_eq!(pos.to_string(), "....X....");
/// assert!(pos.play(Square::B2).is_err());
/// # Ok::<_, oxo_core::MoveError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    board: Board,
    turn: Player,
}

impl Default for Position {
    fn default() -> Position {
        Position::new()
    }
}

impl Position {
    /// The empty board with X to move.
    pub const fn new() -> Position {
        Position::empty(Player::X)
    }

    /// The empty board with `first` to move.
    pub const fn empty(first: Player) -> Position {
        Position {
            board: Board::new(),
            turn: first,
        }
    }

    /// Builds a position without checking it. Only for this crate's notation
    /// parser, which checks first.
    pub(crate) const fn from_parts_unchecked(board: Board, turn: Player) -> Position {
        Position { board, turn }
    }

    /// The marks on the board.
    pub const fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move (still the side that would move when the game is over).
    #[must_use]
    pub const fn turn(&self) -> Player {
        self.turn
    }

    /// The number of marks on the board.
    #[must_use]
    pub fn ply(&self) -> u32 {
        self.board.occupied().count()
    }

    /// The squares the side to move may play: every free square, or none when
    /// the game is over.
    pub fn legal_moves(&self) -> Bitboard {
        if self.is_over() {
            Bitboard::EMPTY
        } else {
            self.board.empty()
        }
    }

    /// Whether the board is won or full.
    #[must_use]
    pub fn is_over(&self) -> bool {
        self.board.has_line(!self.turn) || self.board.empty().is_empty()
    }

    /// The result of the board: a win by a line (with all its cells) or a draw,
    /// or `None` while the game goes on.
    #[must_use]
    pub fn outcome(&self) -> Option<Outcome> {
        let last = !self.turn;
        let cells = self.board.marks(last).line_squares();
        if !cells.is_empty() {
            Some(Outcome::Win {
                winner: last,
                reason: WinReason::Line { cells },
            })
        } else if self.board.empty().is_empty() {
            Some(Outcome::Draw)
        } else {
            None
        }
    }

    /// Plays `sq` for the side to move and returns the new position.
    ///
    /// # Errors
    ///
    /// [`MoveError::Occupied`] if the square is taken, [`MoveError::GameOver`]
    /// if the game is over.
    pub fn play(mut self, sq: Square) -> Result<Position, MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        if let Some(by) = self.board.get(sq) {
            return Err(MoveError::Occupied { square: sq, by });
        }
        self.play_unchecked(sq);
        Ok(self)
    }

    /// Plays `sq` without the checks of [`Position::play`], for search
    /// code that only plays free squares of unfinished positions.
    ///
    /// # Panics
    ///
    /// In debug builds only, if `sq` is taken or the position is over: a
    /// release build plays it anyway, leaving a position no game reaches.
    pub fn play_unchecked(&mut self, sq: Square) {
        debug_assert!(
            self.board.get(sq).is_none() && !self.is_over(),
            "play_unchecked({sq}) on {self:?}: the square is taken or the position is over"
        );
        self.board.set(sq, Some(self.turn));
        self.turn = !self.turn;
    }

    /// Takes back the mark on `sq`, which the side not to move must have
    /// played last. Used by [`crate::Game::undo`].
    pub(crate) fn unplay_unchecked(&mut self, sq: Square) {
        self.board.set(sq, None);
        self.turn = !self.turn;
    }

    /// The squares of the side to move and of its opponent.
    pub fn mine_theirs(&self) -> (Bitboard, Bitboard) {
        (self.board.marks(self.turn), self.board.marks(!self.turn))
    }
}
