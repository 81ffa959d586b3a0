//! oxo-core: the tic-tac-toe engine.
//!
//! Rules on bitboards, position notation, a perfect-play solver, bots from
//! random to perfect, and the game log. No I/O, no async, no dependencies
//! (serde support behind the `serde` feature).
//!
//! The vocabulary is re-exported at the root: [`Square`] (`a1`..`c3`),
//! [`Player`], [`Bitboard`] (a set of squares), [`Board`] (any marks),
//! [`Position`] (a board some game reaches, with the side to move), [`Game`]
//! (a position with its history and result) and [`Outcome`]. The formats and
//! the engines have a module each: [`notation`], [`solver`], [`bot`] and
//! [`perft`].
//!
//! # Examples
//!
//! Play a game: squares parse from their names, and a refused move leaves
//! the game as it was.
//!
//! ```
//! use oxo_core::{Game, MoveError, Player, Square};
//!
//! let mut game = Game::new();
//! for name in ["a1", "b1", "b2", "c1"] {
//!     game.play(name.parse::<Square>()?)?;
//! }
//! assert_eq!(game.to_move(), Some(Player::X));
//! assert_eq!(game.play(Square::B1), Err(MoveError::Occupied { square: Square::B1, by: Player::O }));
//! let outcome = game.play(Square::C3)?.expect("X completed a1-b2-c3");
//! assert_eq!(outcome.to_string(), "X wins (line a1 b2 c3)");
//! assert_eq!(game.position().to_string(), "XOO.X...X");
//! # Ok::<_, Box<dyn std::error::Error>>(())
//! ```
//!
//! Read and write positions in [`notation`]: nine cells, row by row. What
//! parses is a position some game reaches; what does not, says why.
//!
//! ```
//! use oxo_core::{Player, Position};
//!
//! let pos: Position = "X.O/.X./...".parse()?;
//! assert_eq!(pos.turn(), Player::O);
//! assert_eq!(pos.to_string(), "X.O.X....");
//!
//! let err = "XXX/OOO/...".parse::<Position>().unwrap_err();
//! assert_eq!(err.to_string(), "impossible position: both X and O have a line");
//! let err = "X.O.X".parse::<Position>().unwrap_err();
//! assert!(err.to_string().starts_with("found 5 cells, expected 9 cells of X, O or ."));
//! # Ok::<_, oxo_core::ParsePositionError>(())
//! ```
//!
//! Ask the [`solver`] for the value of a position and its best moves.
//!
//! ```
//! use oxo_core::{solver, Bitboard, Position, Square, Value};
//!
//! let pos: Position = "X.O.X....".parse()?; // O to move
//! assert_eq!(solver::best_moves(&pos), Bitboard::from(Square::C3), "block the diagonal");
//! assert_eq!(solver::value(&pos), Value::Draw(6));
//! let best = solver::analyze(&pos)[0]; // every move, best first
//! assert_eq!((best.square, best.value), (Square::C3, Value::Draw(6)));
//! # Ok::<_, oxo_core::ParsePositionError>(())
//! ```
//!
//! Let [`bot`]s play: the same seed always gives the same game.
//!
//! ```
//! use oxo_core::{BotLevel, ByPlayer, Game, Player};
//!
//! let mut bots = ByPlayer { x: BotLevel::Perfect.bot(1), o: BotLevel::Random.bot(2) };
//! let mut game = Game::new();
//! while let Some(player) = game.to_move() {
//!     let square = bots[player].choose(game.position()).expect("a move while the game goes on");
//!     game.play(square)?;
//! }
//! let winner = game.outcome().and_then(|o| o.winner());
//! assert_ne!(winner, Some(Player::O), "perfect play never loses");
//! # Ok::<_, oxo_core::MoveError>(())
//! ```
//!
//! # Feature flags
//!
//! - `serde`: `Serialize`/`Deserialize` for squares (as `"b2"`), bitboards (as
//!   lists of squares), players, outcomes, bot levels, starters, scores and
//!   log events.
//! - `schema`: JSON Schemas (`schemars`) of those serde forms; implies
//!   `serde`.

mod bitboard;
mod board;
pub mod bot;
mod echo;
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
pub use outcome::{Concession, Outcome, WinReason};
pub use player::{ByPlayer, ParsePlayerError, Player};
pub use position::{MoveError, Position};
pub use rng::Rng;
pub use scores::Scores;
pub use solver::{MoveValue, Value};
pub use square::{ParseSquareError, Square, SquareIndexError};
pub use starter::{ParseStarterError, Starter};
pub use symmetry::{Symmetry, canonical_key};
