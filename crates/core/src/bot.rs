//! Computer players, from random to perfect, behind one trait.
//!
//! Every bot is deterministic for a given seed: the same seed and the same
//! positions give the same moves.

use core::fmt;
use core::str::FromStr;

use crate::echo::Echo;
use crate::{Bitboard, Player, Position, Rng, Square, solver};

/// A computer player.
///
/// The built-in bots come from [`BotLevel::bot`]. A bot from elsewhere
/// implements [`Bot::choose`] and plays wherever they do; it has no
/// [`BotLevel`], so it keeps the default [`Bot::level`]:
///
/// ```
/// use oxo_core::{Bot, BotLevel, ByPlayer, Game, Player, Position, Square};
///
/// /// Plays the free square with the lowest index.
/// #[derive(Debug)]
/// struct FirstFree;
///
/// impl Bot for FirstFree {
///     fn choose(&mut self, position: &Position) -> Option<Square> {
///         position.legal_moves().first()
///     }
/// }
///
/// let mut bots: ByPlayer<Box<dyn Bot>> = ByPlayer {
///     x: Box::new(FirstFree),
///     o: BotLevel::Perfect.bot(7),
/// };
/// let mut game = Game::new();
/// while let Some(player) = game.to_move() {
///     let square = bots[player].choose(game.position()).expect("a move while the game goes on");
///     game.play(square)?;
/// }
/// assert_eq!(game.moves()[0], Square::A1);
/// assert_ne!(game.outcome().and_then(|o| o.winner()), Some(Player::X), "perfect play never loses");
/// assert_eq!((bots.x.level(), bots.o.level()), (None, Some(BotLevel::Perfect)));
/// # Ok::<_, oxo_core::MoveError>(())
/// ```
pub trait Bot: Send + fmt::Debug {
    /// The built-in level this bot plays at; `None` (the default) for a bot
    /// that is not one of [`BotLevel`]'s.
    fn level(&self) -> Option<BotLevel> {
        None
    }

    /// The move to play in `position`, or `None` if the game is over.
    fn choose(&mut self, position: &Position) -> Option<Square>;
}

/// The strengths of bot on offer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum BotLevel {
    /// Any legal move.
    Random,
    /// Wins in one move when it can, otherwise random.
    Easy,
    /// Wins when it can, blocks an immediate loss, otherwise mostly good moves
    /// with some mistakes.
    Medium,
    /// Never loses, wins as fast as possible, delays a loss as long as
    /// possible, varying among equally good moves.
    Perfect,
}

impl BotLevel {
    /// Every level, weakest first.
    pub const ALL: [BotLevel; 4] = [
        BotLevel::Random,
        BotLevel::Easy,
        BotLevel::Medium,
        BotLevel::Perfect,
    ];

    /// The level's name: `random`, `easy`, `medium` or `perfect`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            BotLevel::Random => "random",
            BotLevel::Easy => "easy",
            BotLevel::Medium => "medium",
            BotLevel::Perfect => "perfect",
        }
    }

    /// The name people see for a bot of this level, the same everywhere
    /// (menus, scoreboards, game records): `Random`, `Easy`, `Medium` or
    /// `Impossible` (the perfect bot: nobody beats it).
    ///
    /// ```
    /// assert_eq!(oxo_core::BotLevel::Perfect.display_name(), "Impossible");
    /// ```
    #[must_use]
    pub const fn display_name(self) -> &'static str {
        match self {
            BotLevel::Random => "Random",
            BotLevel::Easy => "Easy",
            BotLevel::Medium => "Medium",
            BotLevel::Perfect => "Impossible",
        }
    }

    /// A bot of this level seeded with `seed`.
    ///
    /// ```
    /// use oxo_core::{BotLevel, Position};
    ///
    /// let mut bot = BotLevel::Perfect.bot(42);
    /// let first = bot.choose(&Position::new()).expect("a move on the empty board");
    /// assert_eq!(bot.level(), Some(BotLevel::Perfect));
    /// # let _ = first;
    /// ```
    #[must_use]
    pub fn bot(self, seed: u64) -> Box<dyn Bot> {
        Box::new(LevelBot {
            level: self,
            rng: Rng::new(seed),
        })
    }
}

impl fmt::Display for BotLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a string is not a bot level.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseBotLevelError(pub String);

impl fmt::Display for ParseBotLevelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a bot level: use random, easy, medium or perfect (also impossible or hard)",
            Echo(&self.0)
        )
    }
}

impl std::error::Error for ParseBotLevelError {}

impl FromStr for BotLevel {
    type Err = ParseBotLevelError;

    fn from_str(s: &str) -> Result<BotLevel, ParseBotLevelError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "random" => Ok(BotLevel::Random),
            "easy" => Ok(BotLevel::Easy),
            "medium" => Ok(BotLevel::Medium),
            "perfect" | "impossible" | "hard" => Ok(BotLevel::Perfect),
            _ => Err(ParseBotLevelError(s.to_owned())),
        }
    }
}

/// The squares where the side to move completes a line now.
fn wins_now(position: &Position) -> Bitboard {
    let (mine, _) = position.mine_theirs();
    mine.winning_moves(position.legal_moves())
}

/// The squares where the opponent would complete a line next.
fn threats(position: &Position) -> Bitboard {
    let (_, theirs) = position.mine_theirs();
    theirs.winning_moves(position.legal_moves())
}

/// A bot of one of the built-in levels, with its own random numbers (see
/// [`BotLevel`] for how each level plays).
#[derive(Clone, Debug)]
struct LevelBot {
    level: BotLevel,
    rng: Rng,
}

impl Bot for LevelBot {
    fn level(&self) -> Option<BotLevel> {
        Some(self.level)
    }

    fn choose(&mut self, position: &Position) -> Option<Square> {
        let set = match self.level {
            BotLevel::Random => position.legal_moves(),
            BotLevel::Easy => {
                let wins = wins_now(position);
                if wins.is_empty() {
                    position.legal_moves()
                } else {
                    wins
                }
            }
            // A perfect move three times in four, a random one the rest,
            // when there is nothing to win or block at once.
            BotLevel::Medium => {
                let wins = wins_now(position);
                let blocks = threats(position);
                if !wins.is_empty() {
                    wins
                } else if !blocks.is_empty() {
                    blocks
                } else if self.rng.chance(3, 4) {
                    solver::table().best_moves(position)
                } else {
                    position.legal_moves()
                }
            }
            // Among the moves of best value: wins as fast as possible and
            // delays a loss as long as possible.
            BotLevel::Perfect => solver::table().best_moves(position),
        };
        self.rng.pick(set)
    }
}

/// Plays random moves from `position` to the end and returns the winner
/// (`None` for a draw).
///
/// ```
/// use oxo_core::{bot::random_playout, Position, Rng};
///
/// let mut rng = Rng::new(1);
/// let winner = random_playout(&Position::new(), &mut rng);
/// # let _ = winner;
/// ```
pub fn random_playout(position: &Position, rng: &mut Rng) -> Option<Player> {
    let (mut mine, mut theirs) = position.mine_theirs();
    let mut mover = position.turn();
    if theirs.has_line() {
        return Some(!mover);
    }
    loop {
        let empty = !(mine | theirs);
        let sq = rng.pick(empty)?;
        mine = mine.with(sq);
        if mine.has_line() {
            return Some(mover);
        }
        (mine, theirs) = (theirs, mine);
        mover = !mover;
    }
}
