//! A throw-away PostgreSQL server for tests: one per test process, started
//! on first use on a free loopback port in a temporary directory, and
//! stopped by a watcher when the test process exits. Each test gets a
//! database of its own ([`database`]).
//!
//! PostgreSQL refuses to run as root: as root, the server runs as the
//! `postgres` user. Without PostgreSQL installed the tests that need it
//! are skipped with a note, unless `OXO_TEST_POSTGRES=required` (set by
//! `scripts/test`), which makes that a failure.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

/// The running server's port, or why there is none.
static SERVER: OnceLock<Result<u16, String>> = OnceLock::new();
static NEXT_DB: AtomicU32 = AtomicU32::new(0);

/// The directory of PostgreSQL's programs, if installed.
fn bin_dir() -> Option<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path().join("bin")))
        .filter(|d| d.join("initdb").exists())
        .collect();
    dirs.sort();
    dirs.pop()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// `program args` as the user PostgreSQL runs as.
fn as_pg_user(program: &Path) -> Command {
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(program);
        c
    } else {
        Command::new(program)
    }
}

fn start() -> Result<u16, String> {
    let bin = bin_dir().ok_or("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin)")?;
    let dir = std::env::temp_dir().join(format!("oxo-pg-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    if is_root() {
        let ok = Command::new("chown")
            .args(["postgres:postgres"])
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            return Err("cannot give the test directory to the postgres user".into());
        }
    }
    let data = dir.join("data");
    let out = as_pg_user(&bin.join("initdb"))
        .args(["-A", "trust", "-U", "oxo", "--no-sync", "-D"])
        .arg(&data)
        .output()
        .map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(format!("initdb: {}", String::from_utf8_lossy(&out.stderr)));
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map_err(|e| e.to_string())?
        .port();
    // The server runs until this test process is gone: a watcher shell
    // stops it then (test binaries exit without running destructors).
    let runas = if is_root() {
        "runuser -u postgres --"
    } else {
        ""
    };
    let script = format!(
        "{runas} {postgres} -D {data} -p {port} -k {dir} -c listen_addresses=127.0.0.1 \
         -c fsync=off -c max_connections=300 > {dir}/log 2>&1 & \
         while kill -0 {me} 2>/dev/null; do sleep 0.5; done; \
         {runas} {pg_ctl} stop -D {data} -m immediate; rm -rf {dir}",
        postgres = bin.join("postgres").display(),
        pg_ctl = bin.join("pg_ctl").display(),
        data = data.display(),
        dir = dir.display(),
        me = std::process::id(),
    );
    Command::new("sh")
        .args(["-c", &script])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    Err(format!(
        "PostgreSQL did not start; see {}/log",
        dir.display()
    ))
}

/// The URL of a new, empty database, or `None` (after a note) when
/// PostgreSQL is not installed and not required.
///
/// # Panics
///
/// If PostgreSQL is required (`OXO_TEST_POSTGRES=required`) but cannot be
/// started, or the database cannot be created.
pub(crate) fn database() -> Option<String> {
    let port = match SERVER.get_or_init(start) {
        Ok(port) => *port,
        Err(why) => {
            let required = std::env::var("OXO_TEST_POSTGRES").is_ok_and(|v| v == "required");
            assert!(!required, "PostgreSQL is required for this test: {why}");
            eprintln!("skipped: {why}");
            return None;
        }
    };
    let name = format!(
        "t{}_{}",
        std::process::id(),
        NEXT_DB.fetch_add(1, Ordering::Relaxed)
    );
    let bin = bin_dir().unwrap();
    // From `template0`, which nobody can connect to: copying `template1`
    // fails while any other session is on it, which made about one run in
    // forty of the store tests fail (two tests' databases made at once,
    // each failing with "1 other session"). A failure is tried again, in
    // case something else holds the source for a moment.
    let create = || {
        Command::new(bin.join("createdb"))
            .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-U", "oxo"])
            .args(["-T", "template0", &name])
            .status()
            .is_ok_and(|s| s.success())
    };
    let ok = (0..3).any(|attempt| {
        if attempt > 0 {
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        create()
    });
    assert!(ok, "createdb {name} failed");
    Some(format!("postgres://oxo@127.0.0.1:{port}/{name}"))
}
