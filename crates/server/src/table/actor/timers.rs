//! The table's timers: the rules' deadlines (clocks, grace periods, the
//! bots' moves, closing), the pacing of what is shown of the spectators and
//! of the players coming and going, and the retry after a change a timer
//! drove could not be stored.

use std::time::Duration;

use oxo_core::Player;
use tokio::time::Instant;

use super::{OnFailure, Table};
use crate::ids::seed;
use crate::table::rules::{Cmd, Due, Event, Seat};

/// After a change driven by a timer could not be stored: how long before
/// the timers are tried again.
const RETRY_AFTER: Duration = Duration::from_millis(500);

impl Table {
    /// The earliest moment a timer is due, if any.
    pub(super) fn next_deadline(&self) -> Option<Instant> {
        let timers = self
            .rules
            .next_deadline()
            .map(|t| self.retry_at.map_or(t, |r| t.max(r)));
        timers
            .into_iter()
            .chain(self.spectators_due)
            .chain(self.presence.due())
            .chain(self.presence.show_by())
            .min()
    }

    /// Runs every timer that is due, in the order the rules give (each
    /// one's handling boxed, like a command's: see [`Table::run`]).
    pub(super) async fn fire_timers(&mut self) {
        // A timer's change would be shown (or stored) by a node that may
        // have lost the table: see [`Table::handle`].
        if self.next_deadline().is_some_and(|t| t <= Instant::now()) && self.may_have_lost() {
            self.stop_unsure();
            return;
        }
        loop {
            let now = Instant::now();
            if self.retry_at.is_some_and(|t| t > now) {
                break;
            }
            self.retry_at = None;
            let Some(due) = self.rules.due(now) else {
                break;
            };
            if !Box::pin(self.fire(due)).await {
                // Try again shortly rather than spinning on a failing store.
                self.retry_at = Some(now + RETRY_AFTER);
                break;
            }
        }
        let now = Instant::now();
        let due = [self.spectators_due, self.presence.show_by()];
        if due.into_iter().flatten().any(|t| t <= now) {
            self.broadcast();
        }
        self.store_presence().await;
    }

    /// Runs the timer `due`; whether its change was stored.
    async fn fire(&mut self, due: Due) -> bool {
        match due {
            Due::Bot(seat) => self.bot_move(seat).await,
            Due::Timer(timer) => match self.plan(Cmd::Timer(timer)) {
                Ok(plan) => {
                    let closes = plan.events().contains(&Event::Closed);
                    let on_failure = if closes {
                        OnFailure::Abort
                    } else {
                        OnFailure::Refuse
                    };
                    self.execute(plan, on_failure).await.is_ok()
                }
                Err(_) => false,
            },
        }
    }

    async fn bot_move(&mut self, seat: Player) -> bool {
        let state = self.rules.state();
        let (Some(Seat::Bot(level)), Some(round)) = (&state.seats()[seat], state.phase().round())
        else {
            return false;
        };
        let bot = self.bots[seat].get_or_insert_with(|| level.level.bot(seed()));
        let Some(cell) = bot.choose(round.game.position()) else {
            return false;
        };
        match self.plan(Cmd::BotMove { cell }) {
            Ok(plan) => self.execute(plan, OnFailure::Refuse).await.is_ok(),
            Err(e) => {
                tracing::error!(table = %self.id, error = %e, "bot move refused");
                false
            }
        }
    }
}
