//! Helpers for tests that run the real `oxo serve` binary: a temporary
//! directory, a server started on port 0, and a run that must end by itself.

#![allow(dead_code, unreachable_pub, missing_docs)]

pub mod tmux;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};

/// How long a server may take to print its listening line or to exit.
pub const WAIT: Duration = Duration::from_secs(10);

/// A fresh directory under the system's temporary directory, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir =
            std::env::temp_dir().join(format!("oxo-cli-{name}-{}-{nanos}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create a temporary directory");
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The bytes of `path`, or `None` if it does not exist.
pub fn bytes(path: &Path) -> Option<Vec<u8>> {
    std::fs::read(path).ok()
}

/// `path` with `suffix` appended (`oxo.db` → `oxo.db-wal`).
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// Starts `oxo serve --addr 127.0.0.1:0 --db DB ARGS`, waits for its
/// listening line and returns it with the bound address. Its stderr is kept
/// in `log` if given.
pub async fn start(db: &Path, args: &[&str], log: Option<&Path>) -> (Child, SocketAddr) {
    let db = db.to_str().expect("a UTF-8 path");
    let mut all = vec!["serve", "--addr", "127.0.0.1:0", "--db", db];
    all.extend(args);
    start_with(env!("CARGO_BIN_EXE_oxo"), &all, log).await
}

/// Runs `program ARGS`, which must end up as `oxo serve` printing its
/// listening line; returns it with the bound address.
pub async fn start_with(program: &str, args: &[&str], log: Option<&Path>) -> (Child, SocketAddr) {
    let stderr = match log {
        Some(path) => Stdio::from(std::fs::File::create(path).expect("create the log file")),
        None => Stdio::null(),
    };
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .kill_on_drop(true)
        .spawn()
        .expect("spawn oxo serve");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let line = tokio::time::timeout(WAIT, lines.next_line())
        .await
        .expect("a listening line in time")
        .expect("read stdout")
        .unwrap_or_else(|| panic!("{program} {args:?} exited before listening"));
    let addr = line
        .strip_prefix("oxo listening on http://")
        .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
        .parse()
        .expect("an address");
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, addr)
}

/// Sends SIGTERM and waits for a clean exit.
pub async fn stop(mut child: Child) {
    let pid = child.id().expect("a running server").to_string();
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("run kill");
    assert!(sent.success());
    let status = tokio::time::timeout(WAIT, child.wait())
        .await
        .expect("the server exits in time")
        .expect("wait");
    assert!(status.success(), "{status}");
}

/// Runs `command` (stdout and stderr captured) and waits for it to end by
/// itself; a process still running after [`WAIT`] is killed and reported.
pub async fn run_to_exit(mut command: Command) -> Output {
    let child = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("spawn");
    match tokio::time::timeout(WAIT, child.wait_with_output()).await {
        Ok(output) => output.expect("wait"),
        Err(_) => panic!("the process was still running after {WAIT:?}"),
    }
}

/// `oxo serve --addr 127.0.0.1:0 --db DB`, run to its exit.
pub async fn serve_to_exit(db: &Path) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_oxo"));
    command
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(db);
    run_to_exit(command).await
}

/// `GET path` over a fresh connection: status and body.
pub async fn get(addr: SocketAddr, path: &str) -> (u16, String) {
    let mut tcp = TcpStream::connect(addr).await.expect("connect");
    let req = format!("GET {path} HTTP/1.1\r\nHost: oxo\r\nConnection: close\r\n\r\n");
    tcp.write_all(req.as_bytes()).await.expect("write");
    let mut raw = String::new();
    tokio::time::timeout(WAIT, tcp.read_to_string(&mut raw))
        .await
        .expect("a response in time")
        .expect("read");
    let (head, body) = raw.split_once("\r\n\r\n").expect("head and body");
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    (status, body.to_owned())
}

/// The environment variable `name`, parsed, or `default` when it is unset
/// or does not parse.
pub fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Sends `msg` on `link` and waits for its reply; with it, the last
/// `table` state that came before it.
pub async fn call(
    link: &mut oxo_client::Link,
    msg: oxo_protocol::ClientMsg,
) -> (
    Result<oxo_protocol::ServerMsg, oxo_client::Error>,
    Option<oxo_protocol::TableState>,
) {
    let mut table = None;
    let reply = link
        .call(msg, WAIT, |event| {
            if let oxo_protocol::ServerMsg::Table { table: t } = event {
                table = Some(t);
            }
        })
        .await;
    (reply, table)
}

/// The cells of game `game`'s record, read from the server at `addr`, in
/// order.
pub async fn record_cells(addr: SocketAddr, game: &str) -> Vec<String> {
    let (status, body) = get(addr, &format!("/api/games/{game}")).await;
    assert_eq!(status, 200, "{body}");
    let record: serde_json::Value = serde_json::from_str(&body).expect("JSON");
    record["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m["cell"].as_str().expect("a cell").to_owned())
        .collect()
}

/// Runs the real `oxo` with `args` to its end: its exit code, standard
/// output and standard error.
pub fn oxo(args: &[&str]) -> (Option<i32>, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_oxo"))
        .args(args)
        .output()
        .expect("runs oxo");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
