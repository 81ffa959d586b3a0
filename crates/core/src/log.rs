//! The game as a list of events, for replays and records.

use core::ops::Range;

use crate::{Game, Outcome, Player, Square};

/// One event of a game's log.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "serde", serde(tag = "type", rename_all = "snake_case"))]
pub enum Event {
    /// The game started with `first` to move.
    Start {
        /// Who moves first.
        first: Player,
    },
    /// `player` marked `square`.
    Move {
        /// Who moved.
        player: Player,
        /// Where.
        square: Square,
    },
    /// The game ended.
    End {
        /// The result, with the reason.
        outcome: Outcome,
    },
}

/// A game's events: `start`, one `move` per ply, and `end` once it is over.
///
/// ```
/// use oxo_core::{Event, Game, Player, Square::*};
///
/// let mut game = Game::new();
/// for sq in [A1, B2, C3] {
///     game.play(sq)?;
/// }
/// let log = game.log();
/// assert_eq!(log.len(), 4); // start + 3 moves, no end yet
/// assert_eq!(log.slice(1..3), &[
///     Event::Move { player: Player::X, square: A1 },
///     Event::Move { player: Player::O, square: B2 },
/// ]);
/// assert_eq!(log.slice(3..99).len(), 1); // clamped to the end
/// # Ok::<_, oxo_core::MoveError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct GameLog {
    events: Vec<Event>,
}

impl GameLog {
    /// The log of `game` so far.
    #[must_use]
    pub fn of_game(game: &Game) -> GameLog {
        let mut events = Vec::with_capacity(game.moves().len() + 2);
        events.push(Event::Start {
            first: game.first(),
        });
        events.extend(
            game.moves()
                .iter()
                .enumerate()
                .map(|(ply, &square)| Event::Move {
                    player: game.player_of_ply(ply),
                    square,
                }),
        );
        if let Some(outcome) = game.outcome() {
            events.push(Event::End { outcome });
        }
        GameLog { events }
    }

    /// The number of events.
    #[must_use]
    pub fn len(&self) -> usize {
        self.events.len()
    }

    /// Whether there are no events (never true for a log made from a game).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// All events.
    #[must_use]
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// The events with indices in `range`, clamped to the log: a range past
    /// the end gives what is there (possibly nothing), never a panic.
    #[must_use]
    pub fn slice(&self, range: Range<usize>) -> &[Event] {
        let end = range.end.min(self.events.len());
        let start = range.start.min(end);
        &self.events[start..end]
    }
}
