//! A connection's deadlines: its next ping, its idle timeout, and the
//! bound on waiting for replies before reading on. The connection keeps
//! them as times; the roster's one timer wakes it when one is due.

use std::time::Duration;

use crate::config::Config;

/// The longest a connection waits for replies before reading on: a bound
/// on a stall that should not happen (every request is answered, and a
/// client that does not read is closed by the write deadline first).
const REPLY_WAIT: Duration = Duration::from_secs(10);

/// The deadlines of a connection, kept as times (and served by the
/// roster's timer): the next ping, the idle timeout (from the last frame
/// read), and the bound on waiting for replies before reading on
/// ([`REPLY_WAIT`]).
#[derive(Debug)]
pub(super) struct Clock {
    /// When the connection is idle, unless a frame comes first.
    idle_at: tokio::time::Instant,
    next_ping: tokio::time::Instant,
    /// When the replies owed were first waited for.
    waiting_since: Option<tokio::time::Instant>,
}

/// What is due.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Fired {
    Idle,
    Ping,
    Nothing,
}

impl Clock {
    /// A connection's deadlines from now: closed after the configured idle
    /// timeout without a frame, pinged at the configured interval.
    pub(super) fn new(config: &Config) -> Clock {
        let now = tokio::time::Instant::now();
        Clock {
            idle_at: now + config.hello_within(),
            next_ping: now + config.ping_every(),
            waiting_since: None,
        }
    }

    /// Whether to wait for replies (not read) now, given whether every
    /// reply owed is written: waiting starts when one is owed, and ends
    /// when none is or after [`REPLY_WAIT`].
    pub(super) fn waiting(&mut self, settled: bool) -> bool {
        if settled {
            self.waiting_since = None;
            return false;
        }
        let since = *self
            .waiting_since
            .get_or_insert_with(tokio::time::Instant::now);
        since.elapsed() < REPLY_WAIT
    }

    /// The next deadline: the next ping, the idle timeout, and while
    /// `waiting`, the end of the wait for replies.
    pub(super) fn next(&self, waiting: bool) -> tokio::time::Instant {
        let due = self.next_ping.min(self.idle_at);
        match self.waiting_since {
            Some(since) if waiting => due.min(since + REPLY_WAIT),
            _ => due,
        }
    }

    /// A frame was read: the idle timeout runs from now, once the client
    /// has said `hello` (before, the deadline for `hello` stands).
    pub(super) fn frame_read(&mut self, config: &Config, welcomed: bool) {
        if welcomed {
            self.idle_at = tokio::time::Instant::now() + config.idle_timeout;
        }
    }

    /// What is due at `now` (a ping is then counted as sent).
    pub(super) fn fired(&mut self, config: &Config, now: tokio::time::Instant) -> Fired {
        if now >= self.idle_at {
            Fired::Idle
        } else if now >= self.next_ping {
            self.next_ping = now + config.ping_every();
            Fired::Ping
        } else {
            Fired::Nothing
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDLE: Duration = Duration::from_secs(60);
    const EVERY: Duration = Duration::from_secs(20);

    #[tokio::test(start_paused = true)]
    async fn one_deadline_serves_the_pings_the_idle_timeout_and_the_wait_for_replies() {
        let start = tokio::time::Instant::now();
        let config = Config::with_timing(IDLE, EVERY);
        let mut clock = Clock::new(&config);
        // The client said hello at once.
        clock.frame_read(&config, true);
        assert_eq!(clock.next(false), start + EVERY);
        // The ping, then the next one an interval later.
        tokio::time::advance(EVERY).await;
        assert_eq!(
            clock.fired(&config, tokio::time::Instant::now()),
            Fired::Ping
        );
        assert_eq!(clock.next(false), start + 2 * EVERY);
        // A frame read pushes the idle timeout back, not the pings.
        tokio::time::advance(Duration::from_secs(5)).await;
        clock.frame_read(&config, true);
        // Waiting for replies bounds the wait, but only while waiting.
        assert!(clock.waiting(false));
        let waiting_from = tokio::time::Instant::now();
        assert_eq!(clock.next(true), waiting_from + REPLY_WAIT);
        tokio::time::advance(REPLY_WAIT).await;
        assert_eq!(
            clock.fired(&config, tokio::time::Instant::now()),
            Fired::Nothing
        );
        assert!(!clock.waiting(false), "reading goes on after the bound");
        assert!(!clock.waiting(true));
        assert_eq!(clock.next(false), start + 2 * EVERY);
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_that_sends_nothing_is_idle_even_when_a_ping_is_due_too() {
        let start = tokio::time::Instant::now();
        let config = Config::with_timing(IDLE, IDLE / 2);
        let mut clock = Clock::new(&config);
        clock.frame_read(&config, true);
        assert_eq!(clock.next(false), start + IDLE / 2);
        tokio::time::advance(IDLE / 2).await;
        assert_eq!(
            clock.fired(&config, tokio::time::Instant::now()),
            Fired::Ping
        );
        // The ping went unanswered: idle, though the next ping is due too.
        tokio::time::advance(IDLE / 2).await;
        assert_eq!(
            clock.fired(&config, tokio::time::Instant::now()),
            Fired::Idle
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_client_that_never_says_hello_is_closed_whatever_else_it_sends() {
        let config = Config::with_timing(IDLE, EVERY);
        let mut clock = Clock::new(&config);
        tokio::time::advance(config.hello_within() / 2).await;
        clock.frame_read(&config, false);
        tokio::time::advance(config.hello_within() / 2).await;
        assert_eq!(
            clock.fired(&config, tokio::time::Instant::now()),
            Fired::Idle
        );
    }

    #[tokio::test(start_paused = true)]
    async fn pings_come_often_enough_for_a_short_idle_timeout() {
        let idle = Duration::from_secs(6);
        let config = Config::with_timing(idle, EVERY);
        let mut clock = Clock::new(&config);
        clock.frame_read(&config, true);
        tokio::time::advance(idle / 2).await;
        assert_eq!(
            clock.fired(&config, tokio::time::Instant::now()),
            Fired::Ping,
            "a client that answers is never idle"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_wake_before_anything_is_due_does_nothing() {
        let config = Config::with_timing(IDLE, IDLE);
        let mut clock = Clock::new(&config);
        tokio::time::advance(Duration::from_secs(30)).await;
        clock.frame_read(&config, true);
        tokio::time::advance(Duration::from_secs(30)).await;
        // Set for the idle timeout before the frame, at the first ping:
        // due, a ping; the idle timeout is 30 s away.
        assert_eq!(
            clock.fired(&config, tokio::time::Instant::now()),
            Fired::Ping
        );
        assert_eq!(
            clock.fired(&config, tokio::time::Instant::now()),
            Fired::Nothing
        );
    }
}
