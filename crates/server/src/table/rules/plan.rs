//! The transitions: each changes a plan's next state and records its
//! events. They run on a copy; [`Rules::apply`](super::Rules::apply) hands
//! the result out only if nothing was refused.

use oxo_core::{ByPlayer, Concession, Game, MoveError, Player, Square};
use oxo_protocol::{ErrorCode, PlayerId};
use tokio::time::Instant;

use super::{
    Accepted, Ctx, Event, Human, Phase, Plan, Reply, Round, Seat, Timer, coin, ply_count, refuse,
};
use crate::error::ClientError;

impl Plan {
    /// Seats the creator (both seats in pass and play, the bot opposite if
    /// there is one) and starts the first round when both seats are taken.
    pub(super) fn create(&mut self, creator: &PlayerId, ctx: &mut Ctx<'_>) {
        let s = &mut self.next;
        let seat = match s.options.seat {
            Some(seat) => seat,
            None => coin(&mut s.rng),
        };
        let human = || {
            Some(Seat::Human(Human {
                player: creator.clone(),
                connected: true,
                grace_until: None,
            }))
        };
        s.seats[seat] = human();
        if s.options.pass_and_play {
            s.seats[!seat] = human();
        } else if let Some(bot) = s.options.bot {
            s.seats[!seat] = Some(Seat::Bot(bot));
        }
        self.stored = true;
        if s.seats.x.is_some() && s.seats.o.is_some() {
            self.start_round(ctx);
        }
    }

    /// Seats `player` in `wanted` (or the free seat); a player seated
    /// already changes nothing, unless they ask for the other seat.
    pub(super) fn join(
        &mut self,
        player: &PlayerId,
        wanted: Option<Player>,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), ClientError> {
        let s = &mut self.next;
        let held = s.seats_of(player.as_str());
        if held.x || held.o {
            if let Some(p) = wanted.filter(|&p| !held[p]) {
                return Err(ClientError::new(
                    ErrorCode::AlreadySeated,
                    format!("You already sit in the {} seat here", !p),
                ));
            }
            self.notify = false;
            return Ok(());
        }
        let seat = match wanted {
            Some(p) if s.seats[p].is_none() => p,
            Some(Player::X) => return Err(refuse(ErrorCode::TableFull, "The X seat is taken")),
            Some(Player::O) => return Err(refuse(ErrorCode::TableFull, "The O seat is taken")),
            None => Player::ALL
                .into_iter()
                .find(|&p| s.seats[p].is_none())
                .ok_or_else(|| refuse(ErrorCode::TableFull, "Both seats are taken"))?,
        };
        s.seats[seat] = Some(Seat::Human(Human {
            player: player.clone(),
            connected: true,
            grace_until: None,
        }));
        s.close_at = None;
        self.events.push(Event::Seated {
            seat,
            player: player.clone(),
        });
        self.stored = true;
        if s.seats.x.is_some() && s.seats.o.is_some() && matches!(s.phase, Phase::Waiting { .. }) {
            self.start_round(ctx);
        }
        Ok(())
    }

    /// Frees the seats `held` by `player`, forfeiting a round in play; the
    /// table waits for a new opponent, or closes if no person is left.
    pub(super) fn vacate(&mut self, player: &PlayerId, held: ByPlayer<bool>, now: Instant) {
        if let Ok(loser) = self.next.playing_loser(held) {
            self.decide(loser, Concession::Forfeit);
        }
        let s = &mut self.next;
        for p in Player::ALL {
            if held[p] {
                s.seats[p] = None;
            }
        }
        self.events.push(Event::Vacated {
            player: player.clone(),
        });
        // Nobody connected since `close_at` started counting: it stands
        // (the one walking away was not connected either).
        let close_at = s.close_at.take();
        let last = s.take_round();
        if s.has_humans() {
            s.phase = Phase::Waiting { last };
            if !s.any_human_connected() {
                s.close_at = Some(close_at.unwrap_or(now + s.grace));
            }
        } else {
            s.phase = Phase::Closed { last };
            self.events.push(Event::Closed);
        }
        self.stored = true;
    }

    /// A seated player's move: checked against the round they meant, the
    /// phase and the turn, then played.
    pub(super) fn play(&mut self, m: super::MoveReq<'_>, now: Instant) -> Result<(), ClientError> {
        let s = &self.next;
        let held = s.require_seat(m.player.as_str())?;
        // A table waiting for its second player says so first, whatever
        // round the move names (docs/protocol.md's order of checks).
        if matches!(s.phase, Phase::Waiting { .. }) {
            s.require_playing()?;
        }
        if let Some(meant) = m.game {
            if s.phase.round().is_none_or(|r| r.key.id != *meant) {
                return Err(ClientError::new(
                    ErrorCode::GameOver,
                    format!(
                        "The move was meant for game {meant:.40}, which is not the round in play \
                         at this table (an earlier round, over, or another table's); it was not applied"
                    ),
                ));
            }
        }
        let mover = s
            .require_playing()?
            .to_move()
            .expect("a round in play has a side to move");
        if !held[mover] {
            return Err(refuse(ErrorCode::NotYourTurn, "Not your turn"));
        }
        self.play_for(mover, m.cell, m.req, m.conn, now)
    }

    /// The bot to move plays `cell`.
    pub(super) fn bot_move(&mut self, cell: Square, now: Instant) -> Result<(), ClientError> {
        let mover = self
            .next
            .require_playing()?
            .to_move()
            .expect("a round in play has a side to move");
        if !matches!(self.next.seats[mover], Some(Seat::Bot(_))) {
            return Err(refuse(ErrorCode::NotYourTurn, "A person is to move"));
        }
        self.play_for(mover, cell, None, 0, now)
    }

    /// Plays `cell` for `mover` (on turn in a round in play).
    fn play_for(
        &mut self,
        mover: Player,
        cell: Square,
        req: Option<u64>,
        conn: u64,
        now: Instant,
    ) -> Result<(), ClientError> {
        let Phase::Playing { round, .. } = &mut self.next.phase else {
            return Err(refuse(ErrorCode::GameOver, "The round is over"));
        };
        let outcome = match round.game.play(cell) {
            Ok(outcome) => outcome,
            Err(MoveError::Occupied { square, .. }) => {
                return Err(ClientError::new(
                    ErrorCode::CellTaken,
                    format!("{square} is already taken"),
                ));
            }
            Err(MoveError::GameOver) => {
                return Err(refuse(ErrorCode::GameOver, "The round is over"));
            }
        };
        let ply = ply_count(&round.game);
        let key = round.key.clone();
        self.events.push(Event::Moved {
            game: key.seq,
            ply,
            mover,
            cell,
            req,
        });
        if let Some(req) = req {
            self.remember = Some(Accepted {
                seat: mover,
                req,
                cell,
                game_id: key.id.clone(),
                ply,
                conn,
            });
        }
        self.reply = Reply::Moved {
            game_id: key.id,
            ply,
        };
        match outcome {
            Some(outcome) => self.end_round(outcome),
            None => {
                let next_mover = round.game.to_move().expect("the game goes on");
                let fresh = self.next.turn_for(next_mover, now);
                if let Phase::Playing { turn, .. } = &mut self.next.phase {
                    *turn = fresh;
                }
            }
        }
        Ok(())
    }

    /// Ends the round in play with `loser` losing for `reason` (forfeit,
    /// timeout, drop).
    pub(super) fn decide(&mut self, loser: Player, reason: Concession) {
        let Phase::Playing { round, .. } = &mut self.next.phase else {
            return;
        };
        let decided = round.game.concede(loser, reason);
        let outcome = decided.expect("a round in play can be decided");
        self.end_round(outcome);
    }

    /// The round in play ended with `outcome` (already in its game).
    fn end_round(&mut self, outcome: oxo_core::Outcome) {
        let s = &mut self.next;
        s.scores.record(outcome);
        let round = s.take_round().expect("a round in play");
        self.events.push(Event::RoundEnded {
            game: round.key.seq,
            outcome,
            moves: ply_count(&round.game),
        });
        s.phase = Phase::Over {
            round,
            rematch: ByPlayer::default(),
        };
        self.stored = true;
    }

    /// Starts the next round (both seats taken): who starts follows the
    /// table's rule.
    fn start_round(&mut self, ctx: &mut Ctx<'_>) {
        let s = &mut self.next;
        let previous = s.phase.round().map(|r| r.game.first());
        let starter = s.options.starter;
        let first = starter.pick(previous, || coin(&mut s.rng));
        s.round += 1;
        let key = (ctx.new_game)();
        let turn = s.turn_for(first, ctx.now);
        self.events.push(Event::RoundStarted {
            key: key.clone(),
            round: s.round,
            first,
        });
        s.phase = Phase::Playing {
            round: Round {
                game: Game::with_first(first),
                key,
            },
            turn,
        };
        self.stored = true;
    }

    /// A seated player wants another round; it starts when every seat
    /// does (bots always do).
    pub(super) fn rematch(
        &mut self,
        player: &PlayerId,
        ctx: &mut Ctx<'_>,
    ) -> Result<(), ClientError> {
        let s = &mut self.next;
        let held = s.require_seat(player.as_str())?;
        let all_want = match &mut s.phase {
            Phase::Over { rematch, .. } => {
                let before = *rematch;
                for p in Player::ALL {
                    rematch[p] |= held[p];
                }
                let rematch = *rematch;
                // Acknowledged, so stored: it outlives a restart.
                self.stored |= rematch != before;
                Player::ALL.into_iter().all(|p| match &s.seats[p] {
                    Some(Seat::Human(_)) => rematch[p],
                    Some(Seat::Bot(_)) => true,
                    None => false,
                })
            }
            Phase::Playing { .. } => {
                return Err(refuse(
                    ErrorCode::GameInProgress,
                    "The round is still being played",
                ));
            }
            Phase::Waiting { .. } => {
                return Err(refuse(ErrorCode::NotStarted, "Waiting for an opponent"));
            }
            Phase::Closed { .. } => return Err(ClientError::no_such_table()),
        };
        if all_want {
            self.start_round(ctx);
        }
        Ok(())
    }

    /// A timer ran out.
    pub(super) fn timer(&mut self, timer: Timer, now: Instant) {
        match timer {
            Timer::Clock => {
                if let Phase::Playing { round, .. } = &self.next.phase {
                    let loser = round
                        .game
                        .to_move()
                        .expect("a round in play has a side to move");
                    self.decide(loser, Concession::Timeout);
                }
            }
            Timer::Grace(seat) => {
                let s = &mut self.next;
                let Some(Seat::Human(h)) = &mut s.seats[seat] else {
                    return;
                };
                h.grace_until = None;
                let player = h.player.clone();
                match &s.phase {
                    Phase::Playing { round, .. } => {
                        // In pass and play both seats are one player: the
                        // side to move is the one that loses.
                        let loser = if s.same_player_both_seats() {
                            round
                                .game
                                .to_move()
                                .expect("a round in play has a side to move")
                        } else {
                            seat
                        };
                        self.decide(loser, Concession::Dropped);
                        // The dropped player keeps the seat: a grace
                        // period more to come back to the finished round.
                        if let Some(Seat::Human(h)) = &mut self.next.seats[seat] {
                            h.grace_until = Some(now + self.next.grace);
                        }
                    }
                    // Walked away from a finished round: the seat is given
                    // up, as if they had left.
                    Phase::Over { .. } => {
                        let held = s.seats_of(player.as_str());
                        self.vacate(&player, held, now);
                    }
                    Phase::Waiting { .. } | Phase::Closed { .. } => {}
                }
            }
            Timer::Close => {
                self.next.close_at = None;
                // Everyone left mid-round: the side to move is dropped,
                // unless a bot sits there (a bot never goes away, even
                // while it thinks longer than a grace period): then the
                // human across the board is.
                if let Phase::Playing { round, .. } = &self.next.phase {
                    let to_move = round
                        .game
                        .to_move()
                        .expect("a round in play has a side to move");
                    let loser = match self.next.seats[to_move] {
                        Some(Seat::Bot(_)) => !to_move,
                        _ => to_move,
                    };
                    self.decide(loser, Concession::Dropped);
                }
                let last = self.next.take_round();
                self.next.phase = Phase::Closed { last };
                self.events.push(Event::Closed);
                self.stored = true;
            }
        }
    }
}
