//! Every connection's outbox, for what concerns them all at once.
//!
//! - **Deadlines.** A connection's task has deadlines even when nothing
//!   happens: its next ping, its idle timeout, the end of a wait for
//!   replies. Rather than a timer in each of 10,000 mostly idle tasks, each
//!   task writes its next deadline into its outbox ([`Outbox::wake_at`]) and
//!   one task of the server ([`run`]) looks at them all every tick and wakes
//!   the ones that are due. A deadline is kept to within one tick
//!   ([`tick`]: an eighth of the shortest of the idle timeout and the ping
//!   interval, at most a second).
//! - **Ending them all.** On shutdown, and when a cluster node's term ends,
//!   every connection served so far ends ([`Roster::end_all`]): each waits
//!   on its own outbox, not on a token shared by the whole server.
//!
//! The roster holds weak handles: a connection that ends leaves it at the
//! next tick, and holding its entry a tick longer is all it costs.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::conn::Outbox;

/// The outboxes of the connections, and the clock their deadlines are on.
#[derive(Debug)]
pub(crate) struct Roster {
    outboxes: Mutex<Vec<Weak<Outbox>>>,
    /// Deadlines are milliseconds since this.
    epoch: Instant,
}

impl Default for Roster {
    fn default() -> Roster {
        Roster {
            outboxes: Mutex::default(),
            epoch: Instant::now(),
        }
    }
}

impl Roster {
    fn outboxes(&self) -> MutexGuard<'_, Vec<Weak<Outbox>>> {
        self.outboxes.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a new connection's outbox.
    pub(crate) fn enroll(&self, outbox: &Arc<Outbox>) {
        self.outboxes().push(Arc::downgrade(outbox));
    }

    /// Ends every connection enrolled so far, without a close frame of its
    /// own (see [`Outbox::end`]).
    pub(crate) fn end_all(&self) {
        self.each(Outbox::end);
    }

    /// `at` as a deadline for [`Outbox::wake_at`]: whole milliseconds on
    /// the roster's clock, rounded up (never early).
    pub(crate) fn millis(&self, at: Instant) -> u64 {
        let since = at.saturating_duration_since(self.epoch);
        u64::try_from(since.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX)
    }

    /// Wakes every connection whose deadline is at or before `now`; forgets
    /// the ones that ended.
    fn wake_due(&self, now: Instant) {
        let now = self.millis(now);
        self.each(|outbox| outbox.wake_if_due(now));
    }

    /// Does `f` to the outbox of every connection still open; the others
    /// leave. (`f` only sets flags and wakes tasks: the lock is short.)
    fn each(&self, f: impl Fn(&Outbox)) {
        self.outboxes().retain(|weak| match weak.upgrade() {
            Some(outbox) => {
                f(&outbox);
                true
            }
            None => false,
        });
    }
}

/// How often the roster looks at the deadlines: an eighth of the shortest
/// of the time to say `hello` and the pings' interval, between 10 ms and
/// 1 s.
pub(crate) fn tick(config: &Config) -> Duration {
    let shortest = config.hello_within().min(config.ping_every());
    (shortest / 8).clamp(Duration::from_millis(10), Duration::from_secs(1))
}

/// The roster's task: wakes the connections whose deadline is due, every
/// `tick`, and ends them all on shutdown.
pub(crate) async fn run(roster: Arc<Roster>, tick: Duration, shutdown: CancellationToken) {
    let mut ticks = tokio::time::interval(tick);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            biased;
            () = shutdown.cancelled() => break,
            now = ticks.tick() => roster.wake_due(now),
        }
    }
    roster.end_all();
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outbox() -> Arc<Outbox> {
        Outbox::new(1, 8, 1 << 20)
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_is_woken_at_its_deadline_and_not_before() {
        let roster = Roster::default();
        let out = outbox();
        roster.enroll(&out);
        let due = Instant::now() + Duration::from_millis(30);
        out.wake_at(roster.millis(due));
        roster.wake_due(due - Duration::from_millis(1));
        let early = tokio::time::timeout(Duration::ZERO, out.stirred()).await;
        assert!(early.is_err(), "woken a millisecond early");
        roster.wake_due(due);
        let woken = tokio::time::timeout(Duration::ZERO, out.stirred()).await;
        assert!(woken.is_ok(), "not woken at its deadline");
    }

    #[tokio::test(start_paused = true)]
    async fn shutdown_ends_every_connection_and_the_ended_ones_leave() {
        let roster = Arc::new(Roster::default());
        let (a, b) = (outbox(), outbox());
        roster.enroll(&a);
        roster.enroll(&b);
        drop(b);
        let shutdown = CancellationToken::new();
        let task = tokio::spawn(run(
            Arc::clone(&roster),
            Duration::from_millis(10),
            shutdown.clone(),
        ));
        tokio::time::sleep(Duration::from_millis(25)).await;
        assert_eq!(roster.outboxes().len(), 1, "an ended connection stays");
        assert!(!a.is_closing());
        shutdown.cancel();
        task.await.expect("no panic");
        assert!(a.is_closing(), "shutdown did not end the connection");
        assert!(
            a.close_frame().is_none(),
            "ended without a frame of its own"
        );
    }

    #[test]
    fn the_tick_follows_the_shortest_deadline_within_bounds() {
        let config = |idle, ping| {
            Config::with_timing(Duration::from_millis(idle), Duration::from_millis(ping))
        };
        assert_eq!(tick(&config(60_000, 20_000)), Duration::from_secs(1));
        assert_eq!(tick(&config(400, 100)), Duration::from_micros(12_500));
        assert_eq!(tick(&config(40, 40)), Duration::from_millis(10));
    }
}
