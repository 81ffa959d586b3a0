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
    /// For each seat whose player's going away was stored: how much of
    /// their grace period was left when the table was read back (zero if
    /// it ran out meanwhile). A seat without one gets a fresh period.
    pub(crate) away_left: ByPlayer<Option<Duration>>,
    /// At a finished round: the seats that asked for another.
    pub(crate) rematch: ByPlayer<bool>,
    /// The moves with a request id of the rounds before `game`, oldest
    /// first: a retry of one is still answered.
    pub(crate) earlier: Vec<Accepted>,
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

/// The least time a player to move has on a per-move clock, and an away
/// player has to come back, when a table resumes (after a restart or a
/// takeover), however much of it the outage took; never more than the
/// whole period.
pub(crate) const LEAST_TIME_ON_RESUME: Duration = Duration::from_secs(5);

/// The end of a period of `limit` (a per-move clock, a grace period) with
/// `left` of it left when the table resumes `now`: periods keep running
/// through an outage (their ends stay where they were), but leave at least
/// [`LEAST_TIME_ON_RESUME`], and never more than `limit`.
fn kept(limit: Duration, left: Duration, now: Instant) -> Instant {
    now + left.min(limit).max(LEAST_TIME_ON_RESUME.min(limit))
}

impl Rules {
    /// Rebuilds a table read back from the store. Its people are
    /// disconnected: a seat whose player's going away was stored keeps
    /// the end of its grace period (see [`kept`]), the others get a fresh
    /// one from `now`; the table closes when the last one ends unless
    /// somebody comes back.
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
        let until =
            |p: Player| saved.away_left[p].map_or(now + grace, |left| kept(grace, left, now));
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
                        grace_until: Some(until(p)),
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
                        rematch: saved.rematch,
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
                        } => {
                            let limit = full.saturating_duration_since(now);
                            Turn::Human {
                                deadline: Some(kept(limit, limit.saturating_sub(idle), now)),
                            }
                        }
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
        // Nobody is connected: the table closes when the last grace
        // period ends (a table with nobody seated, after a fresh one).
        let graces = Player::ALL
            .into_iter()
            .filter_map(|p| s.human(p).and_then(|h| h.grace_until));
        s.close_at = Some(graces.max().unwrap_or(now + grace));
        // The earlier rounds' moves first, then the current round's: the
        // latest are remembered.
        for a in saved.earlier {
            rules.remember(a);
        }
        if let Some(g) = saved.game {
            for (seat, req, cell) in g.accepted {
                let ply = g.game.moves().iter().position(|&m| m == cell);
                if let Some(ply) = ply.and_then(|p| u32::try_from(p + 1).ok()) {
                    rules.remember(Accepted::read_back(g.key.id.clone(), ply, seat, cell, req));
                }
            }
        }
        Ok(rules)
    }
}
