//! State that survives a restart (graceful here; `kill -9` is tested with the
//! real binary in the oxo crate's tests).

use std::path::PathBuf;

use oxo_core::Player;
use oxo_protocol::TableStatus;
use oxo_server::{Config, DbLocation};
use serde_json::json;

use crate::common::{Server, config, pair};

fn temp_db(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "oxo-server-test-{name}-{}-{}",
        std::process::id(),
        rand_suffix()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join("oxo.db")
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

#[tokio::test]
async fn unfinished_games_resume_after_a_restart() {
    let db = temp_db("restart");
    let cfg = || Config {
        db: DbLocation::File(db.clone()),
        ..config()
    };
    let server = Server::with(cfg()).await;
    let (mut x, mut o, table) = pair(&server, json!({"starter":"alternate"})).await;
    x.play(&table, "a1").await;
    o.play(&table, "b1").await;
    let game_id = x.play(&table, "a2").await.game_id.unwrap();
    let (xt, ot) = (x.token.clone(), o.token.clone());
    // A second, finished table whose scores must survive too.
    server.stop().await;
    drop((x, o));

    let server = Server::with(cfg()).await;
    let (mut x, welcome) = server.resume(&xt).await;
    assert_eq!(welcome["tables"], json!([table]));
    let state = x.table_until(|_| true).await;
    assert_eq!(state.board, "XO.X.....");
    assert_eq!(state.turn, Some(Player::O));
    assert_eq!(state.status, TableStatus::InProgress);
    assert!(
        !state.players.o.as_ref().unwrap().connected,
        "O has not come back yet"
    );
    assert!(state.players.o.as_ref().unwrap().grace_left_ms.is_some());
    let (mut o, _) = server.resume(&ot).await;
    o.table_until(|t| t.players.x.as_ref().unwrap().connected)
        .await;
    o.play(&table, "b2").await;
    let end = x.play(&table, "a3").await;
    assert_eq!(end.status, TableStatus::RoundOver);
    assert_eq!(end.scores.x, 1);
    let (status, rec) = server.get_json(&format!("/api/games/{game_id}")).await;
    assert_eq!(status, 200);
    assert_eq!(rec["moves"].as_array().unwrap().len(), 5);
    assert_eq!(rec["outcome"]["winner"], "X");
    // A rematch after the restart still alternates the starter.
    x.ok(json!({"type":"rematch","table_id":table})).await;
    let events = o.ok(json!({"type":"rematch","table_id":table})).await;
    let next = crate::common::last_table(&events).unwrap();
    assert_eq!((next.round, next.first), (2, Player::O));
    server.stop().await;

    // And the finished round's score is there after another restart.
    let server = Server::with(cfg()).await;
    let (mut x, _) = server.resume(&xt).await;
    let state = x.table_until(|_| true).await;
    assert_eq!((state.round, state.scores.x), (2, 1));
    server.stop().await;
    let _ = std::fs::remove_dir_all(db.parent().unwrap());
}
