//! The result of a run: one serde struct, printed as text or as one JSON
//! object (`--json`).

use std::collections::BTreeMap;
use std::fmt;

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

use crate::hellocycle::HelloCycleReport;
use crate::nonreader::NonReaderReport;
use crate::procstat::ProcessStats;
use crate::sockstat::{TcpMemory, TcpSockstat};

/// Everything a load run measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// The target.
    pub url: String,
    /// Concurrent games asked for.
    pub games: usize,
    /// Spectators per game.
    pub spectators_per_game: usize,
    /// Idle connections asked for.
    pub idle: usize,
    /// Non-readers, if asked for.
    #[serde(default)]
    pub non_readers: Option<NonReaderReport>,
    /// Hello cycles, if asked for.
    #[serde(default)]
    pub hello_cycles: Option<HelloCycleReport>,
    /// Mean think time before each move, in milliseconds.
    pub think_ms: u64,
    /// Offered moves per second (`--rate`), if paced.
    #[serde(default)]
    pub offered_rate: Option<f64>,
    /// Share of turns that first sent a move meant to be refused, in percent.
    pub refusal_percent: f64,
    /// How the connections were set up.
    pub setup: Setup,
    /// Warm-up after set-up, not measured, in seconds.
    pub warmup_seconds: f64,
    /// The measured window, in seconds.
    pub window_seconds: f64,
    /// Moves accepted in the window.
    pub moves: u64,
    /// Moves accepted per second.
    pub moves_per_sec: f64,
    /// Games (rounds) finished in the window.
    pub games_finished: u64,
    /// Games finished per second.
    pub games_per_sec: f64,
    /// Move round trips: from sending `move` to the mover receiving the
    /// state that shows it.
    pub latency_us: Latency,
    /// Deliberately illegal moves refused as expected (not errors).
    pub refusals: u64,
    /// `table` events received by spectators in the window.
    pub spectator_events: u64,
    /// Errors over the whole run: unexpected refusals, disconnects,
    /// timeouts, protocol violations.
    pub errors: u64,
    /// Errors by kind.
    pub errors_by_kind: BTreeMap<String, u64>,
    /// The first few errors in detail.
    pub first_errors: Vec<String>,
    /// The server's CPU and memory, given `--server-pid`.
    pub server: Option<ProcessStats>,
    /// The load tool's own CPU and memory.
    pub client: Option<ProcessStats>,
    /// The host's TCP sockets and their kernel memory
    /// (`/proc/net/sockstat`) at the start, the end of the window, and after
    /// closing.
    #[serde(default)]
    pub tcp: Option<TcpMemory>,
    /// The open-files limit the tool ran with.
    pub open_files_limit: u64,
    /// Anything that makes the figures less trustworthy.
    pub warnings: Vec<String>,
}

/// How set-up went.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Setup {
    /// From the first connection to the last game, idle connection or
    /// non-reader ready, in seconds.
    pub seconds: f64,
    /// Games whose both players were seated by the end of set-up.
    pub games_ready: u64,
    /// Idle connections that got their `welcome`.
    pub idle_ready: u64,
    /// Non-readers that got their `welcome` and sent `watch_lobby`.
    #[serde(default)]
    pub non_readers_ready: u64,
    /// Connections open when the window started.
    pub connections_open: u64,
}

/// Latency percentiles, in microseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Latency {
    /// Moves timed.
    pub samples: u64,
    /// Median.
    pub p50: u64,
    /// 90th percentile.
    pub p90: u64,
    /// 99th percentile.
    pub p99: u64,
    /// 99.9th percentile.
    pub p999: u64,
    /// The slowest.
    pub max: u64,
    /// The mean.
    pub mean: f64,
}

impl Latency {
    /// The percentiles of `h`.
    pub(crate) fn of(h: &Histogram<u64>) -> Latency {
        if h.is_empty() {
            return Latency::default();
        }
        Latency {
            samples: h.len(),
            p50: h.value_at_quantile(0.50),
            p90: h.value_at_quantile(0.90),
            p99: h.value_at_quantile(0.99),
            p999: h.value_at_quantile(0.999),
            max: h.max(),
            mean: h.mean(),
        }
    }
}

impl Report {
    /// The report as one line of JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("reports always serialize")
    }

    /// Reads a report printed by `--json`.
    ///
    /// # Errors
    ///
    /// If `json` is not such a report.
    pub fn from_json(json: &str) -> Result<Report, serde_json::Error> {
        serde_json::from_str(json)
    }
}

/// A process's resident set at the start, the end of the window and after
/// closing, and its peak: `start 12.0 MiB, end 40.5 MiB, closed 38.2 MiB,
/// peak 41.0 MiB` (`-` where unread).
fn rss_edges(p: &ProcessStats) -> String {
    let or_dash = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.1} MiB"));
    format!(
        "start {}, end {:.1} MiB, closed {}, peak {:.1} MiB",
        or_dash(p.rss_start_mib),
        p.rss_mib,
        or_dash(p.rss_after_close_mib),
        p.peak_rss_mib
    )
}

/// Microseconds as milliseconds with two decimals.
fn ms(us: u64) -> String {
    format!("{:.2} ms", us as f64 / 1000.0)
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "oxo loadtest → {}", self.url)?;
        let mut load = Vec::new();
        if self.games > 0 {
            let pacing = match self.offered_rate {
                Some(rate) => format!("paced to {rate:.0} moves/s"),
                None => format!("think {} ms", self.think_ms),
            };
            let spectators = if self.spectators_per_game > 0 {
                format!(" + {} spectators", self.spectators_per_game)
            } else {
                String::new()
            };
            load.push(format!(
                "{} games × 2 players{spectators}, {pacing}, {:.1}% refused on purpose",
                self.games, self.refusal_percent
            ));
        }
        if self.idle > 0 {
            load.push(format!("{} idle connections", self.idle));
        }
        if let Some(n) = &self.non_readers {
            let pings = n
                .ping_interval_ms
                .map_or_else(String::new, |ms| format!(", pinging every {ms} ms"));
            load.push(format!("{} non-readers{pings}", n.requested));
        }
        if let Some(h) = &self.hello_cycles {
            load.push(format!(
                "{} hello cycles, {} at once",
                h.requested, h.concurrency
            ));
        }
        writeln!(f, "  load       {}", load.join("; "))?;
        writeln!(
            f,
            "  setup      {:.2} s: {} games, {} idle, {} non-readers ready; {} connections open",
            self.setup.seconds,
            self.setup.games_ready,
            self.setup.idle_ready,
            self.setup.non_readers_ready,
            self.setup.connections_open
        )?;
        writeln!(
            f,
            "  window     {:.1} s (after {:.1} s warm-up)",
            self.window_seconds, self.warmup_seconds
        )?;
        if self.games > 0 {
            let l = &self.latency_us;
            writeln!(
                f,
                "  moves      {} ({:.0}/s)",
                self.moves, self.moves_per_sec
            )?;
            writeln!(
                f,
                "  games      {} finished ({:.0}/s)",
                self.games_finished, self.games_per_sec
            )?;
            writeln!(
                f,
                "  latency    p50 {}  p90 {}  p99 {}  p99.9 {}  max {}  ({} moves timed)",
                ms(l.p50),
                ms(l.p90),
                ms(l.p99),
                ms(l.p999),
                ms(l.max),
                l.samples
            )?;
            writeln!(f, "  refusals   {} (intended)", self.refusals)?;
        }
        if self.spectators_per_game > 0 {
            writeln!(f, "  spectated  {} table events", self.spectator_events)?;
        }
        if let Some(n) = &self.non_readers {
            write!(f, "{n}")?;
        }
        if let Some(h) = &self.hello_cycles {
            write!(f, "{h}")?;
        }
        writeln!(f, "  errors     {}", self.errors)?;
        for (kind, n) in &self.errors_by_kind {
            writeln!(f, "    {kind}: {n}")?;
        }
        for e in &self.first_errors {
            writeln!(f, "    e.g. {e}")?;
        }
        for (who, p) in [("server", &self.server), ("loadtest", &self.client)] {
            if let Some(p) = p {
                writeln!(
                    f,
                    "  {who:<10} CPU {:.0}%, {} threads; RSS {}",
                    p.cpu_percent,
                    p.threads,
                    rss_edges(p)
                )?;
            }
        }
        if let Some(t) = &self.tcp {
            let line = |s: &TcpSockstat| {
                format!(
                    "mem {} pages = {:.1} MiB; {} in use, {} orphans, {} time-wait",
                    s.mem_pages,
                    t.mib(s.mem_pages),
                    s.inuse,
                    s.orphan,
                    s.tw
                )
            };
            writeln!(f, "  host TCP   start  {}", line(&t.start))?;
            writeln!(f, "             end    {}", line(&t.end))?;
            if let Some(after) = &t.after_close {
                writeln!(f, "             closed {}", line(after))?;
            }
        }
        for w in &self.warnings {
            writeln!(f, "  warning: {w}")?;
        }
        Ok(())
    }
}
