//! The per-player budgets (chat lines, new rounds, renames) are spent only by
//! requests that are accepted: "a refused request changed nothing", so a
//! player refused for another reason (not at the table, no such table, a
//! round still in play, no seat left) keeps the budget for when the
//! request can be accepted.

use serde_json::json;

use oxo_server::{Config, RateLimit};

use crate::common::{Server, config};

#[tokio::test]
async fn chat_refused_for_another_reason_leaves_the_chat_budget_whole() {
    let server = Server::with(Config {
        chat_limit: RateLimit::new(0.01, 2),
        ..config()
    })
    .await;
    let mut owner = server.client("Olga").await;
    let table = owner.create(json!({})).await.id.to_string();
    let mut p = server.client("Pia").await;
    for _ in 0..3 {
        p.refused(
            json!({"type":"chat","table_id":table,"text":"hi"}),
            "not_seated",
        )
        .await;
        p.refused(
            json!({"type":"chat","table_id":"nosuchtable","text":"hi"}),
            "no_such_table",
        )
        .await;
    }
    p.ok(json!({"type":"watch_table","table_id":table})).await;
    // The whole burst is still there, and no more.
    p.ok(json!({"type":"chat","table_id":table,"text":"one"}))
        .await;
    p.ok(json!({"type":"chat","table_id":table,"text":"two"}))
        .await;
    p.refused(
        json!({"type":"chat","table_id":table,"text":"three"}),
        "rate_limited",
    )
    .await;
    server.stop().await;
}

#[tokio::test]
async fn rounds_refused_for_another_reason_leave_the_new_game_budget_whole() {
    let server = Server::with(Config {
        rounds_limit: RateLimit::new(0.01, 2),
        max_tables_per_player: 1,
        ..config()
    })
    .await;
    let mut p = server.client("Pia").await;
    let table = p.create(json!({"seat":"X"})).await.id.to_string();
    let mut q = server.client("Quin").await;
    q.ok(json!({"type":"join_table","table_id":table})).await;
    for _ in 0..3 {
        p.refused(
            json!({"type":"rematch","table_id":table}),
            "game_in_progress",
        )
        .await;
        p.refused(json!({"type":"create_table"}), "too_many_tables")
            .await;
        p.refused(
            json!({"type":"rematch","table_id":"nosuchtable"}),
            "no_such_table",
        )
        .await;
    }
    p.ok(json!({"type":"leave_table","table_id":table})).await;
    // One of the two new rounds was spent on the first table: one is left.
    let second = p.create(json!({})).await.id.to_string();
    p.ok(json!({"type":"leave_table","table_id":second})).await;
    p.refused(json!({"type":"create_table"}), "rate_limited")
        .await;
    server.stop().await;
}

/// Each rename is a durable write and a new state at every table of the
/// player: renames are limited per player, all their connections
/// together, and setting the name one already has costs nothing.
#[tokio::test]
async fn renames_are_limited_per_player_and_keeping_ones_name_is_free() {
    let server = Server::with(Config {
        names_limit: RateLimit::new(0.01, 2),
        ..config()
    })
    .await;
    let mut p = server.connect().await;
    let welcome = p
        .hello(json!({"type":"hello","version":1,"name":"Pia"}))
        .await;
    let token = welcome["token"].as_str().expect("a token").to_owned();
    for _ in 0..5 {
        p.ok(json!({"type":"set_name","name":"Pia"})).await;
    }
    let (mut again, _) = server.resume(&token).await;
    p.ok(json!({"type":"set_name","name":"Pia Two"})).await;
    again
        .ok(json!({"type":"set_name","name":"Pia Three"}))
        .await;
    let why = p
        .refused(json!({"type":"set_name","name":"Pia Four"}), "rate_limited")
        .await;
    assert!(why.contains("renames"), "{why}");
    // A hello that would rename, with the budget spent, comes back under
    // the name the player has.
    let mut third = server.connect().await;
    let welcome = third
        .hello(json!({"type":"hello","version":1,"token":token,"name":"Pia Five"}))
        .await;
    assert_eq!(welcome["name"], "Pia Three", "{welcome}");
    third
        .ok(json!({"type":"set_name","name":"Pia Three"}))
        .await;
    server.stop().await;
}
