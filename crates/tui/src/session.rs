//! A session: rounds of games between the same two players, with a
//! scoreboard.
//!
//! [`Session`] is the state both front ends share (the full-screen game and
//! the line mode). Every change is a plain method that returns what happened
//! or a [`Refusal`], and a refused change leaves the session as it was, so the
//! tests drive it without a terminal. The rules themselves are `oxo-core`'s
//! [`Game`]: this module only adds seats, bots, rounds and scores.
//!
//! A result goes on the scoreboard the moment the game ends and stays there:
//! undo works during a game, not after it, and restarting a finished round
//! replays it without taking its result back.

use oxo_core::{
    Bot, ByPlayer, Game, MoveValue, Outcome, Player, Rng, Scores, Square, Starter, solver,
};

use crate::config::{Config, Seat, clock_seed};
use crate::refusal::Refusal;

/// What `r` ([`Session::restart`]) did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Restart {
    /// The round in play started again, with the same starter.
    Replayed,
    /// The round was over: the next one started, under the starter rule.
    NextRound,
}

/// A move that was played, by a person or a bot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Played {
    /// Who played it.
    pub(crate) player: Player,
    /// Where.
    pub(crate) square: Square,
    /// How the game ended, if this move ended it.
    pub(crate) outcome: Option<Outcome>,
}

/// Rounds of tic-tac-toe between two seats, each a person or a bot.
#[derive(Debug)]
pub(crate) struct Session {
    seats: ByPlayer<Seat>,
    names: ByPlayer<String>,
    bots: ByPlayer<Option<Box<dyn Bot>>>,
    starter: Starter,
    /// For the coin tosses; separate from the bots' generators so that a
    /// toss does not change the bots' moves.
    rng: Rng,
    game: Game,
    tossed: bool,
    scores: Scores,
}

impl Session {
    /// A session at the start of round 1. If a bot starts, it has not moved
    /// yet: call [`Session::bot_move`].
    #[must_use]
    pub(crate) fn new(config: &Config) -> Session {
        let seed = config.seed.unwrap_or_else(clock_seed);
        let bots = ByPlayer::new_with(|p| match config.players[p] {
            Seat::Bot(level) => Some(level.bot(p.fold_xo(seed, seed ^ 0x0b07_0b07_0b07_0b07))),
            Seat::Human(_) => None,
        });
        let mut session = Session {
            seats: config.players.clone(),
            names: ByPlayer::new_with(|p| config.players[p].name()),
            bots,
            starter: config.first,
            rng: Rng::new(seed.rotate_left(17) ^ 0x00c0_1770_55ed),
            game: Game::new(),
            tossed: false,
            scores: Scores::default(),
        };
        let first = session.pick_starter(None);
        session.game = Game::with_first(first);
        session
    }

    /// The name shown for `player`.
    #[must_use]
    pub(crate) fn name(&self, player: Player) -> &str {
        &self.names[player]
    }

    /// The name and mark of `player`, e.g. `Alice (X)`.
    #[must_use]
    pub(crate) fn label(&self, player: Player) -> String {
        format!("{} ({player})", self.names[player])
    }

    /// The name and mark of `player` as news says it: the name cut to
    /// [`crate::text::NAME_SAID`] columns.
    #[must_use]
    pub(crate) fn said(&self, player: Player) -> String {
        self.label_within(player, crate::text::NAME_SAID + crate::text::width(" (X)"))
    }

    /// The name and mark of `player` in at most `max` columns: a name too
    /// long for them is cut with `…`, the mark stays (`AVeryLongN… (X)`).
    #[must_use]
    pub(crate) fn label_within(&self, player: Player, max: usize) -> String {
        let mark = format!(" ({player})");
        let room = max.saturating_sub(crate::text::width(&mark));
        format!("{}{mark}", crate::text::truncate(&self.names[player], room))
    }

    /// Whether a bot plays `player`.
    #[must_use]
    pub(crate) fn is_bot(&self, player: Player) -> bool {
        self.seats[player].is_bot()
    }

    /// The current game.
    #[must_use]
    pub(crate) const fn game(&self) -> &Game {
        &self.game
    }

    /// The scoreboard, including the current game once it is over.
    #[must_use]
    pub(crate) const fn scores(&self) -> &Scores {
        &self.scores
    }

    /// The current round, from 1: one more than the finished rounds, or
    /// equal to them once the current game is over.
    #[must_use]
    pub(crate) fn round(&self) -> u32 {
        if self.game.is_over() {
            self.scores.rounds()
        } else {
            self.scores.rounds() + 1
        }
    }

    /// Whether a coin toss picked this round's starter.
    #[must_use]
    pub(crate) const fn tossed(&self) -> bool {
        self.tossed
    }

    /// The player to move, if a person plays them and the game goes on.
    #[must_use]
    pub(crate) fn human_to_move(&self) -> Option<Player> {
        self.game.to_move().filter(|&p| !self.is_bot(p))
    }

    /// The player to move, if a bot plays them and the game goes on.
    #[must_use]
    pub(crate) fn bot_to_move(&self) -> Option<Player> {
        self.game.to_move().filter(|&p| self.is_bot(p))
    }

    /// Whether bots play both marks.
    #[must_use]
    pub(crate) fn bots_only(&self) -> bool {
        self.is_bot(Player::X) && self.is_bot(Player::O)
    }

    /// Plays `square` for the person to move.
    ///
    /// # Errors
    ///
    /// [`Refusal::Occupied`], [`Refusal::GameOver`], or
    /// [`Refusal::BotToMove`] when a bot is to move.
    pub(crate) fn play(&mut self, square: Square) -> Result<Played, Refusal> {
        let player = self.game.to_move().ok_or(Refusal::GameOver)?;
        if self.is_bot(player) {
            return Err(Refusal::BotToMove);
        }
        self.apply(player, square)
    }

    /// Lets the bot to move play, and returns its move; `None` if no bot is
    /// to move.
    pub(crate) fn bot_move(&mut self) -> Option<Played> {
        let player = self.bot_to_move()?;
        let position = *self.game.position();
        let square = self.bots[player].as_mut()?.choose(&position)?;
        self.apply(player, square).ok()
    }

    fn apply(&mut self, player: Player, square: Square) -> Result<Played, Refusal> {
        let outcome = self.game.play(square)?;
        if let Some(outcome) = outcome {
            self.scores.record(outcome);
        }
        Ok(Played {
            player,
            square,
            outcome,
        })
    }

    /// Takes back the last move of a person, and every bot move after it,
    /// so that the same person is to move again. Returns the moves taken
    /// back, the most recent first.
    ///
    /// # Errors
    ///
    /// [`Refusal::GameOver`] once the game has ended (its result stands), or
    /// [`Refusal::NothingToUndo`] when no person has moved in this game.
    pub(crate) fn undo(&mut self) -> Result<Vec<(Player, Square)>, Refusal> {
        if self.game.is_over() {
            return Err(Refusal::GameOver);
        }
        let moves = self.game.moves().len();
        let last_human = (0..moves)
            .rev()
            .find(|&ply| !self.is_bot(self.game.player_of_ply(ply)))
            .ok_or(Refusal::NothingToUndo)?;
        let mut undone = Vec::with_capacity(moves - last_human);
        for ply in (last_human..moves).rev() {
            let player = self.game.player_of_ply(ply);
            // Cannot fail: the game is not over and has this many moves.
            let square = self.game.undo().map_err(|_| Refusal::NothingToUndo)?;
            undone.push((player, square));
        }
        Ok(undone)
    }

    /// `r`: during a round, plays that round again with the same starter;
    /// after a finished round, starts the next round under the starter
    /// rule (a new coin for a toss, the other player for alternate), so
    /// that `r` never hands the same player the first move unfairly.
    pub(crate) fn restart(&mut self) -> Restart {
        if self.game.is_over() {
            let first = self.pick_starter(Some(self.game.first()));
            self.game = Game::with_first(first);
            Restart::NextRound
        } else {
            self.game = Game::with_first(self.game.first());
            Restart::Replayed
        }
    }

    /// Starts the next round, with the starter the [`Starter`] gives.
    ///
    /// # Errors
    ///
    /// [`Refusal::NotOver`] while the current game goes on.
    pub(crate) fn next_round(&mut self) -> Result<(), Refusal> {
        if !self.game.is_over() {
            return Err(Refusal::NotOver);
        }
        let first = self.pick_starter(Some(self.game.first()));
        self.game = Game::with_first(first);
        Ok(())
    }

    fn pick_starter(&mut self, previous: Option<Player>) -> Player {
        self.tossed = self.starter == Starter::Toss;
        let rng = &mut self.rng;
        self.starter.pick(previous, || {
            if rng.chance(1, 2) {
                Player::X
            } else {
                Player::O
            }
        })
    }

    /// Keeps the scoreboard of `previous` if it had the same players, for a
    /// session set up again with `n`.
    pub(crate) fn carry_scores_from(&mut self, previous: &Session) {
        if previous.seats == self.seats {
            self.scores = previous.scores;
        }
    }

    /// The perfect-play value of every free cell for the player to move, best
    /// first; empty once the game is over.
    #[must_use]
    pub(crate) fn hints(&self) -> Vec<MoveValue> {
        if self.game.is_over() {
            Vec::new()
        } else {
            solver::analyze(self.game.position())
        }
    }
}

#[cfg(test)]
mod tests;
