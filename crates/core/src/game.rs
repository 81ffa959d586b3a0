//! A game: the position, who started, the move history and how it ended.

use core::fmt;

use crate::{Concession, GameLog, MoveError, Outcome, Player, Position, Square};

/// Why a move cannot be taken back.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UndoError {
    /// No move has been played.
    NoMoves,
    /// The game was decided by a forfeit, a drop or a timeout, which undo does
    /// not reverse.
    Decided,
}

impl fmt::Display for UndoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            UndoError::NoMoves => "there is no move to undo",
            UndoError::Decided => {
                "the game was decided by forfeit, drop or timeout; it cannot be undone"
            }
        })
    }
}

impl std::error::Error for UndoError {}

/// A game of tic-tac-toe from its first move to its end.
///
/// ```
/// use oxo_core::{Game, MoveError, Outcome, Player, Square::*};
///
/// let mut game = Game::with_first(Player::O);
/// game.play(B2)?;
/// assert_eq!(game.to_move(), Some(Player::X));
/// assert_eq!(game.play(B2), Err(MoveError::Occupied { square: B2, by: Player::O }));
/// assert_eq!(game.undo(), Ok(B2));
///
/// game.forfeit(Player::O)?;
/// assert_eq!(game.outcome().and_then(|o| o.winner()), Some(Player::X));
/// assert_eq!(game.play(A1), Err(MoveError::GameOver));
/// # Ok::<_, MoveError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Game {
    first: Player,
    position: Position,
    moves: Vec<Square>,
    outcome: Option<Outcome>,
}

impl Default for Game {
    fn default() -> Game {
        Game::new()
    }
}

impl Game {
    /// A new game with X to move first.
    #[must_use]
    pub fn new() -> Game {
        Game::with_first(Player::X)
    }

    /// A new game with `first` to move first (e.g. from a coin toss).
    #[must_use]
    pub fn with_first(first: Player) -> Game {
        Game {
            first,
            position: Position::empty(first),
            moves: Vec::with_capacity(9),
            outcome: None,
        }
    }

    /// Replays `moves` from the empty board with `first` to move.
    ///
    /// # Errors
    ///
    /// The first refused move's error.
    pub fn from_moves(first: Player, moves: &[Square]) -> Result<Game, MoveError> {
        let mut game = Game::with_first(first);
        for &sq in moves {
            game.play(sq)?;
        }
        Ok(game)
    }

    /// Who moved (or moves) first.
    #[must_use]
    pub const fn first(&self) -> Player {
        self.first
    }

    /// The current position.
    #[must_use]
    pub const fn position(&self) -> &Position {
        &self.position
    }

    /// The player to move, or `None` once the game is over.
    #[must_use]
    pub fn to_move(&self) -> Option<Player> {
        if self.is_over() {
            None
        } else {
            Some(self.position.turn())
        }
    }

    /// The moves played so far, in order.
    #[must_use]
    pub fn moves(&self) -> &[Square] {
        &self.moves
    }

    /// The player who made move number `ply` (0-based).
    #[must_use]
    pub fn player_of_ply(&self, ply: usize) -> Player {
        if ply.is_multiple_of(2) {
            self.first
        } else {
            !self.first
        }
    }

    /// Whether the game has ended.
    #[must_use]
    pub const fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// How the game ended, or `None` while it goes on.
    #[must_use]
    pub const fn outcome(&self) -> Option<Outcome> {
        self.outcome
    }

    /// Plays `sq` for the player to move. Returns the outcome if this move
    /// ended the game.
    ///
    /// # Errors
    ///
    /// [`MoveError::Occupied`] or [`MoveError::GameOver`]; the game is unchanged.
    pub fn play(&mut self, sq: Square) -> Result<Option<Outcome>, MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        self.position = self.position.play(sq)?;
        self.moves.push(sq);
        self.outcome = self.position.outcome();
        Ok(self.outcome)
    }

    /// Takes back the last move (reopening the game if that move ended it).
    ///
    /// # Errors
    ///
    /// [`UndoError::NoMoves`] at the start, [`UndoError::Decided`] after a
    /// forfeit, drop or timeout.
    pub fn undo(&mut self) -> Result<Square, UndoError> {
        if matches!(self.outcome, Some(Outcome::Win { reason, .. }) if reason.concession().is_some())
        {
            return Err(UndoError::Decided);
        }
        let sq = self.moves.pop().ok_or(UndoError::NoMoves)?;
        self.position.unplay_unchecked(sq);
        self.outcome = None;
        Ok(sq)
    }

    /// Starts again from the empty board with the same first player.
    pub fn reset(&mut self) {
        *self = Game::with_first(self.first);
    }

    /// `player` resigns: the other player wins by forfeit.
    ///
    /// # Errors
    ///
    /// [`MoveError::GameOver`] if the game has already ended.
    pub fn forfeit(&mut self, player: Player) -> Result<Outcome, MoveError> {
        self.concede(player, Concession::Forfeit)
    }

    /// `player` left and did not come back: the other player wins.
    ///
    /// # Errors
    ///
    /// [`MoveError::GameOver`] if the game has already ended.
    pub fn drop_player(&mut self, player: Player) -> Result<Outcome, MoveError> {
        self.concede(player, Concession::Dropped)
    }

    /// `player` ran out of time: the other player wins.
    ///
    /// # Errors
    ///
    /// [`MoveError::GameOver`] if the game has already ended.
    pub fn time_out(&mut self, player: Player) -> Result<Outcome, MoveError> {
        self.concede(player, Concession::Timeout)
    }

    /// `loser` loses for a reason off the board: a forfeit, a drop or a
    /// timeout (a line can only come from the moves). The one way a decided
    /// or stored reason reaches a game.
    ///
    /// ```
    /// use oxo_core::{Concession, Game, Outcome, Player, WinReason};
    ///
    /// let mut game = Game::new();
    /// let outcome = game.concede(Player::X, Concession::Timeout)?;
    /// assert_eq!(outcome, Outcome::Win { winner: Player::O, reason: WinReason::Timeout });
    /// # Ok::<_, oxo_core::MoveError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`MoveError::GameOver`] if the game has already ended.
    pub fn concede(&mut self, loser: Player, reason: Concession) -> Result<Outcome, MoveError> {
        if self.is_over() {
            return Err(MoveError::GameOver);
        }
        let outcome = Outcome::Win {
            winner: !loser,
            reason: reason.into(),
        };
        self.outcome = Some(outcome);
        Ok(outcome)
    }

    /// The game as a log of events: start, one move per ply, end.
    #[must_use]
    pub fn log(&self) -> GameLog {
        GameLog::of_game(self)
    }
}
