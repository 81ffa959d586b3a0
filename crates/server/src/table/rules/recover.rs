//! Tables read back from the store: what was saved, and the rules that
//! resume from it.

use std::time::Duration;

use oxo_core::{ByPlayer, Game, Player, Rng, Scores, Square};
use oxo_protocol::{PlayerId, TableOptions, TableStatus};
use tokio::time::Instant;

use super::{Accepted, GameKey, Human, Phase, Round, Rules, Seat, Turn};

/// A table as read back from the store, for [`Rules::recover`].
#[derive(Clone, Debug)]
pub(crate) struct Saved {
    pub(crate) options: TableOptions,
    pub(crate) status: TableStatus,
    pub(crate) players: ByPlayer<Option<PlayerId>>,
    pub(crate) bot_seat: Option<Player>,
    pub(crate) round: u32,
    pub(crate) scores: Scores,
    pub(crate) game: Option<SavedRound>,
}

/// A saved table's current (or last) round.
#[derive(Clone, Debug)]
pub(crate) struct SavedRound {
    pub(crate) key: GameKey,
    pub(crate) game: Game,
    /// The moves that had a request id: seat, id, cell.
    pub(crate) accepted: Vec<(Player, u64, Square)>,
    /// How long ago the round last changed (its last move, or its start):
    /// the time already gone from a per-move clock.
    pub(crate) idle: Duration,
}

/// The least time a player to move has on a per-move clock when a table
/// resumes (after a restart or a takeover), however much of it the outage
/// took; never more than the clock's limit.
pub(crate) const LEAST_TIME_ON_RESUME: Duration = Duration::from_secs(5);

/// The deadline of a per-move clock whose full period would end at `full`
/// if it started `now`, for a round idle for `idle`: the clock keeps
/// running through an outage (the deadline stays where it was: last change
/// plus the limit), but leaves at least [`LEAST_TIME_ON_RESUME`].
fn kept_deadline(full: Instant, now: Instant, idle: Duration) -> Instant {
    let limit = full.saturating_duration_since(now);
    now + limit
        .saturating_sub(idle)
        .max(LEAST_TIME_ON_RESUME.min(limit))
}

impl Rules {
    /// Rebuilds a table read back from the store. Its people are
    /// disconnected, with a grace period from `now`; the table closes then
    /// unless one comes back.
    ///
    /// # Errors
    ///
    /// What makes the saved table impossible (a round without its game,
    /// a round with a free seat).
    pub(crate) fn recover(
        saved: Saved,
        grace: Duration,
        rng: Rng,
        now: Instant,
    ) -> Result<Rules, &'static str> {
        let mut rules = Rules::new(saved.options, grace, rng);
        let until = now + grace;
        let s = &mut rules.state;
        s.round = saved.round;
        s.scores = saved.scores;
        for p in Player::ALL {
            s.seats[p] = if saved.bot_seat == Some(p) {
                Some(Seat::Bot(
                    saved.options.bot.ok_or("a bot seat without a bot")?,
                ))
            } else {
                saved.players[p].clone().map(|player| {
                    Seat::Human(Human {
                        player,
                        connected: false,
                        grace_until: Some(until),
                    })
                })
            };
        }
        let both = s.seats.x.is_some() && s.seats.o.is_some();
        let round = saved.game.as_ref().map(|g| Round {
            game: g.game.clone(),
            key: g.key.clone(),
        });
        s.phase = match (saved.status, round) {
            (TableStatus::Waiting, last) => Phase::Waiting { last },
            (TableStatus::InProgress | TableStatus::RoundOver, Some(round)) if both => {
                if round.game.is_over() || saved.status == TableStatus::RoundOver {
                    Phase::Over {
                        round,
                        rematch: ByPlayer::default(),
                    }
                } else {
                    let mover = round
                        .game
                        .to_move()
                        .expect("a game not over has a side to move");
                    let idle = saved.game.as_ref().map_or(Duration::ZERO, |g| g.idle);
                    let turn = match s.turn_for(mover, now) {
                        Turn::Human {
                            deadline: Some(full),
                        } => Turn::Human {
                            deadline: Some(kept_deadline(full, now, idle)),
                        },
                        turn => turn,
                    };
                    Phase::Playing { round, turn }
                }
            }
            (TableStatus::InProgress | TableStatus::RoundOver, Some(_)) => {
                return Err("a round with a free seat");
            }
            (TableStatus::InProgress | TableStatus::RoundOver, None) => {
                return Err("a round without its game");
            }
            (TableStatus::Closed, _) => return Err("a closed table"),
        };
        s.close_at = Some(until);
        if let Some(g) = saved.game {
            for (seat, req, cell) in g.accepted {
                let ply = g.game.moves().iter().position(|&m| m == cell);
                if let Some(ply) = ply.and_then(|p| u32::try_from(p + 1).ok()) {
                    rules.remember(Accepted {
                        seat,
                        req,
                        cell,
                        game_id: g.key.id.clone(),
                        ply,
                        conn: 0,
                    });
                }
            }
        }
        Ok(rules)
    }
}
