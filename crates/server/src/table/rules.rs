//! A table's rules as a pure state machine: seats, phases, turns, retries,
//! rematches, scores, and its timers as deadlines. No I/O.
//!
//! [`Rules::apply`] takes a command and the time and either refuses it
//! (nothing changed) or returns a [`Plan`]: the next state and the
//! [`Event`]s that lead there. The actor stores what the events say and,
//! only once that is durable, adopts the plan ([`Rules::adopt`]) and tells
//! people. The order is the same for every change (plan, commit, apply), so
//! a failed commit needs no rollback: the plan is dropped.
//!
//! A [`Phase`] holds what exists only in that phase: a round in play has a
//! game and its id, its turn's deadline; a finished round has the players'
//! rematch wishes; a table waiting for an opponent keeps only its last
//! round, for show.

use std::collections::VecDeque;
use std::time::Duration;

use oxo_core::{ByPlayer, Concession, Game, Outcome, Player, Rng, Scores, Square};
use oxo_protocol::{ErrorCode, GameId, PlayerId, TableOptions};
use tokio::time::Instant;

pub(crate) use state::{GameKey, Human, Phase, Round, Seat, State, Turn};

use crate::error::ClientError;

/// Accepted moves remembered per table (across rounds) to recognise
/// retries by their request id.
pub(crate) const REMEMBERED_MOVES: usize = 32;

/// An accepted move with a request id: a retry of it is answered, never
/// applied again (see [`Rules::retry_of`]).
#[derive(Clone, Debug)]
pub(crate) struct Accepted {
    seat: Player,
    req: u64,
    cell: Square,
    game_id: GameId,
    ply: u32,
    /// The connection it came on (0 for moves read back on start).
    conn: u64,
}

impl Accepted {
    /// A move read back from the store: move `ply` of round `game_id`,
    /// `cell` for `seat`, with request id `req`.
    pub(crate) const fn read_back(
        game_id: GameId,
        ply: u32,
        seat: Player,
        cell: Square,
        req: u64,
    ) -> Accepted {
        Accepted {
            seat,
            req,
            cell,
            game_id,
            ply,
            conn: 0,
        }
    }
}

/// A move asked for by a seated player.
#[derive(Clone, Copy, Debug)]
pub(crate) struct MoveReq<'a> {
    pub(crate) player: &'a PlayerId,
    pub(crate) cell: Square,
    /// The request id, if the client gave one.
    pub(crate) req: Option<u64>,
    /// The connection it came on.
    pub(crate) conn: u64,
    /// The game the client meant it for, if it said.
    pub(crate) game: Option<&'a str>,
}

/// A timer that ran out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Timer {
    /// The side to move ran out of time.
    Clock,
    /// A disconnected player's grace period in this seat ended.
    Grace(Player),
    /// Nobody seated came back: the table closes.
    Close,
}

/// What is due now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Due {
    /// The bot in this seat should move (the actor asks it, then applies
    /// [`Cmd::BotMove`]).
    Bot(Player),
    /// Apply [`Cmd::Timer`] with this.
    Timer(Timer),
}

/// What a table is asked to do.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Cmd<'a> {
    /// Seat the creator (and the bot, or the creator twice for pass and
    /// play); start the first round if both seats are taken.
    Create {
        creator: &'a PlayerId,
    },
    /// Take a seat (a seated player is answered at once: nothing changes).
    Join {
        player: &'a PlayerId,
        seat: Option<Player>,
    },
    /// Give up every seat `player` holds (forfeiting a round in play).
    Leave {
        player: &'a PlayerId,
    },
    Move(MoveReq<'a>),
    /// The bot to move plays `cell`.
    BotMove {
        cell: Square,
    },
    Forfeit {
        player: &'a PlayerId,
    },
    Rematch {
        player: &'a PlayerId,
    },
    /// A seated player's first connection attached.
    Present {
        player: &'a PlayerId,
    },
    /// A seated player's last connection detached.
    Absent {
        player: &'a PlayerId,
    },
    Timer(Timer),
}

/// What the actor supplies besides the command.
pub(crate) struct Ctx<'a> {
    pub(crate) now: Instant,
    /// A fresh key for a round's game.
    pub(crate) new_game: &'a mut dyn FnMut() -> GameKey,
}

/// What happened, in order: the actor stores it and acts on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Event {
    /// A person took a seat (the creator's is not reported: it was
    /// reserved before the table existed).
    Seated { seat: Player, player: PlayerId },
    /// A person gave up every seat they held.
    Vacated { player: PlayerId },
    /// A round started.
    RoundStarted {
        key: GameKey,
        round: u32,
        first: Player,
    },
    /// A move was played.
    Moved {
        game: i64,
        ply: u32,
        mover: Player,
        cell: Square,
        req: Option<u64>,
    },
    /// A round ended after `moves` moves.
    RoundEnded {
        game: i64,
        outcome: Outcome,
        moves: u32,
    },
    /// The table closed for good.
    Closed,
}

/// What an accepted request's `ok` carries besides the table's id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Reply {
    /// Nothing more.
    Done,
    /// A move: the game it was recorded in and its ply.
    Moved { game_id: GameId, ply: u32 },
}

/// An accepted command: the state it leads to and how.
#[derive(Debug)]
pub(crate) struct Plan {
    next: State,
    events: Vec<Event>,
    /// The table's own record changed (status, seats, round, scores):
    /// store it.
    pub(crate) stored: bool,
    /// Everyone at the table should see the new state.
    pub(crate) notify: bool,
    pub(crate) reply: Reply,
    remember: Option<Accepted>,
}

impl Plan {
    /// The state the plan leads to (to render what to store).
    pub(crate) const fn next(&self) -> &State {
        &self.next
    }

    /// What happens, in order.
    pub(crate) fn events(&self) -> &[Event] {
        &self.events
    }
}

/// A table's rules and state.
#[derive(Debug)]
pub(crate) struct Rules {
    state: State,
    /// The latest accepted moves that had a request id (all rounds).
    accepted: VecDeque<Accepted>,
}

fn refuse(code: ErrorCode, message: &'static str) -> ClientError {
    ClientError::new(code, message)
}

fn coin(rng: &mut Rng) -> Player {
    if rng.chance(1, 2) {
        Player::X
    } else {
        Player::O
    }
}

fn ply_count(game: &Game) -> u32 {
    u32::try_from(game.moves().len()).expect("a game has at most 9 moves")
}

impl Rules {
    /// A new, empty table.
    pub(crate) fn new(options: TableOptions, grace: Duration, rng: Rng) -> Rules {
        Rules {
            state: State {
                options,
                seats: ByPlayer { x: None, o: None },
                round: 0,
                phase: Phase::Waiting { last: None },
                scores: Scores::default(),
                close_at: None,
                grace,
                rng,
            },
            // Grown as moves come (at most to the bound): a table that
            // has seen few moves holds room for few.
            accepted: VecDeque::new(),
        }
    }

    /// The current state.
    pub(crate) const fn state(&self) -> &State {
        &self.state
    }

    /// Adopts a plan whose events are durable; returns its events and reply.
    pub(crate) fn adopt(&mut self, plan: Plan) -> (Vec<Event>, Reply) {
        self.state = plan.next;
        if let Some(a) = plan.remember {
            self.remember(a);
        }
        (plan.events, plan.reply)
    }

    /// Closes the table without a plan: its changes could not be stored,
    /// so it stops in memory (its durable state comes back at the next
    /// start).
    pub(crate) fn close(&mut self) {
        let last = self.state.take_round();
        self.state.phase = Phase::Closed { last };
        self.state.close_at = None;
    }

    fn remember(&mut self, a: Accepted) {
        if self.accepted.len() == REMEMBERED_MOVES {
            self.accepted.pop_front();
        }
        self.accepted.push_back(a);
    }

    /// The earliest deadline of any timer.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        let s = &self.state;
        let turn = match s.phase {
            Phase::Playing {
                turn: Turn::Human { deadline },
                ..
            } => deadline,
            Phase::Playing {
                turn: Turn::Bot { due },
                ..
            } => Some(due),
            _ => None,
        };
        let graces = Player::ALL
            .into_iter()
            .filter_map(|p| s.human(p).and_then(|h| h.grace_until));
        turn.into_iter().chain(s.close_at).chain(graces).min()
    }

    /// What is due at `now`, most urgent kind first: a bot's move, the
    /// clock, the table's closing, a grace period (X's seat first).
    pub(crate) fn due(&self, now: Instant) -> Option<Due> {
        let s = &self.state;
        if let Phase::Playing { round, turn } = &s.phase {
            match *turn {
                Turn::Bot { due } if due <= now => {
                    return round.game.to_move().map(Due::Bot);
                }
                Turn::Human {
                    deadline: Some(t), ..
                } if t <= now => return Some(Due::Timer(Timer::Clock)),
                _ => {}
            }
        }
        // Nobody connected for a whole grace period closes the table,
        // whatever else a grace period ending at the same time would do.
        if s.close_at.is_some_and(|t| t <= now) {
            return Some(Due::Timer(Timer::Close));
        }
        Player::ALL
            .into_iter()
            .find(|&p| {
                s.human(p)
                    .and_then(|h| h.grace_until)
                    .is_some_and(|t| t <= now)
            })
            .map(|p| Due::Timer(Timer::Grace(p)))
    }

    /// Plans `cmd` at `ctx.now`, or refuses it. Nothing changes here; see
    /// [`Rules::adopt`].
    ///
    /// # Errors
    ///
    /// The refusal the client gets (`no_such_table` once closed,
    /// `not_seated`, `not_your_turn`, `cell_taken`, ...).
    pub(crate) fn apply(&self, cmd: Cmd<'_>, ctx: &mut Ctx<'_>) -> Result<Plan, ClientError> {
        if matches!(self.state.phase, Phase::Closed { .. }) {
            return Err(ClientError::no_such_table());
        }
        let mut plan = Plan {
            next: self.state.clone(),
            events: Vec::new(),
            stored: false,
            notify: true,
            reply: Reply::Done,
            remember: None,
        };
        match cmd {
            Cmd::Create { creator } => plan.create(creator, ctx),
            Cmd::Join { player, seat } => plan.join(player, seat, ctx)?,
            Cmd::Leave { player } => {
                let held = plan.next.require_seat(player.as_str())?;
                let walked_away = plan.next.walked_away_opponent(held);
                plan.vacate(player, held, ctx.now);
                // They held the seat only for a rematch with the one who
                // left: it goes too, rather than a round with someone new
                // starting while they are away.
                if let Some(other) = walked_away {
                    let held = plan.next.seats_of(other.as_str());
                    plan.vacate(&other, held, ctx.now);
                }
            }
            Cmd::Move(m) => {
                if let Some(reply) = self.retry_of(&m)? {
                    plan.reply = reply;
                    plan.notify = false;
                } else {
                    plan.play(m, ctx.now)?;
                }
            }
            Cmd::BotMove { cell } => plan.bot_move(cell, ctx.now)?,
            Cmd::Forfeit { player } => {
                let held = plan.next.require_seat(player.as_str())?;
                let loser = plan.next.playing_loser(held)?;
                plan.decide(loser, Concession::Forfeit);
            }
            Cmd::Rematch { player } => plan.rematch(player, ctx)?,
            Cmd::Present { player } => plan.next.present(player.as_str()),
            Cmd::Absent { player } => plan.next.absent(player.as_str(), ctx.now),
            Cmd::Timer(timer) => plan.timer(timer, ctx.now),
        }
        Ok(plan)
    }

    /// The reply to a retry of an accepted move, if `m` is one: same seat,
    /// request id and cell, and, as [`Rules::is_retry`] says, the same
    /// round.
    fn retry_of(&self, m: &MoveReq<'_>) -> Result<Option<Reply>, ClientError> {
        let held = self.state.require_seat(m.player.as_str())?;
        let Some(req) = m.req else {
            return Ok(None);
        };
        Ok(self
            .accepted
            .iter()
            .find(|a| held[a.seat] && a.req == req && a.cell == m.cell && self.is_retry(a, m))
            .map(|a| Reply::Moved {
                game_id: a.game_id.clone(),
                ply: a.ply,
            }))
    }

    /// Whether a move like the accepted `a` is a retry of it: in the same
    /// round; or naming `a`'s round in `game`; or on the same connection
    /// (whose ids the client numbers uniquely). A request id alone cannot
    /// tell a late retry from a new move on another connection whose client
    /// numbers its requests afresh, so such a move is judged as new:
    /// clients that retry across rounds say which round they meant.
    fn is_retry(&self, a: &Accepted, m: &MoveReq<'_>) -> bool {
        let current = self
            .state
            .phase
            .round()
            .is_some_and(|r| r.key.id == a.game_id);
        current || m.game == Some(a.game_id.as_str()) || (a.conn != 0 && a.conn == m.conn)
    }
}

mod plan;
pub(crate) mod recover;
mod state;

#[cfg(test)]
mod tests;
