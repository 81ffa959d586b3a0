//! oxo-core: the tic-tac-toe engine.
//!
//! Rules on bitboards, position notation, a perfect-play solver, bots from
//! random to perfect, and the game log. No I/O, no async, no dependencies
//! (serde support behind the `serde` feature).
//!
//! # Examples
//!
//! ```
//! use oxo_core::{solver, BotLevel, Game, Square};
//!
//! let mut game = Game::new();
//! game.play("b2".parse::<Square>()?)?;
//! let mut bot = BotLevel::Perfect.bot(7);
//! let reply = bot.choose(game.position()).expect("the game goes on");
//! game.play(reply)?;
//! assert_eq!(solver::value(game.position()).kind(), "draw");
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```
//!
//! # Feature flags
//!
//! - `serde`: `Serialize`/`Deserialize` for squares (as `"b2"`), bitboards (as
//!   lists of squares), players, outcomes, bot levels and log events.

mod bitboard;
mod board;
pub mod bot;
mod game;
mod log;
pub mod notation;
mod outcome;
pub mod perft;
mod player;
mod position;
mod rng;
mod scores;
pub mod solver;
mod square;
mod starter;
mod symmetry;

pub use bitboard::{Bitboard, Squares};
pub use board::Board;
pub use bot::{Bot, BotLevel, ParseBotLevelError};
pub use game::{Game, UndoError};
pub use log::{Event, GameLog};
pub use notation::{Illegal, ParsePositionError, PositionError};
pub use outcome::{Outcome, WinReason};
pub use player::{ByPlayer, ParsePlayerError, Player};
pub use position::{MoveError, Position};
pub use rng::Rng;
pub use scores::Scores;
pub use solver::{MoveValue, Value};
pub use square::{ParseSquareError, Square, SquareIndexError};
pub use starter::{ParseStarterError, Starter};
pub use symmetry::{Symmetry, canonical_key};
