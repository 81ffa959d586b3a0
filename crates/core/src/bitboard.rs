//! Sets of squares as 9-bit masks.

use core::fmt;
use core::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, Not};

use crate::Square;

/// A set of squares: bit `i` stands for the square with index `i`.
///
/// Only the low 9 bits can be set: the field is private, and a set is built
/// from squares, from the constants, or from a mask through
/// [`Bitboard::from_bits`] (checked) or [`Bitboard::from_bits_truncate`].
/// The lookup tables behind the queries rely on it.
///
/// ```
/// use oxo_core::{Bitboard, Square};
///
/// let diagonal = Bitboard::EMPTY.with(Square::A1).with(Square::B2).with(Square::C3);
/// assert!(Bitboard::LINES.contains(&diagonal));
/// assert_eq!(diagonal.count(), 3);
/// assert_eq!(format!("{diagonal:?}"), "X..\n.X.\n..X");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[must_use]
pub struct Bitboard(u16);

impl Bitboard {
    /// No squares.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All nine squares.
    pub const FULL: Bitboard = Bitboard(0x1ff);
    /// The four corners.
    pub const CORNERS: Bitboard = Bitboard(0b101_000_101);
    /// The four edge midpoints.
    pub const EDGES: Bitboard = Bitboard(0b010_101_010);
    /// The centre.
    pub const CENTER: Bitboard = Bitboard(0b000_010_000);
    /// The eight lines: three rows (top to bottom), three columns (left to
    /// right), then the diagonals `a1-c3` and `c1-a3`.
    pub const LINES: [Bitboard; 8] = [
        Bitboard(0b000_000_111),
        Bitboard(0b000_111_000),
        Bitboard(0b111_000_000),
        Bitboard(0b001_001_001),
        Bitboard(0b010_010_010),
        Bitboard(0b100_100_100),
        Bitboard(0b100_010_001),
        Bitboard(0b001_010_100),
    ];

    /// The set whose squares are the bits of `bits`, or `None` if any of
    /// bits 9–15 (no square) is set.
    ///
    /// ```
    /// use oxo_core::{Bitboard, Square};
    ///
    /// assert_eq!(Bitboard::from_bits(0b1_0000_0001), Some(Bitboard::from(Square::A1).with(Square::C3)));
    /// assert_eq!(Bitboard::from_bits(1 << 9), None);
    /// ```
    #[must_use]
    pub const fn from_bits(bits: u16) -> Option<Bitboard> {
        if bits & !Bitboard::FULL.0 == 0 {
            Some(Bitboard(bits))
        } else {
            None
        }
    }

    /// The set whose squares are the low 9 bits of `bits`; bits 9–15 are
    /// dropped.
    pub const fn from_bits_truncate(bits: u16) -> Bitboard {
        Bitboard(bits & Bitboard::FULL.0)
    }

    /// The set as a mask: bit `i` for the square with index `i`, bits 9–15
    /// clear.
    #[must_use]
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// The set holding just `sq`.
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq as u8)
    }

    /// This set with `sq` added.
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq as u8)
    }

    /// This set with `sq` removed.
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq as u8))
    }

    /// The squares in both sets.
    pub const fn intersect(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 & other.0)
    }

    /// The squares in either set.
    pub const fn union(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 | other.0)
    }

    /// The squares of the board not in this set.
    pub const fn complement(self) -> Bitboard {
        Bitboard(!self.0 & Bitboard::FULL.0)
    }

    /// Whether `sq` is in the set.
    #[must_use]
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq as u8) != 0
    }

    /// Whether every square of this set is in `other`.
    #[must_use]
    pub const fn is_subset(self, other: Bitboard) -> bool {
        self.0 & !other.0 == 0
    }

    /// Whether the set is empty.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The number of squares in the set.
    #[must_use]
    pub const fn count(self) -> u32 {
        // A table, not `count_ones`: the baseline x86-64 target has no popcnt
        // instruction, so `count_ones` takes a dozen, and counting is the
        // inner loop of `perft` and of random playouts.
        COUNTS[self.0 as usize] as u32
    }

    /// The square with the lowest index, if any.
    #[must_use]
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Square::from_index(self.0.trailing_zeros() as u8)
        }
    }

    /// The `n`th square of the set in index order, if there are that many.
    #[must_use]
    pub const fn nth(self, n: u32) -> Option<Square> {
        // A table rather than a loop over the set: random playouts pick a
        // square this way on every move.
        if n < 9 {
            Square::from_index(NTH[self.0 as usize][n as usize])
        } else {
            None
        }
    }

    /// Whether the set contains a whole line.
    #[must_use]
    pub const fn has_line(self) -> bool {
        !self.line_squares().is_empty()
    }

    /// The squares of all the complete lines in this set (empty if none).
    pub const fn line_squares(self) -> Bitboard {
        LINES_OF[self.0 as usize].complete
    }

    /// The empty squares of `empty` that would complete a line for this set.
    pub const fn winning_moves(self, empty: Bitboard) -> Bitboard {
        LINES_OF[self.0 as usize].threats.intersect(empty)
    }

    /// Use this where a `Bitboard` result is deliberately ignored.
    pub fn discard(self) {}
}

/// `COUNTS[b]`: the number of bits set in the 9-bit value `b`.
const COUNTS: [u8; 512] = {
    let mut t = [0u8; 512];
    let mut b = 0;
    while b < 512 {
        t[b] = (b as u16).count_ones() as u8;
        b += 1;
    }
    t
};

/// `NTH[b][n]`: the index of the `n`th set bit of the 9-bit value `b`, or 9
/// (no square) if it has no more than `n` bits set.
const NTH: [[u8; 9]; 512] = {
    let mut t = [[9u8; 9]; 512];
    let mut b = 0;
    while b < 512 {
        let mut n = 0;
        let mut i = 0;
        while i < 9 {
            if b & (1 << i) != 0 {
                t[b][n] = i as u8;
                n += 1;
            }
            i += 1;
        }
        b += 1;
    }
    t
};

/// What the lines say about one 9-bit set.
#[derive(Clone, Copy)]
struct Lines {
    /// The union of the lines the set contains.
    complete: Bitboard,
    /// The squares that would complete a line for the set (whether or not
    /// they are free).
    threats: Bitboard,
}

/// `LINES_OF[b]`: the complete lines of the 9-bit set `b` and its threats,
/// both found in one pass over the eight lines.
const LINES_OF: [Lines; 512] = {
    let none = Lines {
        complete: Bitboard::EMPTY,
        threats: Bitboard::EMPTY,
    };
    let mut t = [none; 512];
    let mut b = 0;
    while b < 512 {
        let (mut complete, mut threats) = (0, 0);
        let mut i = 0;
        while i < 8 {
            let line = Bitboard::LINES[i].0;
            let missing = line & !(b as u16);
            if missing == 0 {
                complete |= line;
            } else if missing.count_ones() == 1 {
                threats |= missing;
            }
            i += 1;
        }
        t[b] = Lines {
            complete: Bitboard(complete),
            threats: Bitboard(threats),
        };
        b += 1;
    }
    t
};

impl fmt::Debug for Bitboard {
    /// Draws the set as a 3×3 grid, `X` for members.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..3 {
            if row > 0 {
                f.write_str("\n")?;
            }
            for column in 0..3 {
                let sq = Square::new(row * 3 + column);
                f.write_str(if self.contains(sq) { "X" } else { "." })?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for Bitboard {
    /// Lists the squares, e.g. `a1 b2 c3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, sq) in self.into_iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{sq}")?;
        }
        Ok(())
    }
}

impl From<Square> for Bitboard {
    fn from(sq: Square) -> Bitboard {
        Bitboard::from_square(sq)
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        iter.into_iter().fold(Bitboard::EMPTY, Bitboard::with)
    }
}

impl BitAnd for Bitboard {
    type Output = Bitboard;
    fn bitand(self, rhs: Bitboard) -> Bitboard {
        self.intersect(rhs)
    }
}

impl BitAndAssign for Bitboard {
    fn bitand_assign(&mut self, rhs: Bitboard) {
        *self = *self & rhs;
    }
}

impl BitOr for Bitboard {
    type Output = Bitboard;
    fn bitor(self, rhs: Bitboard) -> Bitboard {
        self.union(rhs)
    }
}

impl BitOrAssign for Bitboard {
    fn bitor_assign(&mut self, rhs: Bitboard) {
        *self = *self | rhs;
    }
}

impl BitXor for Bitboard {
    type Output = Bitboard;
    fn bitxor(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 ^ rhs.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    fn not(self) -> Bitboard {
        self.complement()
    }
}

/// Iterates over the squares of a [`Bitboard`] in index order.
#[derive(Clone, Debug)]
pub struct Squares(u16);

impl Iterator for Squares {
    type Item = Square;

    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let index = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Square::from_index(index)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;

    fn into_iter(self) -> Squares {
        Squares(self.0)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Bitboard {
    /// A list of square names, e.g. `["a1","b2","c3"]`.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(*self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Bitboard {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Bitboard, D::Error> {
        let squares: Vec<Square> = serde::Deserialize::deserialize(deserializer)?;
        Ok(squares.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_the_eight_lines() {
        let mut count = 0;
        for b in 0..512u16 {
            if Bitboard(b).count() == 3 && Bitboard(b).has_line() {
                count += 1;
            }
        }
        assert_eq!(count, 8);
        assert_eq!(
            Bitboard::CORNERS | Bitboard::EDGES | Bitboard::CENTER,
            Bitboard::FULL
        );
    }

    #[test]
    fn threats_complete_lines() {
        let xs = Bitboard::EMPTY.with(Square::A1).with(Square::B1);
        let free = !xs;
        assert_eq!(xs.winning_moves(free), Bitboard::from(Square::C1));
        let two_lines = Bitboard(0b111_000_111 ^ 0b000_000_001).with(Square::B2);
        assert_eq!(
            two_lines.line_squares(),
            Bitboard(0b111_000_000) | Bitboard(0b001_010_100) | Bitboard(0b010_010_010)
        );
    }

    #[test]
    fn iterates_in_order() {
        let b: Bitboard = [Square::C3, Square::A1, Square::B2].into_iter().collect();
        let v: Vec<_> = b.into_iter().collect();
        assert_eq!(v, [Square::A1, Square::B2, Square::C3]);
        assert_eq!(b.to_string(), "a1 b2 c3");
        assert_eq!(b.nth(1), Some(Square::B2));
    }
}
