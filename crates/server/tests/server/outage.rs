//! A storage outage on a server of its own (the disk full, the file
//! locked by another program): a request whose commit fails is refused,
//! and the table comes back as the database has it once the database takes
//! writes again, without a restart.

use std::time::Duration;

use oxo_protocol::TableStatus;
use oxo_server::{Config, DbLocation};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::common::{Client, Server, config, last_table, pair, temp_db};

/// Reads `client` until the reply to request `id`, or the end of the
/// connection (`None`), for at most 15 s (a commit waits 5 s for a locked
/// database before it fails); the table states seen meanwhile are added to
/// `statuses`.
async fn reply_or_end(client: &mut Client, id: u64, statuses: &mut Vec<Value>) -> Option<Value> {
    let until = tokio::time::Instant::now() + Duration::from_secs(15);
    loop {
        let frame = tokio::time::timeout_at(until, client.link.next_frame())
            .await
            .expect("a reply or the end in time");
        let text = match frame {
            Some(Ok(Message::Text(t))) => t,
            Some(Ok(Message::Close(_)) | Err(_)) | None => return None,
            Some(Ok(_)) => continue,
        };
        let v: Value = serde_json::from_str(&text).unwrap();
        if v["type"] == "table" {
            statuses.push(v["table"]["status"].clone());
        }
        if v["id"] == json!(id) {
            return Some(v);
        }
    }
}

#[tokio::test]
async fn a_table_whose_commit_failed_comes_back_when_the_database_does() {
    let db = temp_db("outage");
    let server = Server::with(Config {
        db: DbLocation::File(db.clone()),
        ..config()
    })
    .await;
    let (mut x, mut o, table) = pair(&server, json!({"first":"x"})).await;
    for (who, cell) in [(0, "a1"), (1, "a2"), (0, "b1"), (1, "b2"), (0, "c1")] {
        let player = if who == 0 { &mut x } else { &mut o };
        player.play(&table, cell).await;
    }

    // Another program holds the database's write lock: no commit can
    // succeed. X asks for a rematch, which needs one.
    let blocker = rusqlite::Connection::open(&db).unwrap();
    blocker.execute_batch("BEGIN IMMEDIATE").unwrap();
    x.send(json!({"type":"rematch","table_id":table,"id":77}))
        .await;
    let mut statuses = Vec::new();
    if let Some(reply) = reply_or_end(&mut x, 77, &mut statuses).await {
        assert_eq!(reply["code"], "internal", "{reply}");
    }
    assert!(
        !statuses.contains(&json!("closed")),
        "the table was shown closed: {statuses:?}"
    );

    // The database takes writes again: X comes back, re-joins the
    // finished round (as a client does), finds it as stored, and the
    // rematch goes through.
    blocker.execute_batch("ROLLBACK").unwrap();
    drop(blocker);
    let (mut x, _) = server.resume(&x.token).await;
    let events = x.ok(json!({"type":"join_table","table_id":table})).await;
    let state = last_table(&events).expect("the table's state");
    assert_eq!(state.status, TableStatus::RoundOver);
    x.ok(json!({"type":"rematch","table_id":table})).await;
    drop(o);
    server.stop().await;
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}
