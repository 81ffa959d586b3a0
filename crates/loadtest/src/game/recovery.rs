//! When things go wrong: requests without a reply in time, a game that
//! stopped moving, and a connection that dropped (the seat comes back with
//! its token, as the crash test needs).

use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use oxo_protocol::{ClientMsg, ErrorCode};
use tokio::time::Instant;

use super::GameDriver;
use super::seat::PendingKind;
use oxo_client::Error as ClientError;

impl GameDriver {
    /// Gives up on requests that had no reply in time, and resynchronises
    /// a game that has not moved for that long.
    pub(super) async fn check_timeouts(&mut self, now: Instant) {
        for i in 0..2 {
            let timed_out = match &self.seats[i].pending {
                Some(p) if now.duration_since(p.sent_at) >= self.ctx.timeout => Some(p.kind.name()),
                _ => None,
            };
            if let Some(kind) = timed_out {
                self.seats[i].pending = None;
                self.ctx.stats.error(&format!("timeout:{kind}"), || {
                    format!("table {}", self.table_id)
                });
                self.last_progress = now;
                let _ = self.send_sync(i).await;
            }
        }
        if now.duration_since(self.last_progress) >= self.ctx.timeout && !self.ctx.stopping() {
            let seat = |i: usize| {
                let s = &self.seats[i];
                format!(
                    "{:?}, asked rematch for round {}, {}, {}",
                    s.view,
                    s.rematch_round,
                    if s.conn.is_some() {
                        "connected"
                    } else {
                        "not connected"
                    },
                    s.pending
                        .as_ref()
                        .map_or("nothing pending", |p| p.kind.name())
                )
            };
            let detail = format!(
                "table {} made no progress for {:?}: {} / {}",
                self.table_id,
                self.ctx.timeout,
                seat(0),
                seat(1)
            );
            self.ctx.stats.stall(self.table_id.as_str(), detail);
            self.last_progress = now;
            for i in 0..2 {
                // A rematch acknowledged by a node that then lost the
                // table is gone (as after a restart): ask again unless
                // the re-synced state shows it.
                self.seats[i].rematch_round = 0;
                if self.seats[i].pending.is_none() {
                    let _ = self.send_sync(i).await;
                }
            }
        }
    }

    /// Handles a broken connection of seat `i`: comes back with the token.
    /// Returns `false` if the game cannot go on.
    pub(super) async fn on_drop(&mut self, i: usize, e: &ClientError) -> bool {
        if let Some(conn) = self.seats[i].conn.take() {
            self.ctx.stats.open.fetch_sub(1, Relaxed);
            drop(conn);
        }
        if self.ctx.stopping() {
            return false;
        }
        let crash = self.ctx.ledger.is_some();
        if !crash {
            self.ctx.stats.error(&e.kind(), || {
                format!("table {} seat {i}: {e}", self.table_id)
            });
        }
        if let Some(p) = self.seats[i].pending.take() {
            if let (Some(ledger), PendingKind::Move { .. }) = (&self.ctx.ledger, &p.kind) {
                ledger.in_doubt();
            }
        }
        let attempts = if crash { u32::MAX } else { 3 };
        for attempt in 0..attempts {
            if self.ctx.stopping() {
                return false;
            }
            match self.reconnect(i).await {
                Ok(()) => {
                    self.last_progress = Instant::now();
                    return true;
                }
                Err(Resume::SeatLost(why)) => {
                    if let Some(ledger) = &self.ctx.ledger {
                        ledger.resumed(false);
                    }
                    self.ctx
                        .stats
                        .error("seat_lost", || format!("table {}: {why}", self.table_id));
                    return false;
                }
                Err(Resume::Retry(e)) => {
                    if !crash {
                        self.ctx
                            .stats
                            .error(&format!("reconnect:{}", e.kind()), || e.to_string());
                    }
                    let wait = Duration::from_millis(20 * u64::from(attempt.min(10) + 1));
                    tokio::time::sleep(wait).await;
                }
            }
        }
        false
    }

    async fn reconnect(&mut self, i: usize) -> Result<(), Resume> {
        let target = self
            .ctx
            .target()
            .await
            .ok_or(Resume::Retry(ClientError::Closed(None)))?;
        let mut conn = target
            .connect(self.ctx.timeout, None)
            .await
            .map_err(Resume::Retry)?;
        let token = self.seats[i].token.clone();
        let welcome = match conn.hello(Some(token), None, self.ctx.timeout).await {
            Ok(w) => w,
            Err(ClientError::Refused {
                code: ErrorCode::InvalidToken,
                message: m,
            }) => {
                return Err(Resume::SeatLost(format!("token refused: {m}")));
            }
            Err(e) => return Err(Resume::Retry(e)),
        };
        if welcome.player_id != self.seats[i].player_id {
            return Err(Resume::SeatLost(format!(
                "came back as {} instead of {}",
                welcome.player_id, self.seats[i].player_id
            )));
        }
        // A table in play is re-attached by `hello`; a finished round is
        // not listed, and joining it again re-attaches a seated player.
        let listed = welcome.tables.contains(&self.table_id);
        self.ctx.stats.open.fetch_add(1, Relaxed);
        let s = &mut self.seats[i];
        s.conn = Some(conn);
        // A rematch in flight may have been lost with the connection: ask
        // again unless the state shows it arrived.
        s.rematch_round = 0;
        if let Some(ledger) = &self.ctx.ledger {
            ledger.resumed(true);
        }
        let table_id = self.table_id.clone();
        let ask = if listed {
            ClientMsg::Sync { table_id }
        } else {
            ClientMsg::JoinTable {
                table_id,
                seat: None,
            }
        };
        self.send(i, ask, PendingKind::Sync)
            .await
            .map_err(Resume::Retry)
    }
}

/// Why a seat could not come back.
enum Resume {
    /// Try again (the server may still be starting).
    Retry(ClientError),
    /// The server does not give the seat back.
    SeatLost(String),
}
