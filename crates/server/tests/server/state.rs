//! The table state's fields, as docs/protocol.md defines them, in the states
//! a conformance client sees: before the first round, during it, after it.

use serde_json::{Value, json};

use crate::common::Server;

/// The `table` object of the last `table` event among `events`.
fn last_state(events: &[Value]) -> Value {
    events
        .iter()
        .rev()
        .find(|v| v["type"] == "table")
        .map(|v| v["table"].clone())
        .expect("a table event before the ok")
}

#[tokio::test]
async fn no_first_mover_is_named_before_the_first_round_starts() {
    let server = Server::start().await;
    let mut alice = server.client("Alice").await;
    let mut bob = server.client("Bob").await;
    for starter in ["x", "o", "toss", "alternate"] {
        let events = alice
            .ok(json!({"type":"create_table","options":{"seat":"X","starter":starter}}))
            .await;
        let waiting = last_state(&events);
        assert_eq!(waiting["status"], "waiting");
        // Like `game_id` and `turn`: nobody has moved first yet, and with
        // `o` or `toss` it is not X.
        assert_eq!(waiting.get("first"), None, "starter {starter}: {waiting}");
        let table = waiting["id"].clone();
        let events = bob.ok(json!({"type":"join_table","table_id":table})).await;
        let started = last_state(&events);
        assert_eq!(started["status"], "in_progress");
        assert_eq!(started["first"], started["turn"], "starter {starter}");
        if starter == "o" {
            assert_eq!(started["first"], "O");
        }
        for c in [&mut alice, &mut bob] {
            c.ok(json!({"type":"leave_table","table_id":table})).await;
        }
    }
    server.stop().await;
}
