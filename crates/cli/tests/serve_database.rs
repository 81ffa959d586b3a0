//! `oxo serve` and the database file it is given: one server per file, and
//! a file the server cannot use is refused with one short line and left
//! byte for byte as it was.

mod common;

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::process::Output;

use common::{TempDir, bytes, get, serve_to_exit, start, stop, with_suffix};
use rusqlite::Connection;

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
    let line = error_line(&serve_to_exit(&db).await, &db);
    assert!(line.contains("not a database"), "{line}");
}

#[tokio::test]
async fn a_broken_oxo_schema_gets_one_short_line() {
    // An oxo database (version 1, with `schema_migrations`) whose tables
    // are gone: the server cannot use it and must say so briefly.
    let dir = TempDir::new("broken");
    let db = dir.join("oxo.db");
    {
        let conn = Connection::open(&db).expect("create");
        conn.execute_batch(
            "CREATE TABLE schema_migrations (
                 version INTEGER PRIMARY KEY, applied_ms INTEGER NOT NULL);
             INSERT INTO schema_migrations VALUES (1, 0);
             PRAGMA user_version = 1;",
        )
        .expect("fill");
    }
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
