//! Limits: frame size, binary frames, floods, malformed input, connections,
//! tables per player, idle connections, `hello` first.

use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use oxo_client::tungstenite::Message;
use oxo_server::{Config, RateLimit};
use serde_json::json;

use crate::common::{Server, config, pair};

#[tokio::test]
async fn a_frame_over_the_limit_is_refused_and_closes_1009() {
    let server = Server::start().await;
    let mut c = server.client("Big").await;
    let text = format!(
        r#"{{"type":"chat","table_id":"t","text":"{}"}}"#,
        "z".repeat(oxo_protocol::limits::MAX_FRAME_BYTES)
    );
    c.send_text(&text).await;
    let e = c.recv().await;
    assert_eq!(e["code"], "bad_request");
    let (code, reason) = c.expect_close().await;
    assert_eq!(code, 1009);
    assert!(reason.contains("4096"), "{reason}");
    // Far over what the WebSocket layer reads, with more frames behind:
    // the client still gets the close frame that says why (not a reset
    // for the bytes the server left unread).
    for _ in 0..5 {
        let mut d = server.client("Huge").await;
        let _ = d.ws().feed(Message::text("q".repeat(200_000))).await;
        for _ in 0..20 {
            let _ = d.ws().feed(Message::text(r#"{"type":"ping"}"#)).await;
        }
        let _ = d.ws().flush().await;
        match d.recv_any().await {
            crate::common::Incoming::Close(Some(f)) => {
                assert_eq!(u16::from(f.code), 1009);
                assert!(f.reason.contains("at most 4096 bytes"), "{}", f.reason);
            }
            other => panic!("no close frame: {other:?}"),
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn a_frame_the_websocket_layer_refuses_ends_with_its_close_frame_not_a_reset() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = Server::start().await;
    let mut raw = crate::raw_ws::RawWs::connect(&server).await;
    // A 20,000-byte text frame (past the 16 KiB the layer reads), and
    // frames behind it: the server stops reading in their middle.
    let mut bytes = vec![0x81, 0x80 | 126];
    bytes.extend_from_slice(&20_000_u16.to_be_bytes());
    bytes.extend_from_slice(&[1, 2, 3, 4]);
    bytes.extend(std::iter::repeat_n(b'q', 20_000));
    for _ in 0..20 {
        bytes.extend_from_slice(&[0x89, 0x80, 1, 2, 3, 4]);
    }
    raw.tcp.write_all(&bytes).await.expect("sent");
    assert_eq!(raw.close_code().await, 1009);
    // Then the end of the stream: a reset would let a client (a browser,
    // Node's ws) drop the close frame before reading it.
    let mut rest = Vec::new();
    let end = tokio::time::timeout(Duration::from_secs(5), raw.tcp.read_to_end(&mut rest))
        .await
        .expect("the end in time");
    assert!(end.is_ok(), "{end:?}");
    server.stop().await;
}

#[tokio::test]
async fn a_binary_frame_closes_1003() {
    let server = Server::start().await;
    let mut c = server.client("Bin").await;
    futures_util::SinkExt::send(c.ws(), Message::binary(vec![1, 2, 3]))
        .await
        .unwrap();
    let (code, reason) = c.expect_close().await;
    assert_eq!(code, 1003);
    assert!(reason.contains("binary"), "{reason}");
    server.stop().await;
}

#[tokio::test]
async fn a_flood_is_rate_limited_then_closed_1008() {
    let server = Server::with(Config {
        rate_limit: RateLimit::new(5.0, 5),
        flood_refusals: 20,
        ..config()
    })
    .await;
    let mut c = server.client("Flo").await;
    let mut bystander = server.client("Bea").await;
    for _ in 0..60 {
        c.send(json!({"type":"ping"})).await;
    }
    let mut pongs = 0;
    let mut limited = 0;
    let close = loop {
        match c.recv_any().await {
            crate::common::Incoming::Msg(m) if m["type"] == "pong" => pongs += 1,
            crate::common::Incoming::Msg(m) => {
                assert_eq!(m["code"], "rate_limited", "{m}");
                limited += 1;
            }
            crate::common::Incoming::Close(f) => break f.expect("a close frame"),
            crate::common::Incoming::Ended => panic!("closed without a reason"),
        }
    };
    assert!((4..=6).contains(&pongs), "{pongs} pongs");
    assert!(limited >= 15, "{limited} refusals");
    assert_eq!(u16::from(close.code), 1008);
    assert!(close.reason.contains("rate limit"), "{}", close.reason);
    // Nobody else was affected.
    bystander.send(json!({"type":"ping","id":1})).await;
    assert_eq!(bystander.recv().await["type"], "pong");
    server.stop().await;
}

#[tokio::test]
async fn malformed_requests_are_refused_without_harm_to_anyone() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    let mut m = server.client("Mal").await;
    let cases = [
        ("{not json", "key must be a string"),
        ("[1,2,3]", "invalid type"),
        (r#"{"type":"fly"}"#, "unknown variant `fly`"),
        (r#"{"no_type":1}"#, "missing field `type`"),
        (
            r#"{"type":"move","table_id":7,"cell":"a1"}"#,
            "invalid type: integer `7`, expected a string",
        ),
        (r#"{"type":"move","table_id":"t","cell":"d4"}"#, "d4"),
        (r#"{"type":"move","table_id":"t","cell":9}"#, "9"),
        (
            r#"{"type":"move","table_id":"t","cell":1e300}"#,
            "invalid type: floating point",
        ),
        (r#"{"type":"move","table_id":"t","cell":-1}"#, "-1"),
        (
            r#"{"type":"move","id":99999999999999999999999,"table_id":"t","cell":"a1"}"#,
            "id",
        ),
        (
            r#"{"type":"move","id":-3,"table_id":"t","cell":"a1"}"#,
            "invalid value: integer `-3`",
        ),
        // A client author's words for the expected type, not Rust's.
        (
            r#"{"type":"create_table","options":{"move_time_ms":1e99}}"#,
            "expected a whole number of milliseconds from 1000 to 600000 for options.move_time_ms",
        ),
        (
            r#"{"type":"create_table","options":{"move_time_ms":4294967296}}"#,
            "options.move_time_ms 4294967296 is too large",
        ),
        (
            r#"{"type":"create_table","options":{"move_time_ms":"1000"}}"#,
            "invalid type: string \"1000\", expected a whole number of milliseconds from 1000 to 600000",
        ),
        (
            r#"{"type":"ping","id":"7"}"#,
            "expected a whole number from 0 to 9007199254740991 for id",
        ),
        (
            r#"{"type":"create_table","options":{"starter":3}}"#,
            "invalid type: integer `3`, expected a string",
        ),
        (r#"{"type":"chat","table_id":"t"}"#, "missing field `text`"),
        (r#"{"type":0,"version":1}"#, "\"type\" must be a string"),
        (
            r#"{"type":"create_table","options":[false,"o"]}"#,
            "expected an object",
        ),
        ("", "the message is empty"),
    ];
    for (text, needle) in cases {
        m.send_text(text).await;
        let e = m.recv().await;
        assert_eq!(e["type"], "error", "{text}");
        assert_eq!(e["code"], "bad_request", "{text}");
        let message = e["message"].as_str().unwrap();
        assert!(message.contains(needle), "{text}: {message}");
        // Meanwhile the game next door goes on.
    }
    x.play(&table, "a1").await;
    o.play(&table, "b1").await;
    m.send(json!({"type":"ping","id":3})).await;
    assert_eq!(m.recv().await["type"], "pong");
    server.stop().await;
}

#[tokio::test]
async fn connections_over_the_maximum_are_told_the_server_is_full() {
    let server = Server::with(Config {
        max_connections: 2,
        ..config()
    })
    .await;
    let a = server.client("A").await;
    let _b = server.client("B").await;
    let mut c = server.connect().await;
    let e = c.recv().await;
    assert_eq!(e["code"], "server_full");
    let (code, reason) = c.expect_close().await;
    assert_eq!((code, reason.as_str()), (1013, "server full"));
    let (_, metrics) = server.get("/metrics").await;
    assert!(
        metrics.contains("oxo_connections_refused_total 1"),
        "{metrics}"
    );
    assert!(
        metrics.contains("oxo_refusals_total{code=\"server_full\"} 1")
            && metrics.contains("oxo_closes_total{code=\"1013\"} 1"),
        "{metrics}"
    );
    // A slot frees up when a client leaves.
    drop(a);
    tokio::time::sleep(Duration::from_millis(100)).await;
    server.client("D").await;
    server.stop().await;
}

#[tokio::test]
async fn tables_per_player_are_limited() {
    let server = Server::with(Config {
        max_tables_per_player: 2,
        ..config()
    })
    .await;
    let mut p = server.client("Tab").await;
    let t1 = p.create(json!({})).await.id;
    p.create(json!({})).await;
    p.refused(json!({"type":"create_table"}), "too_many_tables")
        .await;
    let mut q = server.client("Q").await;
    let t3 = q.create(json!({})).await.id;
    p.refused(
        json!({"type":"join_table","table_id":t3}),
        "too_many_tables",
    )
    .await;
    // Leaving one frees a slot.
    p.ok(json!({"type":"leave_table","table_id":t1})).await;
    p.ok(json!({"type":"join_table","table_id":t3})).await;
    server.stop().await;
}

#[tokio::test]
async fn an_idle_connection_is_closed_and_a_live_one_kept() {
    let server = Server::with(Config {
        idle_timeout: Duration::from_millis(400),
        ping_interval: Duration::from_secs(60),
        ..config()
    })
    .await;
    let mut idle = server.client("Idle").await;
    // It reads nothing, so answers no ping (they come every half timeout).
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let (code, reason) = idle.expect_close().await;
    assert_eq!((code, reason.as_str()), (1001, "idle timeout"));
    server.stop().await;

    // With pings more often than the timeout, a client that answers them
    // (tungstenite does, while it reads) stays.
    let server = Server::with(Config {
        idle_timeout: Duration::from_millis(400),
        ping_interval: Duration::from_millis(100),
        ..config()
    })
    .await;
    let mut live = server.client("Live").await;
    assert!(live.quiet_for(Duration::from_millis(1000)).await);
    live.send(json!({"type":"ping","id":1})).await;
    assert_eq!(live.recv().await["type"], "pong");
    server.stop().await;
}

#[tokio::test]
async fn hello_must_come_first() {
    let server = Server::start().await;
    let mut c = server.connect().await;
    for _ in 0..3 {
        c.send(json!({"type":"watch_lobby"})).await;
    }
    for _ in 0..3 {
        assert_eq!(c.recv().await["code"], "hello_required");
    }
    let (code, reason) = c.expect_close().await;
    assert_eq!(code, 1008);
    assert!(reason.contains("hello"), "{reason}");
    // Unreadable messages count the same.
    let mut c = server.connect().await;
    c.send_text("{").await;
    c.send(json!({"type":"fly"})).await;
    c.send(json!({"type":"ping"})).await;
    for code in ["bad_request", "bad_request", "hello_required"] {
        assert_eq!(c.recv().await["code"], code);
    }
    let (code, _) = c.expect_close().await;
    assert_eq!(code, 1008);
    server.stop().await;
}

#[tokio::test]
async fn shutdown_says_closing_and_closes_1001() {
    let server = Server::start().await;
    let mut c = server.client("Sam").await;
    let stop = tokio::spawn(server.stop());
    let bye = c.recv().await;
    assert_eq!(bye["type"], "closing");
    let (code, _) = c.expect_close().await;
    assert_eq!(code, 1001);
    stop.await.unwrap();
}

#[tokio::test]
async fn one_address_holds_at_most_its_cap_of_websockets() {
    let server = Server::with(Config {
        max_connections_per_address: 2,
        ..config()
    })
    .await;
    let a = server.client("A").await;
    let mut b = server.client("B").await;
    let mut c = server.connect().await;
    let e = c.recv().await;
    assert_eq!(e["code"], "server_full");
    assert!(
        e["message"]
            .as_str()
            .is_some_and(|m| m.contains("from your address")),
        "{e}"
    );
    let (code, reason) = c.expect_close().await;
    assert_eq!(
        (code, reason.as_str()),
        (1013, "too many connections from your address")
    );
    assert_eq!(server.metric("oxo_address_refusals_total").await, Some(1));
    // Counted with every refusal and close, as docs/protocol.md says.
    assert_eq!(
        server
            .metric(r#"oxo_refusals_total{code="server_full"}"#)
            .await,
        Some(1)
    );
    assert_eq!(
        server.metric(r#"oxo_closes_total{code="1013"}"#).await,
        Some(1)
    );
    // The others go on, and a place frees up when one leaves.
    b.send(json!({"type":"ping","id":1})).await;
    assert_eq!(b.recv().await["type"], "pong");
    drop(a);
    tokio::time::sleep(Duration::from_millis(100)).await;
    server.client("D").await;
    server.stop().await;
}

#[tokio::test]
async fn one_address_holds_at_most_so_many_plain_http_connections_and_the_next_wait_in_line() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    // With at most one WebSocket per address, one connection may wait.
    let server = Server::with(Config {
        max_connections_per_address: 1,
        ..config()
    })
    .await;
    let cap = usize::try_from(Config::HTTP_PER_ADDRESS).expect("small");
    let mut held = Vec::new();
    for _ in 0..cap {
        held.push(
            tokio::net::TcpStream::connect(server.addr)
                .await
                .expect("connect"),
        );
    }
    // The next waits for a place: its request is not read meanwhile.
    let mut waiting = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    waiting
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        .await
        .expect("write");
    let mut buf = [0; 1024];
    let early = tokio::time::timeout(Duration::from_millis(300), waiting.read(&mut buf)).await;
    assert!(
        early.is_err(),
        "answered while every place was held: {early:?}"
    );
    // One more than the line holds is closed at once, without a response.
    let mut extra = tokio::net::TcpStream::connect(server.addr)
        .await
        .expect("connect");
    let read = tokio::time::timeout(Duration::from_secs(5), extra.read(&mut buf)).await;
    assert!(matches!(read, Ok(Ok(0) | Err(_))), "{read:?}");
    // A place frees up: the one in line is served.
    drop(held.pop());
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(5), waiting.read_to_end(&mut answer))
        .await
        .expect("answered once a place freed up")
        .expect("read");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    // Places free up as connections close.
    drop(held);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let (status, _) = server.get("/healthz").await;
    assert_eq!(status, 200);
    server.stop().await;
}

#[tokio::test]
async fn hundreds_of_websockets_opened_at_once_from_one_address_are_all_answered() {
    // The default caps (64 in their HTTP phase, 1,000 WebSockets): a
    // client that opens 300 in the same instant gets every one.
    let server = Server::with(Config {
        max_connections_per_address: Config::default().max_connections_per_address,
        ..config()
    })
    .await;
    let url = server.ws_url();
    let opens = (0..300).map(|i| {
        let url = url.clone();
        tokio::spawn(async move {
            let (mut ws, _) = tokio_tungstenite::connect_async(url.as_str())
                .await
                .map_err(|e| format!("open {i}: {e}"))?;
            let hello = json!({"type":"hello","version":1,"name":format!("Burst{i}")});
            ws.send(Message::text(hello.to_string()))
                .await
                .map_err(|e| format!("send {i}: {e}"))?;
            match ws.next().await {
                Some(Ok(Message::Text(text))) if text.contains("\"welcome\"") => Ok(ws),
                other => Err(format!("{i}: {other:?}")),
            }
        })
    });
    let mut open = Vec::new();
    let mut failed = Vec::new();
    for opened in futures_util::future::join_all(opens).await {
        match opened.expect("joined") {
            Ok(ws) => open.push(ws),
            Err(e) => failed.push(e),
        }
    }
    assert!(
        failed.is_empty(),
        "{} of 300 failed: {:?}",
        failed.len(),
        &failed[..failed.len().min(3)]
    );
    assert_eq!(server.metric("oxo_address_refusals_total").await, Some(0));
    drop(open);
    server.stop().await;
}

#[tokio::test]
async fn a_plain_http_connection_that_never_reads_is_closed_after_its_lifetime() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let lifetime = Duration::from_millis(500);
    let server = Server::with(Config {
        http_lifetime: lifetime,
        write_timeout: Duration::from_millis(500),
        ..config()
    })
    .await;
    // A WebSocket outlives the HTTP lifetime.
    let mut ws = server.client("Wes").await;
    // Requests for a large file, pipelined, the answers never read.
    let socket =
        socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).expect("socket");
    socket.set_recv_buffer_size(2048).expect("small buffer");
    socket.connect(&server.addr.into()).expect("connect");
    socket.set_nonblocking(true).expect("nonblocking");
    let mut tcp = tokio::net::TcpStream::from_std(socket.into()).expect("tokio");
    let request = b"GET /js/game.js HTTP/1.1\r\nHost: test\r\n\r\n".repeat(200);
    let _ = tokio::time::timeout(Duration::from_secs(1), tcp.write_all(&request)).await;
    tokio::time::sleep(lifetime * 4).await;
    // Closed: what was sent drains, then the end of the stream.
    let mut buf = vec![0; 64 * 1024];
    let drained = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match tcp.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(drained.is_ok(), "the connection was kept open");
    assert_eq!(server.metric("oxo_http_expired_total").await, Some(1));
    ws.send(json!({"type":"ping","id":1})).await;
    assert_eq!(ws.recv().await["type"], "pong");
    server.stop().await;
}

#[tokio::test]
async fn a_rematch_counts_against_the_seat_limit() {
    let server = Server::with(Config {
        max_tables_per_player: 2,
        ..config()
    })
    .await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    x.ok(json!({"type":"forfeit","table_id":table})).await;
    // Xena asks for another round, then fills her seats elsewhere (a
    // finished round does not count).
    x.ok(json!({"type":"rematch","table_id":table})).await;
    x.create(json!({})).await;
    x.create(json!({})).await;
    // The round would be her third in play: Otto's rematch is refused.
    let says = o
        .refused(
            json!({"type":"rematch","table_id":table}),
            "too_many_tables",
        )
        .await;
    assert!(says.contains("Your opponent"), "{says}");
    // And her own ask, now that she is full.
    x.refused(
        json!({"type":"rematch","table_id":table}),
        "too_many_tables",
    )
    .await;
    server.stop().await;
}

#[tokio::test]
async fn new_rounds_are_rate_limited_per_player() {
    let server = Server::with(Config {
        max_tables_per_player: 100,
        rounds_limit: RateLimit::new(0.01, 3),
        ..config()
    })
    .await;
    let mut p = server.client("Quick").await;
    let t = p.create(json!({"pass_and_play": true})).await.id;
    p.ok(json!({"type":"forfeit","table_id":t})).await;
    p.ok(json!({"type":"rematch","table_id":t})).await;
    p.create(json!({})).await;
    // A second connection of the same player shares the bucket.
    let token = p.token.clone();
    let (mut q, _) = server.resume(&token).await;
    let says = q
        .refused(json!({"type":"create_table"}), "rate_limited")
        .await;
    assert!(says.contains("new games"), "{says}");
    p.refused(json!({"type":"rematch","table_id":t}), "rate_limited")
        .await;
    server.stop().await;
}

/// A `join_table` that starts a round makes a game as a rematch does: it
/// counts against the joiner's new games, or joining and leaving one
/// table would write game records without end. Coming back to a seat
/// (a join that starts nothing) is never counted.
#[tokio::test]
async fn a_join_that_starts_a_round_counts_as_a_new_game() {
    let server = Server::with(Config {
        rounds_limit: RateLimit::new(0.01, 3),
        ..config()
    })
    .await;
    let mut owner = server.client("Owner").await;
    let t = owner.create(json!({"seat": "X"})).await.id;
    let mut joiner = server.client("Joiner").await;
    for _ in 0..3 {
        joiner.ok(json!({"type":"join_table","table_id":t})).await;
        joiner.ok(json!({"type":"leave_table","table_id":t})).await;
    }
    let says = joiner
        .refused(json!({"type":"join_table","table_id":t}), "rate_limited")
        .await;
    assert!(says.contains("new games"), "{says}");
    // The refused join changed nothing: the table still waits.
    let state = owner.ok(json!({"type":"sync","table_id":t})).await;
    let state = crate::common::last_table(&state).expect("a table state");
    assert_eq!(state.status, oxo_protocol::TableStatus::Waiting);
    assert_eq!(state.round, 3);
    // The owner re-joining their own seat starts nothing and is not counted.
    for _ in 0..5 {
        owner.ok(json!({"type":"join_table","table_id":t})).await;
    }
    server.stop().await;
}

/// A connection is at 64 tables in play at most; a request a table
/// refuses (the connection is not at it) takes none of those places, so a
/// client refused at many tables may still watch one.
#[tokio::test]
async fn refused_requests_take_no_place_among_a_connections_tables() {
    let server = Server::with(Config {
        max_tables_per_player: 40,
        rate_limit: RateLimit::UNLIMITED,
        ..config()
    })
    .await;
    let mut tables = Vec::new();
    for (name, n) in [("Ann", 40), ("Bea", 26)] {
        let mut owner = server.client(name).await;
        for _ in 0..n {
            tables.push(owner.create(json!({"public": false})).await.id);
        }
    }
    let mut s = server.client("Stranger").await;
    for (i, t) in tables[..64].iter().enumerate() {
        let kind = ["sync", "chat_history", "forfeit", "rematch"][i % 4];
        s.refused(json!({"type":kind,"table_id":t}), "not_seated")
            .await;
    }
    // At none of them: it may watch another.
    s.ok(json!({"type":"watch_table","table_id":tables[64]}))
        .await;
    for t in &tables[..63] {
        s.ok(json!({"type":"watch_table","table_id":t})).await;
    }
    // Now at 64 tables in play: the limit holds.
    let message = s
        .refused(
            json!({"type":"watch_table","table_id":tables[65]}),
            "too_many_tables",
        )
        .await;
    assert!(message.contains("64"), "{message}");
    server.stop().await;
}
