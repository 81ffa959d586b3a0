//! What a seat sends next: a move when it is its turn (after thinking, or on
//! the game's pace), now and then a move the server must refuse first, and
//! a rematch when a round is over.

use std::time::Duration;

use oxo_core::{Bitboard, Rng, Square};
use oxo_protocol::{ClientMsg, ErrorCode, TableStatus};
use tokio::time::Instant;

use super::GameDriver;
use super::seat::{Pending, PendingKind};
use oxo_client::Error as ClientError;

impl GameDriver {
    /// Sends this seat's next request, if it has one to send.
    pub(super) async fn act(
        &mut self,
        i: usize,
        now: Instant,
        rng: &mut Rng,
    ) -> Result<(), ClientError> {
        let other_refusing = matches!(
            self.seats[1 - i].pending,
            Some(Pending {
                kind: PendingKind::Refusal { .. },
                ..
            })
        );
        let (think, pace, next_slot) = (self.ctx.think, self.ctx.pace, self.next_slot);
        let s = &mut self.seats[i];
        if s.conn.is_none() || s.pending.is_some() || other_refusing || now < s.backoff_until {
            return Ok(());
        }
        if s.resync {
            s.resync = false;
            return self.send_sync(i).await;
        }
        let Some(view) = &s.view else { return Ok(()) };
        let key = (view.round, view.move_number);
        let my_turn = view.status == TableStatus::InProgress && view.turn == Some(s.seat);
        let wants_rematch = view.status == TableStatus::RoundOver
            && !view.asked_rematch
            && s.rematch_round < view.round;
        if !my_turn && !wants_rematch {
            return Ok(());
        }
        if s.turn_key != key {
            s.turn_key = key;
            s.refusal_rolled = false;
            s.ready_at = match pace {
                Some(_) if my_turn => next_slot.max(now),
                Some(_) => now,
                None => now + jitter(think, rng),
            };
        }
        if now < s.ready_at {
            return Ok(());
        }
        if wants_rematch {
            let round = view.round;
            s.rematch_round = round;
            let table_id = self.table_id.clone();
            return self
                .send(i, ClientMsg::Rematch { table_id }, PendingKind::Rematch)
                .await;
        }
        let occupied: Bitboard = view.moves.iter().copied().collect();
        let (round, ply, game_id) = (view.round, view.move_number + 1, view.game_id.clone());
        if !s.refusal_rolled {
            s.refusal_rolled = true;
            if self.ctx.refusal_permille > 0 && rng.chance(self.ctx.refusal_permille, 1000) {
                return self.send_refusal(i, occupied, rng).await;
            }
        }
        let Some(cell) = rng.pick(occupied.complement()) else {
            // A full board with a turn: the state is inconsistent; resync.
            self.ctx.stats.error("protocol:full_board_in_progress", || {
                self.table_id.to_string()
            });
            return self.send_sync(i).await;
        };
        let kind = PendingKind::Move {
            round,
            ply,
            cell,
            game_id,
            seen: None,
        };
        if let Some(pace) = pace {
            // On schedule (a late timer does not slow the rate down), but
            // never catching up with a burst after falling behind.
            self.next_slot = (self.next_slot + pace).max(now);
        }
        self.send_move(i, cell, kind).await
    }

    /// Sends a move the server must refuse: an occupied cell, or on an empty
    /// board a move by the other seat (not its turn).
    async fn send_refusal(
        &mut self,
        i: usize,
        occupied: Bitboard,
        rng: &mut Rng,
    ) -> Result<(), ClientError> {
        if let Some(cell) = rng.pick(occupied) {
            let kind = PendingKind::Refusal {
                expected: ErrorCode::CellTaken,
            };
            return self.send_move(i, cell, kind).await;
        }
        let other = &self.seats[1 - i];
        if other.conn.is_none() || other.pending.is_some() {
            return Ok(());
        }
        let cell = rng.pick(Bitboard::FULL).unwrap_or(Square::B2);
        let kind = PendingKind::Refusal {
            expected: ErrorCode::NotYourTurn,
        };
        // If the other seat's connection broke, that is noticed on its next
        // read; this seat has nothing to answer for.
        let _ = self.send_move(1 - i, cell, kind).await;
        Ok(())
    }

    /// Sends `msg` on seat `i`, in flight as `kind`.
    pub(super) async fn send(
        &mut self,
        i: usize,
        msg: ClientMsg,
        kind: PendingKind,
    ) -> Result<(), ClientError> {
        let s = &mut self.seats[i];
        let conn = s.conn.as_mut().ok_or(ClientError::Closed(None))?;
        let sent_at = Instant::now();
        let id = conn.send(msg).await?;
        s.pending = Some(Pending { id, sent_at, kind });
        Ok(())
    }

    /// Sends `cell` as seat `i`'s move, in flight as `kind`.
    async fn send_move(
        &mut self,
        i: usize,
        cell: Square,
        kind: PendingKind,
    ) -> Result<(), ClientError> {
        let table_id = self.table_id.clone();
        let msg = ClientMsg::Move {
            table_id,
            cell,
            game_id: None,
        };
        self.send(i, msg, kind).await
    }

    /// Asks for the table's state again on seat `i`.
    pub(super) async fn send_sync(&mut self, i: usize) -> Result<(), ClientError> {
        let table_id = self.table_id.clone();
        self.send(i, ClientMsg::Sync { table_id }, PendingKind::Sync)
            .await
    }
}

/// A random think time: uniform between half and one and a half times
/// `mean`.
fn jitter(mean: Duration, rng: &mut Rng) -> Duration {
    if mean.is_zero() {
        return Duration::ZERO;
    }
    mean.mul_f64(0.5 + f64::from(rng.below(1000)) / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jitter_stays_within_half_and_one_and_a_half() {
        let mut rng = Rng::new(1);
        assert_eq!(jitter(Duration::ZERO, &mut rng), Duration::ZERO);
        for _ in 0..1000 {
            let t = jitter(Duration::from_millis(1000), &mut rng);
            assert!(t >= Duration::from_millis(500) && t < Duration::from_millis(1500));
        }
    }
}
