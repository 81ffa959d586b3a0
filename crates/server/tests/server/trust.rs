//! Real use and abuse that must not wear the server down: slots and seats
//! that are freed when their use ends, clients that stop reading, players
//! kept in memory only while they are around, requests that cost only the
//! requester, and every request answered (ids, pings, close handshakes,
//! retries across rounds).

use std::time::Duration;

use futures_util::SinkExt;
use oxo_client::tungstenite::Message;
use oxo_client::tungstenite::protocol::CloseFrame;
use oxo_client::tungstenite::protocol::frame::coding::CloseCode;
use oxo_client::{Link, LinkOptions};
use oxo_core::Player;
use oxo_protocol::{TableState, TableStatus};
use oxo_server::{Config, RateLimit};
use serde_json::{Value, json};

use crate::common::{Client, Incoming, Server, config, last_table, pair};

/// Plays the first free cell whenever it is `me`'s turn until the round is
/// over; returns the final state.
async fn play_out(c: &mut Client, mut state: TableState, me: Player) -> TableState {
    loop {
        match state.status {
            TableStatus::RoundOver | TableStatus::Closed => return state,
            TableStatus::InProgress if state.turn == Some(me) => {
                let i = state
                    .board
                    .find('.')
                    .expect("a free cell while in progress");
                let events = c
                    .ok(json!({"type":"move","table_id":state.id,"cell":i}))
                    .await;
                state = last_table(&events).expect("a state before the ok");
            }
            _ => {
                let id = state.id.clone();
                state = c
                    .table_until(|t| {
                        t.id == id && (t.turn == Some(me) || t.status != TableStatus::InProgress)
                    })
                    .await;
            }
        }
    }
}

/// Creates a table against a bot that answers at once, as X.
async fn bot_table(c: &mut Client) -> TableState {
    c.create(json!({"seat":"X","public":false,"bot":{"level":"random","think_ms":0}}))
        .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_connection_creates_and_leaves_hundreds_of_tables() {
    let server = Server::with(Config {
        rate_limit: RateLimit::UNLIMITED,
        ..config()
    })
    .await;
    let mut host = server.client("Host").await;
    let watched = host.create(json!({"public":true})).await.id;
    let mut c = server.client("Busy").await;
    for i in 0..150 {
        let table = bot_table(&mut c).await.id;
        let (_, reply) = c
            .request(json!({"type":"leave_table","table_id":table}))
            .await;
        assert_eq!(reply["type"], "ok", "leave #{i}: {reply}");
        let (_, reply) = c
            .request(json!({"type":"watch_table","table_id":watched}))
            .await;
        assert_eq!(reply["type"], "ok", "watch #{i}: {reply}");
        let (_, reply) = c
            .request(json!({"type":"leave_table","table_id":watched}))
            .await;
        assert_eq!(reply["type"], "ok", "leave watched #{i}: {reply}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finished_rounds_never_hold_seats() {
    let server = Server::start().await;
    let mut c = server.client("Marathon").await;
    let token = c.token.clone();
    // Thirty games against the computer, well over the ten-seat limit: on
    // one connection, then each on a fresh connection (a page load).
    for i in 0..30 {
        if i % 2 == 1 {
            let (fresh, welcome) = server.resume(&token).await;
            assert_eq!(
                welcome["tables"],
                json!([]),
                "finished rounds are not listed as games to resume"
            );
            c = fresh;
        }
        let (events, reply) = c
            .request(json!({"type":"create_table","options":{"seat":"X","public":false,"bot":{"level":"random","think_ms":0}}}))
            .await;
        assert_eq!(reply["type"], "ok", "game #{i}: {reply}");
        let state = last_table(&events).expect("the new table's state");
        let done = play_out(&mut c, state, Player::X).await;
        assert_eq!(done.status, TableStatus::RoundOver);
    }
    // A table in play still counts: ten waiting tables fill the limit.
    for _ in 0..10 {
        c.create(json!({"public":false})).await;
    }
    c.refused(
        json!({"type":"create_table","options":{}}),
        "too_many_tables",
    )
    .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_round_over_seat_is_released_when_its_player_walks_away() {
    let server = Server::with(Config {
        reconnect_grace: Duration::from_millis(300),
        ..config()
    })
    .await;
    let (mut x, mut o, table) = pair(&server, json!({"public":true})).await;
    x.ok(json!({"type":"forfeit","table_id":table})).await;
    o.table_until(|t| t.status == TableStatus::RoundOver).await;
    drop(x);
    // X walked away from the finished round: after the grace period the
    // seat is free again and the table waits for a new opponent.
    let state = o.table_until(|t| t.players.x.is_none()).await;
    assert_eq!(state.status, TableStatus::Waiting);
    server.stop().await;
}

/// A WebSocket client on a socket with a tiny receive buffer that says
/// hello, then sends requests and never reads a byte.
async fn non_reader(server: &Server) -> Link {
    let options = LinkOptions {
        recv_buffer: Some(4096),
        ..LinkOptions::default()
    };
    let mut link = Link::connect_to(server.addr, &server.ws_url(), options)
        .await
        .unwrap();
    link.send_text(&json!({"type":"hello","version":1}).to_string())
        .await
        .unwrap();
    link
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_stops_reading_is_closed_within_seconds() {
    let server = Server::start().await;
    // A lobby worth reading: 40 public tables (about 10 KB a listing).
    for p in 0..4 {
        let mut host = server.client(&format!("Host{p}")).await;
        for _ in 0..10 {
            host.create(json!({"public":true})).await;
        }
        std::mem::forget(host);
    }
    let before = server.metric("oxo_connections").await.unwrap();
    let too_slow = server
        .metric("oxo_closes_total{code=\"1008\"}")
        .await
        .unwrap();
    let mut ws = non_reader(&server).await;
    for id in 0..90 {
        let ask = json!({"type":"watch_lobby","id":id}).to_string();
        if ws.send_text(&ask).await.is_err() {
            break;
        }
    }
    // Never read. The server must give up on it within seconds.
    let mut closed = false;
    for _ in 0..100 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if server.metric("oxo_connections").await.unwrap() <= before {
            closed = true;
            break;
        }
    }
    assert!(
        closed,
        "a client that never reads still holds its connection"
    );
    assert_eq!(
        server
            .metric("oxo_closes_total{code=\"1008\"}")
            .await
            .unwrap(),
        too_slow + 1,
        "closed as too slow"
    );
    // Honest clients are unaffected.
    let (mut x, _o, table) = pair(&server, json!({})).await;
    x.play(&table, "b2").await;
    drop(ws);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn players_stay_in_memory_only_while_connected_or_seated() {
    let server = Server::start().await;
    let base = server
        .metric("oxo_players_loaded")
        .await
        .expect("a gauge of players in memory");
    let mut tokens = Vec::new();
    for i in 0..200 {
        let c = server.client(&format!("Passer{i}")).await;
        tokens.push(c.token.clone());
        drop(c);
    }
    let mut settled = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if server.metric("oxo_players_loaded").await.unwrap() <= base {
            settled = true;
            break;
        }
    }
    assert!(settled, "players who left are still held in memory");
    // They come back from the database with their tokens.
    let (c, welcome) = server.resume(&tokens[17]).await;
    assert_eq!(welcome["name"], "Passer17");
    assert_eq!(server.metric("oxo_players_loaded").await.unwrap(), base + 1);
    drop(c);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_players_per_address_are_rate_limited() {
    let server = Server::with(Config {
        new_players: RateLimit::new(0.01, 5),
        ..config()
    })
    .await;
    let mut first = None;
    for _ in 0..5 {
        let c = server.client("Fresh").await;
        first.get_or_insert(c.token.clone());
    }
    let mut c = server.connect().await;
    let (_, reply) = c.request(json!({"type":"hello","version":1})).await;
    assert_eq!(reply["type"], "error", "{reply}");
    assert_eq!(reply["code"], "rate_limited", "{reply}");
    assert!(reply["id"].is_u64(), "the refusal carries the id: {reply}");
    // A returning player is not a new one.
    let (_, welcome) = server.resume(first.as_deref().unwrap()).await;
    assert_eq!(welcome["type"], "welcome");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watching_again_costs_only_the_requester() {
    let server = Server::start().await;
    let (_x, _o, table) = pair(&server, json!({"public":true})).await;
    let mut spectators = Vec::new();
    for i in 0..5 {
        let mut s = server.client(&format!("Fan{i}")).await;
        s.ok(json!({"type":"watch_table","table_id":table})).await;
        spectators.push(s);
    }
    // Let the joins settle, then drain what they caused.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    for s in &mut spectators {
        while !s.quiet_for(Duration::from_millis(50)).await {}
    }
    let mut loud = spectators.pop().unwrap();
    for _ in 0..10 {
        let events = loud
            .ok(json!({"type":"watch_table","table_id":table}))
            .await;
        assert!(
            last_table(&events).is_some(),
            "the requester gets the state"
        );
    }
    for s in &mut spectators {
        let mut frames = 0;
        while !s.quiet_for(Duration::from_millis(1500)).await {
            frames += 1;
        }
        assert!(
            frames <= 1,
            "a spectator got {frames} frames from another's re-watching"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rate_limited_refusals_carry_the_request_id() {
    let server = Server::with(Config {
        rate_limit: RateLimit::new(0.5, 2),
        ..config()
    })
    .await;
    let mut c = server.connect().await;
    // The hello takes one token, a ping the other.
    c.send(json!({"type":"hello","version":1,"id":1})).await;
    assert_eq!(c.recv().await["type"], "welcome");
    for id in 2..6 {
        c.send(json!({"type":"ping","id":id})).await;
    }
    assert_eq!(c.recv().await, json!({"type":"pong","id":2}));
    for id in 3..6 {
        let reply = c.recv().await;
        assert_eq!(reply["code"], "rate_limited", "{reply}");
        assert_eq!(reply["id"], id, "{reply}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websocket_pings_count_against_the_rate_limit() {
    let server = Server::with(Config {
        rate_limit: RateLimit::new(1.0, 5),
        flood_refusals: 10,
        ..config()
    })
    .await;
    let mut c = server.client("Pinger").await;
    for _ in 0..60 {
        if c.ws()
            .send(Message::Ping(vec![1, 2, 3].into()))
            .await
            .is_err()
        {
            break;
        }
    }
    let mut limited = 0;
    let code = loop {
        match c.recv_any().await {
            Incoming::Msg(v) if v["code"] == "rate_limited" => limited += 1,
            Incoming::Msg(v) => panic!("unexpected {v}"),
            Incoming::Close(f) => break f.map(|f| u16::from(f.code)),
            Incoming::Ended => break None,
        }
    };
    assert!(limited > 0, "pings were not limited");
    assert_eq!(code, Some(1008));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_close_gets_a_close_frame_back_after_its_replies() {
    let server = Server::start().await;
    let (mut x, _o, table) = pair(&server, json!({})).await;
    x.send(json!({"type":"move","id":77,"table_id":table,"cell":"b2"}))
        .await;
    x.ws()
        .send(Message::Close(Some(CloseFrame {
            code: CloseCode::Normal,
            reason: "bye".into(),
        })))
        .await
        .unwrap();
    let mut got_ok = false;
    let code = loop {
        match x.recv_any().await {
            Incoming::Msg(v) => got_ok |= v["type"] == "ok" && v["id"] == 77,
            Incoming::Close(f) => break f.map(|f| u16::from(f.code)),
            Incoming::Ended => break None,
        }
    };
    assert_eq!(code, Some(1000), "the close handshake is answered");
    assert!(got_ok, "the reply to a move sent before the close arrives");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_connection_is_not_counted_as_a_protocol_error() {
    let server = Server::start().await;
    let protocol = server
        .metric("oxo_closes_total{code=\"1002\"}")
        .await
        .unwrap();
    let c = server.client("Gone").await;
    drop(c);
    let mut counted = false;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if server
            .metric("oxo_disconnects_total{how=\"no_close_frame\"}")
            .await
            .is_some_and(|n| n >= 1)
        {
            counted = true;
            break;
        }
    }
    assert!(
        counted,
        "a connection dropped without a close frame is counted as such"
    );
    assert_eq!(
        server
            .metric("oxo_closes_total{code=\"1002\"}")
            .await
            .unwrap(),
        protocol
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn move_replies_name_their_game_and_ply() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    let (events, reply) = x
        .request(json!({"type":"move","table_id":table,"cell":"b2"}))
        .await;
    let state = last_table(&events).unwrap();
    assert_eq!(reply["game_id"], json!(state.game_id), "{reply}");
    assert_eq!(reply["ply"], 1, "{reply}");
    let (_, reply) = o
        .request(json!({"type":"move","table_id":table,"cell":"a1"}))
        .await;
    assert_eq!(reply["ply"], 2, "{reply}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_move_is_never_applied_to_a_later_round() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({"starter":"x"})).await;
    let first = json!({"type":"move","id":7,"table_id":table,"cell":"a1"});
    x.send(first.clone()).await;
    let reply = x.until("ok").await;
    let round1 = reply["game_id"].clone();
    o.until("table").await;
    o.ok(json!({"type":"forfeit","table_id":table})).await;
    x.ok(json!({"type":"rematch","table_id":table})).await;
    o.ok(json!({"type":"rematch","table_id":table})).await;
    let state = x
        .table_until(|t| t.round == 2 && t.status == TableStatus::InProgress)
        .await;
    assert_eq!(state.turn, Some(Player::X));
    // The same request again (a retry whose reply was lost): acknowledged
    // as the round-1 move it was, and not played in round 2.
    x.send(first).await;
    let reply = x.until("ok").await;
    assert_eq!(reply["id"], 7);
    assert_eq!(reply["game_id"], round1, "{reply}");
    assert_eq!(reply["ply"], 1);
    x.ok(json!({"type":"sync","table_id":table})).await;
    let (events, _) = x.request(json!({"type":"sync","table_id":table})).await;
    assert_eq!(last_table(&events).unwrap().board, ".........");
    // From another connection (a page reload), the same request names its
    // round: still recognised.
    let (mut again, _) = server.resume(&x.token).await;
    again
        .send(json!({"type":"move","id":7,"table_id":table,"cell":"a1","game_id":round1}))
        .await;
    let reply = again.until("ok").await;
    assert_eq!(reply["game_id"], round1, "{reply}");
    // A new request meant for the finished round is refused, not moved
    // into this one.
    let msg = x
        .refused(
            json!({"type":"move","table_id":table,"cell":"c3","game_id":round1}),
            "game_over",
        )
        .await;
    assert!(msg.contains("over"), "{msg}");
    let _ = o;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn request_ids_above_two_to_the_53_are_bad_requests() {
    let server = Server::start().await;
    let mut c = server.client("Big").await;
    c.send_text(r#"{"type":"ping","id":9007199254740992}"#)
        .await;
    let reply: Value = c.recv().await;
    assert_eq!(reply["code"], "bad_request", "{reply}");
    assert!(reply.get("id").is_none(), "{reply}");
    c.send_text(r#"{"type":"ping","id":9007199254740991}"#)
        .await;
    assert_eq!(c.recv().await["type"], "pong");
    server.stop().await;
}

/// An id that is not a whole number from 0 to 2^53 − 1 (a fraction, a
/// negative number, a string) is refused with the range the protocol
/// takes, not the range of the server's integers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_id_of_the_wrong_shape_is_told_the_range_ids_take() {
    let server = Server::start().await;
    let mut c = server.client("Shapes").await;
    for id in ["1.5", "-1", "\"5\"", "true"] {
        c.send_text(&format!(r#"{{"type":"ping","id":{id}}}"#))
            .await;
        let reply: Value = c.recv().await;
        assert_eq!(reply["code"], "bad_request", "{id}: {reply}");
        let message = reply["message"].as_str().unwrap_or_default();
        assert!(
            message.contains("from 0 to 9007199254740991"),
            "{id}: {message}"
        );
        assert!(!message.contains("18446744073709551615"), "{id}: {message}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sync_needs_a_seat_or_a_watch() {
    let server = Server::start().await;
    let (_x, _o, table) = pair(&server, json!({})).await;
    let mut stranger = server.client("Stranger").await;
    stranger
        .refused(json!({"type":"sync","table_id":table}), "not_seated")
        .await;
    stranger
        .ok(json!({"type":"watch_table","table_id":table}))
        .await;
    stranger.ok(json!({"type":"sync","table_id":table})).await;
    server.stop().await;
}
