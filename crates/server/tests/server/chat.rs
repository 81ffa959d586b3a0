//! Chat at a table: who hears it, its limits, and its history.

use serde_json::{Value, json};

use crate::common::{Client, Server, pair};

#[tokio::test]
async fn chat_reaches_players_and_spectators_within_limits() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    let mut watcher = server.client("Wanda").await;
    watcher
        .ok(json!({"type":"watch_table","table_id":table}))
        .await;
    x.ok(json!({"type":"chat","table_id":table,"text":"good\nluck"}))
        .await;
    for c in [&mut o, &mut watcher] {
        let m = c.until("chat").await;
        assert_eq!(m["text"], "good luck");
        assert_eq!(m["from_name"], "Xena");
        assert_eq!(m["from_id"], x.player_id.as_str());
        assert_eq!(m["table_id"], table.as_str());
        assert!(m.get("watching").is_none(), "a player's line: {m}");
    }
    watcher
        .ok(json!({"type":"chat","table_id":table,"text":"hi from the stands"}))
        .await;
    // A spectator's line says so, as its line in the history does.
    let m = o.until("chat").await;
    assert_eq!(m["watching"], true, "{m}");
    let (events, _) = o
        .request(json!({"type":"chat_history","table_id":table}))
        .await;
    let history = events
        .iter()
        .find(|e| e["type"] == "chat_history")
        .expect("the history");
    let lines: Vec<(&str, bool)> = history["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|l| (l["text"].as_str().unwrap_or(""), l["watching"] == true))
        .collect();
    assert_eq!(lines, [("good luck", false), ("hi from the stands", true)]);
    let long = "x".repeat(oxo_protocol::limits::MAX_CHAT_CHARS + 1);
    x.refused(
        json!({"type":"chat","table_id":table,"text":long}),
        "chat_too_long",
    )
    .await;
    x.refused(
        json!({"type":"chat","table_id":table,"text":"   "}),
        "chat_too_long",
    )
    .await;
    let mut outsider = server.client("Olaf").await;
    outsider
        .refused(
            json!({"type":"chat","table_id":table,"text":"hi"}),
            "not_seated",
        )
        .await;
    // 5 in a row (one used above), then slow down.
    for _ in 0..4 {
        x.ok(json!({"type":"chat","table_id":table,"text":"spam"}))
            .await;
    }
    x.refused(
        json!({"type":"chat","table_id":table,"text":"spam"}),
        "rate_limited",
    )
    .await;
    server.stop().await;
}

/// The texts of the one `chat_history` among the events before an `ok`.
pub(crate) fn history_texts(events: &[Value], table: &str) -> Vec<String> {
    let histories: Vec<_> = events
        .iter()
        .filter(|e| e["type"] == "chat_history")
        .collect();
    let [history] = histories[..] else {
        panic!("one chat_history before the ok: {events:?}");
    };
    assert_eq!(history["table_id"], table);
    history["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["text"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn a_newcomer_and_a_reloaded_page_read_the_chat_so_far() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    let asks = json!({"type":"chat_history","table_id":table});
    assert!(history_texts(&x.ok(asks.clone()).await, &table).is_empty());
    x.ok(json!({"type":"chat","table_id":table,"text":"good luck"}))
        .await;
    o.ok(json!({"type":"chat","table_id":table,"text":"you too"}))
        .await;

    let mut watcher = server.client("Wanda").await;
    watcher.refused(asks.clone(), "not_seated").await;
    watcher
        .ok(json!({"type":"watch_table","table_id":table}))
        .await;
    let events = watcher.ok(asks.clone()).await;
    assert_eq!(history_texts(&events, &table), ["good luck", "you too"]);
    let history = events.iter().find(|e| e["type"] == "chat_history");
    let first = &history.unwrap()["messages"][0];
    assert_eq!(first["from_name"], "Xena");
    assert_eq!(first["from_id"], x.player_id.as_str());

    // Xena reloads the page: a new connection with her token.
    let token = x.token.clone();
    drop(x);
    let (mut again, _) = server.resume(&token).await;
    assert_eq!(
        history_texts(&again.ok(asks).await, &table),
        ["good luck", "you too"]
    );
    server.stop().await;
}

/// The chat limit is the player's, not each connection's: a player who
/// opens more connections to the same table does not chat any faster.
#[tokio::test]
async fn a_player_chats_no_faster_from_more_connections() {
    let server = Server::start().await;
    let (mut x, _o, table) = pair(&server, json!({})).await;
    let (mut again, _) = server.resume(&x.token).await;
    again
        .ok(json!({"type":"watch_table","table_id":table}))
        .await;
    // The burst of 5, shared between the two connections.
    for _ in 0..3 {
        x.ok(json!({"type":"chat","table_id":table,"text":"spam"}))
            .await;
    }
    for _ in 0..2 {
        again
            .ok(json!({"type":"chat","table_id":table,"text":"spam"}))
            .await;
    }
    again
        .refused(
            json!({"type":"chat","table_id":table,"text":"spam"}),
            "rate_limited",
        )
        .await;
    x.refused(
        json!({"type":"chat","table_id":table,"text":"spam"}),
        "rate_limited",
    )
    .await;
    server.stop().await;
}

/// X and O wish each other luck at `table`: what
/// [`the_chat_so_far_goes_on`] then finds.
pub(crate) async fn say_good_luck(x: &mut Client, o: &mut Client, table: &str) {
    x.ok(json!({"type":"chat","table_id":table,"text":"good luck"}))
        .await;
    o.ok(json!({"type":"chat","table_id":table,"text":"you too"}))
        .await;
}

/// `x` (after a restart or a takeover) reads the lines of
/// [`say_good_luck`] back, and the conversation goes on after them.
pub(crate) async fn the_chat_so_far_goes_on(x: &mut Client, table: &str) {
    let asks = json!({"type":"chat_history","table_id":table});
    let texts = history_texts(&x.ok(asks.clone()).await, table);
    assert_eq!(texts, ["good luck", "you too"]);
    x.ok(json!({"type":"chat","table_id":table,"text":"still here"}))
        .await;
    let texts = history_texts(&x.ok(asks).await, table);
    assert_eq!(texts, ["good luck", "you too", "still here"]);
}
