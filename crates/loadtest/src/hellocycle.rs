//! Hello cycles: open a WebSocket, say `hello` as a new player, wait for the
//! answer, close; again and again, a few at a time.
//!
//! Every `hello` without a token makes the server create a player, so a
//! stream of them shows what new players cost the server (its resident set
//! before and after, in the report), how fast it takes new connections, and
//! whether a limit answers with a refusal (`rate_limited`, `server_full`) or
//! a close. With `returning`, each worker makes one player and comes back
//! with its token in every later cycle: what a returning player's
//! connection costs, with no player made. Each cycle ends in exactly one of three ways: a `welcome`, a
//! refusal (an `error` with the hello's id or with none, counted by code),
//! or a failure (no connection, a close or drop before any answer, no answer
//! in time; counted by kind, `closed:CODE` for a close frame). Refusals and
//! failures of these cycles are the attack's figures, not errors of the run.
//!
//! A cycle closes the way a browser does: a close frame, then a short wait
//! for the server's close, so the server ends the TCP connection and keeps
//! the TIME_WAIT, and the tool does not run out of local ports on a long
//! run.
//!
//! Workers take cycle numbers from one counter until all are taken or the
//! run stops; a cycle cut short by the stop is not counted. Each worker
//! keeps its own tally (no locks on the hot path) and hands it back when it
//! ends.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use hdrhistogram::Histogram;
use oxo_client::tungstenite::Message;
use oxo_protocol::{ClientMsg, PROTOCOL_VERSION, ServerMsg};
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use crate::config::Target;
use crate::ctx::Ctx;
use crate::latency::{Latency, ms};
use crate::text;
use oxo_client::{Error as ClientError, Link, decode};

/// Longest wait for the server's close after the tool's close frame.
const CLOSE_WAIT: Duration = Duration::from_millis(500);
/// Cycle times above this (a minute) are recorded as this.
const MAX_US: u64 = 60_000_000;
/// Failures kept in detail.
const FIRST_FAILURES: usize = 10;

/// What the hello cycles of a run did.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HelloCycleReport {
    /// Cycles asked for.
    pub requested: u64,
    /// Cycles run at once.
    pub concurrency: usize,
    /// Whether the cycles came back with a player's token (each worker's
    /// first cycle makes the player).
    #[serde(default)]
    pub returning: bool,
    /// Cycles finished: `welcomes + refusals + failures`. Fewer than
    /// `requested` when the run's window ended first.
    pub done: u64,
    /// Cycles answered with `welcome`.
    pub welcomes: u64,
    /// Cycles answered with an `error`.
    pub refusals: u64,
    /// Refusals by code (`rate_limited`, `server_full`, …).
    pub refusals_by_code: BTreeMap<String, u64>,
    /// Cycles with no answer: `connect`, `timeout`, `disconnect`,
    /// `closed:CODE`, `bad_message`.
    pub failures: u64,
    /// Failures by kind.
    pub failures_by_kind: BTreeMap<String, u64>,
    /// The first few failures in detail.
    pub first_failures: Vec<String>,
    /// From the first cycle's start to the last one's end, in seconds.
    pub seconds: f64,
    /// Cycles finished per second.
    pub cycles_per_sec: f64,
    /// From opening the connection to the answer, in microseconds (cycles
    /// with an answer only).
    pub latency_us: Latency,
}

impl fmt::Display for HelloCycleReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "  hello      {} of {} cycles ({} at once{}) in {:.1} s, {:.0}/s: {} welcomes, {} refusals, {} failures",
            self.done,
            self.requested,
            self.concurrency,
            if self.returning {
                ", returning players"
            } else {
                ""
            },
            self.seconds,
            self.cycles_per_sec,
            self.welcomes,
            self.refusals,
            self.failures
        )?;
        let l = &self.latency_us;
        if l.samples > 0 {
            writeln!(
                f,
                "    connect to answer: p50 {}  p99 {}  max {}",
                ms(l.p50),
                ms(l.p99),
                ms(l.max)
            )?;
        }
        text::counts(f, "    refused ", &self.refusals_by_code)?;
        text::counts(f, "    failed ", &self.failures_by_kind)?;
        text::lines(f, "    e.g. ", &self.first_failures)
    }
}

/// What the workers share: which cycle is next, and how many are done (for
/// progress and for ending a run that has nothing else to do).
#[derive(Debug)]
pub(crate) struct Cycles {
    requested: u64,
    claimed: AtomicU64,
    /// Cycles finished.
    pub(crate) done: AtomicU64,
}

impl Cycles {
    /// `requested` cycles, none started.
    pub(crate) fn new(requested: u64) -> Cycles {
        Cycles {
            requested,
            claimed: AtomicU64::new(0),
            done: AtomicU64::new(0),
        }
    }

    /// Cycles asked for.
    pub(crate) fn requested(&self) -> u64 {
        self.requested
    }

    /// Whether every cycle has finished.
    pub(crate) fn finished(&self) -> bool {
        self.done.load(Relaxed) >= self.requested
    }

    /// Takes the next cycle, if any is left.
    fn claim(&self) -> bool {
        // fetch_add may pass `requested`; every claim past it is refused.
        self.claimed.fetch_add(1, Relaxed) < self.requested
    }
}

/// One worker's outcomes.
#[derive(Debug)]
pub(crate) struct Tally {
    welcomes: u64,
    refusals: BTreeMap<String, u64>,
    failures: BTreeMap<String, u64>,
    first_failures: Vec<String>,
    latency: Histogram<u64>,
    last_done: Option<Instant>,
}

impl Tally {
    /// Nothing yet.
    pub(crate) fn new() -> Tally {
        Tally {
            welcomes: 0,
            refusals: BTreeMap::new(),
            failures: BTreeMap::new(),
            first_failures: Vec::new(),
            latency: Histogram::new_with_bounds(1, MAX_US, 3)
                .expect("constant histogram bounds are valid"),
            last_done: None,
        }
    }

    /// Adds `other`'s outcomes to these.
    pub(crate) fn merge(&mut self, other: Tally) {
        self.welcomes += other.welcomes;
        for (k, n) in other.refusals {
            *self.refusals.entry(k).or_default() += n;
        }
        for (k, n) in other.failures {
            *self.failures.entry(k).or_default() += n;
        }
        for e in other.first_failures {
            if self.first_failures.len() < FIRST_FAILURES {
                self.first_failures.push(e);
            }
        }
        self.latency
            .add(&other.latency)
            .expect("tallies share their bounds");
        self.last_done = self.last_done.max(other.last_done);
    }

    fn record(&mut self, outcome: Outcome, took: Duration) {
        let answered = match outcome {
            Outcome::Welcome(_) => {
                self.welcomes += 1;
                true
            }
            Outcome::Refused(code) => {
                *self.refusals.entry(code).or_default() += 1;
                true
            }
            Outcome::Failed { kind, detail } => {
                if self.first_failures.len() < FIRST_FAILURES {
                    self.first_failures.push(format!("{kind}: {detail}"));
                }
                *self.failures.entry(kind).or_default() += 1;
                false
            }
        };
        if answered {
            let us = u64::try_from(took.as_micros()).unwrap_or(MAX_US);
            self.latency.saturating_record(us.clamp(1, MAX_US));
        }
    }

    /// The report of `requested` cycles run `concurrency` at a time (as
    /// `returning` players or new ones), started at `started`.
    pub(crate) fn report(
        &self,
        requested: u64,
        concurrency: usize,
        returning: bool,
        started: Option<Instant>,
    ) -> HelloCycleReport {
        let refusals: u64 = self.refusals.values().sum();
        let failures: u64 = self.failures.values().sum();
        let done = self.welcomes + refusals + failures;
        let seconds = match (started, self.last_done) {
            (Some(a), Some(b)) => b.saturating_duration_since(a).as_secs_f64(),
            _ => 0.0,
        };
        HelloCycleReport {
            requested,
            concurrency,
            returning,
            done,
            welcomes: self.welcomes,
            refusals,
            refusals_by_code: self.refusals.clone(),
            failures,
            failures_by_kind: self.failures.clone(),
            first_failures: self.first_failures.clone(),
            seconds,
            cycles_per_sec: if seconds > 0.0 {
                done as f64 / seconds
            } else {
                0.0
            },
            latency_us: Latency::of(&self.latency),
        }
    }
}

/// How one cycle ended.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    /// Welcomed, with the player's token.
    Welcome(String),
    Refused(String),
    Failed {
        kind: String,
        detail: String,
    },
}

impl Outcome {
    fn failed(e: &ClientError) -> Outcome {
        Outcome::Failed {
            kind: e.kind(),
            detail: e.to_string(),
        }
    }
}

/// Runs cycles until none is left or the run stops, and returns what they
/// did. With `returning`, the cycles after the first welcome say `hello`
/// with that welcome's token.
pub(crate) async fn worker(ctx: Arc<Ctx>, cycles: Arc<Cycles>, returning: bool) -> Tally {
    let mut tally = Tally::new();
    let mut token = None;
    let mut stop = ctx.stop.clone();
    while !*stop.borrow() && cycles.claim() {
        let Some(target) = ctx.target().await else {
            break;
        };
        let started = Instant::now();
        tokio::select! {
            outcome = cycle(&target, ctx.timeout, token.clone()) => {
                if let Outcome::Welcome(given) = &outcome {
                    if returning && token.is_none() {
                        token = Some(given.clone());
                    }
                }
                tally.record(outcome, started.elapsed());
                tally.last_done = Some(Instant::now());
                cycles.done.fetch_add(1, Relaxed);
            }
            _ = stop.changed() => break,
        }
    }
    tally
}

/// One cycle: connect, `hello` (with `token`, if any), the answer, close.
async fn cycle(target: &Target, timeout: Duration, token: Option<String>) -> Outcome {
    let mut conn = match target.connect(timeout, None).await {
        Ok(conn) => conn,
        Err(e) => return Outcome::failed(&e),
    };
    let outcome = tokio::time::timeout(timeout, answer(&mut conn, token))
        .await
        .unwrap_or_else(|_| Outcome::failed(&ClientError::Timeout(timeout)));
    close(conn).await;
    outcome
}

/// Says `hello` (with `token`, if any) and reads until its answer.
async fn answer(conn: &mut Link, token: Option<String>) -> Outcome {
    let hello = ClientMsg::Hello {
        version: PROTOCOL_VERSION.into(),
        token,
        name: None,
    };
    let id = match conn.send(hello).await {
        Ok(id) => id,
        Err(e) => return Outcome::failed(&e),
    };
    loop {
        let msg = match conn.next_frame().await {
            Some(Ok(Message::Text(text))) => decode(text.as_str()),
            Some(Ok(Message::Close(frame))) => {
                return Outcome::Failed {
                    kind: frame.as_ref().map_or_else(
                        || "closed".to_owned(),
                        |f| format!("closed:{}", u16::from(f.code)),
                    ),
                    detail: frame.map_or_else(String::new, |f| f.reason.to_string()),
                };
            }
            Some(Ok(Message::Binary(_))) => {
                return Outcome::failed(&ClientError::BadMessage("binary frame".to_owned()));
            }
            Some(Ok(_)) => continue,
            Some(Err(e)) => {
                return Outcome::Failed {
                    kind: "disconnect".to_owned(),
                    detail: e.to_string(),
                };
            }
            None => return Outcome::failed(&ClientError::Closed(None)),
        };
        match msg {
            Ok(ServerMsg::Welcome { token, .. }) => return Outcome::Welcome(token),
            Ok(ServerMsg::Error {
                id: reply, code, ..
            }) if reply.is_none_or(|r| r == id) => {
                return Outcome::Refused(code.to_string());
            }
            // Nothing else is expected before the answer; skip it.
            Ok(_) => {}
            Err(e) => return Outcome::failed(&ClientError::BadMessage(e.to_string())),
        }
    }
}

/// Sends a close frame and waits a moment for the server to close.
async fn close(mut conn: Link) {
    let _ = tokio::time::timeout(CLOSE_WAIT, async {
        conn.close_frame().await;
        while let Some(Ok(_)) = conn.next_frame().await {}
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claims_stop_at_the_count() {
        let cycles = Cycles::new(3);
        assert!(cycles.claim() && cycles.claim() && cycles.claim());
        assert!(!cycles.claim() && !cycles.claim());
        assert!(!cycles.finished());
        cycles.done.store(3, Relaxed);
        assert!(cycles.finished());
    }

    #[test]
    fn tallies_add_up() {
        let ms = Duration::from_millis;
        let mut a = Tally::new();
        a.record(Outcome::Welcome("t1".into()), ms(2));
        a.record(Outcome::Refused("rate_limited".into()), ms(1));
        let mut b = Tally::new();
        b.record(Outcome::Welcome("t2".into()), ms(3));
        b.record(
            Outcome::failed(&ClientError::Timeout(ms(10_000))),
            ms(10_000),
        );
        b.record(Outcome::Refused("rate_limited".into()), ms(1));
        let start = Instant::now();
        b.last_done = Some(start + ms(500));
        a.merge(b);
        let r = a.report(10, 2, false, Some(start));
        assert_eq!((r.done, r.welcomes, r.refusals, r.failures), (5, 2, 2, 1));
        assert_eq!(r.refusals_by_code.get("rate_limited"), Some(&2));
        assert_eq!(r.failures_by_kind.get("timeout"), Some(&1));
        assert_eq!(r.latency_us.samples, 4, "failures are not timed");
        assert!((r.cycles_per_sec - 10.0).abs() < 1e-9);
        assert_eq!(Tally::new().report(1, 1, false, None).cycles_per_sec, 0.0);
    }
}
