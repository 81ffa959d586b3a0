//! Prometheus metrics, hand-written from atomics.
//!
//! A dozen counters and two histograms do not need a metrics framework: each
//! is a relaxed atomic add on the hot path, and `GET /metrics` renders the
//! text format (version 0.0.4) on demand.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Duration;

use oxo_protocol::ErrorCode;

use crate::close;

/// Upper bounds of the latency histogram buckets, in seconds.
const BUCKETS: [f64; 14] = [
    0.000_05, 0.000_1, 0.000_25, 0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0,
    5.0,
];

/// The close codes counted in `oxo_closes_total`, by which they are
/// labelled: every code a connection is closed with for cause, and
/// [`close::TRY_AGAIN`] for a client sent to re-sync (a cluster's table
/// moved or reloaded). Not counted: [`close::NORMAL`] (after the client's
/// close), [`close::GOING_AWAY`] at shutdown, and a full server's refusal
/// (`oxo_connections_refused_total`).
const CLOSE_CODES: [u16; 7] = [
    close::GOING_AWAY,
    close::PROTOCOL,
    close::UNSUPPORTED,
    close::INVALID_DATA,
    close::POLICY,
    close::TOO_BIG,
    close::TRY_AGAIN,
];

/// A latency histogram with fixed buckets.
#[derive(Debug, Default)]
pub(crate) struct Histogram {
    counts: [AtomicU64; BUCKETS.len()],
    count: AtomicU64,
    sum_nanos: AtomicU64,
}

impl Histogram {
    /// Records one observation.
    pub(crate) fn observe(&self, d: Duration) {
        let secs = d.as_secs_f64();
        if let Some(i) = BUCKETS.iter().position(|&b| secs <= b) {
            self.counts[i].fetch_add(1, Relaxed);
        }
        self.count.fetch_add(1, Relaxed);
        let nanos = u64::try_from(d.as_nanos()).unwrap_or(u64::MAX);
        self.sum_nanos.fetch_add(nanos, Relaxed);
    }

    fn render(&self, out: &mut String, name: &str, help: &str) {
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} histogram");
        let mut cumulative = 0;
        for (bound, count) in BUCKETS.iter().zip(&self.counts) {
            cumulative += count.load(Relaxed);
            let _ = writeln!(out, "{name}_bucket{{le=\"{bound}\"}} {cumulative}");
        }
        let count = self.count.load(Relaxed);
        let _ = writeln!(out, "{name}_bucket{{le=\"+Inf\"}} {count}");
        #[allow(clippy::cast_precision_loss)]
        let sum = self.sum_nanos.load(Relaxed) as f64 / 1e9;
        let _ = writeln!(out, "{name}_sum {sum}");
        let _ = writeln!(out, "{name}_count {count}");
    }
}

/// Every metric the server keeps.
#[derive(Debug, Default)]
pub(crate) struct Metrics {
    /// Open WebSocket connections.
    pub(crate) connections: AtomicU64,
    /// WebSocket connections accepted since start.
    pub(crate) connections_total: AtomicU64,
    /// Upgrades refused because the server was full.
    pub(crate) connections_refused: AtomicU64,
    /// WebSocket requests refused for coming from another site's page.
    pub(crate) origin_refusals: AtomicU64,
    /// Plain HTTP connections dropped at the end of their lifetime with a
    /// response stuck (a client that does not read).
    pub(crate) http_expired: AtomicU64,
    /// Connections refused because their address held its most already
    /// (plain HTTP ones closed at once, and WebSocket upgrades).
    pub(crate) address_refusals: AtomicU64,
    /// Open tables (not closed).
    pub(crate) tables: AtomicU64,
    /// Tables created since start.
    pub(crate) tables_created: AtomicU64,
    /// Accepted moves (players and bots).
    pub(crate) moves: AtomicU64,
    /// Table commits refused because another node owns the table now.
    pub(crate) stale_writes: AtomicU64,
    /// Tables claimed from a node whose lease ran out.
    pub(crate) taken_over: AtomicU64,
    /// 1 while this node leads its cluster.
    pub(crate) leader: AtomicU64,
    /// Times a connection's reads were held back for going past its byte
    /// rate (`Config::read_limit`).
    pub(crate) reads_held: AtomicU64,
    /// Connections a follower relayed to the leader.
    pub(crate) relayed: AtomicU64,
    /// Connections a follower answered 503 (no leader known, or it could
    /// not be reached).
    pub(crate) unavailable: AtomicU64,
    /// 1 while this node is connected to its cluster's bus.
    pub(crate) bus_up: AtomicU64,
    /// Other nodes heard from on the bus within a lease (their heartbeats).
    pub(crate) bus_peers: AtomicU64,
    /// Requests and attachments this node forwarded over the bus to the
    /// node that runs their table.
    pub(crate) forwarded: AtomicU64,
    /// Frames the bus brought for this node's clients from other nodes.
    pub(crate) relayed_frames: AtomicU64,
    /// Connections closed because a frame from another node was missing.
    pub(crate) bus_gaps: AtomicU64,
    /// Round trip of a forwarded command to its table's node and back.
    pub(crate) bus_latency: Histogram,
    /// Finished rounds.
    pub(crate) games_finished: AtomicU64,
    /// Lobby watchers.
    pub(crate) lobby_watchers: AtomicU64,
    /// Refusals, indexed like [`ErrorCode::ALL`].
    refusals: [AtomicU64; ErrorCode::ALL.len()],
    /// WebSockets the server closed, indexed like [`CLOSE_CODES`].
    closes: [AtomicU64; CLOSE_CODES.len()],
    /// Connections the client ended with a close frame.
    pub(crate) client_closes: AtomicU64,
    /// Connections that ended without a close frame (dropped, reset).
    pub(crate) dropped: AtomicU64,
    /// HTTP connections closed for not sending a request head in time.
    pub(crate) header_timeouts: AtomicU64,
    /// Time from reading a `move` to queueing its `ok`.
    pub(crate) move_latency: Histogram,
    /// Time of one group commit (BEGIN to COMMIT, fsync included).
    pub(crate) commit_latency: Histogram,
    /// Group commits.
    pub(crate) commits: AtomicU64,
    /// Writes (rows) committed.
    pub(crate) writes: AtomicU64,
}

impl Metrics {
    /// Counts one refusal with `code`.
    pub(crate) fn refused(&self, code: ErrorCode) {
        if let Some(i) = ErrorCode::ALL.iter().position(|&c| c == code) {
            self.refusals[i].fetch_add(1, Relaxed);
        }
    }

    /// Counts one WebSocket closed by the server with `code`.
    pub(crate) fn closed(&self, code: u16) {
        if let Some(i) = CLOSE_CODES.iter().position(|&c| c == code) {
            self.closes[i].fetch_add(1, Relaxed);
        }
    }

    /// Counts a connection the client ended: with a close frame or not.
    pub(crate) fn disconnect(&self, with_close_frame: bool) {
        if with_close_frame {
            self.client_closes.fetch_add(1, Relaxed);
        } else {
            self.dropped.fetch_add(1, Relaxed);
        }
    }

    /// The Prometheus text exposition of every metric; `players` is the
    /// number of players in memory.
    pub(crate) fn render(&self, players: usize) -> String {
        let mut out = String::with_capacity(4096);
        let gauge = |out: &mut String, name: &str, help: &str, v: &AtomicU64| {
            single(out, "gauge", name, help, v);
        };
        let counter = |out: &mut String, name: &str, help: &str, v: &AtomicU64| {
            single(out, "counter", name, help, v);
        };
        gauge(
            &mut out,
            "oxo_connections",
            "Open WebSocket connections.",
            &self.connections,
        );
        counter(
            &mut out,
            "oxo_connections_total",
            "WebSocket connections accepted.",
            &self.connections_total,
        );
        counter(
            &mut out,
            "oxo_connections_refused_total",
            "WebSocket upgrades refused because the server was full.",
            &self.connections_refused,
        );
        counter(
            &mut out,
            "oxo_origin_refusals_total",
            "WebSocket requests refused for coming from another site's page.",
            &self.origin_refusals,
        );
        counter(
            &mut out,
            "oxo_http_expired_total",
            "Plain HTTP connections dropped at the end of their lifetime, a response stuck.",
            &self.http_expired,
        );
        counter(
            &mut out,
            "oxo_reads_held_total",
            "Times a connection's reads were held back for going past its byte rate.",
            &self.reads_held,
        );
        counter(
            &mut out,
            "oxo_address_refusals_total",
            "Connections refused because their address held its most open already.",
            &self.address_refusals,
        );
        gauge(&mut out, "oxo_tables", "Open tables.", &self.tables);
        counter(
            &mut out,
            "oxo_tables_created_total",
            "Tables created.",
            &self.tables_created,
        );
        counter(&mut out, "oxo_moves_total", "Accepted moves.", &self.moves);
        counter(
            &mut out,
            "oxo_games_finished_total",
            "Finished rounds.",
            &self.games_finished,
        );
        counter(
            &mut out,
            "oxo_stale_writes_refused_total",
            "Table commits the database refused because another node had taken the table over (cluster fencing).",
            &self.stale_writes,
        );
        counter(
            &mut out,
            "oxo_tables_taken_over_total",
            "Tables this node claimed after their owner's lease ran out (cluster failover).",
            &self.taken_over,
        );
        gauge(
            &mut out,
            "oxo_cluster_leader",
            "1 while this node leads its cluster (runs the tables; a cluster without a bus); 0 on a follower, which relays its clients to the leader, and on every node of a cluster with a bus.",
            &self.leader,
        );
        counter(
            &mut out,
            "oxo_relayed_connections_total",
            "Connections this node (a follower) relayed to the cluster's leader.",
            &self.relayed,
        );
        counter(
            &mut out,
            "oxo_unavailable_total",
            "Connections answered 503 because no leader was known or reachable (cluster failover).",
            &self.unavailable,
        );
        gauge(
            &mut out,
            "oxo_bus_up",
            "1 while this node is connected to its cluster's bus (NATS).",
            &self.bus_up,
        );
        gauge(
            &mut out,
            "oxo_bus_peers",
            "Other nodes heard from on the bus within a lease: those a clean stop hands this node's tables to.",
            &self.bus_peers,
        );
        counter(
            &mut out,
            "oxo_forwarded_requests_total",
            "Requests and attachments forwarded over the bus to the node that runs their table (cluster with a bus).",
            &self.forwarded,
        );
        counter(
            &mut out,
            "oxo_bus_frames_total",
            "Frames the bus brought from other nodes' tables to this node's clients.",
            &self.relayed_frames,
        );
        counter(
            &mut out,
            "oxo_bus_gaps_total",
            "Connections closed (1013) because a frame from another node went missing on the bus; the client re-syncs.",
            &self.bus_gaps,
        );
        self.bus_latency.render(
            &mut out,
            "oxo_bus_round_trip_seconds",
            "Round trip of a forwarded command to the node that runs its table and back (bus latency).",
        );
        gauge(
            &mut out,
            "oxo_lobby_watchers",
            "Connections watching the lobby.",
            &self.lobby_watchers,
        );
        labelled(
            &mut out,
            "oxo_refusals_total",
            "Refused requests by code.",
            "code",
            ErrorCode::ALL.iter().zip(&self.refusals),
        );
        labelled(
            &mut out,
            "oxo_closes_total",
            "WebSocket connections the server closed, by close code.",
            "code",
            CLOSE_CODES.iter().zip(&self.closes),
        );
        labelled(
            &mut out,
            "oxo_disconnects_total",
            "WebSocket connections the client ended, with or without a close frame.",
            "how",
            [
                ("close_frame", &self.client_closes),
                ("no_close_frame", &self.dropped),
            ],
        );
        let _ = writeln!(
            out,
            "# HELP oxo_players_loaded Players in memory: connected, or seated at an open table.\n# TYPE oxo_players_loaded gauge\noxo_players_loaded {players}"
        );
        counter(
            &mut out,
            "oxo_http_header_timeouts_total",
            "HTTP connections closed for not sending a complete request head in time (slowloris).",
            &self.header_timeouts,
        );
        self.move_latency.render(
            &mut out,
            "oxo_move_seconds",
            "Move handling latency, from reading the request to queueing its reply (durable).",
        );
        self.commit_latency.render(
            &mut out,
            "oxo_db_commit_seconds",
            "Database group commit latency (BEGIN to COMMIT, fsync included).",
        );
        counter(
            &mut out,
            "oxo_db_commits_total",
            "Database group commits.",
            &self.commits,
        );
        counter(
            &mut out,
            "oxo_db_writes_total",
            "Rows written by group commits.",
            &self.writes,
        );
        out
    }
}

/// Renders a metric of one unlabelled value: its help, its type and the
/// value.
fn single(out: &mut String, kind: &str, name: &str, help: &str, value: &AtomicU64) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
    let _ = writeln!(out, "{name} {}", value.load(Relaxed));
}

/// Renders a counter with one value per `label`: its help, its type and
/// a line per value.
fn labelled<'a, L: std::fmt::Display>(
    out: &mut String,
    name: &str,
    help: &str,
    label: &str,
    values: impl IntoIterator<Item = (L, &'a AtomicU64)>,
) {
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} counter");
    for (value, n) in values {
        let _ = writeln!(out, "{name}{{{label}=\"{value}\"}} {}", n.load(Relaxed));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_histograms_cumulatively() {
        let m = Metrics::default();
        m.move_latency.observe(Duration::from_micros(70));
        m.move_latency.observe(Duration::from_millis(3));
        m.refused(ErrorCode::CellTaken);
        m.closed(close::INVALID_DATA);
        let text = m.render(3);
        assert!(
            text.contains("oxo_move_seconds_bucket{le=\"0.0001\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("oxo_move_seconds_bucket{le=\"0.005\"} 2"),
            "{text}"
        );
        assert!(text.contains("oxo_move_seconds_count 2"), "{text}");
        assert!(
            text.contains("oxo_refusals_total{code=\"cell_taken\"} 1"),
            "{text}"
        );
        assert!(text.contains("oxo_closes_total{code=\"1007\"} 1"), "{text}");
        assert!(text.contains("oxo_closes_total{code=\"1009\"} 0"), "{text}");
        assert!(text.contains("oxo_players_loaded 3"), "{text}");
    }
}
