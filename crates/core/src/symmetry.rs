//! The eight symmetries of the square.

use crate::{Bitboard, Board, Player, Square};

/// One of the eight symmetries of the board (rotations and reflections).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetry {
    /// No change.
    Identity,
    /// A quarter turn clockwise.
    Rotate90,
    /// A half turn.
    Rotate180,
    /// A quarter turn anticlockwise.
    Rotate270,
    /// Mirror left to right.
    FlipHorizontal,
    /// Mirror top to bottom.
    FlipVertical,
    /// Mirror in the `a1-c3` diagonal.
    FlipDiagonal,
    /// Mirror in the `c1-a3` diagonal.
    FlipAntiDiagonal,
}

impl Symmetry {
    /// All eight, the identity first.
    pub const ALL: [Symmetry; 8] = [
        Symmetry::Identity,
        Symmetry::Rotate90,
        Symmetry::Rotate180,
        Symmetry::Rotate270,
        Symmetry::FlipHorizontal,
        Symmetry::FlipVertical,
        Symmetry::FlipDiagonal,
        Symmetry::FlipAntiDiagonal,
    ];

    /// Where `sq` goes under this symmetry.
    ///
    /// ```
    /// use oxo_core::{Square, Symmetry};
    ///
    /// assert_eq!(Symmetry::Rotate90.apply(Square::A1), Square::C1);
    /// assert_eq!(Symmetry::FlipHorizontal.apply(Square::A2), Square::C2);
    /// ```
    #[must_use]
    pub fn apply(self, sq: Square) -> Square {
        let (c, r) = (sq.column(), sq.row());
        let (c, r) = match self {
            Symmetry::Identity => (c, r),
            Symmetry::Rotate90 => (2 - r, c),
            Symmetry::Rotate180 => (2 - c, 2 - r),
            Symmetry::Rotate270 => (r, 2 - c),
            Symmetry::FlipHorizontal => (2 - c, r),
            Symmetry::FlipVertical => (c, 2 - r),
            Symmetry::FlipDiagonal => (r, c),
            Symmetry::FlipAntiDiagonal => (2 - r, 2 - c),
        };
        Square::from_coords(c, r).expect("a symmetry maps columns and rows 0..3 onto 0..3")
    }

    /// The image of a set of squares.
    pub fn apply_bitboard(self, b: Bitboard) -> Bitboard {
        b.into_iter().map(|sq| self.apply(sq)).collect()
    }

    /// The image of a board.
    #[must_use]
    pub fn apply_board(self, board: &Board) -> Board {
        let x = self.apply_bitboard(board.marks(Player::X));
        let o = self.apply_bitboard(board.marks(Player::O));
        Board::from_bitboards(x, o)
            .expect("a symmetry maps disjoint sets of squares to disjoint sets")
    }
}

/// The smallest of the eight images of `board`, as `(x, o)` bits, so that
/// boards equal up to symmetry have the same key.
#[must_use]
pub fn canonical_key(board: &Board) -> (u16, u16) {
    Symmetry::ALL
        .into_iter()
        .map(|s| {
            let b = s.apply_board(board);
            (b.marks(Player::X).bits(), b.marks(Player::O).bits())
        })
        .min()
        .expect("there are eight symmetries")
}
