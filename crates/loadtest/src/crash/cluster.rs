//! The cluster crash test (`scripts/cluster-test`): games played through
//! HAProxy while the nodes of a `scripts/cluster` are killed (`kill -9`,
//! then restarted), paused (SIGSTOP for longer than a lease, then SIGCONT)
//! or stopped cleanly (SIGTERM, which hands their tables over, then
//! started again), and PostgreSQL and the bus are restarted once each; then every
//! acknowledged move is looked for in the records, as in the single-server
//! crash test.
//!
//! The faults go through `scripts/cluster` (its `kill`, `pause`, `resume`,
//! `stop`, `restart`, `restart-db` and `restart-bus` commands), so they act
//! only on what it started. The first fault kills the busiest node (the one
//! running the most tables, by its `oxo_tables` gauge; without a bus, the
//! leader), the second pauses it, the third stops it cleanly; after that
//! half of the faults hit the busiest node, a third are pauses and a sixth
//! clean stops.

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use oxo_core::Rng;
use serde::{Deserialize, Serialize};

use super::CrashReport;
use super::games::Games;
use crate::config::Target;
use crate::error::Error;
use crate::http;

/// What the cluster crash test is asked to do.
#[derive(Clone, Debug)]
pub struct ClusterConfig {
    /// The `scripts/cluster` program.
    pub script: PathBuf,
    /// The cluster's state directory (`OXO_CLUSTER_DIR`), where the script
    /// keeps its URL, ports and PIDs.
    pub state_dir: PathBuf,
    /// Node faults (kills, pauses and clean stops together).
    pub faults: u32,
    /// Concurrent games.
    pub games: usize,
    /// How long the cluster runs between two faults: from `up_min` to
    /// `up_max`, drawn at random.
    pub up_min: Duration,
    /// See `up_min`.
    pub up_max: Duration,
    /// How long a paused node stays paused (longer than a lease).
    pub pause: Duration,
    /// How long a killed node stays down before it is restarted.
    pub down: Duration,
    /// How long the games get after the last fault to show progress.
    pub settle: Duration,
    /// Think time per move.
    pub think: Duration,
    /// Seed of the fault schedule.
    pub seed: u64,
}

/// What the cluster crash test found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ClusterReport {
    /// Moves, records and seats, checked as in the crash test; `kills`
    /// counts `kill -9`s.
    pub crash: CrashReport,
    /// SIGSTOPs longer than a lease.
    pub pauses: u32,
    /// Clean stops (SIGTERM), each followed by a start.
    #[serde(default)]
    pub clean_stops: u32,
    /// PostgreSQL restarts.
    pub db_restarts: u32,
    /// Bus (NATS) restarts (`scripts/cluster restart-bus`; nothing to
    /// restart in a cluster without a bus, which it says).
    pub bus_restarts: u32,
    /// Commits refused by the fence, summed over the nodes (a node's count
    /// is read before it is killed, and from every node at the end; a
    /// refusal between that read and the kill is not counted).
    pub stale_writes_refused: u64,
    /// Tables taken over from a dead or stalled node (counted likewise).
    pub tables_taken_over: u64,
}

impl ClusterReport {
    /// Whether nothing acknowledged was lost and every check passed.
    #[must_use]
    pub fn passed(&self) -> bool {
        self.crash.passed()
    }

    /// The one line `scripts/cluster-test` prints.
    #[must_use]
    pub fn line(&self) -> String {
        let c = &self.crash;
        format!(
            "oxo cluster test {}: kills {}, pauses {}, clean stops {}, db restarts {}, bus restarts {}, \
             acknowledged moves {}, lost {}, duplicated or illegal games {}, \
             stale writes refused {}, tables taken over {}",
            if self.passed() { "PASSED" } else { "FAILED" },
            c.kills,
            self.pauses,
            self.clean_stops,
            self.db_restarts,
            self.bus_restarts,
            c.acknowledged_moves,
            c.lost_moves,
            c.bad_games,
            self.stale_writes_refused,
            self.tables_taken_over,
        )
    }
}

impl fmt::Display for ClusterReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.line())?;
        write!(f, "{}", self.crash)
    }
}

/// The running cluster, as `scripts/cluster` describes it.
struct Cluster<'a> {
    config: &'a ClusterConfig,
}

impl Cluster<'_> {
    fn state(&self, name: &str) -> Result<String, Error> {
        let path = self.config.state_dir.join(name);
        std::fs::read_to_string(&path)
            .map(|s| s.trim().to_owned())
            .map_err(|e| Error::Config(format!("{}: {e}", path.display())))
    }

    fn url(&self) -> Result<SocketAddr, Error> {
        let url = self.state("url")?;
        url.trim_start_matches("http://")
            .parse()
            .map_err(|_| Error::Config(format!("the cluster's URL {url:?} is not host:port")))
    }

    fn nodes(&self) -> Result<u32, Error> {
        let n = self.state("nodes")?;
        n.parse()
            .map_err(|_| Error::Config(format!("the cluster's node count {n:?}")))
    }

    fn node_addr(&self, node: u32) -> Option<SocketAddr> {
        let port: u16 = self.state(&format!("node{node}.port")).ok()?.parse().ok()?;
        Some(SocketAddr::from(([127, 0, 0, 1], port)))
    }

    /// Runs `scripts/cluster ARGS`.
    async fn run(&self, args: &[&str]) -> Result<(), Error> {
        let status = tokio::process::Command::new(&self.config.script)
            .args(args)
            .env("OXO_CLUSTER_DIR", &self.config.state_dir)
            .status()
            .await
            .map_err(|e| Error::Config(format!("scripts/cluster {args:?}: {e}")))?;
        if status.success() {
            Ok(())
        } else {
            Err(Error::Config(format!("scripts/cluster {args:?}: {status}")))
        }
    }

    /// A node's `/metrics`, if it answers.
    async fn metrics(&self, node: u32) -> Option<String> {
        let addr = self.node_addr(node)?;
        let r = http::get(addr, "/metrics", None, Duration::from_secs(2))
            .await
            .ok()?;
        (r.status == 200).then(|| String::from_utf8_lossy(&r.body).into_owned())
    }

    /// The node that leads now, if one answers that it does.
    async fn busiest(&self, nodes: u32) -> Option<u32> {
        let mut best = None;
        let mut most = 0;
        for node in 1..=nodes {
            let tables = self.metrics(node).await.and_then(|m| {
                m.lines()
                    .find_map(|l| l.strip_prefix("oxo_tables ")?.trim().parse::<u64>().ok())
            });
            if let Some(n) = tables.filter(|&n| n > most) {
                most = n;
                best = Some(node);
            }
        }
        best
    }

    /// A counter of `node`'s (summed over its labels), or 0 if it does not
    /// answer.
    async fn counter(&self, node: u32, name: &str) -> u64 {
        self.metrics(node).await.map_or(0, |m| {
            m.lines()
                .filter_map(|l| l.strip_prefix(name)?.trim().parse::<u64>().ok())
                .sum()
        })
    }

    /// The fencing and takeover counters of `node`, added to `report`
    /// (read before a kill, whose restart starts them again at zero, and
    /// from every node at the end).
    async fn count(&self, node: u32, report: &mut ClusterReport) {
        report.stale_writes_refused += self.counter(node, STALE_WRITES).await;
        report.tables_taken_over += self.counter(node, TAKEN_OVER).await;
    }
}

/// A fault done to a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fault {
    /// `kill -9`, then a start.
    Kill,
    /// SIGSTOP for longer than a lease, then SIGCONT.
    Pause,
    /// SIGTERM (the node hands its tables over), then a start.
    Stop,
}

const STALE_WRITES: &str = "oxo_stale_writes_refused_total";
const TAKEN_OVER: &str = "oxo_tables_taken_over_total";

/// Runs the cluster crash test on the cluster `scripts/cluster up` started
/// in `config.state_dir`, writing what happens to `log`.
///
/// # Errors
///
/// If the cluster cannot be read or a fault cannot be driven. Lost moves
/// and failed checks are in the report ([`ClusterReport::passed`]).
pub async fn cluster_test(
    config: &ClusterConfig,
    mut log: impl FnMut(&str),
) -> Result<ClusterReport, Error> {
    let cluster = Cluster { config };
    let url = cluster.url()?;
    let nodes = cluster.nodes()?;
    let mut rng = Rng::new(config.seed);
    let games = Games::start(
        Target::local(url),
        config.games,
        config.think,
        config.seed,
        Duration::from_secs(30),
    )
    .await;
    log(&format!("{} games playing through {url}", games.ready()));

    let mut report = ClusterReport::default();
    let db_restart_at = config.faults / 2;
    let bus_restart_at = config.faults / 4;
    for fault in 0..config.faults {
        let span = config.up_max.saturating_sub(config.up_min);
        tokio::time::sleep(config.up_min + span.mul_f64(f64::from(rng.below(1000)) / 1000.0)).await;
        if fault == bus_restart_at {
            cluster.run(&["restart-bus"]).await?;
            report.bus_restarts += 1;
            log("the bus restarted");
        }
        if fault == db_restart_at {
            cluster.run(&["restart-db"]).await?;
            report.db_restarts += 1;
            log("PostgreSQL restarted");
        }
        let busiest = cluster.busiest(nodes).await;
        // The first two faults are a kill and a pause of the busiest node;
        // then half of them hit it, and a third are pauses.
        let node = match busiest {
            Some(l) if fault < 2 || rng.chance(1, 2) => l,
            _ => rng.below(nodes) + 1,
        };
        let who = if Some(node) == busiest {
            " (the busiest)"
        } else {
            ""
        };
        let acked = games.acknowledged();
        let n = node.to_string();
        let fault = match fault {
            0 => Fault::Kill,
            1 => Fault::Pause,
            2 => Fault::Stop,
            _ if rng.chance(1, 3) => Fault::Pause,
            _ if rng.chance(1, 4) => Fault::Stop,
            _ => Fault::Kill,
        };
        match fault {
            Fault::Pause => {
                cluster.run(&["pause", &n]).await?;
                tokio::time::sleep(config.pause).await;
                cluster.run(&["resume", &n]).await?;
                report.pauses += 1;
                log(&format!(
                    "paused node {n}{who} for {:?}; {acked} moves acknowledged before",
                    config.pause
                ));
            }
            Fault::Kill | Fault::Stop => {
                cluster.count(node, &mut report).await;
                let (how, done) = if fault == Fault::Kill {
                    report.crash.kills += 1;
                    ("kill", "killed")
                } else {
                    report.clean_stops += 1;
                    ("stop", "stopped (SIGTERM)")
                };
                cluster.run(&[how, &n]).await?;
                tokio::time::sleep(config.down).await;
                cluster.run(&["restart", &n]).await?;
                log(&format!(
                    "{done} node {n}{who} and started it again; {acked} moves acknowledged before"
                ));
            }
        }
    }

    games
        .finish(config.settle, url, "fault", &mut report.crash)
        .await;
    for node in 1..=nodes {
        cluster.count(node, &mut report).await;
    }
    Ok(report)
}
