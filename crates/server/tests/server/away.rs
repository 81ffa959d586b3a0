//! `step_away`: a client that stops showing a table keeps its seat, and
//! the others see the player away until they are back.

use std::time::Duration;

use oxo_core::{Outcome, Player, WinReason};
use oxo_protocol::TableStatus;
use serde_json::json;

use crate::common::{Server, config, pair};

#[tokio::test]
async fn a_player_who_steps_away_is_shown_away_and_comes_back_by_joining() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    x.play(&table, "a1").await;
    o.table_until(|t| t.move_number == 1).await;

    o.ok(json!({"type":"step_away","table_id":table})).await;
    let away = x
        .table_until(|t| !t.players.o.as_ref().unwrap().connected)
        .await;
    let grace = away.players.o.as_ref().unwrap().grace_left_ms;
    assert!(grace.is_some_and(|ms| ms > 0), "{away:?}");
    assert_eq!(away.status, TableStatus::InProgress);
    // The seat is kept, and the connection hears nothing more of the table.
    x.ok(json!({"type":"chat","table_id":table,"text":"where did you go?"}))
        .await;
    assert!(o.quiet_for(Duration::from_millis(300)).await);
    // Stepping away again, or from a table one is not at (one that does
    // not exist, or is gone), changes nothing.
    // Either way the `ok` names the table, as for every table request.
    for id in [table.as_str(), "0123456789abcdef0123456789abcdef", "nope"] {
        let (_, reply) = o.request(json!({"type":"step_away","table_id":id})).await;
        assert_eq!(
            (&reply["type"], &reply["table_id"]),
            (&json!("ok"), &json!(id))
        );
    }

    let back = o.ok(json!({"type":"join_table","table_id":table})).await;
    assert!(
        back.iter().any(|e| e["type"] == "table"),
        "the state comes back: {back:?}"
    );
    x.table_until(|t| t.players.o.as_ref().unwrap().connected)
        .await;
    o.play(&table, "b2").await;
    server.stop().await;
}

#[tokio::test]
async fn a_player_who_stays_away_past_the_grace_period_loses_the_round() {
    let server = Server::with(oxo_server::Config {
        reconnect_grace: Duration::from_millis(300),
        ..config()
    })
    .await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    x.play(&table, "a1").await;
    x.ok(json!({"type":"step_away","table_id":table})).await;
    let state = o.table_until(|t| t.status == TableStatus::RoundOver).await;
    assert_eq!(
        state.outcome,
        Some(Outcome::Win {
            winner: Player::O,
            reason: WinReason::Dropped
        })
    );
    server.stop().await;
}

#[tokio::test]
async fn a_spectator_who_steps_away_stops_watching() {
    let server = Server::start().await;
    let (mut x, _o, table) = pair(&server, json!({})).await;
    let mut watcher = server.client("Wanda").await;
    watcher
        .ok(json!({"type":"watch_table","table_id":table}))
        .await;
    x.table_until(|t| t.spectators == 1).await;
    watcher
        .ok(json!({"type":"step_away","table_id":table}))
        .await;
    x.table_until(|t| t.spectators == 0).await;
    x.play(&table, "a1").await;
    assert!(watcher.quiet_for(Duration::from_millis(300)).await);
    server.stop().await;
}

/// A player who stepped away from a finished round held the seat only for
/// a rematch: when the opponent leaves, the table closes instead of
/// waiting with them seated, so a spectator cannot start a round with
/// someone who is not there (they would lose it without knowing).
#[tokio::test]
async fn the_opponent_leaving_a_finished_round_one_stepped_away_from_closes_the_table() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    let mut watcher = server.client("Wanda").await;
    watcher
        .ok(json!({"type":"watch_table","table_id":table}))
        .await;
    o.ok(json!({"type":"forfeit","table_id":table})).await;
    x.ok(json!({"type":"step_away","table_id":table})).await;
    o.ok(json!({"type":"leave_table","table_id":table})).await;
    let last = watcher
        .table_until(|t| t.status == TableStatus::Closed)
        .await;
    assert!(
        last.players.x.is_none() && last.players.o.is_none(),
        "{last:?}"
    );
    watcher
        .refused(
            json!({"type":"join_table","table_id":table}),
            "no_such_table",
        )
        .await;
    server.stop().await;
}

/// Stepping away and coming back are stored (an away player's grace must
/// outlive a restart), but not once per toggle: a client looping on
/// `step_away` and `sync` would otherwise make the server write to its
/// database as fast as it may send. The last change is stored all the
/// same, a moment later.
#[tokio::test]
async fn stepping_away_and_back_in_a_loop_writes_a_bounded_number_of_rows() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    x.play(&table, "a1").await;
    o.table_until(|t| t.move_number == 1).await;
    let writes = || async { server.metric("oxo_db_writes_total").await.unwrap_or(0) };
    let before = writes().await;
    for _ in 0..30 {
        o.ok(json!({"type":"step_away","table_id":table})).await;
        o.ok(json!({"type":"sync","table_id":table})).await;
    }
    o.ok(json!({"type":"step_away","table_id":table})).await;
    let during = writes().await - before;
    assert!(
        during < 10,
        "61 changes of presence wrote {during} rows at once"
    );
    // The player is away as the last request left them, and that is
    // stored once the pace allows.
    let stored = tokio::time::timeout(Duration::from_secs(5), async {
        while writes().await == before + during {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    assert!(stored.is_ok(), "the last step away was never stored");
    x.table_until(|t| !t.players.o.as_ref().unwrap().connected)
        .await;
    server.stop().await;
}

/// A player who comes and goes in a loop (here by reconnecting, then by
/// stepping away and back) does not flood the others at the table with a
/// state per toggle: that let one player get their opponent's connection
/// closed as too slow. The others see the player's presence at once the
/// first time, then at most once a second, and always as it ends up.
#[tokio::test]
async fn coming_and_going_in_a_loop_does_not_flood_the_others() {
    let server = Server::start().await;
    let (mut x, o, table) = pair(&server, json!({})).await;
    x.play(&table, "a1").await;
    let token = o.token.clone();
    drop(o);
    x.table_until(|t| !t.players.o.as_ref().unwrap().connected)
        .await;
    for _ in 0..15 {
        let (mut again, _) = server.resume(&token).await;
        // Its own state comes at once, whatever the pace.
        again
            .table_until(|t| t.players.o.as_ref().unwrap().connected)
            .await;
        again.ok(json!({"type":"step_away","table_id":table})).await;
        again.ok(json!({"type":"sync","table_id":table})).await;
    }
    let (mut last, _) = server.resume(&token).await;
    last.ok(json!({"type":"step_away","table_id":table})).await;
    // What x heard meanwhile (the sync's own state aside).
    let heard = x.ok(json!({"type":"sync","table_id":table})).await;
    let states = heard.iter().filter(|e| e["type"] == "table").count() - 1;
    assert!(
        states < 10,
        "60 comings and goings sent the opponent {states} states"
    );
    // The end of it is shown: o away.
    x.table_until(|t| !t.players.o.as_ref().unwrap().connected)
        .await;
    server.stop().await;
}
