//! `oxo loadtest` against a real `oxo serve` (port 0, a temporary database).

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const OXO: &str = env!("CARGO_BIN_EXE_oxo");

/// Server flags for load runs: no per-connection rate limit to throttle the
/// load tool.
const SERVE_FLAGS: &[&str] = &["--rate-limit", "0"];

/// A running `oxo serve`, killed on drop, with its database removed.
struct Server {
    child: Child,
    addr: String,
    dir: PathBuf,
}

impl Server {
    fn start(name: &str) -> Server {
        let dir = std::env::temp_dir().join(format!("oxo-loadtest-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create a temporary directory");
        let mut child = Command::new(OXO)
            .args(["serve", "--addr", "127.0.0.1:0", "--db"])
            .arg(dir.join("oxo.db"))
            .args(SERVE_FLAGS)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn oxo serve");
        let stdout = child.stdout.take().expect("piped stdout");
        let mut lines = BufReader::new(stdout).lines();
        let started = Instant::now();
        let addr = loop {
            let line = lines
                .next()
                .expect("oxo serve prints its listening line")
                .expect("readable stdout");
            if let Some(rest) = line.split("listening on http://").nth(1) {
                break rest
                    .split(['/', ' '])
                    .next()
                    .expect("an address")
                    .to_owned();
            }
            assert!(
                started.elapsed() < Duration::from_secs(10),
                "no listening line"
            );
        };
        // Keep draining stdout so the server never blocks on it.
        std::thread::spawn(move || for _ in lines {});
        Server { child, addr, dir }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn plays_real_games_and_reports_json() {
    let report = loadtest_ok(
        "games",
        "--games 20 --duration 3s --warmup 500ms --refusals 5",
    );
    assert_eq!(report.errors, 0, "{:#?}", report.errors_by_kind);
    assert_eq!(report.setup.games_ready, 20);
    assert!(report.moves > 0, "{report:#?}");
    assert!(report.games_finished > 0, "{report:#?}");
    assert!(report.refusals > 0, "{report:#?}");
    assert!(report.latency_us.p99 > 0 && report.latency_us.p50 <= report.latency_us.p99);
    let server_stats = report.server.expect("--server-pid reports the server");
    assert!(server_stats.peak_rss_mib > 0.0);
}

#[test]
fn refuses_non_loopback_targets() {
    let out = Command::new(OXO)
        .args([
            "loadtest",
            "--url",
            "ws://192.0.2.7:8080/ws",
            "--duration",
            "1s",
        ])
        .output()
        .expect("run oxo loadtest");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("not a loopback address") && stderr.contains("--allow-remote"),
        "{stderr}"
    );
}

#[test]
fn says_when_there_is_no_server() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let out = Command::new(OXO)
        .args(["loadtest", "--url", &format!("ws://127.0.0.1:{port}/ws")])
        .output()
        .expect("run oxo loadtest");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("cannot reach the server"), "{stderr}");
}

/// Starts a server and runs `oxo loadtest` against it with `args` (split at
/// spaces), `--json` and `--server-pid`; checks that the run succeeded and
/// returns its report.
fn loadtest_ok(name: &str, args: &str) -> oxo_loadtest::Report {
    loadtest_against(&Server::start(name), args)
}

/// Runs `oxo loadtest` against `server` as [`loadtest_ok`] does.
fn loadtest_against(server: &Server, args: &str) -> oxo_loadtest::Report {
    let out = Command::new(OXO)
        .arg("loadtest")
        .args(args.split_whitespace())
        .args(["--json", "--url", &format!("ws://{}/ws", server.addr)])
        .args(["--server-pid", &server.child.id().to_string()])
        .output()
        .expect("run oxo loadtest");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let report = oxo_loadtest::Report::from_json(stdout.trim())
        .unwrap_or_else(|e| panic!("not a JSON report ({e}): {stdout}\n{stderr}"));
    assert!(out.status.success(), "{report:#?}\n{stderr}");
    report
}

#[test]
fn hello_cycles_alone_add_up_and_end_early() {
    let started = Instant::now();
    let report = loadtest_ok(
        "hello",
        "--games 0 --hello-cycles 200 --hello-concurrency 4 --duration 30s --warmup 0s",
    );
    let h = report.hello_cycles.expect("a hello cycle report");
    assert_eq!((h.requested, h.concurrency), (200, 4));
    assert_eq!(h.done, 200, "{h:#?}");
    assert_eq!(h.welcomes + h.refusals + h.failures, h.done, "{h:#?}");
    assert_eq!(h.refusals, h.refusals_by_code.values().sum::<u64>());
    assert_eq!(h.failures, h.failures_by_kind.values().sum::<u64>());
    assert_eq!(h.failures, 0, "{h:#?}");
    assert!(h.cycles_per_sec > 0.0, "{h:#?}");
    assert_eq!(h.latency_us.samples, h.welcomes + h.refusals);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "a run of hello cycles alone ends when they are done"
    );
    let server_stats = report.server.expect("--server-pid reports the server");
    assert!(server_stats.rss_start_mib.is_some_and(|m| m > 0.0));
    assert!(server_stats.rss_after_close_mib.is_some_and(|m| m > 0.0));
    assert!(report.tcp.is_some(), "/proc/net/sockstat is read on Linux");
}

#[test]
fn returning_hello_cycles_make_one_player_per_worker() {
    let server = Server::start("returning");
    let report = loadtest_against(
        &server,
        "--games 0 --hello-cycles 40 --hello-concurrency 2 --hello-returning \
         --duration 30s --warmup 0s",
    );
    let h = report.hello_cycles.expect("a hello cycle report");
    assert!(h.returning, "{h:#?}");
    assert_eq!((h.done, h.welcomes), (40, 40), "{h:#?}");
    let db = rusqlite::Connection::open(server.dir.join("oxo.db")).expect("open the database");
    let players: i64 = db
        .query_row(
            "SELECT count(*) FROM players WHERE name <> 'loadprobe'",
            [],
            |r| r.get(0),
        )
        .expect("count the players");
    assert_eq!(
        players, 2,
        "one player per worker, not one per cycle (the tool's first probe aside)"
    );
}

#[test]
fn non_readers_alongside_games_are_all_accounted_for() {
    let report = loadtest_ok(
        "nonreaders",
        "--games 5 --non-readers 20 --non-reader-pings --non-reader-ping-interval 200ms \
         --duration 3s --warmup 0s",
    );
    assert_eq!(report.errors, 0, "{:#?}", report.errors_by_kind);
    assert_eq!(report.setup.games_ready, 5);
    assert!(report.moves > 0, "the honest games play meanwhile");
    assert_eq!(report.setup.non_readers_ready, 20);
    let n = report.non_readers.expect("a non-reader report");
    assert_eq!(
        (n.requested, n.ready, n.setup_failures),
        (20, 20, 0),
        "{n:#?}"
    );
    assert_eq!(n.ping_interval_ms, Some(200));
    assert!(n.pings_sent > 0, "{n:#?}");
    // Whether the server closes them is the server's business; every one is
    // accounted for either way.
    assert_eq!(n.unchecked, 0, "{n:#?}");
    assert_eq!(
        n.closed_during_run + n.closed_at_end + n.open_at_end,
        n.ready,
        "{n:#?}"
    );
    assert_eq!(n.ms_to_close.is_some(), n.closed_during_run > 0, "{n:#?}");
    assert_eq!(
        n.noticed_by.values().sum::<u64>(),
        n.closed_during_run + n.closed_at_end
    );
    assert!(n.backlog_bytes_max <= n.backlog_bytes_total);
    let server_stats = report.server.expect("--server-pid reports the server");
    assert!(server_stats.rss_start_mib.is_some() && server_stats.rss_mib > 0.0);
}

#[test]
fn attacks_run_alone_without_games() {
    let report = loadtest_ok(
        "attacks",
        "--games 0 --non-readers 10 --hello-cycles 50 --hello-concurrency 2 \
         --duration 2s --warmup 0s",
    );
    assert_eq!((report.games, report.moves), (0, 0));
    let n = report.non_readers.expect("a non-reader report");
    assert_eq!(n.ready, 10, "{n:#?}");
    assert_eq!(n.ping_interval_ms, None);
    assert_eq!(n.pings_sent, 0);
    assert_eq!(
        n.closed_during_run + n.closed_at_end + n.open_at_end + n.unchecked,
        n.ready
    );
    let h = report.hello_cycles.expect("a hello cycle report");
    assert_eq!(h.done, 50, "{h:#?}");
    assert_eq!(h.welcomes + h.refusals + h.failures, h.done);
    assert!(
        report.window_seconds > 1.5,
        "non-readers hold the window open after the cycles are done"
    );
}

#[test]
fn rejects_bad_attack_arguments() {
    for args in [
        &["--games", "0"][..],
        &["--hello-cycles", "10", "--hello-concurrency", "0"],
        &["--hello-cycles", "-1"],
        &["--duration", "1e20"],
        &["--idle", "18446744073709551615"],
        &["--non-readers", "18446744073709551615"],
        &["--non-readers", "1", "--non-reader-ping-interval", "1s"],
        &[
            "--non-readers",
            "1",
            "--non-reader-pings",
            "--non-reader-ping-interval",
            "0s",
        ],
        &["--non-readers", "1", "--non-reader-rcvbuf", "-1"],
    ] {
        let out = Command::new(OXO)
            .arg("loadtest")
            .args(args)
            .args(["--url", "ws://127.0.0.1:9/ws"])
            .output()
            .expect("run oxo loadtest");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}
