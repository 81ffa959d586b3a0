//! The result of a run: one serde struct, printed as text or as one JSON
//! object (`--json`).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::hellocycle::HelloCycleReport;
use crate::latency::{Latency, ms};
use crate::nonreader::NonReaderReport;
use crate::procstat::ProcessStats;
use crate::sockstat::{TcpMemory, TcpSockstat};
use crate::text;

/// Everything a load run measured.
///
/// Reports printed by earlier versions still read: what came later is an
/// `Option` (missing reads as `None`) or has a `#[serde(default)]`.
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
    pub non_readers: Option<NonReaderReport>,
    /// Hello cycles, if asked for.
    pub hello_cycles: Option<HelloCycleReport>,
    /// Mean think time before each move, in milliseconds.
    pub think_ms: u64,
    /// Offered moves per second (`--rate`), if paced.
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
        text::counts(f, "    ", &self.errors_by_kind)?;
        text::lines(f, "    e.g. ", &self.first_errors)?;
        for (who, p) in [("server", &self.server), ("loadtest", &self.client)] {
            if let Some(p) = p {
                let per_move = p
                    .cpu_us_per_move
                    .map_or_else(String::new, |us| format!(" ({us:.1} µs per move)"));
                writeln!(
                    f,
                    "  {who:<10} CPU {:.0}%{per_move}, {} threads; RSS {}",
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
        text::lines(f, "  warning: ", &self.warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A report from before non-readers, hello cycles, pacing, run-edge
    /// memory and the closed TCP reading existed.
    #[test]
    fn older_reports_still_read() {
        let sockstat = r#"{"inuse":1,"orphan":0,"tw":0,"alloc":1,"mem_pages":1}"#;
        let json = format!(
            r#"{{"url":"ws://127.0.0.1:8080/ws","games":1,"spectators_per_game":0,"idle":0,
            "think_ms":0,"refusal_percent":2.0,
            "setup":{{"seconds":1.0,"games_ready":1,"idle_ready":0,"connections_open":2}},
            "warmup_seconds":1.0,"window_seconds":10.0,"moves":5,"moves_per_sec":0.5,
            "games_finished":1,"games_per_sec":0.1,
            "latency_us":{{"samples":0,"p50":0,"p90":0,"p99":0,"p999":0,"max":0,"mean":0.0}},
            "refusals":0,"spectator_events":0,"errors":0,"errors_by_kind":{{}},"first_errors":[],
            "server":{{"pid":7,"cpu_percent":1.0,"rss_mib":2.0,"peak_rss_mib":3.0,"threads":4}},
            "client":null,"tcp":{{"page_bytes":4096,"start":{sockstat},"end":{sockstat}}},
            "open_files_limit":1024,"warnings":[]}}"#
        );
        let r = Report::from_json(&json).expect("an older report reads");
        assert_eq!(
            (r.non_readers, r.hello_cycles, r.offered_rate),
            (None, None, None)
        );
        assert_eq!(r.setup.non_readers_ready, 0);
        let server = r.server.expect("the server's figures");
        assert_eq!(
            (server.rss_start_mib, server.rss_after_close_mib),
            (None, None)
        );
        assert_eq!(r.tcp.and_then(|t| t.after_close), None);
    }
}
