//! What the server sends a seat: `table` events update the seat's view
//! (and time the move in flight), `ok` and `error` settle the request in
//! flight. Nothing here sends; the turn logic acts on the updated state.

use std::time::Duration;

use oxo_protocol::{ErrorCode, ServerMsg, TableState, TableStatus};
use tokio::time::Instant;

use super::GameDriver;
use super::seat::{Pending, PendingKind, View};

impl GameDriver {
    /// Handles a message that arrived on seat `i`'s connection.
    pub(super) fn on_msg(&mut self, i: usize, msg: ServerMsg) {
        match msg {
            ServerMsg::Table { table } => self.on_table(i, &table),
            ServerMsg::Ok { id, .. } => self.on_ok(i, id),
            ServerMsg::Error { id, code, message } => self.on_error(i, id, code, &message),
            ServerMsg::Closing { .. }
            | ServerMsg::Chat { .. }
            | ServerMsg::ChatHistory { .. }
            | ServerMsg::Lobby { .. }
            | ServerMsg::Pong { .. } => {}
            ServerMsg::Welcome { .. } => {
                self.ctx
                    .stats
                    .error("protocol:unexpected_welcome", || self.table_id.to_string());
            }
        }
    }

    fn on_table(&mut self, i: usize, table: &TableState) {
        if table.id != self.table_id {
            return;
        }
        let now = Instant::now();
        let s = &mut self.seats[i];
        if table.players[s.seat]
            .as_ref()
            .is_some_and(|p| p.id != s.player_id)
        {
            self.ctx.stats.error("seat_taken_over", || {
                format!("table {} seat {} is someone else's", table.id, s.seat)
            });
        }
        let view = View::of(table, s.seat);
        let advanced = s.view.as_ref().is_none_or(|v| {
            (v.round, v.move_number, v.status) != (view.round, view.move_number, view.status)
        });
        if advanced {
            self.last_progress = now;
        }
        if let Some(Pending {
            kind:
                PendingKind::Move {
                    round,
                    ply,
                    cell,
                    seen,
                    ..
                },
            ..
        }) = &mut s.pending
        {
            if seen.is_none()
                && (view.round > *round || (view.round == *round && view.move_number >= *ply))
            {
                *seen = Some(now);
                let at_ply = view.moves.get(*ply as usize - 1).copied();
                if view.round == *round && at_ply != Some(*cell) {
                    self.ctx.stats.error("protocol:move_mismatch", || {
                        format!(
                            "table {} ply {ply}: sent {cell}, state shows {at_ply:?}",
                            table.id
                        )
                    });
                }
            }
        }
        if i == 0 && view.status == TableStatus::RoundOver && self.counted_round < view.round {
            self.counted_round = view.round;
            self.ctx.stats.count(&self.ctx.stats.rounds);
        }
        if let Some(ledger) = &self.ctx.ledger {
            ledger.seen(&self.table_id, &view.game_id, view.round, &s.token);
        }
        s.view = Some(view);
    }

    fn on_ok(&mut self, i: usize, id: Option<u64>) {
        let s = &mut self.seats[i];
        if id.is_none() || s.pending.as_ref().map(|p| p.id) != id {
            // A late reply to a request given up on.
            return;
        }
        let Some(p) = s.pending.take() else { return };
        let now = Instant::now();
        match p.kind {
            PendingKind::Move {
                round,
                ply,
                cell,
                game_id,
                seen,
            } => {
                if seen.is_none() {
                    self.ctx.stats.error("protocol:ok_before_table", || {
                        format!("table {} ply {ply}", self.table_id)
                    });
                }
                let latency = seen.unwrap_or(now).duration_since(p.sent_at);
                self.ctx.stats.record_move(self.index, Some(latency));
                if let Some(ledger) = &self.ctx.ledger {
                    ledger.ack(&self.table_id, game_id, round, ply, cell);
                }
            }
            PendingKind::Refusal { expected } => {
                self.ctx.stats.error("refusal_accepted", || {
                    format!(
                        "table {}: a move expected to fail with {expected} was accepted",
                        self.table_id
                    )
                });
            }
            PendingKind::Rematch | PendingKind::Sync => {}
        }
    }

    fn on_error(&mut self, i: usize, id: Option<u64>, code: ErrorCode, message: &str) {
        let s = &mut self.seats[i];
        let mine = id.is_some() && s.pending.as_ref().map(|p| p.id) == id;
        if !mine {
            self.ctx
                .stats
                .error(&format!("unsolicited_error:{code}"), || message.to_owned());
            return;
        }
        let Some(p) = s.pending.take() else { return };
        if let PendingKind::Refusal { expected } = p.kind {
            if code == expected {
                self.ctx.stats.count(&self.ctx.stats.refusals);
                return;
            }
        }
        // After a crash-restart a request may race the restored state; the
        // crash test is about durability, not these.
        if self.ctx.ledger.is_some() {
            s.backoff_until = Instant::now() + Duration::from_millis(20);
            // A refused resync leaves the seat deaf to the table: again.
            s.resync = matches!(p.kind, PendingKind::Sync);
            return;
        }
        self.ctx
            .stats
            .error(&format!("refused:{}:{code}", p.kind.name()), || {
                format!("table {}: {message}", self.table_id)
            });
        let backoff = if code == ErrorCode::RateLimited {
            1000
        } else {
            20
        };
        s.backoff_until = Instant::now() + Duration::from_millis(backoff);
    }
}
