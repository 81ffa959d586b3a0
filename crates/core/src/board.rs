//! The marks on the board, with no notion of whose turn it is.

use crate::{Bitboard, ByPlayer, Player, Square};

/// The marks on the board: one [`Bitboard`] per player.
///
/// A `Board` may hold any pattern, even one no game can reach (both players
/// on one square is the only thing it rules out). A [`Position`](crate::Position)
/// is a board that a real game can reach, plus the side to move.
///
/// ```
/// use oxo_core::{Board, Player, Square};
///
/// let mut board = Board::new();
/// board.set(Square::B2, Some(Player::X));
/// assert_eq!(board.get(Square::B2), Some(Player::X));
/// assert_eq!(board.empty().count(), 8);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board {
    marks: ByPlayer<Bitboard>,
}

impl Board {
    /// The empty board.
    pub const fn new() -> Board {
        Board {
            marks: ByPlayer {
                x: Bitboard::EMPTY,
                o: Bitboard::EMPTY,
            },
        }
    }

    /// A board from each player's squares, or `None` if they overlap.
    #[must_use]
    pub fn from_bitboards(x: Bitboard, o: Bitboard) -> Option<Board> {
        (x & o).is_empty().then_some(Board {
            marks: ByPlayer { x, o },
        })
    }

    /// The squares marked by `player`.
    pub fn marks(&self, player: Player) -> Bitboard {
        self.marks[player]
    }

    /// The mark on `sq`, if any.
    #[must_use]
    pub fn get(&self, sq: Square) -> Option<Player> {
        if self.marks.x.contains(sq) {
            Some(Player::X)
        } else if self.marks.o.contains(sq) {
            Some(Player::O)
        } else {
            None
        }
    }

    /// Puts `mark` on `sq` (or clears it with `None`), replacing what was there.
    pub fn set(&mut self, sq: Square, mark: Option<Player>) {
        self.marks.x = self.marks.x.without(sq);
        self.marks.o = self.marks.o.without(sq);
        if let Some(player) = mark {
            self.marks[player] = self.marks[player].with(sq);
        }
    }

    /// The marked squares.
    pub fn occupied(&self) -> Bitboard {
        self.marks.x | self.marks.o
    }

    /// The free squares.
    pub fn empty(&self) -> Bitboard {
        !self.occupied()
    }

    /// Whether `player` has three in a row.
    #[must_use]
    pub fn has_line(&self, player: Player) -> bool {
        self.marks[player].has_line()
    }

    /// The board for people to read, in four lines: the column letters,
    /// then each row's number and its cells, `X`, `O` or `.`. (Its
    /// [`Display`](core::fmt::Display) is the one-line notation instead.)
    ///
    /// ```
    /// use oxo_core::{Board, Player, Square};
    ///
    /// let mut board = Board::new();
    /// board.set(Square::B2, Some(Player::X));
    /// board.set(Square::C1, Some(Player::O));
    /// assert_eq!(board.diagram(), "   a b c\n1  . . O\n2  . X .\n3  . . .\n");
    /// ```
    #[must_use]
    pub fn diagram(&self) -> String {
        let mut text = String::from("   a b c\n");
        for (row, label) in ['1', '2', '3'].into_iter().enumerate() {
            text.push(label);
            text.push(' ');
            for sq in &Square::ALL[3 * row..3 * row + 3] {
                text.push(' ');
                text.push(self.get(*sq).map_or('.', Player::char));
            }
            text.push('\n');
        }
        text
    }

    /// The board with X and O swapped.
    pub fn swapped(&self) -> Board {
        Board {
            marks: ByPlayer {
                x: self.marks.o,
                o: self.marks.x,
            },
        }
    }
}
