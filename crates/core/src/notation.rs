//! Position notation: `X.O.X....`.
//!
//! Nine characters, one per cell row by row from the top left: `X`, `O`
//! (either case) or `.` for a free cell. Rows may be separated by `/`
//! (`X.O/.X./...`). The side to move follows from the counts of marks; an
//! optional suffix after a space (`x` or `o`) states it, which is needed only
//! when O moved first and both players have the same number of marks.
//!
//! Parsing checks that some game can reach the position and reports every
//! reason it cannot ([`PositionError::reasons`]). A [`Board`] parses from
//! the same nine cells with no check and no suffix, and prints back to them.
//!
//! ```
//! use oxo_core::{Player, Position};
//!
//! let pos: Position = "X.O/.X./...".parse()?;
//! assert_eq!(pos.turn(), Player::O);
//! assert_eq!(pos.to_string(), "X.O.X....");
//!
//! // O moved first: say so with a suffix.
//! let pos: Position = "X.O.X...O o".parse()?;
//! assert_eq!(pos.turn(), Player::O);
//! assert_eq!(pos.to_string(), "X.O.X...O o");
//!
//! let err = "OOOXX.XX.".parse::<Position>().unwrap_err();
//! assert_eq!(err.to_string(), "impossible position: O has a line but X moved last");
//! # Ok::<_, oxo_core::ParsePositionError>(())
//! ```

use core::fmt;
use core::str::FromStr;

use crate::echo::Echo;
use crate::{Board, Player, Position, Square};

/// One reason a board cannot be reached by any game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Illegal {
    /// The mark counts differ by more than one.
    PieceCounts {
        /// Number of X marks.
        x: u32,
        /// Number of O marks.
        o: u32,
    },
    /// Both players have three in a row.
    BothWin,
    /// The player has lines that no single last move could complete.
    DisjointLines(Player),
    /// The player has a line but was not the last to move.
    WinnerToMove(Player),
    /// The stated side to move contradicts the counts.
    WrongTurn {
        /// The side stated.
        stated: Player,
        /// Number of X marks.
        x: u32,
        /// Number of O marks.
        o: u32,
    },
}

impl fmt::Display for Illegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Illegal::PieceCounts { x, o } => write!(
                f,
                "{x} X and {o} O: the counts of X and O can differ by at most one"
            ),
            Illegal::BothWin => f.write_str("both X and O have a line"),
            Illegal::DisjointLines(p) => {
                write!(f, "{p} has lines that no single last move could complete")
            }
            Illegal::WinnerToMove(p) => write!(f, "{p} has a line but {} moved last", !*p),
            Illegal::WrongTurn { stated, x, o } => write!(
                f,
                "{stated} cannot be to move with {x} X and {o} O on the board"
            ),
        }
    }
}

/// Why a board cannot be reached by any game: every reason found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionError {
    reasons: Vec<Illegal>,
}

impl PositionError {
    /// Every reason found, most basic first.
    #[must_use]
    pub fn reasons(&self) -> &[Illegal] {
        &self.reasons
    }
}

impl fmt::Display for PositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("impossible position: ")?;
        for (i, r) in self.reasons.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{r}")?;
        }
        Ok(())
    }
}

impl std::error::Error for PositionError {}

/// Why a string is not a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParsePositionError {
    /// The board part does not have 9 cells.
    Length {
        /// How many cells were found.
        cells: usize,
    },
    /// A character that is not `X`, `O`, `.` or a row separator `/`.
    Char {
        /// Its character position in the input (0-based).
        at: usize,
        /// The character.
        found: char,
    },
    /// Row separators that do not split the board into three rows of three.
    Rows,
    /// The side-to-move suffix is not `x` or `o`, or there is more text.
    Turn {
        /// The text found.
        found: String,
    },
    /// Well formed, but no game reaches it.
    Illegal(PositionError),
}

impl fmt::Display for ParsePositionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const FORM: &str = "expected 9 cells of X, O or . (e.g. X.O.X.... or X.O/.X./...)";
        match self {
            ParsePositionError::Length { cells } => {
                let s = if *cells == 1 { "" } else { "s" };
                write!(f, "found {cells} cell{s}, {FORM}")
            }
            ParsePositionError::Char { at, found } => {
                write!(f, "unexpected {found:?} at character {}, {FORM}", at + 1)
            }
            ParsePositionError::Rows => {
                write!(f, "rows must be three cells each between '/', {FORM}")
            }
            ParsePositionError::Turn { found } => write!(
                f,
                "unexpected \"{}\" after the board: the only suffix is the side to move, x or o",
                Echo(found)
            ),
            ParsePositionError::Illegal(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ParsePositionError {}

impl From<PositionError> for ParsePositionError {
    fn from(e: PositionError) -> ParsePositionError {
        ParsePositionError::Illegal(e)
    }
}

impl Position {
    /// Checks that some game reaches `board` with `turn` to move (or with the
    /// side to move the counts imply, if `turn` is `None`).
    ///
    /// ```
    /// use oxo_core::{Board, Illegal, Player, Position, Square::*};
    ///
    /// let mut board = Board::new();
    /// for sq in [A1, B1, C1] {
    ///     board.set(sq, Some(Player::X));
    /// }
    /// let err = Position::from_board(board, None).unwrap_err();
    /// assert_eq!(err.reasons(), [Illegal::PieceCounts { x: 3, o: 0 }]);
    ///
    /// board.set(A2, Some(Player::O));
    /// board.set(B2, Some(Player::O));
    /// let pos = Position::from_board(board, None)?;
    /// assert_eq!(pos.outcome().and_then(|o| o.winner()), Some(Player::X));
    /// # Ok::<_, oxo_core::PositionError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`PositionError`] listing every reason the position is impossible.
    pub fn from_board(board: Board, turn: Option<Player>) -> Result<Position, PositionError> {
        let x = board.marks(Player::X).count();
        let o = board.marks(Player::O).count();
        let mut reasons = Vec::new();
        let (x_line, o_line) = (board.has_line(Player::X), board.has_line(Player::O));
        if x.abs_diff(o) > 1 {
            reasons.push(Illegal::PieceCounts { x, o });
        }
        if x_line && o_line {
            reasons.push(Illegal::BothWin);
        }
        for p in Player::ALL {
            let lines = board.marks(p).line_squares();
            if !lines.is_empty() {
                let common = Square::ALL
                    .into_iter()
                    .filter(|&sq| lines.contains(sq))
                    .any(|sq| !board.marks(p).without(sq).has_line());
                if !common {
                    reasons.push(Illegal::DisjointLines(p));
                }
            }
        }
        // The side to move: the counts decide unless they are equal, where the
        // starter is to move (X unless a line shows X moved last).
        let implied = match x.cmp(&o) {
            core::cmp::Ordering::Greater => Player::O,
            core::cmp::Ordering::Less => Player::X,
            core::cmp::Ordering::Equal if x_line && !o_line => Player::O,
            core::cmp::Ordering::Equal => Player::X,
        };
        let turn = match turn {
            Some(stated) if x != o && stated != implied => {
                reasons.push(Illegal::WrongTurn { stated, x, o });
                stated
            }
            Some(stated) => stated,
            None => implied,
        };
        if reasons.is_empty() {
            for p in Player::ALL {
                if board.has_line(p) && turn == p {
                    reasons.push(Illegal::WinnerToMove(p));
                }
            }
        }
        if reasons.is_empty() {
            Ok(Position::from_parts_unchecked(board, turn))
        } else {
            Err(PositionError { reasons })
        }
    }

    /// The side to move that notation implies for this board, so that
    /// [`Display`](fmt::Display) writes a suffix only when it differs.
    fn implied_turn(&self) -> Option<Player> {
        Position::from_board(*self.board(), None)
            .ok()
            .map(|p| p.turn())
    }
}

impl FromStr for Position {
    type Err = ParsePositionError;

    fn from_str(s: &str) -> Result<Position, ParsePositionError> {
        let text = s.trim_start();
        let lead = s[..s.len() - text.len()].chars().count();
        let (cells, suffix) = text.split_at(text.find(char::is_whitespace).unwrap_or(text.len()));
        // The board first: a space inside it cuts it short, and that is the
        // mistake to report, not the text after the space.
        let board = parse_cells(cells, lead)?;
        let turn = match suffix.trim() {
            "" => None,
            t => Some(t.parse::<Player>().map_err(|_| ParsePositionError::Turn {
                found: t.to_owned(),
            })?),
        };
        Ok(Position::from_board(board, turn)?)
    }
}

impl FromStr for Board {
    type Err = ParsePositionError;

    /// Parses the board part of the notation: nine cells `X`, `O` (either
    /// case) or `.`, optionally split into rows by `/`, with surrounding
    /// whitespace ignored. Any pattern parses, even one no game reaches; for
    /// a checked position with the side to move, parse a [`Position`].
    ///
    /// ```
    /// use oxo_core::{Board, Player, Position, Square};
    ///
    /// let board: Board = "XXX/OOO/...".parse()?;
    /// assert_eq!(board.get(Square::A2), Some(Player::O));
    /// assert_eq!(board.to_string(), "XXXOOO...");
    /// assert!(Position::from_board(board, None).is_err(), "both have a line");
    /// # Ok::<_, oxo_core::ParsePositionError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ParsePositionError::Length`], [`ParsePositionError::Char`] (a
    /// suffix such as ` o` is one) or [`ParsePositionError::Rows`]; never
    /// `Turn` or `Illegal`.
    fn from_str(s: &str) -> Result<Board, ParsePositionError> {
        let text = s.trim_start();
        let lead = s[..s.len() - text.len()].chars().count();
        parse_cells(text.trim_end(), lead)
    }
}

/// Parses the cells of the notation, `X`, `O`, `.` and row separators, with
/// no whitespace; `lead` is the number of characters of input before them,
/// so that errors count characters from the start of the input.
fn parse_cells(text: &str, lead: usize) -> Result<Board, ParsePositionError> {
    let mut board = Board::new();
    let mut cells = 0usize;
    // Row separators are right only as exactly two, after cells 3 and 6.
    let (mut slashes, mut rows_ok) = (0usize, true);
    for (at, ch) in text.chars().enumerate() {
        let mark = match ch {
            'X' | 'x' => Some(Player::X),
            'O' | 'o' => Some(Player::O),
            '.' => None,
            '/' => {
                slashes += 1;
                rows_ok &= (slashes, cells) == (1, 3) || (slashes, cells) == (2, 6);
                continue;
            }
            found => {
                return Err(ParsePositionError::Char {
                    at: lead + at,
                    found,
                });
            }
        };
        if let Some(sq) = u8::try_from(cells).ok().and_then(Square::from_index) {
            board.set(sq, mark);
        }
        cells += 1;
    }
    if cells != 9 {
        return Err(ParsePositionError::Length { cells });
    }
    if slashes > 0 && !(rows_ok && slashes == 2) {
        return Err(ParsePositionError::Rows);
    }
    Ok(board)
}

impl fmt::Display for Board {
    /// The board alone: nine characters `X`, `O` or `.`, row by row from
    /// the top left (the wire's `board`).
    ///
    /// ```
    /// use oxo_core::{Game, Square};
    ///
    /// let mut game = Game::new();
    /// game.play(Square::B2)?;
    /// assert_eq!(game.position().board().to_string(), "....X....");
    /// # Ok::<_, oxo_core::MoveError>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for sq in Square::ALL {
            let ch = self.get(sq).map_or('.', Player::char);
            write!(f, "{ch}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Position {
    /// Nine characters, plus ` x` or ` o` when the side to move is not the
    /// one the counts imply.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.board())?;
        if self.implied_turn() != Some(self.turn()) {
            write!(f, " {}", self.turn().char().to_ascii_lowercase())?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reasons(s: &str) -> Vec<Illegal> {
        match s.parse::<Position>() {
            Err(ParsePositionError::Illegal(e)) => e.reasons().to_vec(),
            other => panic!("{s}: expected illegal, got {other:?}"),
        }
    }

    #[test]
    fn syntax_errors_say_where() {
        assert_eq!(
            "X.O".parse::<Position>(),
            Err(ParsePositionError::Length { cells: 3 })
        );
        assert_eq!(
            "X.O.Z....".parse::<Position>(),
            Err(ParsePositionError::Char { at: 4, found: 'Z' })
        );
        assert_eq!(
            "X.O/.X/....".parse::<Position>(),
            Err(ParsePositionError::Rows)
        );
        assert_eq!(
            "X.O.X.... q".parse::<Position>(),
            Err(ParsePositionError::Turn { found: "q".into() })
        );
        assert_eq!(
            "X.O.X.... o x".parse::<Position>(),
            Err(ParsePositionError::Turn {
                found: "o x".into()
            })
        );
    }

    #[test]
    fn char_positions_count_characters_not_bytes() {
        // U+3000 (ideographic space) is one character of three bytes.
        assert_eq!(
            "\u{3000}X.O.Z....".parse::<Position>(),
            Err(ParsePositionError::Char { at: 5, found: 'Z' })
        );
        assert_eq!(
            "éX.O.Z....".parse::<Position>(),
            Err(ParsePositionError::Char { at: 0, found: 'é' })
        );
    }

    #[test]
    fn a_board_cut_short_is_reported_before_the_suffix() {
        // A space inside the board: the board is short, not the suffix wrong.
        assert_eq!(
            "X.O X.... o".parse::<Position>(),
            Err(ParsePositionError::Length { cells: 3 })
        );
        assert_eq!(
            "X.O.X.. o".parse::<Position>(),
            Err(ParsePositionError::Length { cells: 7 })
        );
    }

    #[test]
    fn boards_parse_and_print_without_legality() {
        for text in ["X.O.X....", "XXXXXXXXX", "XXXOOO...", "........."] {
            let board: Board = text.parse().expect("nine cells");
            assert_eq!(board.to_string(), text);
        }
        let board: Board = " x.o/.x./... ".parse().expect("rows and lower case");
        assert_eq!(board.to_string(), "X.O.X....");
        assert_eq!(
            "X.O.X.... o".parse::<Board>(),
            Err(ParsePositionError::Char { at: 9, found: ' ' })
        );
        assert_eq!(
            "X.O.X...".parse::<Board>(),
            Err(ParsePositionError::Length { cells: 8 })
        );
    }

    #[test]
    fn impossible_positions_name_every_reason() {
        assert_eq!(reasons("XXX......"), [Illegal::PieceCounts { x: 3, o: 0 }]);
        assert_eq!(reasons("XXXOOO..."), [Illegal::BothWin]);
        assert_eq!(reasons("OOOXX.XX."), [Illegal::WinnerToMove(Player::O)]);
        assert_eq!(reasons("XXXOO.O.. x"), [Illegal::WinnerToMove(Player::X)]);
        assert_eq!(
            reasons("XXXOOOXXX"),
            [
                Illegal::PieceCounts { x: 6, o: 3 },
                Illegal::BothWin,
                Illegal::DisjointLines(Player::X)
            ]
        );
        // X completed a line with equal counts: only possible if O started.
        let pos: Position = "XXXOO.O..".parse().expect("O started");
        assert_eq!(pos.turn(), Player::O);
        assert_eq!(pos.to_string(), "XXXOO.O..");
    }

    #[test]
    fn stated_turn_must_match_counts() {
        assert_eq!(
            reasons("X........ x"),
            [Illegal::WrongTurn {
                stated: Player::X,
                x: 1,
                o: 0
            }]
        );
        let pos: Position = "......... o".parse().expect("O may start");
        assert_eq!(pos.turn(), Player::O);
        assert_eq!(pos.to_string(), "......... o");
    }
}
