//! The two players.

use core::fmt;
use core::ops::Not;
use core::str::FromStr;

use crate::echo::Echo;

/// One of the two players, `X` or `O`.
///
/// ```
/// use oxo_core::Player;
///
/// assert_eq!(!Player::X, Player::O);
/// assert_eq!(Player::O.fold_xo("cross", "nought"), "nought");
/// assert_eq!("x".parse::<Player>(), Ok(Player::X));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum Player {
    /// Crosses; moves first unless the game says otherwise.
    X,
    /// Noughts.
    O,
}

impl Player {
    /// Both players, X first.
    pub const ALL: [Player; 2] = [Player::X, Player::O];

    /// `x` for [`Player::X`], `o` for [`Player::O`].
    #[must_use]
    pub fn fold_xo<T>(self, x: T, o: T) -> T {
        match self {
            Player::X => x,
            Player::O => o,
        }
    }

    /// The mark as a character, `'X'` or `'O'`.
    #[must_use]
    pub const fn char(self) -> char {
        match self {
            Player::X => 'X',
            Player::O => 'O',
        }
    }
}

impl Not for Player {
    type Output = Player;

    fn not(self) -> Player {
        self.fold_xo(Player::O, Player::X)
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.char())
    }
}

/// Why a string is not a player.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsePlayerError(pub String);

impl fmt::Display for ParsePlayerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' is not a player: use x or o", Echo(&self.0))
    }
}

impl std::error::Error for ParsePlayerError {}

impl FromStr for Player {
    type Err = ParsePlayerError;

    fn from_str(s: &str) -> Result<Player, ParsePlayerError> {
        match s.trim() {
            "x" | "X" => Ok(Player::X),
            "o" | "O" => Ok(Player::O),
            other => Err(ParsePlayerError(other.to_owned())),
        }
    }
}

/// A value for each player.
///
/// ```
/// use oxo_core::{ByPlayer, Player};
///
/// let mut wins = ByPlayer::default();
/// wins[Player::O] += 1;
/// assert_eq!(wins, ByPlayer { x: 0, o: 1 });
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename = "ByPlayer_{T}")
)]
pub struct ByPlayer<T> {
    /// X's value.
    pub x: T,
    /// O's value.
    pub o: T,
}

impl<T> ByPlayer<T> {
    /// A value for each player, computed from the player.
    pub fn new_with(mut f: impl FnMut(Player) -> T) -> ByPlayer<T> {
        ByPlayer {
            x: f(Player::X),
            o: f(Player::O),
        }
    }

    /// The player's value.
    pub fn get(&self, player: Player) -> &T {
        player.fold_xo(&self.x, &self.o)
    }

    /// The player's value, mutably.
    pub fn get_mut(&mut self, player: Player) -> &mut T {
        match player {
            Player::X => &mut self.x,
            Player::O => &mut self.o,
        }
    }
}

impl<T> core::ops::Index<Player> for ByPlayer<T> {
    type Output = T;

    fn index(&self, player: Player) -> &T {
        self.get(player)
    }
}

impl<T> core::ops::IndexMut<Player> for ByPlayer<T> {
    fn index_mut(&mut self, player: Player) -> &mut T {
        self.get_mut(player)
    }
}
