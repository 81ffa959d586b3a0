//! What a run is asked to do, and where it may send traffic.
//!
//! The target check resolves the host once and keeps the resolved address:
//! every connection of the run goes to that address, so a name cannot resolve
//! to loopback for the check and to something else for the traffic.

use std::net::SocketAddr;
use std::time::Duration;

use oxo_client::tungstenite::http::Uri;
use oxo_client::{Error as ClientError, Link, LinkOptions};

use crate::error::Error;

/// Everything a load run is asked to do.
#[derive(Clone, Debug)]
pub struct Config {
    /// The server's WebSocket URL, e.g. `ws://127.0.0.1:8080/ws`.
    pub url: String,
    /// Allow a target outside the loopback range.
    pub allow_remote: bool,
    /// Concurrent games (two player connections each).
    pub games: usize,
    /// Spectator connections per game, each watching the game's table.
    pub spectators: usize,
    /// Connections that only say `hello` and then stay idle.
    pub idle: usize,
    /// Non-readers: connections that say `hello`, send `watch_lobby`, and
    /// never read again, keeping the socket open. At the end of the window
    /// each reads its backlog to learn whether the server had closed it;
    /// that read takes up to `drain` less 1.5 s.
    pub non_readers: usize,
    /// The time between the pings each non-reader sends (never reading the
    /// `pong`s); `None`: nothing after `watch_lobby`.
    pub non_reader_pings: Option<Duration>,
    /// The receive buffer (`SO_RCVBUF`) asked for each non-reader's socket,
    /// in bytes (Linux doubles it and keeps a floor of about 2 KiB).
    pub non_reader_recv_buffer: u32,
    /// Hello cycles during the measured window: connect, `hello` as a new
    /// player, wait for the answer, close.
    pub hello_cycles: u64,
    /// Hello cycles run at once.
    pub hello_concurrency: usize,
    /// Hello cycles come back as a returning player: each worker's first
    /// cycle makes a player, and every later one says `hello` with its
    /// token (the cost of a returning player's connection, not of a new
    /// player's).
    pub hello_returning: bool,
    /// Mean pause before each move (drawn uniformly from 0.5× to 1.5×); zero
    /// plays at once.
    pub think: Duration,
    /// Offered moves per second over all games, instead of think time: each
    /// game sends a move at most every `games / rate` seconds.
    pub rate: Option<f64>,
    /// Share of turns, in percent, that first send a deliberately illegal
    /// move (an occupied cell, or a move out of turn on an empty board).
    pub refusal_percent: f64,
    /// The measured window, after set-up and warm-up.
    pub duration: Duration,
    /// Play before the measured window starts (not counted).
    pub warmup: Duration,
    /// The longest set-up may take before the run goes on without the
    /// connections still missing.
    pub setup_timeout: Duration,
    /// How long to wait for games to finish their last request after the
    /// window; whatever is left is then abandoned.
    pub drain: Duration,
    /// The longest a request may wait for its reply before it counts as a
    /// timeout.
    pub request_timeout: Duration,
    /// Connections being opened at once during ramp-up.
    pub connect_concurrency: usize,
    /// The server's process id, to report its CPU and memory.
    pub server_pid: Option<u32>,
    /// Seed for the players' random moves.
    pub seed: u64,
    /// The process's open-files limit, as the caller left it (the `oxo`
    /// binary raises the soft limit to the hard one before a run): the
    /// report shows it and warns when the run needs more sockets. `None`:
    /// not known, no warning, reported as 0.
    pub open_files_limit: Option<u64>,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            url: "ws://127.0.0.1:8080/ws".to_owned(),
            allow_remote: false,
            games: 100,
            spectators: 0,
            idle: 0,
            non_readers: 0,
            non_reader_pings: None,
            non_reader_recv_buffer: 4096,
            hello_cycles: 0,
            hello_concurrency: 4,
            hello_returning: false,
            think: Duration::ZERO,
            rate: None,
            refusal_percent: 2.0,
            duration: Duration::from_secs(10),
            warmup: Duration::from_secs(1),
            setup_timeout: Duration::from_secs(60),
            drain: Duration::from_secs(5),
            request_timeout: Duration::from_secs(10),
            connect_concurrency: 256,
            server_pid: None,
            seed: 0x6f78_6f21,
            open_files_limit: None,
        }
    }
}

impl Config {
    /// The number of sockets the run holds open at once.
    #[must_use]
    pub fn connections(&self) -> usize {
        self.games
            .saturating_mul(self.spectators.saturating_add(2))
            .saturating_add(self.idle)
            .saturating_add(self.non_readers)
            .saturating_add(self.hello_workers())
    }

    /// Hello cycle workers: `hello_concurrency`, or fewer if there are
    /// fewer cycles.
    #[must_use]
    pub fn hello_workers(&self) -> usize {
        usize::try_from(self.hello_cycles)
            .map_or(self.hello_concurrency, |n| n.min(self.hello_concurrency))
    }

    /// Whether the run holds connections of its own through the window
    /// (games, idle connections, non-readers); without them a run of hello
    /// cycles ends as soon as the cycles are done.
    #[must_use]
    pub fn holds_connections(&self) -> bool {
        self.games > 0 || self.idle > 0 || self.non_readers > 0
    }

    /// Refuses arguments that make no sense together, or that no machine
    /// could carry out.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] saying what is wrong.
    pub fn check(&self) -> Result<(), Error> {
        let bad = |msg: &str| Err(Error::Config(msg.to_owned()));
        if !self.holds_connections() && self.hello_cycles == 0 {
            return bad("nothing to do: give --games, --idle, --non-readers or --hello-cycles");
        }
        if self
            .non_reader_pings
            .is_some_and(|p| p < Duration::from_millis(1) || p > MAX_DURATION)
        {
            return bad("--non-reader-ping-interval must be between 1ms and 30 days");
        }
        if self.connections() > MAX_CONNECTIONS {
            return bad("more than 1,000,000 connections at once: one host cannot open that many");
        }
        if self.hello_cycles > 0 && self.hello_concurrency == 0 {
            return bad("--hello-concurrency must be at least 1");
        }
        if !(0.0..=100.0).contains(&self.refusal_percent) {
            return bad("--refusals is a percentage, 0 to 100");
        }
        if self.rate.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
            return bad("--rate must be a positive number of moves per second");
        }
        if self.rate.is_some() && !self.think.is_zero() {
            return bad("give --rate or --think-ms, not both");
        }
        if self.duration.is_zero() {
            return bad("--duration must be positive");
        }
        let durations = [
            self.duration,
            self.warmup,
            self.setup_timeout,
            self.drain,
            self.request_timeout,
            self.think,
        ];
        if durations.iter().any(|d| *d > MAX_DURATION) {
            return bad("durations are at most 30 days");
        }
        Ok(())
    }

    /// The time between two moves of one game under `rate`.
    #[must_use]
    pub fn pace(&self) -> Option<Duration> {
        self.rate.filter(|r| *r > 0.0 && self.games > 0).map(|r| {
            Duration::try_from_secs_f64(self.games as f64 / r)
                .map_or(MAX_DURATION, |d| d.min(MAX_DURATION))
        })
    }

    /// The longest the whole run can take: set-up, warm-up, the window and
    /// the drain, plus a second of slack. The run stops by then whatever
    /// happens.
    #[must_use]
    pub fn hard_limit(&self) -> Duration {
        self.setup_timeout + self.warmup + self.duration + self.drain + Duration::from_secs(1)
    }
}

/// A checked target: the URL to ask for and the address to connect to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// The WebSocket URL (its host goes in the `Host` header).
    pub url: String,
    /// The resolved address every connection goes to.
    pub addr: SocketAddr,
}

impl Target {
    /// The target of a server listening on `addr` (loopback, by construction
    /// of the caller), at path `/ws`.
    #[must_use]
    pub fn local(addr: SocketAddr) -> Target {
        Target {
            url: format!("ws://{addr}/ws"),
            addr,
        }
    }

    /// Opens a protocol connection to this target, giving up after
    /// `timeout`; `recv_buffer` as in [`LinkOptions`].
    pub(crate) async fn connect(
        &self,
        timeout: Duration,
        recv_buffer: Option<u32>,
    ) -> Result<Link, ClientError> {
        let options = LinkOptions {
            timeout,
            recv_buffer,
        };
        Link::connect_to(self.addr, &self.url, options).await
    }

    /// The server's HTTP base, e.g. `http://127.0.0.1:8080`.
    #[must_use]
    pub fn http_base(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// Parses `url` and resolves its host, refusing anything outside the
/// loopback range (`127.0.0.0/8`, `::1`, `localhost`) unless `allow_remote`.
///
/// # Errors
///
/// [`Error::BadUrl`] for a URL that is not `ws://host[:port]/path`,
/// [`Error::Resolve`] when the host does not resolve, and
/// [`Error::NotLoopback`] for a non-loopback host without `allow_remote`.
pub async fn resolve_target(url: &str, allow_remote: bool) -> Result<Target, Error> {
    let (host, port) = split_url(url)?;
    let addrs: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), port))
        .await
        .map_err(|e| Error::Resolve {
            host: host.clone(),
            reason: e.to_string(),
        })?
        .collect();
    let Some(&first) = addrs.first() else {
        return Err(Error::Resolve {
            host,
            reason: "no addresses".to_owned(),
        });
    };
    if !allow_remote {
        if let Some(bad) = addrs.iter().find(|a| !a.ip().is_loopback()) {
            return Err(Error::NotLoopback {
                host,
                addr: bad.ip().to_string(),
            });
        }
    }
    let addr = addrs
        .iter()
        .copied()
        .find(SocketAddr::is_ipv4)
        .unwrap_or(first);
    Ok(Target {
        url: url.to_owned(),
        addr,
    })
}

/// The host and port of a `ws://` URL (`wss://` is not supported: the tool
/// measures the server, not TLS).
fn split_url(url: &str) -> Result<(String, u16), Error> {
    let bad = |reason: &str| Error::BadUrl {
        url: url.to_owned(),
        reason: reason.to_owned(),
    };
    let uri: Uri = url.parse().map_err(|_| bad("not a URL"))?;
    match uri.scheme_str() {
        Some("ws") => {}
        Some("wss") => return Err(bad("wss:// is not supported; use ws://")),
        _ => return Err(bad("the scheme must be ws://")),
    }
    let host = uri.host().ok_or_else(|| bad("no host"))?;
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    Ok((host, uri.port_u16().unwrap_or(80)))
}

/// The most connections a run may hold at once.
pub const MAX_CONNECTIONS: usize = 1_000_000;

/// The longest duration any option accepts: long enough for any run, short
/// enough that adding a few of them to an instant never overflows.
pub const MAX_DURATION: Duration = Duration::from_secs(30 * 24 * 3600);

/// Parses a duration such as `30s`, `500ms` or `2m` (a bare number is
/// seconds), at most [`MAX_DURATION`].
///
/// # Errors
///
/// A message naming the accepted forms, or the limit.
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let s = s.trim();
    let d = match s.parse::<f64>() {
        Ok(secs) => Duration::try_from_secs_f64(secs)
            .map_err(|_| format!("{s}: expected a non-negative number of seconds"))?,
        Err(_) => humantime::parse_duration(s)
            .map_err(|e| format!("{e}: expected a duration such as 30s, 500ms or 2m"))?,
    };
    if d > MAX_DURATION {
        return Err(format!("{s}: at most 30 days"));
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30s"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert!(parse_duration("soon").is_err());
        assert!(parse_duration("-1").is_err());
        assert!(parse_duration("NaN").is_err());
        assert!(parse_duration("1e20").is_err());
        assert!(parse_duration("1e400").is_err());
        assert!(parse_duration("100000years").is_err());
        assert_eq!(parse_duration("30days"), Ok(MAX_DURATION));
    }

    #[test]
    fn url_parts() {
        assert_eq!(
            split_url("ws://127.0.0.1:8080/ws").ok(),
            Some(("127.0.0.1".to_owned(), 8080))
        );
        assert_eq!(
            split_url("ws://[::1]:9/ws").ok(),
            Some(("::1".to_owned(), 9))
        );
        assert_eq!(
            split_url("ws://localhost/ws").ok(),
            Some(("localhost".to_owned(), 80))
        );
        assert!(split_url("http://127.0.0.1/ws").is_err());
        assert!(split_url("wss://127.0.0.1/ws").is_err());
        assert!(split_url("nonsense").is_err());
    }

    #[test]
    fn checks_arguments() {
        let ok = Config {
            games: 0,
            hello_cycles: 10,
            ..Config::default()
        };
        assert!(ok.check().is_ok());
        assert_eq!(ok.hello_workers(), 4);
        assert_eq!(ok.connections(), 4);
        let few = Config {
            hello_cycles: 2,
            ..ok.clone()
        };
        assert_eq!(few.hello_workers(), 2);
        let attacks_alone = Config {
            non_readers: 3,
            non_reader_pings: Some(Duration::from_secs(1)),
            ..few.clone()
        };
        assert!(attacks_alone.check().is_ok() && attacks_alone.holds_connections());
        assert_eq!(attacks_alone.connections(), 5);
        let bad = [
            Config {
                hello_cycles: 0,
                ..ok.clone()
            },
            Config {
                hello_concurrency: 0,
                ..ok.clone()
            },
            Config {
                non_readers: 1,
                non_reader_pings: Some(Duration::ZERO),
                ..ok.clone()
            },
            Config {
                games: usize::MAX,
                spectators: usize::MAX,
                ..ok.clone()
            },
            Config {
                duration: Duration::MAX,
                ..ok.clone()
            },
            Config {
                duration: Duration::ZERO,
                ..ok.clone()
            },
            Config {
                rate: Some(f64::NAN),
                ..ok.clone()
            },
        ];
        for c in bad {
            assert!(matches!(c.check(), Err(Error::Config(_))), "{c:?}");
        }
        let tiny_rate = Config {
            games: 10,
            rate: Some(1e-300),
            ..Config::default()
        };
        assert_eq!(tiny_rate.pace(), Some(MAX_DURATION));
    }

    #[tokio::test]
    async fn loopback_only() {
        assert!(resolve_target("ws://127.0.0.1:1/ws", false).await.is_ok());
        assert!(resolve_target("ws://127.3.4.5:1/ws", false).await.is_ok());
        assert!(resolve_target("ws://[::1]:1/ws", false).await.is_ok());
        assert!(resolve_target("ws://localhost:1/ws", false).await.is_ok());
        let err = resolve_target("ws://192.168.1.10:1/ws", false).await;
        assert!(matches!(err, Err(Error::NotLoopback { .. })), "{err:?}");
        let err = resolve_target("ws://10.0.0.1:1/ws", false).await;
        assert!(matches!(err, Err(Error::NotLoopback { .. })), "{err:?}");
        // Allowed explicitly (nothing is sent: this only resolves).
        assert!(resolve_target("ws://10.0.0.1:1/ws", true).await.is_ok());
    }
}
