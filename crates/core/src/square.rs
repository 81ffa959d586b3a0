//! Cells of the board.
//!
//! A [`Square`] can only hold one of the nine cells, so code that has one never
//! needs to check bounds. Cells are numbered 0..8 row by row from the top left
//! and named `a1`..`c3`: the column letter (`a`-`c`, left to right) then the
//! row number (`1`-`3`, top to bottom).
//!
//! ```text
//!   a  b  c
//! 1 0  1  2
//! 2 3  4  5
//! 3 6  7  8
//! ```

use core::fmt;
use core::str::FromStr;

use crate::echo::Echo;

/// One of the nine cells of the board.
///
/// # Examples
///
/// ```
/// use oxo_core::Square;
///
/// let sq: Square = "b2".parse()?;
/// assert_eq!(sq, Square::B2);
/// assert_eq!(sq.index(), 4);
/// assert_eq!("5".parse::<Square>()?, Square::B2); // keypad-style numbers 1..9
/// assert_eq!(Square::C3.to_string(), "c3");
/// # Ok::<_, oxo_core::ParseSquareError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename_all = "lowercase")
)]
#[repr(u8)]
pub enum Square {
    /// Top left, index 0.
    A1 = 0,
    /// Top middle, index 1.
    B1,
    /// Top right, index 2.
    C1,
    /// Middle left, index 3.
    A2,
    /// The centre, index 4.
    B2,
    /// Middle right, index 5.
    C2,
    /// Bottom left, index 6.
    A3,
    /// Bottom middle, index 7.
    B3,
    /// Bottom right, index 8.
    C3,
}

impl Square {
    /// All nine squares in index order.
    pub const ALL: [Square; 9] = [
        Square::A1,
        Square::B1,
        Square::C1,
        Square::A2,
        Square::B2,
        Square::C2,
        Square::A3,
        Square::B3,
        Square::C3,
    ];

    /// The square with the given index (0..8, row by row from the top left).
    ///
    /// # Panics
    ///
    /// Panics if `index >= 9`. Use [`Square::from_index`] or `TryFrom` for
    /// untrusted input.
    #[must_use]
    pub const fn new(index: u8) -> Square {
        match Square::from_index(index) {
            Some(sq) => sq,
            None => panic!("square index out of range 0..9"),
        }
    }

    /// The square with the given index, or `None` if `index >= 9`.
    #[must_use]
    pub const fn from_index(index: u8) -> Option<Square> {
        if index < 9 {
            Some(Square::ALL[index as usize])
        } else {
            None
        }
    }

    /// The square at `column` (0..3, left to right) and `row` (0..3, top to
    /// bottom), or `None` if either is out of range.
    #[must_use]
    pub const fn from_coords(column: u8, row: u8) -> Option<Square> {
        if column < 3 && row < 3 {
            Some(Square::ALL[(row * 3 + column) as usize])
        } else {
            None
        }
    }

    /// Index 0..8, row by row from the top left.
    #[must_use]
    pub const fn index(self) -> u8 {
        self as u8
    }

    /// Column 0..3, left to right (`a` is 0).
    #[must_use]
    pub const fn column(self) -> u8 {
        self as u8 % 3
    }

    /// Row 0..3, top to bottom (`1` is 0).
    #[must_use]
    pub const fn row(self) -> u8 {
        self as u8 / 3
    }

    /// The keypad-style number 1..9 of this square (`a1` is 1, `c3` is 9).
    #[must_use]
    pub const fn number(self) -> u8 {
        self as u8 + 1
    }

    /// The column letter, `'a'`..`'c'`.
    #[must_use]
    pub const fn column_char(self) -> char {
        (b'a' + self.column()) as char
    }

    /// The row digit, `'1'`..`'3'`.
    #[must_use]
    pub const fn row_char(self) -> char {
        (b'1' + self.row()) as char
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.column_char(), self.row_char())
    }
}

/// Why a string is not a square.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseSquareError {
    input: String,
    /// Numbers were indexes `0`..`8` ([`Square::from_wire`]), not `1`..`9`.
    indexed: bool,
}

impl ParseSquareError {
    /// The input that was not a square.
    #[must_use]
    pub fn input(&self) -> &str {
        &self.input
    }
}

impl fmt::Display for ParseSquareError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let numbers = if self.indexed {
            "an index 0..8 row by row from the top left"
        } else {
            "1..9"
        };
        write!(
            f,
            "'{}' is not a cell: use a1..c3 (column a-c, row 1-3 from the top) or {numbers}",
            Echo(&self.input)
        )
    }
}

impl std::error::Error for ParseSquareError {}

/// Why a number is not a square index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SquareIndexError(pub u64);

impl fmt::Display for SquareIndexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cell index {} is off the board (0..8)", self.0)
    }
}

impl std::error::Error for SquareIndexError {}

impl TryFrom<u8> for Square {
    type Error = SquareIndexError;

    fn try_from(index: u8) -> Result<Square, SquareIndexError> {
        Square::from_index(index).ok_or(SquareIndexError(u64::from(index)))
    }
}

impl TryFrom<u64> for Square {
    type Error = SquareIndexError;

    fn try_from(index: u64) -> Result<Square, SquareIndexError> {
        u8::try_from(index)
            .ok()
            .and_then(Square::from_index)
            .ok_or(SquareIndexError(index))
    }
}

impl Square {
    /// Parses a cell as programs write it, in the wire protocol and the
    /// HTTP API: a name `a1`..`c3` (case-insensitive, surrounding spaces
    /// ignored) or an index `0`..`8` row by row from the top left. People
    /// type `1`..`9` instead ([`FromStr`]).
    ///
    /// ```
    /// use oxo_core::Square;
    /// assert_eq!(Square::from_wire("4"), Ok(Square::B2));
    /// assert_eq!(Square::from_wire("b2"), Ok(Square::B2));
    /// assert!(Square::from_wire("9").is_err());
    /// ```
    ///
    /// # Errors
    ///
    /// Anything else, with a message that says what is accepted.
    pub fn from_wire(s: &str) -> Result<Square, ParseSquareError> {
        parse(s, 0)
    }
}

/// Parses a name, or a digit counting from `base`.
fn parse(s: &str, base: u8) -> Result<Square, ParseSquareError> {
    let err = || ParseSquareError {
        input: s.to_owned(),
        indexed: base == 0,
    };
    match s.trim().as_bytes() {
        [d @ b'0'..=b'9'] => Square::from_index(d.wrapping_sub(b'0' + base)).ok_or_else(err),
        [c, r] => {
            let column = c.to_ascii_lowercase().wrapping_sub(b'a');
            let row = r.wrapping_sub(b'1');
            Square::from_coords(column, row).ok_or_else(err)
        }
        _ => Err(err()),
    }
}

impl FromStr for Square {
    type Err = ParseSquareError;

    /// Parses `a1`..`c3` (case-insensitive, surrounding spaces ignored) or a
    /// number `1`..`9`, as people type them (programs: [`Square::from_wire`]).
    fn from_str(s: &str) -> Result<Square, ParseSquareError> {
        parse(s, 1)
    }
}

#[cfg(feature = "serde")]
impl serde::Serialize for Square {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

#[cfg(feature = "serde")]
impl<'de> serde::Deserialize<'de> for Square {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Square, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Square;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a cell name a1..c3 or a cell index 0..8")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Square, E> {
                Square::from_wire(v).map_err(E::custom)
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Square, E> {
                Square::try_from(v).map_err(E::custom)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Square, E> {
                u64::try_from(v)
                    .map_err(|_| E::custom(format!("cell index {v} is off the board (0..8)")))
                    .and_then(|v| self.visit_u64(v))
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for sq in Square::ALL {
            assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
            assert_eq!(sq.number().to_string().parse::<Square>(), Ok(sq));
        }
        assert_eq!(Square::C1.to_string(), "c1");
        assert_eq!(Square::A3.index(), 6);
    }

    #[test]
    fn rejects_off_board() {
        for bad in ["", "0", "10", "d1", "a4", "a0", "b", "b22", "é1"] {
            assert!(bad.parse::<Square>().is_err(), "{bad}");
        }
        assert_eq!(Square::try_from(9u8), Err(SquareIndexError(9)));
        assert_eq!(" B2 ".parse::<Square>(), Ok(Square::B2));
    }

    #[test]
    fn programs_count_cells_from_zero_and_people_from_one() {
        for sq in Square::ALL {
            assert_eq!(Square::from_wire(&sq.index().to_string()), Ok(sq));
            assert_eq!(Square::from_wire(&sq.to_string()), Ok(sq));
        }
        let nine = Square::from_wire("9").expect_err("off the board");
        assert!(nine.to_string().contains("0..8"), "{nine}");
        assert!(
            "0".parse::<Square>()
                .expect_err("")
                .to_string()
                .contains("1..9")
        );
    }
}
