//! What a table stores: the writes a plan takes, the table's record, and
//! the commit under the table's lease.

use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use oxo_core::{ByPlayer, Player};

use super::Table;
use crate::error::{ClientError, ServerError};
use crate::ids::{now_ms, wall_ms};
use crate::log_pace::Pace;
use crate::store::{GameEnd, GameStart, NewMove, TableRow, Write};
use crate::table::rules::{Event, Phase, Plan, Seat, State};
use crate::table::view::View;

impl Table {
    /// Commits `writes` under the table's lease: a fence goes first, so
    /// the commit holds only while this node still owns the table. If a
    /// newer owner's lease refuses it, the table has moved: it stops here
    /// (logged and counted) and the error says [`ServerError::Fenced`].
    pub(super) async fn commit(&mut self, mut writes: Vec<Write>) -> Result<(), ServerError> {
        writes.insert(
            0,
            Write::Fence {
                table: self.seq,
                epoch: self.epoch,
            },
        );
        let result = self.env.store.commit(writes).await;
        if let Err(e @ ServerError::Fenced { .. }) = &result {
            tracing::warn!(table = %self.id, error = %e, "the table has a new owner");
            self.env.metrics.stale_writes.fetch_add(1, Relaxed);
            self.step_down();
        }
        result
    }

    /// What the client whose request failed to store (`what`, for the
    /// log) is told: `table_moving` if the table has a new owner (see
    /// [`Table::commit`]), else `internal`, logged.
    pub(super) fn refusal(&self, e: &ServerError, what: &str) -> ClientError {
        if let ServerError::Fenced { .. } = e {
            return ClientError::table_moved();
        }
        // Paced: while the database is down or the disk full, every request
        // of every table fails alike.
        static FAILED: Pace = Pace::new();
        if let Some(skipped) = FAILED.check(Instant::now()) {
            tracing::error!(table = %self.id, error = %e, skipped, "could not store {what}");
        }
        ClientError::internal()
    }

    /// What storing `plan` takes: the table's record first (when it
    /// changed), then what each event says.
    pub(super) fn writes(&self, plan: &Plan) -> Vec<Write> {
        let next = plan.next();
        // Room for the fence `commit` puts first.
        let mut writes = Vec::with_capacity(plan.events().len() + 2);
        if plan.stored {
            writes.push(Write::Table(Box::new(self.row(next))));
        }
        for event in plan.events() {
            match event {
                Event::RoundStarted { key, round, first } => {
                    let view = View {
                        state: next,
                        ..self.view()
                    };
                    writes.push(Write::GameStart(Box::new(GameStart {
                        seq: key.seq,
                        id: Arc::from(key.id.as_str()),
                        table_id: Arc::from(self.id.as_str()),
                        round: *round,
                        first: *first,
                        players: view.game_players(),
                        at_ms: now_ms(),
                        public: next.options().public,
                    })));
                }
                Event::Moved {
                    game,
                    ply,
                    mover,
                    cell,
                    req,
                } => writes.push(Write::Move(NewMove {
                    game: *game,
                    ply: *ply,
                    player: *mover,
                    cell: *cell,
                    at_ms: now_ms(),
                    req_id: *req,
                })),
                Event::RoundEnded {
                    game,
                    outcome,
                    moves,
                } => writes.push(Write::GameEnd(GameEnd {
                    game: *game,
                    outcome: *outcome,
                    moves: *moves,
                    at_ms: now_ms(),
                })),
                Event::Closed => writes.push(Write::ChatCleared { table: self.seq }),
                Event::Seated { .. } | Event::Vacated { .. } => {}
            }
        }
        writes
    }

    /// The table's record in the store for `state`.
    pub(super) fn row(&self, state: &State) -> TableRow {
        TableRow {
            seq: self.seq,
            id: Arc::from(self.id.as_str()),
            options: *state.options(),
            status: state.status(),
            seats: ByPlayer::new_with(|p| state.human(p).map(|h| Arc::from(h.player.as_str()))),
            bot_seat: Player::ALL
                .into_iter()
                .find(|&p| matches!(state.seats()[p], Some(Seat::Bot(_)))),
            round: state.round(),
            scores: state.scores(),
            game: state.phase().round().map(|r| r.key.seq),
            created_ms: self.created_ms,
            away_until_ms: ByPlayer::new_with(|p| {
                state.human(p).and_then(|h| h.grace_until).map(wall_ms)
            }),
            rematch: match state.phase() {
                Phase::Over { rematch, .. } => *rematch,
                _ => ByPlayer::default(),
            },
        }
    }
}
