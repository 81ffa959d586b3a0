//! `/healthz` follows the database: 503 while it cannot take writes.

use std::time::Duration;

use oxo_server::{Config, DbLocation};
use serde_json::json;

use crate::common::{Server, config, temp_db};

#[tokio::test]
async fn healthz_is_unhealthy_while_the_database_cannot_take_writes() {
    let db = temp_db("health");
    let server = Server::with(Config {
        db: DbLocation::File(db.clone()),
        ..config()
    })
    .await;
    assert_eq!(
        server.get_json("/healthz").await,
        (200, json!({"status":"ok"}))
    );

    // Another process takes the database's write lock and keeps it (a
    // plain SQLite connection: the server's lock on the file is advisory
    // and keeps out other oxo servers, not SQLite). No write can commit.
    let blocker = rusqlite::Connection::open(&db).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    // A commit that succeeded within the last second still vouches for the
    // database; after that, the probe write fails.
    let body = poll_healthz(&server, 503).await;
    assert_eq!(body["status"], "unhealthy", "{body}");
    assert!(
        body["error"].as_str().is_some_and(|e| !e.is_empty()),
        "{body}"
    );

    // Once it lets go, the server is healthy again.
    blocker.execute_batch("ROLLBACK").unwrap();
    drop(blocker);
    let body = poll_healthz(&server, 200).await;
    assert_eq!(body, json!({"status":"ok"}));
    server.stop().await;
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}

/// Asks `/healthz` until it answers `status` (within 10 s); returns the body.
async fn poll_healthz(server: &Server, status: u16) -> serde_json::Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (got, body) = server.get_json("/healthz").await;
        if got == status {
            return body;
        }
        assert!(tokio::time::Instant::now() < deadline, "still {got} {body}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}
