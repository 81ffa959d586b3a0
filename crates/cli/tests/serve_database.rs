//! `oxo serve` and the database file it is given: one server per file, and
//! a file the server cannot use is refused with one short line and left
//! byte for byte as it was.

mod common;

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::process::Output;

use common::{TempDir, bytes, get, serve_to_exit, start, stop, with_suffix};
use rusqlite::Connection;

/// oxo's `PRAGMA application_id` ("oxo1").
const OXO_APPLICATION_ID: i32 = 0x6F78_6F31;

/// The file and its SQLite companions, to compare before and after: for
/// each, its length and a hash of its bytes (`None`: no such file).
fn snapshot(db: &Path) -> [Option<(usize, u64)>; 4] {
    ["", "-wal", "-shm", "-journal"].map(|s| {
        bytes(&with_suffix(db, s)).map(|b| {
            let mut h = DefaultHasher::new();
            b.hash(&mut h);
            (b.len(), h.finish())
        })
    })
}

/// The `oxo: ...` error line of a failed run, checked for shape: it failed,
/// the line is short, names the file once, quotes no SQL and says nothing
/// twice.
fn error_line(out: &Output, db: &Path) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "expected a refusal; stderr: {stderr}"
    );
    let line = stderr
        .lines()
        .find(|l| l.starts_with("oxo: "))
        .unwrap_or_else(|| panic!("no error line in {stderr}"))
        .to_owned();
    assert!(line.len() < 300, "{} characters: {line}", line.len());
    let name = db.display().to_string();
    assert_eq!(
        line.matches(&name).count(),
        1,
        "names the file once: {line}"
    );
    for sql in ["CREATE TABLE", "SELECT ", "INSERT ", "ALTER TABLE"] {
        assert!(!line.contains(sql), "quotes SQL: {line}");
    }
    let parts: Vec<&str> = line.split(": ").map(str::trim).collect();
    for (i, part) in parts.iter().enumerate() {
        assert!(
            !parts[i + 1..].contains(part),
            "says {part:?} twice: {line}"
        );
    }
    line
}

#[tokio::test]
async fn a_file_that_is_not_a_database_gets_one_short_line() {
    let dir = TempDir::new("garbage");
    let db = dir.join("garbage.txt");
    std::fs::write(&db, "this is not a database, just some text\n".repeat(200)).expect("write");
    let before = snapshot(&db);
    let line = error_line(&serve_to_exit(&db).await, &db);
    assert!(line.contains("not a database"), "{line}");
    assert_eq!(snapshot(&db), before);
}

#[tokio::test]
async fn a_broken_oxo_schema_gets_one_short_line() {
    // An oxo database (version 1, with `schema_migrations`) whose tables
    // are gone: the server cannot use it and must say so briefly.
    let dir = TempDir::new("broken");
    let db = dir.join("oxo.db");
    sqlite_file(
        &db,
        "CREATE TABLE schema_migrations (
                 version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL);
             INSERT INTO schema_migrations VALUES (1, 0);
             PRAGMA user_version = 1;",
    );
    let line = error_line(&serve_to_exit(&db).await, &db);
    assert!(line.contains("no such table"), "{line}");
}

#[tokio::test]
async fn a_second_server_on_the_same_database_refuses_to_start() {
    let dir = TempDir::new("lock");
    let db = dir.join("oxo.db");
    let (first, addr) = start(&db, &[], None).await;
    let first_pid = first.id().expect("a pid");
    let before = snapshot(&db);
    assert!(before[0].is_some() && before[1].is_some(), "a WAL database");

    let out = serve_to_exit(&db).await;
    let line = error_line(&out, &db);
    assert!(line.contains(&format!("pid {first_pid}")), "{line}");
    assert!(
        String::from_utf8_lossy(&out.stdout).is_empty(),
        "never listened"
    );
    assert_eq!(snapshot(&db), before, "the second server wrote nothing");

    // The first one is unharmed.
    assert_eq!(get(addr, "/healthz").await.0, 200);
    stop(first).await;
    // And once it has stopped, the database can be opened again.
    let (again, _) = start(&db, &[], None).await;
    stop(again).await;
}

#[tokio::test]
async fn another_applications_sqlite_file_is_refused_untouched() {
    let dir = TempDir::new("foreign");
    let db = dir.join("notes.db");
    sqlite_file(
        &db,
        "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);
             INSERT INTO notes (body) VALUES ('buy milk');",
    );
    let before = snapshot(&db);
    let line = error_line(&serve_to_exit(&db).await, &db);
    assert!(line.contains("not an oxo database"), "{line}");
    assert_eq!(snapshot(&db), before, "byte for byte untouched");

    // Another application's id is refused too, even when empty.
    let other = dir.join("other.db");
    {
        let conn = Connection::open(&other).expect("create");
        conn.pragma_update(None, "application_id", 0x1234_5678)
            .expect("set id");
    }
    let before = snapshot(&other);
    let line = error_line(&serve_to_exit(&other).await, &other);
    assert!(line.contains("not an oxo database"), "{line}");
    assert_eq!(snapshot(&other), before, "byte for byte untouched");
}

#[tokio::test]
async fn a_database_from_a_newer_oxo_is_refused_untouched() {
    let dir = TempDir::new("newer");
    for (name, application_id) in [("old-style.db", 0), ("tagged.db", OXO_APPLICATION_ID)] {
        let db = dir.join(name);
        {
            let conn = sqlite_file(
                &db,
                "CREATE TABLE schema_migrations (
                     version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL);
                 INSERT INTO schema_migrations VALUES (99, 0);
                 PRAGMA user_version = 99;",
            );
            conn.pragma_update(None, "application_id", application_id)
                .expect("set id");
        }
        let before = snapshot(&db);
        let line = error_line(&serve_to_exit(&db).await, &db);
        assert!(line.contains("schema version 99"), "{line}");
        assert_eq!(snapshot(&db), before, "{name}: byte for byte untouched");
    }
}

/// `chattr +i` on a file, undone on drop.
struct Immutable(std::path::PathBuf);

impl Immutable {
    fn set(path: &Path) -> Option<Immutable> {
        let ok = std::process::Command::new("chattr")
            .arg("+i")
            .arg(path)
            .status()
            .is_ok_and(|s| s.success());
        ok.then(|| Immutable(path.to_owned()))
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = std::process::Command::new("chattr")
            .arg("-i")
            .arg(&self.0)
            .status();
    }
}

/// Whether this process can write a file it has made read-only (root can).
fn writes_despite_mode(path: &Path) -> bool {
    std::fs::OpenOptions::new().write(true).open(path).is_ok()
}

#[tokio::test]
async fn a_read_only_database_is_refused() {
    let dir = TempDir::new("readonly");
    let db = dir.join("oxo.db");
    let (server, _) = start(&db, &[], None).await;
    stop(server).await;
    let mut perms = std::fs::metadata(&db).expect("stat").permissions();
    perms.set_readonly(true);
    std::fs::set_permissions(&db, perms).expect("chmod 0444");
    // Root ignores file modes; an immutable file (chattr +i) is read-only
    // even for root. Without that, the scenario cannot be made here.
    let _immutable = if writes_despite_mode(&db) {
        let guard = Immutable::set(&db);
        if guard.is_none() || writes_despite_mode(&db) {
            eprintln!("skipped: cannot make a file read-only for this user");
            return;
        }
        guard
    } else {
        None
    };
    let before = bytes(&db);
    let out = serve_to_exit(&db).await;
    let line = error_line(&out, &db);
    assert!(line.contains("read-only"), "{line}");
    // SQLite may add the -wal and -shm files any reader of a WAL database
    // needs; the database itself is untouched.
    assert!(bytes(&db) == before, "the database is untouched");
}

/// Creates the SQLite file `path` holding what `sql` makes, and returns
/// the connection to it.
fn sqlite_file(path: &Path, sql: &str) -> Connection {
    let conn = Connection::open(path).expect("create");
    conn.execute_batch(sql).expect("fill");
    conn
}

#[tokio::test]
async fn an_address_it_cannot_listen_on_leaves_no_database_behind() {
    let dir = TempDir::new("no-listen");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let in_use = taken.local_addr().expect("its address").to_string();
    // Not HOST:PORT (refused as a bad flag), not this machine's, in use.
    for addr in ["nonsense", "203.0.113.1:8080", in_use.as_str()] {
        let db = dir.join("oxo.db");
        let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_oxo"));
        command.args(["serve", "--addr", addr, "--db"]).arg(&db);
        let out = common::run_to_exit(command).await;
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{addr}: {stderr}");
        assert!(
            stderr.contains(&format!("oxo: cannot listen on {addr}"))
                || stderr.contains(&format!("invalid value '{addr}' for '--addr")),
            "{addr}: {stderr}"
        );
        assert_eq!(snapshot(&db), [None; 4], "{addr}: a database was made");
    }
}

#[tokio::test]
async fn a_name_that_looks_like_a_sqlite_uri_is_a_file_of_that_name() {
    // SQLite reads a name that starts with `file:` as a URI (`file:oxo.db`
    // is `oxo.db`), while the lock that keeps one server per file is taken
    // on the file so named: `--db file:oxo.db` used to run a second
    // server on the database of one started with `--db oxo.db`.
    let dir = TempDir::new("uri");
    let db = dir.join("oxo.db");
    let (first, _) = start(&db, &[], None).await;
    let before = snapshot(&db);
    let oxo = env!("CARGO_BIN_EXE_oxo");
    let script = format!(
        "cd '{}' && exec '{oxo}' serve --addr 127.0.0.1:0 --db file:oxo.db",
        dir.path().display()
    );
    let (second, addr) = common::start_with("sh", &["-c", &script], None).await;
    assert_eq!(get(addr, "/healthz").await.0, 200);
    let named = dir.join("file:oxo.db");
    let id: i32 = Connection::open_with_flags(&named, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .expect("open the file named file:oxo.db")
        .pragma_query_value(None, "application_id", |r| r.get(0))
        .expect("its application id");
    assert_eq!(
        id, OXO_APPLICATION_ID,
        "the file named file:oxo.db is the database"
    );
    stop(second).await;
    assert_eq!(snapshot(&db), before, "oxo.db is the first server's alone");
    stop(first).await;
}
