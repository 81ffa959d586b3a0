//! Every refusal code, each with its message.

use serde_json::json;

use crate::common::{Server, config, pair};

#[tokio::test]
async fn every_refusal_has_a_stable_code_and_a_message() {
    let server = Server::with(oxo_server::Config {
        max_tables_per_player: 2,
        ..config()
    })
    .await;
    // Before hello.
    let mut c = server.connect().await;
    c.send(json!({"type":"ping","id":1})).await;
    let e = c.recv().await;
    assert_eq!(
        (e["code"].as_str(), e["id"].as_u64()),
        (Some("hello_required"), Some(1))
    );
    c.send(json!({"type":"hello","version":99})).await;
    assert_eq!(c.recv().await["code"], "unsupported_version");
    c.send(json!({"type":"hello","version":1,"token":"not-a-token"}))
        .await;
    assert_eq!(c.recv().await["code"], "invalid_token");
    c.send(json!({"type":"hello","version":1,"name":"\u{7}"}))
        .await;
    assert_eq!(c.recv().await["code"], "invalid_name");
    c.send(json!({"type":"hello","version":1,"name":"x".repeat(25)}))
        .await;
    assert_eq!(c.recv().await["code"], "invalid_name");
    c.hello(json!({"type":"hello","version":1,"name":"Cara"}))
        .await;
    c.refused(json!({"type":"hello","version":1}), "already_hello")
        .await;
    c.refused(json!({"type":"set_name","name":""}), "invalid_name")
        .await;
    let msg = c.refused(json!({"type":"fly"}), "bad_request").await;
    assert!(msg.contains("unknown variant `fly`"), "{msg}");

    // At a table.
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    assert_eq!(
        o.refused(
            json!({"type":"move","table_id":table,"cell":"b2"}),
            "not_your_turn"
        )
        .await,
        "Not your turn"
    );
    x.play(&table, "b2").await;
    assert_eq!(
        o.refused(
            json!({"type":"move","table_id":table,"cell":"b2"}),
            "cell_taken"
        )
        .await,
        "b2 is already taken"
    );
    x.refused(
        json!({"type":"rematch","table_id":table}),
        "game_in_progress",
    )
    .await;
    x.refused(
        json!({"type":"join_table","table_id":table,"seat":"O"}),
        "already_seated",
    )
    .await;
    c.refused(
        json!({"type":"move","table_id":table,"cell":"a1"}),
        "not_seated",
    )
    .await;
    c.refused(json!({"type":"join_table","table_id":table}), "table_full")
        .await;
    c.refused(json!({"type":"leave_table","table_id":table}), "not_seated")
        .await;
    c.refused(
        json!({"type":"move","table_id":"0123456789abcdef0123456789abcdef","cell":"a1"}),
        "no_such_table",
    )
    .await;
    x.ok(json!({"type":"forfeit","table_id":table})).await;
    x.refused(
        json!({"type":"move","table_id":table,"cell":"a1"}),
        "game_over",
    )
    .await;
    x.refused(json!({"type":"forfeit","table_id":table}), "game_over")
        .await;
    let long = "y".repeat(300);
    x.refused(
        json!({"type":"chat","table_id":table,"text":long}),
        "chat_too_long",
    )
    .await;

    // A table waiting for its second player.
    let waiting = c.create(json!({})).await.id;
    c.refused(
        json!({"type":"move","table_id":waiting,"cell":"a1"}),
        "not_started",
    )
    .await;
    c.refused(json!({"type":"rematch","table_id":waiting}), "not_started")
        .await;
    c.refused(json!({"type":"forfeit","table_id":waiting}), "not_started")
        .await;
    c.create(json!({})).await;
    let msg = c
        .refused(json!({"type":"create_table"}), "too_many_tables")
        .await;
    assert!(msg.contains('2'), "{msg}");
    c.refused(
        json!({"type":"create_table","options":{"move_time_ms":5}}),
        "bad_request",
    )
    .await;
    c.refused(
        json!({"type":"create_table","options":{"bot":{"level":"easy","think_ms":999_999}}}),
        "bad_request",
    )
    .await;
    c.refused(
        json!({"type":"create_table","options":{"bot":{"level":"genius"}}}),
        "bad_request",
    )
    .await;
    server.stop().await;
}

/// A time option that is not a whole number in range (a fraction, a
/// negative number, a string, one past 2^32) is refused with the range the
/// option takes, as one in the wrong range is, not the range of the
/// server's integers.
#[tokio::test]
async fn a_time_option_of_the_wrong_shape_is_told_the_range_it_takes() {
    let server = Server::start().await;
    let mut c = server.client("Clocks").await;
    for bad in [
        json!(1000.5),
        json!(-5),
        json!("30000"),
        json!(5_000_000_000_u64),
    ] {
        let msg = c
            .refused(
                json!({"type":"create_table","options":{"move_time_ms":bad}}),
                "bad_request",
            )
            .await;
        assert!(msg.contains("move_time_ms"), "{bad}: {msg}");
        assert!(msg.contains("from 1000 to 600000"), "{bad}: {msg}");
        let msg = c
            .refused(
                json!({"type":"create_table","options":{"bot":{"level":"easy","think_ms":bad}}}),
                "bad_request",
            )
            .await;
        assert!(msg.contains("think_ms"), "{bad}: {msg}");
        assert!(msg.contains("from 0 to 5000"), "{bad}: {msg}");
    }
    server.stop().await;
}

#[tokio::test]
async fn replies_carry_the_request_id() {
    let server = Server::start().await;
    let mut c = server.client("Ida").await;
    c.send(json!({"type":"ping","id":42})).await;
    assert_eq!(c.recv().await, json!({"type":"pong","id":42}));
    c.send(json!({"type":"ping"})).await;
    assert_eq!(c.recv().await, json!({"type":"pong"}));
    c.send_text(r#"{"type":"move","id":5,"table_id":7}"#).await;
    let e = c.recv().await;
    assert_eq!(
        (e["code"].as_str(), e["id"].as_u64()),
        (Some("bad_request"), Some(5))
    );
    server.stop().await;
}

/// A JavaScript client that cuts a string in the middle of an emoji sends
/// half of a UTF-16 surrogate pair (`JSON.stringify` writes it as `\ud83d`).
/// The refusal says so, rather than serde_json's "unexpected end of hex
/// escape", and still carries the request's id.
#[tokio::test]
async fn half_a_character_is_refused_in_words_a_client_author_understands() {
    let server = Server::start().await;
    let mut c = server.client("Cara").await;
    for (n, text) in [r"\ud83d", r"\ud83dab", r"\ude00", r"\ud83d\u0041"]
        .into_iter()
        .enumerate()
    {
        let id = 100 + n;
        c.send_text(&format!(
            r#"{{"type":"chat","id":{id},"table_id":"t","text":"{text}"}}"#
        ))
        .await;
        let e = c.recv().await;
        assert_eq!(e["code"], "bad_request", "{text}: {e}");
        assert_eq!(e["id"], id, "{text}: {e}");
        let message = e["message"].as_str().unwrap_or("");
        assert!(message.contains("half of a character"), "{text}: {message}");
        assert!(message.contains("surrogate"), "{text}: {message}");
    }
    // A whole character written as its pair is fine.
    c.send_text(r#"{"type":"ping","id":7,"pad":"\ud83d\ude00"}"#)
        .await;
    assert_eq!(c.recv().await["type"], "pong");
    server.stop().await;
}

/// Any whole number but 1 as the `hello` version is `unsupported_version`,
/// as docs/protocol.md says, however far out of range (not `bad_request`).
#[tokio::test]
async fn every_hello_version_but_one_is_unsupported() {
    let server = Server::start().await;
    for version in [json!(-1), json!(1_u64 << 40), json!(0), json!(2)] {
        let mut c = server.connect().await;
        c.send(json!({"type":"hello","id":5,"version":version}))
            .await;
        let e = c.recv().await;
        assert_eq!(e["code"], "unsupported_version", "{version}: {e}");
        assert_eq!(e["id"], 5, "{e}");
        let message = e["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(&format!("version {version} is not supported")),
            "{message}"
        );
        c.hello(json!({"type":"hello","version":1,"name":"Vera"}))
            .await;
    }
}
