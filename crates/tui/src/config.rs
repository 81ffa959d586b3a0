//! What a game session is set up with: who sits at X and at O, who starts,
//! and the bots' seed.
//!
//! The same [`Config`] comes from the command line (`oxo play --x Alice
//! --o bot:perfect --first toss`) or from the set-up screen, and drives both
//! the full-screen game and the line mode.

use core::fmt;
use core::str::FromStr;

use oxo_core::{BotLevel, ByPlayer, Starter};
use oxo_protocol::NameError;
use oxo_protocol::limits::MAX_NAME_CHARS;

/// Who plays one mark: a person with a name, or a bot of some strength.
///
/// Parsed from the `--x`/`--o` flags: `bot:LEVEL` (`bot:random`, `bot:easy`,
/// `bot:medium`, `bot:perfect`) is a bot, anything else is a person's name.
///
/// ```
/// use oxo_tui::Seat;
/// use oxo_core::BotLevel;
///
/// assert_eq!("Alice".parse::<Seat>()?, Seat::Human("Alice".into()));
/// assert_eq!("bot:perfect".parse::<Seat>()?, Seat::Bot(BotLevel::Perfect));
/// assert!("bot:genius".parse::<Seat>().is_err());
/// # Ok::<_, oxo_tui::ParseSeatError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Seat {
    /// A person at the keyboard, with the name to show.
    Human(String),
    /// A computer player of this strength.
    Bot(BotLevel),
}

impl Seat {
    /// The name shown for this seat: the person's name, or the bot's level
    /// as people see it everywhere (`Medium`, `Impossible`, ...).
    #[must_use]
    pub(crate) fn name(&self) -> String {
        match self {
            Seat::Human(name) => name.clone(),
            Seat::Bot(level) => level.display_name().to_owned(),
        }
    }

    /// Whether a bot plays this seat.
    #[must_use]
    pub(crate) const fn is_bot(&self) -> bool {
        matches!(self, Seat::Bot(_))
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Seat::Human(name) => f.write_str(name),
            Seat::Bot(level) => write!(f, "bot:{level}"),
        }
    }
}

/// Why a string is not a [`Seat`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseSeatError {
    /// The name is empty or only spaces.
    EmptyName,
    /// The name is longer than [`MAX_NAME_CHARS`] characters.
    NameTooLong(String),
    /// The name breaks the protocol's rules for names (see
    /// [`oxo_protocol::check_name`]): a control character, one that hides
    /// or reorders text, a tower of combining marks, nothing that shows.
    BadName(String, NameError),
    /// `bot:` is followed by something that is not a bot level.
    BotLevel(String),
}

impl fmt::Display for ParseSeatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParseSeatError::EmptyName => f.write_str("a player's name cannot be empty"),
            ParseSeatError::NameTooLong(name) => write!(
                f,
                "the name '{name}' is too long (at most {MAX_NAME_CHARS} characters)"
            ),
            // The server's own words, which name the name.
            ParseSeatError::BadName(_, why @ NameError::Reserved(_)) => write!(f, "{why}"),
            ParseSeatError::BadName(name, why) => {
                write!(f, "the name {name:?} cannot be used ({why})")
            }
            ParseSeatError::BotLevel(level) => write!(
                f,
                "'bot:{level}' is not a bot: use bot:random, bot:easy, bot:medium or bot:perfect"
            ),
        }
    }
}

impl std::error::Error for ParseSeatError {}

/// Checks a person's name by the protocol's rules, the ones the server
/// holds online too ([`oxo_protocol::check_name`]): trimmed, not empty, at
/// most [`MAX_NAME_CHARS`] characters, nothing that hides or fakes text.
///
/// # Errors
///
/// The [`ParseSeatError`] naming what is wrong with it.
pub fn check_name(name: &str) -> Result<String, ParseSeatError> {
    seat_error(name, oxo_protocol::check_name(name))
}

/// Checks the name a player goes by online (`--name`) as the server does
/// ([`oxo_protocol::check_online_name`]): the rules of [`check_name`], and
/// not a computer player's name nor one that looks like it, so that such
/// a name is refused before connecting, in the server's words.
///
/// # Errors
///
/// The [`ParseSeatError`] naming what is wrong with it.
pub fn check_online_name(name: &str) -> Result<String, ParseSeatError> {
    seat_error(name, oxo_protocol::check_online_name(name))
}

/// `checked`, the protocol's verdict on `name`, in [`ParseSeatError`]'s
/// words.
fn seat_error(name: &str, checked: Result<&str, NameError>) -> Result<String, ParseSeatError> {
    match checked {
        Ok(name) => Ok(name.to_owned()),
        Err(NameError::Empty) => Err(ParseSeatError::EmptyName),
        Err(NameError::TooLong { .. }) => Err(ParseSeatError::NameTooLong(name.trim().to_owned())),
        Err(why) => Err(ParseSeatError::BadName(name.trim().to_owned(), why)),
    }
}

impl FromStr for Seat {
    type Err = ParseSeatError;

    fn from_str(s: &str) -> Result<Seat, ParseSeatError> {
        let trimmed = s.trim();
        match trimmed.get(..4) {
            Some(prefix) if prefix.eq_ignore_ascii_case("bot:") => {
                let level = &trimmed[4..];
                level
                    .parse()
                    .map(Seat::Bot)
                    .map_err(|_| ParseSeatError::BotLevel(level.to_owned()))
            }
            _ => check_name(trimmed).map(Seat::Human),
        }
    }
}

/// Everything a session of `oxo play` starts from.
///
/// ```
/// use oxo_core::Starter;
/// use oxo_tui::{Config, Seat};
///
/// let config = Config {
///     players: oxo_core::ByPlayer {
///         x: "Alice".parse()?,
///         o: "bot:perfect".parse()?,
///     },
///     first: Starter::Toss,
///     seed: Some(7),
///     ..Config::default()
/// };
/// assert_eq!(config.players.o, Seat::Bot(oxo_core::BotLevel::Perfect));
/// # Ok::<_, oxo_tui::ParseSeatError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// Who plays X and who plays O. The marks stay with the players for the
    /// whole session; only the starter changes between rounds.
    pub players: ByPlayer<Seat>,
    /// Who starts each round.
    pub first: Starter,
    /// Seed for the bots and the coin toss; `None` takes one from the clock.
    /// The same seed and the same moves replay the same session.
    pub seed: Option<u64>,
    /// Whether the full-screen game opens on the set-up screen (`false` when
    /// the players came from flags). Line mode never shows it.
    pub setup: bool,
    /// Line mode even on a terminal.
    pub plain: bool,
}

impl Default for Config {
    /// Two people called `Player 1` (X) and `Player 2` (O), X starting and
    /// then alternating, opening on the set-up screen.
    fn default() -> Config {
        Config {
            players: ByPlayer {
                x: Seat::Human(DEFAULT_NAMES.x.to_owned()),
                o: Seat::Human(DEFAULT_NAMES.o.to_owned()),
            },
            first: Starter::Alternate,
            seed: None,
            setup: true,
            plain: false,
        }
    }
}

/// The names people get when they give none.
pub(crate) const DEFAULT_NAMES: ByPlayer<&str> = ByPlayer {
    x: "Player 1",
    o: "Player 2",
};

/// A seed from the clock, for sessions started without `--seed`.
#[must_use]
pub(crate) fn clock_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0x0dd_5eed, |d| {
            d.as_secs().wrapping_mul(1_000_000_007) ^ u64::from(d.subsec_nanos())
        })
}

#[cfg(test)]
impl Config {
    /// `x` and `o` seated as the flags would seat them (`bot:LEVEL` for a
    /// bot), X starting every round, seed 1, straight into the game.
    pub(crate) fn seated(x: &str, o: &str) -> Config {
        Config {
            players: ByPlayer {
                x: x.parse().expect("a valid seat in a test"),
                o: o.parse().expect("a valid seat in a test"),
            },
            first: Starter::X,
            seed: Some(1),
            setup: false,
            plain: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seats_parse() {
        assert_eq!("  Bob ".parse(), Ok(Seat::Human("Bob".into())));
        assert_eq!("BOT:Easy".parse(), Ok(Seat::Bot(BotLevel::Easy)));
        assert_eq!("bot:impossible".parse(), Ok(Seat::Bot(BotLevel::Perfect)));
        assert_eq!("".parse::<Seat>(), Err(ParseSeatError::EmptyName));
        assert_eq!(
            "bot:".parse::<Seat>(),
            Err(ParseSeatError::BotLevel(String::new()))
        );
        assert!("a\tb".parse::<Seat>().is_err());
        assert!("x".repeat(MAX_NAME_CHARS + 1).parse::<Seat>().is_err());
        assert!("é".repeat(MAX_NAME_CHARS).parse::<Seat>().is_ok());
        // The names the server refuses as unprintable are refused here too.
        for bad in ["A\u{202E}RTL", "a\u{200B}b", "\u{3164}"] {
            assert!(
                matches!(bad.parse::<Seat>(), Err(ParseSeatError::BadName(..))),
                "{bad:?}"
            );
        }
        let zalgo = format!("a{}", "\u{0301}".repeat(4));
        assert!(zalgo.parse::<Seat>().is_err());
        // A name that merely starts with "bot" is a name.
        assert_eq!("botany".parse(), Ok(Seat::Human("botany".into())));
    }

    #[test]
    fn seat_names() {
        assert_eq!(Seat::Bot(BotLevel::Perfect).name(), "Impossible");
        assert_eq!(Seat::Bot(BotLevel::Random).to_string(), "bot:random");
        assert_eq!(Seat::Human("Al".into()).name(), "Al");
    }
}
