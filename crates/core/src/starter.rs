//! Who moves first in each round of a match.

use core::fmt;
use core::str::FromStr;

use crate::Player;
use crate::echo::Echo;

/// The rule that picks each round's first player.
///
/// | rule        | round 1 | later rounds                      |
/// | ----------- | ------- | --------------------------------- |
/// | `x`         | X       | X                                 |
/// | `o`         | O       | O                                 |
/// | `toss`      | coin    | a new coin toss each round        |
/// | `alternate` | X       | the other player than last round  |
///
/// ```
/// use oxo_core::{Player, Starter};
///
/// let rule: Starter = "alternate".parse()?;
/// let first = rule.pick(None, || unreachable!("no coin for alternate"));
/// assert_eq!(first, Player::X);
/// assert_eq!(rule.pick(Some(first), || Player::X), Player::O);
/// assert_eq!(Starter::Toss.pick(Some(Player::O), || Player::O), Player::O);
/// # Ok::<_, oxo_core::ParseStarterError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum Starter {
    /// X starts every round.
    #[default]
    X,
    /// O starts every round.
    O,
    /// A coin toss before every round.
    Toss,
    /// X starts the first round, then the starter alternates.
    Alternate,
}

impl Starter {
    /// Every rule, in the order a menu offers them.
    pub const ALL: [Starter; 4] = [Starter::Alternate, Starter::X, Starter::O, Starter::Toss];

    /// The first player of a new round, given the first player of the round
    /// before (`None` for the first round); `toss` is called for
    /// [`Starter::Toss`] only.
    pub fn pick(self, previous: Option<Player>, toss: impl FnOnce() -> Player) -> Player {
        match self {
            Starter::X => Player::X,
            Starter::O => Player::O,
            Starter::Toss => toss(),
            Starter::Alternate => previous.map_or(Player::X, |p| !p),
        }
    }

    /// The starter of a fixed rule, or `None` for a toss or alternation.
    #[must_use]
    pub const fn fixed(self) -> Option<Player> {
        match self {
            Starter::X => Some(Player::X),
            Starter::O => Some(Player::O),
            Starter::Alternate | Starter::Toss => None,
        }
    }

    /// The rule's name: `x`, `o`, `toss` or `alternate` (as parsed, and as
    /// on the wire).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Starter::X => "x",
            Starter::O => "o",
            Starter::Toss => "toss",
            Starter::Alternate => "alternate",
        }
    }

    /// A short description for people: "always X", "coin toss", ...
    #[must_use]
    pub const fn describe(self) -> &'static str {
        match self {
            Starter::X => "always X",
            Starter::O => "always O",
            Starter::Toss => "coin toss",
            Starter::Alternate => "X, then alternate",
        }
    }
}

impl fmt::Display for Starter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a string is not a [`Starter`] rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseStarterError(pub String);

impl fmt::Display for ParseStarterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a first-move rule: use x, o, toss or alternate",
            Echo(&self.0)
        )
    }
}

impl core::error::Error for ParseStarterError {}

impl FromStr for Starter {
    type Err = ParseStarterError;

    /// Accepts the names of [`Starter::as_str`] in any case, and `coin` or
    /// `random` for a toss, `alt` for alternate.
    fn from_str(s: &str) -> Result<Starter, ParseStarterError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "x" => Ok(Starter::X),
            "o" => Ok(Starter::O),
            "toss" | "coin" | "random" => Ok(Starter::Toss),
            "alternate" | "alt" => Ok(Starter::Alternate),
            _ => Err(ParseStarterError(s.to_owned())),
        }
    }
}
