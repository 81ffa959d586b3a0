//! The running score of a match: wins per side and draws.

use crate::{Outcome, Player};

/// Wins per side and draws over the finished rounds of a match.
///
/// The one scoreboard of oxo: the server keeps one per table (it travels
/// as `{"x": 1, "o": 0, "draws": 2}`), the terminal game one per session.
///
/// ```
/// use oxo_core::{Game, Player, Scores, Square::*};
///
/// let mut scores = Scores::default();
/// let mut game = Game::new();
/// for sq in [A1, B1, A2, B2, A3] {
///     game.play(sq)?;
/// }
/// scores.record(game.outcome().expect("X completed a column"));
/// assert_eq!((scores.wins(Player::X), scores.draws, scores.rounds()), (1, 0, 1));
/// # Ok::<_, oxo_core::MoveError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Scores {
    /// Rounds won by X.
    pub x: u32,
    /// Rounds won by O.
    pub o: u32,
    /// Drawn rounds.
    pub draws: u32,
}

impl Scores {
    /// The rounds `player` won.
    #[must_use]
    pub const fn wins(&self, player: Player) -> u32 {
        match player {
            Player::X => self.x,
            Player::O => self.o,
        }
    }

    /// The number of finished rounds (at most `u32::MAX`: the fields are
    /// public and may come from anywhere, so the sum saturates).
    #[must_use]
    pub const fn rounds(&self) -> u32 {
        self.x.saturating_add(self.o).saturating_add(self.draws)
    }

    /// Counts a finished round (a count already at `u32::MAX` stays there).
    pub fn record(&mut self, outcome: Outcome) {
        let count = match outcome.winner() {
            Some(Player::X) => &mut self.x,
            Some(Player::O) => &mut self.o,
            None => &mut self.draws,
        };
        *count = count.saturating_add(1);
    }
}
