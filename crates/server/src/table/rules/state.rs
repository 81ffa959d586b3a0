//! What a table is: its seats and phase, with the queries and small
//! changes the transitions are made of. A leaf of the rules.

use std::time::Duration;

use oxo_core::{ByPlayer, Game, Player, Rng, Scores};
use oxo_protocol::{BotSeat, ErrorCode, GameId, PlayerId, TableOptions, TableStatus};
use tokio::time::Instant;

use crate::error::ClientError;

/// A game's public id and its key in the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GameKey {
    /// The public id.
    pub(crate) id: GameId,
    /// The store's key.
    pub(crate) seq: i64,
}

/// One round: its game and the game's id.
#[derive(Clone, Debug)]
pub(crate) struct Round {
    pub(crate) game: Game,
    pub(crate) key: GameKey,
}

/// What the side to move has: a clock (humans, if the table has one) or a
/// thinking pause (bots).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Turn {
    /// A human moves; the round is lost at `deadline`, if any.
    Human { deadline: Option<Instant> },
    /// A bot moves at `due`.
    Bot { due: Instant },
}

/// Where a table is in its life, with what exists only then.
#[derive(Clone, Debug)]
pub(crate) enum Phase {
    /// A seat is free; the last round, if any, is kept for show.
    Waiting { last: Option<Round> },
    /// A round is being played (both seats taken; its game is not over).
    Playing { round: Round, turn: Turn },
    /// The round is over; each seat's wish for another.
    Over {
        round: Round,
        rematch: ByPlayer<bool>,
    },
    /// Closed for good.
    Closed { last: Option<Round> },
}

impl Phase {
    /// The status clients see.
    pub(crate) const fn status(&self) -> TableStatus {
        match self {
            Phase::Waiting { .. } => TableStatus::Waiting,
            Phase::Playing { .. } => TableStatus::InProgress,
            Phase::Over { .. } => TableStatus::RoundOver,
            Phase::Closed { .. } => TableStatus::Closed,
        }
    }

    /// The current round, or the last one.
    pub(crate) const fn round(&self) -> Option<&Round> {
        match self {
            Phase::Waiting { last } | Phase::Closed { last } => last.as_ref(),
            Phase::Playing { round, .. } | Phase::Over { round, .. } => Some(round),
        }
    }

    pub(super) fn into_round(self) -> Option<Round> {
        match self {
            Phase::Waiting { last } | Phase::Closed { last } => last,
            Phase::Playing { round, .. } | Phase::Over { round, .. } => Some(round),
        }
    }
}

/// A person in a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Human {
    pub(crate) player: PlayerId,
    /// Whether any of their connections is attached to the table.
    pub(crate) connected: bool,
    /// While disconnected: when the seat is lost.
    pub(crate) grace_until: Option<Instant>,
}

/// Who sits in a seat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Seat {
    Human(Human),
    Bot(BotSeat),
}

impl Seat {
    pub(super) fn human(&self) -> Option<&Human> {
        match self {
            Seat::Human(h) => Some(h),
            Seat::Bot(_) => None,
        }
    }
}

/// A table's state; the actor renders it for clients and the store.
#[derive(Clone, Debug)]
pub(crate) struct State {
    pub(super) options: TableOptions,
    pub(super) seats: ByPlayer<Option<Seat>>,
    /// Rounds started so far.
    pub(super) round: u32,
    pub(super) phase: Phase,
    pub(super) scores: Scores,
    /// When nobody seated is connected: when the table closes.
    pub(super) close_at: Option<Instant>,
    /// How long a disconnected player keeps a seat.
    pub(super) grace: Duration,
    pub(super) rng: Rng,
}

impl State {
    /// The table's options.
    pub(crate) const fn options(&self) -> &TableOptions {
        &self.options
    }

    /// Who sits where.
    pub(crate) const fn seats(&self) -> &ByPlayer<Option<Seat>> {
        &self.seats
    }

    /// Rounds started so far.
    pub(crate) const fn round(&self) -> u32 {
        self.round
    }

    pub(crate) const fn phase(&self) -> &Phase {
        &self.phase
    }

    pub(crate) const fn scores(&self) -> Scores {
        self.scores
    }

    pub(crate) const fn status(&self) -> TableStatus {
        self.phase.status()
    }

    /// The person in `seat`, if a person sits there.
    pub(crate) fn human(&self, seat: Player) -> Option<&Human> {
        self.seats[seat].as_ref().and_then(Seat::human)
    }

    /// The seats `player` holds.
    pub(crate) fn seats_of(&self, player: &str) -> ByPlayer<bool> {
        ByPlayer::new_with(|p| self.human(p).is_some_and(|h| h.player == *player))
    }

    /// Whether `player` holds a seat.
    pub(crate) fn is_seated(&self, player: &str) -> bool {
        let held = self.seats_of(player);
        held.x || held.o
    }

    /// One person holds both seats (pass and play).
    pub(crate) fn same_player_both_seats(&self) -> bool {
        matches!((self.human(Player::X), self.human(Player::O)), (Some(x), Some(o)) if x.player == o.player)
    }

    pub(super) fn require_seat(&self, player: &str) -> Result<ByPlayer<bool>, ClientError> {
        let held = self.seats_of(player);
        if held.x || held.o {
            Ok(held)
        } else {
            Err(ClientError::new(
                ErrorCode::NotSeated,
                "You are not seated at this table",
            ))
        }
    }

    /// The game in play, or `not_started`/`game_over`.
    pub(super) fn require_playing(&self) -> Result<&Game, ClientError> {
        match &self.phase {
            Phase::Playing { round, .. } => Ok(&round.game),
            Phase::Waiting { .. } => Err(ClientError::new(
                ErrorCode::NotStarted,
                "The game has not started: waiting for an opponent",
            )),
            Phase::Over { .. } | Phase::Closed { .. } => {
                Err(ClientError::new(ErrorCode::GameOver, "The round is over"))
            }
        }
    }

    /// Who loses if the holder of `held` gives up the round in play: the
    /// side to move when they hold both seats.
    pub(super) fn playing_loser(&self, held: ByPlayer<bool>) -> Result<Player, ClientError> {
        let game = self.require_playing()?;
        Ok(if held.x && held.o {
            game.to_move().expect("a round in play has a side to move")
        } else if held.x {
            Player::X
        } else {
            Player::O
        })
    }

    pub(crate) fn any_human_connected(&self) -> bool {
        Player::ALL
            .into_iter()
            .any(|p| self.human(p).is_some_and(|h| h.connected))
    }

    /// At a finished round, the person opposite the seats `held` who has
    /// no connection at the table (gone elsewhere, their grace period
    /// running), if any.
    pub(super) fn walked_away_opponent(&self, held: ByPlayer<bool>) -> Option<PlayerId> {
        if !matches!(self.phase, Phase::Over { .. }) {
            return None;
        }
        Player::ALL
            .into_iter()
            .filter(|&p| !held[p])
            .filter_map(|p| self.human(p))
            .find(|h| !h.connected)
            .map(|h| h.player.clone())
    }

    pub(super) fn has_humans(&self) -> bool {
        Player::ALL.into_iter().any(|p| self.human(p).is_some())
    }

    pub(super) fn humans_of(&mut self, player: &str) -> impl Iterator<Item = &mut Human> {
        [&mut self.seats.x, &mut self.seats.o]
            .into_iter()
            .filter_map(|s| match s {
                Some(Seat::Human(h)) => Some(h),
                _ => None,
            })
            .filter(move |h| h.player == *player)
    }

    /// The turn of `mover` starting at `now`.
    pub(super) fn turn_for(&self, mover: Player, now: Instant) -> Turn {
        match &self.seats[mover] {
            Some(Seat::Bot(b)) => Turn::Bot {
                due: now + Duration::from_millis(u64::from(b.think_ms)),
            },
            _ => Turn::Human {
                deadline: self
                    .options
                    .move_time_ms
                    .map(|ms| now + Duration::from_millis(u64::from(ms))),
            },
        }
    }

    pub(super) fn present(&mut self, player: &str) {
        for h in self.humans_of(player) {
            h.connected = true;
            h.grace_until = None;
        }
        self.close_at = None;
    }

    pub(super) fn absent(&mut self, player: &str, now: Instant) {
        let until = now + self.grace;
        for h in self.humans_of(player) {
            h.connected = false;
            h.grace_until = Some(until);
        }
        if !self.any_human_connected() && self.close_at.is_none() {
            self.close_at = Some(until);
        }
    }

    pub(super) fn take_round(&mut self) -> Option<Round> {
        std::mem::replace(&mut self.phase, Phase::Closed { last: None }).into_round()
    }
}
