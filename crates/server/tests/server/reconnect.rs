//! Disconnects, reconnects, grace periods, several tabs, token secrecy.

use std::time::Duration;

use oxo_core::{Outcome, Player, WinReason};
use oxo_protocol::TableStatus;
use serde_json::json;

use crate::common::{Server, config, last_table, pair};

#[tokio::test]
async fn a_reconnect_restores_the_seat_and_the_exact_state() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    x.play(&table, "a1").await;
    o.play(&table, "b2").await;
    let before = x.table_until(|t| t.move_number == 2).await;
    let token = x.token.clone();
    drop(x);
    let away = o
        .table_until(|t| !t.players.x.as_ref().unwrap().connected)
        .await;
    let grace = away.players.x.as_ref().unwrap().grace_left_ms.unwrap();
    assert!(grace > 20_000 && grace <= 30_000, "{grace}");
    let (mut x, welcome) = server.resume(&token).await;
    assert_eq!(welcome["tables"], json!([table]));
    assert_eq!(welcome["name"], "Xena");
    let back = x.table_until(|_| true).await;
    assert_eq!(back.board, before.board);
    assert_eq!(back.moves, before.moves);
    assert_eq!(back.turn, Some(Player::X));
    assert_eq!(back.round, before.round);
    assert!(back.players.x.as_ref().unwrap().connected);
    assert_eq!(back.players.x.as_ref().unwrap().grace_left_ms, None);
    o.table_until(|t| t.players.x.as_ref().unwrap().connected)
        .await;
    x.play(&table, "c3").await;
    // join_table on a table where the player sits is an idempotent re-attach.
    x.ok(json!({"type":"join_table","table_id":table})).await;
    server.stop().await;
}

#[tokio::test]
async fn the_grace_period_running_out_awards_the_win() {
    let server = Server::with(oxo_server::Config {
        reconnect_grace: Duration::from_millis(300),
        ..config()
    })
    .await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    x.play(&table, "a1").await;
    drop(x);
    let state = o.table_until(|t| t.status == TableStatus::RoundOver).await;
    assert_eq!(
        state.outcome,
        Some(Outcome::Win {
            winner: Player::O,
            reason: WinReason::Dropped
        })
    );
    assert_eq!(state.scores.o, 1);
    assert!(!state.players.x.as_ref().unwrap().connected);
    // O leaves too: with nobody left the table closes.
    // O walks away from the finished round after the grace period, then the
    // table, with X away too, closes after another: 600 ms, and more on a
    // busy machine.
    drop(o);
    let mut c = server.client("Cleo").await;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let (_, reply) = c
            .request(json!({"type":"watch_table","table_id":table}))
            .await;
        if reply["code"] == "no_such_table" {
            break;
        }
        c.ok(json!({"type":"leave_table","table_id":table})).await;
        assert!(
            tokio::time::Instant::now() < deadline,
            "the table never closed"
        );
    }
    server.stop().await;
}

#[tokio::test]
async fn several_tabs_share_a_seat_until_the_last_closes() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    let (mut x2, welcome) = server.resume(&x.token).await;
    assert_eq!(welcome["player_id"], x.player_id.as_str());
    x2.table_until(|_| true).await;
    x2.play(&table, "b2").await;
    // The first tab sees the move made in the second.
    x.table_until(|t| t.move_number == 1).await;
    o.table_until(|t| t.move_number == 1).await;
    drop(x2);
    // Closing one of two tabs changes nothing anyone sees: no event.
    assert!(
        o.quiet_for(Duration::from_millis(300)).await,
        "an event for nothing"
    );
    o.play(&table, "a1").await;
    let state = x.table_until(|t| t.move_number == 2).await;
    assert!(
        state.players.x.as_ref().unwrap().connected,
        "one tab is still open"
    );
    drop(x);
    o.table_until(|t| !t.players.x.as_ref().unwrap().connected)
        .await;
    server.stop().await;
}

#[tokio::test]
async fn another_token_cannot_act_for_a_seat_and_tokens_stay_private() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    let mut intruder = server.client("Ivan").await;
    intruder
        .refused(
            json!({"type":"move","table_id":table,"cell":"b2"}),
            "not_seated",
        )
        .await;
    intruder
        .refused(json!({"type":"forfeit","table_id":table}), "not_seated")
        .await;
    intruder
        .refused(json!({"type":"rematch","table_id":table}), "not_seated")
        .await;
    intruder
        .refused(
            json!({"type":"chat","table_id":table,"text":"I am X"}),
            "not_seated",
        )
        .await;
    intruder
        .refused(json!({"type":"join_table","table_id":table}), "table_full")
        .await;
    intruder
        .refused(
            json!({"type":"join_table","table_id":table,"seat":"X"}),
            "table_full",
        )
        .await;
    // A spectator may chat, but only as itself.
    intruder
        .ok(json!({"type":"watch_table","table_id":table}))
        .await;
    intruder
        .ok(json!({"type":"chat","table_id":table,"text":"I am X"}))
        .await;
    let chat = x.until("chat").await;
    assert_eq!(chat["from_id"], intruder.player_id.as_str());
    intruder
        .refused(
            json!({"type":"move","table_id":table,"cell":"b2"}),
            "not_seated",
        )
        .await;
    // O cannot move for X.
    o.refused(
        json!({"type":"move","table_id":table,"cell":"b2"}),
        "not_your_turn",
    )
    .await;
    x.play(&table, "b2").await;
    o.play(&table, "a1").await;
    // A made-up token is refused.
    let mut fake = server.connect().await;
    fake.send(json!({"type":"hello","version":1,"token":"0".repeat(64)}))
        .await;
    assert_eq!(fake.recv().await["code"], "invalid_token");
    // Let every broadcast arrive, then look through everything each client
    // was sent: nobody ever sees another's token.
    intruder.ok(json!({"type":"sync","table_id":table})).await;
    x.ok(json!({"type":"sync","table_id":table})).await;
    o.ok(json!({"type":"sync","table_id":table})).await;
    let tokens = [x.token.clone(), o.token.clone(), intruder.token.clone()];
    for (client, own) in [(&x, 0), (&o, 1), (&intruder, 2)] {
        for frame in &client.frames {
            for (i, token) in tokens.iter().enumerate() {
                if i != own {
                    assert!(!frame.contains(token.as_str()), "a token leaked: {frame}");
                }
            }
        }
    }
    for (path, token) in [("/api/tables", &x.token), ("/metrics", &o.token)] {
        assert!(!server.get(path).await.1.contains(token.as_str()));
    }
    server.stop().await;
}

#[tokio::test]
async fn hello_with_a_token_and_a_name_renames_everywhere() {
    let server = Server::start().await;
    let (x, mut o, table) = pair(&server, json!({})).await;
    let token = x.token.clone();
    drop(x);
    let mut x = server.connect().await;
    x.hello(json!({"type":"hello","version":1,"token":token,"name":"Xavier"}))
        .await;
    let state = o
        .table_until(|t| t.players.x.as_ref().unwrap().name == "Xavier")
        .await;
    assert!(state.players.x.as_ref().unwrap().connected);
    // The table event the rename causes reaches the renamed player before
    // the request's `ok` (docs/protocol.md, ordering).
    let events = x.ok(json!({"type":"set_name","name":"Xan"})).await;
    let shown = last_table(&events).expect("the table event before ok");
    assert_eq!(shown.players.x.unwrap().name, "Xan");
    o.table_until(|t| t.players.x.as_ref().unwrap().name == "Xan")
        .await;
    let events = o.ok(json!({"type":"sync","table_id":table})).await;
    assert_eq!(last_table(&events).unwrap().players.x.unwrap().name, "Xan");
    server.stop().await;
}

#[tokio::test]
async fn leaving_from_one_tab_shows_the_players_other_tabs_the_table_without_them() {
    let server = Server::start().await;
    // A table in play, a waiting table and a finished round: each left
    // from one of the player's two connections.
    for case in ["in play", "waiting", "finished"] {
        let (mut x, mut o, table) = match case {
            "waiting" => {
                let mut x = server.client("Wanda").await;
                let table = x.create(json!({})).await.id.to_string();
                let o = server.client("Nobody").await;
                (x, o, table)
            }
            _ => pair(&server, json!({})).await,
        };
        if case == "finished" {
            x.ok(json!({"type":"forfeit","table_id":table})).await;
        }
        // The player's second tab, at the table too.
        let (mut tab, _) = server.resume(&x.token.clone()).await;
        tab.ok(json!({"type":"sync","table_id":table})).await;
        x.ok(json!({"type":"leave_table","table_id":table})).await;
        let me = x.player_id.clone();
        // The other tab gets the table's state without the player (it
        // waits for one, and fails if none comes).
        tab.table_until(|t| {
            [&t.players.x, &t.players.o]
                .into_iter()
                .flatten()
                .all(|p| p.id.as_str() != me)
        })
        .await;
        // And the opponent's connection is told as before.
        if case != "waiting" {
            o.table_until(|t| t.players.x.is_none() || t.players.o.is_none())
                .await;
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn a_spectator_with_two_tabs_counts_once() {
    let server = Server::start().await;
    let (mut x, _o, table) = pair(&server, json!({})).await;
    let spectators = async |x: &mut crate::common::Client| {
        let events = x.ok(json!({"type":"sync","table_id":table})).await;
        last_table(&events).expect("a state").spectators
    };
    let mut s = server.client("Sam").await;
    s.ok(json!({"type":"watch_table","table_id":table})).await;
    assert_eq!(spectators(&mut x).await, 1);
    let (mut s2, _) = server.resume(&s.token).await;
    s2.ok(json!({"type":"watch_table","table_id":table})).await;
    assert_eq!(spectators(&mut x).await, 1, "one person, two tabs");
    let mut other = server.client("Val").await;
    other
        .ok(json!({"type":"watch_table","table_id":table}))
        .await;
    assert_eq!(spectators(&mut x).await, 2);
    drop(s2);
    drop(other);
    x.table_until(|t| t.spectators == 1).await;
    server.stop().await;
}
