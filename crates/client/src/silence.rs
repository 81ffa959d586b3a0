//! Telling a server that went silent from one that is only quiet, for a
//! [`Connection`](crate::Connection) made with `connect_watched`.
//!
//! `oxo serve` pings every connection on a fixed schedule (every 20 s by
//! default, more often with a short `--idle-timeout`: `docs/protocol.md`,
//! "idle timeout"), whatever else it sends. So a connection that hears
//! nothing at all, not even a ping, for two of those intervals is gone: the
//! server is stopped or the network is down, and TCP would take many
//! minutes to say so. The interval is learnt from the pings themselves
//! (the longest gap seen between two of them), and taken to be the
//! server's default until two have come.

use std::time::Duration;

use tokio::time::Instant;

/// The server's ping interval until two pings have shown it: `oxo serve`'s
/// default, the longest it uses.
pub(crate) const PING_EVERY: Duration = Duration::from_secs(20);

/// When the server was last heard, and how often it pings.
#[derive(Debug)]
pub(crate) struct Silence {
    last_heard: Instant,
    last_ping: Option<Instant>,
    ping_every: Option<Duration>,
}

impl Silence {
    /// Heard from now (the connection is just made).
    pub(crate) fn new() -> Silence {
        Silence {
            last_heard: Instant::now(),
            last_ping: None,
            ping_every: None,
        }
    }

    /// A frame arrived now; `ping` when it is a WebSocket ping.
    pub(crate) fn heard(&mut self, ping: bool) {
        let now = Instant::now();
        self.last_heard = now;
        if ping {
            if let Some(last) = self.last_ping {
                let gap = now.saturating_duration_since(last);
                self.ping_every = Some(self.ping_every.map_or(gap, |every| every.max(gap)));
            }
            self.last_ping = Some(now);
        }
    }

    /// How long the server may say nothing: two of its ping intervals,
    /// and half of one more (at most a second) for its timer and the
    /// network.
    pub(crate) fn limit(&self) -> Duration {
        let every = self.ping_every.unwrap_or(PING_EVERY);
        every * 2 + (every / 2).min(Duration::from_secs(1))
    }

    /// When the server is taken for gone unless something comes first.
    pub(crate) fn deadline(&self) -> Instant {
        self.last_heard + self.limit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn the_limit_is_two_ping_intervals_learnt_from_the_pings() {
        let mut silence = Silence::new();
        assert_eq!(silence.limit(), Duration::from_secs(41), "the default");
        silence.heard(true);
        tokio::time::advance(Duration::from_secs(2)).await;
        silence.heard(false);
        assert_eq!(
            silence.limit(),
            Duration::from_secs(41),
            "one ping says nothing"
        );
        tokio::time::advance(Duration::from_secs(2)).await;
        silence.heard(true);
        assert_eq!(silence.limit(), Duration::from_secs(9));
        assert_eq!(silence.deadline(), Instant::now() + Duration::from_secs(9));
        // A late ping lengthens it; an early one does not shorten it.
        tokio::time::advance(Duration::from_secs(6)).await;
        silence.heard(true);
        assert_eq!(silence.limit(), Duration::from_secs(13));
        tokio::time::advance(Duration::from_secs(1)).await;
        silence.heard(true);
        assert_eq!(silence.limit(), Duration::from_secs(13));
    }
}
