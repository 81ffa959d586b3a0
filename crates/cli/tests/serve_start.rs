//! Starting and stopping `oxo serve`: a stop request that comes as soon as
//! the server has said where it listens is honoured cleanly, a second one
//! during the shutdown ends it at once, and the
//! default connection limit fits the open-files limit it runs under (no
//! warning), while an explicit one that does not fit is warned about; an
//! empty database name, an address that is not HOST:PORT, or a cluster's
//! flag without a cluster's database, is refused saying what is accepted.

mod common;

use std::time::Duration;

use common::{TempDir, get, start, start_with, stop};

#[tokio::test]
async fn sigterm_right_after_the_listening_line_stops_cleanly() {
    let dir = TempDir::new("early-stop");
    for _ in 0..3 {
        let (server, _) = start(&dir.join("oxo.db"), &[], None).await;
        // No pause: the signal handler must already be in place.
        stop(server).await;
    }
}

/// Starts `oxo serve` under `ulimit -n LIMIT` (soft and hard) with `args`;
/// returns the log after a clean stop.
async fn serve_under_ulimit(limit: u32, args: &[&str]) -> String {
    let dir = TempDir::new("ulimit");
    let log = dir.join("server.log");
    let script = format!("ulimit -n {limit} && exec \"$0\" \"$@\"");
    let mut sh_args = vec!["-c", script.as_str(), env!("CARGO_BIN_EXE_oxo")];
    sh_args.extend(["serve", "--addr", "127.0.0.1:0", "--db", ":memory:"]);
    sh_args.extend(args);
    let (server, addr) = start_with("sh", &sh_args, Some(&log)).await;
    assert_eq!(get(addr, "/healthz").await.0, 200);
    // Give the log a moment, then stop.
    tokio::time::sleep(Duration::from_millis(100)).await;
    stop(server).await;
    std::fs::read_to_string(&log).expect("read the log")
}

/// The value of `key=` on the first log line that has it.
fn logged(log: &str, key: &str) -> Option<u64> {
    let needle = format!("{key}=");
    log.lines().find_map(|line| {
        let at = line.find(&needle)? + needle.len();
        line[at..]
            .split(|c: char| !c.is_ascii_digit())
            .next()?
            .parse()
            .ok()
    })
}

#[tokio::test]
async fn the_default_connection_limit_fits_the_open_files_limit() {
    let log = serve_under_ulimit(256, &[]).await;
    assert!(!log.contains("WARN"), "no warning by default: {log}");
    let chosen = logged(&log, "max_connections")
        .unwrap_or_else(|| panic!("the chosen limit is logged: {log}"));
    assert!((1..256).contains(&chosen), "{chosen} within 256: {log}");
}

#[tokio::test]
async fn an_explicit_connection_limit_above_the_open_files_limit_warns() {
    let log = serve_under_ulimit(256, &["--max-connections", "1000"]).await;
    assert!(
        log.lines()
            .any(|l| l.contains("WARN") && l.contains("open-files limit")),
        "{log}"
    );
    assert_eq!(logged(&log, "max_connections"), Some(1000), "{log}");
}

#[tokio::test]
async fn sigterm_stops_cleanly_when_nobody_reads_the_log() {
    // The log's reader is gone (a closed pipe): writing a log line fails,
    // which must not take down the task that logs it, such as the one
    // that turns SIGTERM into a shutdown.
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db", ":memory:"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn oxo serve");
    drop(child.stderr.take());
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(stdout));
    let line = tokio::time::timeout(common::WAIT, lines.next_line())
        .await
        .expect("a listening line in time")
        .expect("read stdout");
    assert!(line.is_some_and(|l| l.starts_with("oxo listening on")));
    // Stdout is still read; only the log has no reader.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    stop(child).await;
}

#[tokio::test]
async fn the_serving_threads_are_as_asked_and_logged() {
    let log = serve_under_ulimit(256, &["--threads", "3"]).await;
    assert_eq!(logged(&log, "threads"), Some(3), "{log}");
    let refused = std::process::Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(["serve", "--db", ":memory:", "--threads", "0"])
        .output()
        .expect("run oxo serve");
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(
        err.contains("--threads") && err.contains("1..=1024"),
        "{err}"
    );
}

/// The error line of `oxo serve ARGS`, which must refuse to start as a
/// misuse of its flags: exit status 2, as for any other bad flag.
async fn refusal(args: &[&str]) -> String {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_oxo"));
    command.arg("serve").args(args);
    let out = common::run_to_exit(command).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    stderr
        .lines()
        .find(|l| l.starts_with("oxo: ") || l.starts_with("error: "))
        .unwrap_or_else(|| panic!("{args:?}: no error line in {stderr}"))
        .to_owned()
}

#[tokio::test]
async fn an_empty_database_name_is_refused_saying_what_is_accepted() {
    // `OXO_DB=` left empty in a service's environment file, say.
    let line = refusal(&["--addr", "127.0.0.1:0", "--db", ""]).await;
    assert!(
        line.contains("--db is empty") && line.contains(":memory:") && line.contains("postgres://"),
        "{line}"
    );
}

#[tokio::test]
async fn an_address_that_is_not_host_and_port_is_refused_saying_what_is_accepted() {
    // A port alone or a host alone is what a newcomer types first.
    for addr in ["8080", "127.0.0.1", "127.0.0.1:99999"] {
        let line = refusal(&["--addr", addr, "--db", ":memory:"]).await;
        assert!(
            line.contains(&format!("'{addr}' for '--addr"))
                && line.contains("HOST:PORT")
                && line.contains("127.0.0.1:8080"),
            "{addr}: {line}"
        );
    }
}

#[tokio::test]
async fn cluster_flags_without_a_cluster_database_are_refused() {
    // Each of them means nothing on one SQLite file: say so rather than
    // start as if it had been heard.
    for (flag, value) in [
        ("--node-id", "1"),
        ("--bus", "nats://127.0.0.1:4222"),
        ("--lease", "5s"),
    ] {
        let line = refusal(&["--addr", "127.0.0.1:0", "--db", ":memory:", flag, value]).await;
        assert!(
            line.contains(flag) && line.contains("PostgreSQL"),
            "{flag}: {line}"
        );
    }
}

#[tokio::test]
async fn a_second_signal_during_the_shutdown_stops_at_once() {
    let dir = TempDir::new("second-signal");
    let log = dir.join("server.log");
    let (mut server, addr) = start(&dir.join("oxo.db"), &[], Some(&log)).await;
    // A client that never finishes its request holds the graceful
    // shutdown for a while.
    let mut slow = tokio::net::TcpStream::connect(addr).await.expect("connect");
    tokio::io::AsyncWriteExt::write_all(&mut slow, b"GET / HTTP/1.1\r\nHost: oxo\r\n")
        .await
        .expect("write");
    assert_eq!(get(addr, "/healthz").await.0, 200);
    let pid = server.id().expect("a running server");
    // Both signals at once, as an impatient operator's second Ctrl-C: the
    // first starts the shutdown, the second ends the process there and then.
    let sent = std::process::Command::new("sh")
        .args(["-c", &format!("kill -TERM {pid}; kill -INT {pid}")])
        .status()
        .expect("run kill");
    assert!(sent.success());
    let status = tokio::time::timeout(common::WAIT, server.wait())
        .await
        .expect("the server exits in time")
        .expect("wait");
    let log = std::fs::read_to_string(&log).expect("read the log");
    // 130 for SIGINT, 143 for SIGTERM: whichever the server took second.
    assert!(matches!(status.code(), Some(130 | 143)), "{status}: {log}");
    assert!(log.contains("stopping at once"), "{log}");
    drop(slow);
}

#[tokio::test]
async fn a_database_url_of_another_kind_is_refused_saying_what_is_accepted() {
    for db in [
        "mysql://oxo@127.0.0.1/oxo",
        "sqlite://oxo.db",
        "postgress://h/db",
    ] {
        let line = refusal(&["--addr", "127.0.0.1:0", "--db", db]).await;
        assert!(
            line.contains("--db") && line.contains("postgres://") && line.contains(":memory:"),
            "{db}: {line}"
        );
    }
}

#[tokio::test]
async fn a_count_that_is_not_a_whole_number_is_refused_saying_what_is_accepted() {
    for flag in ["--new-players-per-minute", "--max-connections-per-address"] {
        for value in ["1.5", "many", "-1"] {
            let arg = format!("{flag}={value}");
            let line = refusal(&["--addr", "127.0.0.1:0", "--db", ":memory:", &arg]).await;
            assert!(
                line.contains(flag) && line.contains("whole number") && line.contains("0:"),
                "{arg}: {line}"
            );
        }
    }
}

#[tokio::test]
async fn a_log_filter_that_does_not_parse_is_warned_about_not_ignored() {
    let dir = TempDir::new("rust-log");
    let log = dir.join("server.log");
    let args = [
        "RUST_LOG=oxo=loud",
        env!("CARGO_BIN_EXE_oxo"),
        "serve",
        "--addr",
        "127.0.0.1:0",
        "--db",
        ":memory:",
    ];
    let (server, _) = start_with("env", &args, Some(&log)).await;
    stop(server).await;
    let log = std::fs::read_to_string(&log).expect("read the log");
    let warning = log
        .lines()
        .find(|l| l.contains("WARN") && l.contains("RUST_LOG"))
        .unwrap_or_else(|| panic!("no warning about RUST_LOG: {log}"));
    assert!(
        warning.contains("oxo=loud") && warning.contains("info"),
        "{warning}"
    );
}
