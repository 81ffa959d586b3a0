//! oxo-loadtest: real protocol clients playing real games against an oxo
//! server, and the crash test.
//!
//! [`run`] opens `games` games, each two WebSocket clients speaking the
//! protocol crate's messages: one creates a private table, the other joins,
//! and they play random legal moves from the states they receive, plus a
//! small share of moves the server must refuse (counted apart). A finished
//! round is followed at once by a rematch at the same table, so the load
//! stays constant. Connections open at a bounded rate; the measured window
//! starts after set-up and a warm-up, and the run always ends by
//! [`Config::hard_limit`]. The [`Report`] has moves/s, games/s, move round
//! trip percentiles, refusals, errors by kind, the host's TCP socket memory
//! and, given the server's pid, its CPU and memory (resident set before,
//! during and after the load).
//!
//! Alongside the games, a run can attack the server the way a careless or
//! hostile client would, and report what the server did about it:
//! non-readers ([`Config::non_readers`]: `hello`, `watch_lobby`, then never
//! a read, on a socket with a small receive buffer; see
//! [`NonReaderReport`]) and hello cycles ([`Config::hello_cycles`]: connect,
//! `hello` as a new player, close, over and over; see
//! [`HelloCycleReport`]). With `games` zero the attacks run alone.
//!
//! [`crash_test`] plays under load while killing the server with SIGKILL
//! and restarting it on the same database, then checks that every
//! acknowledged move is stored, in order and legal.
//!
//! Targets are loopback only unless [`Config::allow_remote`] is set: the
//! host is resolved once, checked, and every connection goes to that
//! address.
//!
//! # Examples
//!
//! ```no_run
//! # async fn demo() -> Result<(), oxo_loadtest::Error> {
//! use std::time::Duration;
//!
//! let config = oxo_loadtest::Config {
//!     url: "ws://127.0.0.1:8080/ws".into(),
//!     games: 1000,
//!     duration: Duration::from_secs(30),
//!     ..oxo_loadtest::Config::default()
//! };
//! let report = oxo_loadtest::run(&config, |_progress| {}).await?;
//! println!("{report}");
//! # Ok(()) }
//! ```

mod config;
mod crash;
mod ctx;
mod error;
mod game;
mod hellocycle;
mod http;
mod latency;
mod ledger;
mod nonreader;
mod procstat;
mod report;
mod runner;
mod sockstat;
mod spectator;
mod stats;
mod text;

pub use config::{Config, MAX_CONNECTIONS, MAX_DURATION, Target, parse_duration, resolve_target};
pub use crash::{ClusterConfig, ClusterReport, CrashConfig, CrashReport, cluster_test, crash_test};
pub use error::Error;
pub use hellocycle::HelloCycleReport;
pub use latency::Latency;
pub use nonreader::{CloseTimes, NonReaderReport};
pub use procstat::ProcessStats;
pub use report::{Report, Setup};
pub use runner::{Phase, Progress, run};
pub use sockstat::{TcpMemory, TcpSockstat};
