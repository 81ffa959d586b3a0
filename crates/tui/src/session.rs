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
mod tests {
    use oxo_core::Square::*;

    use super::*;

    fn config(x: &str, o: &str, first: Starter) -> Config {
        Config {
            first,
            ..Config::seated(x, o)
        }
    }

    fn two_people() -> Session {
        Session::new(&config("A", "B", Starter::Alternate))
    }

    fn play_all(session: &mut Session, squares: &[Square]) {
        for &sq in squares {
            session.play(sq).expect("legal move");
        }
    }

    #[test]
    fn set_up_from_config() {
        let s = Session::new(&config("Alice", "bot:perfect", Starter::O));
        assert_eq!(s.name(Player::X), "Alice");
        assert_eq!(s.label(Player::O), "Impossible (O)");
        assert!(s.is_bot(Player::O) && !s.is_bot(Player::X));
        assert_eq!(s.round(), 1);
        assert_eq!(s.game().first(), Player::O);
        assert_eq!(s.bot_to_move(), Some(Player::O));
        assert_eq!(s.human_to_move(), None);
        assert_eq!(*s.scores(), Scores::default());
    }

    #[test]
    fn moves_and_a_win() {
        let mut s = two_people();
        let played = s.play(A1).expect("free");
        assert_eq!(
            played,
            Played {
                player: Player::X,
                square: A1,
                outcome: None
            }
        );
        play_all(&mut s, &[B1, A2, B2]);
        let last = s.play(A3).expect("free");
        assert_eq!(last.outcome.and_then(|o| o.winner()), Some(Player::X));
        assert_eq!(
            last.outcome.map(|o| o.cells().to_string()).as_deref(),
            Some("a1 a2 a3")
        );
        assert_eq!(
            *s.scores(),
            Scores {
                x: 1,
                o: 0,
                draws: 0
            }
        );
        assert_eq!(s.round(), 1);
    }

    #[test]
    fn refusals_change_nothing() {
        let mut s = two_people();
        s.play(B2).expect("free");
        let before = s.game().clone();
        assert_eq!(
            s.play(B2),
            Err(Refusal::Occupied {
                square: B2,
                by: Player::X
            })
        );
        assert_eq!(s.next_round(), Err(Refusal::NotOver));
        assert_eq!(s.game(), &before);
        play_all(&mut s, &[A1, C1, A3, A2, C2, B1, B3, C3]);
        assert_eq!(s.game().outcome(), Some(Outcome::Draw));
        let over = s.game().clone();
        assert_eq!(s.play(A1), Err(Refusal::GameOver));
        assert_eq!(s.undo(), Err(Refusal::GameOver));
        assert_eq!(s.game(), &over);
        assert_eq!(s.scores().draws, 1);
    }

    #[test]
    fn rounds_alternate_and_scores_add_up() {
        let mut s = two_people();
        play_all(&mut s, &[A1, B1, A2, B2, A3]);
        s.next_round().expect("over");
        assert_eq!(s.round(), 2);
        assert_eq!(s.game().first(), Player::O);
        assert!(s.game().moves().is_empty());
        // O starts and wins along the middle row.
        play_all(&mut s, &[A2, A1, B2, B1, C2]);
        assert_eq!(s.game().outcome().and_then(|o| o.winner()), Some(Player::O));
        assert_eq!(
            *s.scores(),
            Scores {
                x: 1,
                o: 1,
                draws: 0
            }
        );
        s.next_round().expect("over");
        assert_eq!(s.game().first(), Player::X);
        assert_eq!(s.round(), 3);
    }

    #[test]
    fn fixed_and_tossed_starters() {
        let mut s = Session::new(&config("A", "B", Starter::X));
        play_all(&mut s, &[A1, B1, A2, B2, A3]);
        s.next_round().expect("over");
        assert_eq!(s.game().first(), Player::X);
        assert!(!s.tossed());

        let mut starters = Vec::new();
        for seed in 0..32 {
            let s = Session::new(&Config {
                seed: Some(seed),
                ..config("A", "B", Starter::Toss)
            });
            assert!(s.tossed());
            starters.push(s.game().first());
        }
        assert!(starters.contains(&Player::X) && starters.contains(&Player::O));
    }

    #[test]
    fn undo_between_people_takes_one_move() {
        let mut s = two_people();
        assert_eq!(s.undo(), Err(Refusal::NothingToUndo));
        play_all(&mut s, &[A1, B2]);
        assert_eq!(s.undo(), Ok(vec![(Player::O, B2)]));
        assert_eq!(s.game().moves(), &[A1]);
        assert_eq!(s.human_to_move(), Some(Player::O));
    }

    #[test]
    fn undo_against_a_bot_takes_the_bot_move_too() {
        let mut s = Session::new(&config("A", "bot:perfect", Starter::O));
        // The bot starts: nothing of ours to undo.
        let opening = s.bot_move().expect("bot starts");
        assert_eq!(opening.player, Player::O);
        assert_eq!(s.undo(), Err(Refusal::NothingToUndo));
        let mine = s
            .game()
            .position()
            .legal_moves()
            .first()
            .expect("free cell");
        s.play(mine).expect("free");
        let reply = s.bot_move().expect("bot replies");
        assert_eq!(
            s.undo(),
            Ok(vec![(Player::O, reply.square), (Player::X, mine)])
        );
        assert_eq!(s.game().moves(), &[opening.square]);
        assert_eq!(s.human_to_move(), Some(Player::X));
    }

    #[test]
    fn people_cannot_move_for_the_bot() {
        let mut s = Session::new(&config("bot:random", "B", Starter::X));
        assert_eq!(s.play(B2), Err(Refusal::BotToMove));
        assert!(s.bot_move().is_some());
        assert_eq!(s.bot_move(), None);
    }

    #[test]
    fn restart_replays_a_round_in_play_and_starts_the_next_after_one_is_over() {
        let mut s = two_people();
        play_all(&mut s, &[A1, B1, A2, B2, A3]);
        s.next_round().expect("over");
        s.play(C3).expect("free");
        // During a round: the same round again, with the same starter.
        assert_eq!(s.restart(), Restart::Replayed);
        assert!(s.game().moves().is_empty());
        assert_eq!(s.game().first(), Player::O);
        assert_eq!(s.round(), 2);
        assert_eq!(s.scores().x, 1);
        // After a finished round: the next round, under the starter rule
        // (alternate: X after O), and the result stays counted.
        play_all(&mut s, &[A2, A1, B2, B1, C2]);
        assert_eq!(s.restart(), Restart::NextRound);
        assert_eq!(s.round(), 3);
        assert_eq!(
            *s.scores(),
            Scores {
                x: 1,
                o: 1,
                draws: 0
            }
        );
        assert_eq!(s.game().first(), Player::X);
    }

    #[test]
    fn restart_after_a_round_tosses_a_new_coin() {
        let mut s = Session::new(&config("A", "B", Starter::Toss));
        let mut firsts = std::collections::HashSet::new();
        for _ in 0..20 {
            s.play(B2).expect("free");
            s.restart();
            assert!(
                s.game().moves().is_empty(),
                "a restart mid-round replays it"
            );
            play_all(&mut s, &[A1, B1, A2, B2, A3]);
            assert_eq!(s.restart(), Restart::NextRound);
            assert!(s.tossed());
            firsts.insert(s.game().first());
        }
        assert_eq!(firsts.len(), 2, "both sides start some rounds");
    }

    #[test]
    fn perfect_bots_draw_every_round() {
        let mut s = Session::new(&config("bot:perfect", "bot:perfect", Starter::Toss));
        assert!(s.bots_only());
        for _ in 0..10 {
            while s.bot_move().is_some() {}
            assert_eq!(s.game().outcome(), Some(Outcome::Draw));
            s.next_round().expect("over");
        }
        assert_eq!(s.scores().draws, 10);
    }

    #[test]
    fn hints_rank_the_free_cells() {
        let mut s = two_people();
        play_all(&mut s, &[A1, B2, C3]);
        let hints = s.hints();
        assert_eq!(hints.len(), 6);
        assert!(hints.windows(2).all(|w| w[0].value >= w[1].value));
        // O must not take a corner: that loses.
        assert!(
            hints
                .iter()
                .any(|h| h.square == A3 && h.value.kind() == "loss")
        );
        assert!(
            hints
                .iter()
                .any(|h| h.square == B1 && h.value.kind() == "draw")
        );
    }

    #[test]
    fn scores_carry_over_for_the_same_players() {
        let mut s = two_people();
        play_all(&mut s, &[A1, B1, A2, B2, A3]);
        let mut same = two_people();
        same.carry_scores_from(&s);
        assert_eq!(same.scores().x, 1);
        let mut other = Session::new(&config("A", "bot:easy", Starter::X));
        other.carry_scores_from(&s);
        assert_eq!(other.scores().rounds(), 0);
    }
}
