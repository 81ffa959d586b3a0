//! Hostile and broken clients: each attack is refused cleanly (the right
//! error code or close code, counted in `/metrics`) while an honest game on
//! the same server goes on with its usual latency.
//!
//! Every test runs its attack inside [`under_attack`], which plays an
//! honest game in the background and repeats the attack (with fresh
//! connections) until the honest game has made [`HONEST_MOVES`] moves, so
//! that every honest move is timed while an attack is going on: from
//! sending it to reading its `ok`. Afterwards every move must have been
//! accepted, rounds must have kept finishing, and the round trips must have
//! stayed short: median under [`HONEST_P50`], 95th percentile under
//! [`HONEST_P95`], and none over [`HONEST_MAX`].

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use oxo_client::tungstenite::Message;
use oxo_protocol::TableStatus;
use oxo_server::Config;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::common::{Client, Incoming, Server, WAIT, config, last_table, pair};
use crate::raw_ws::RawWs;

/// The most an honest move's round trip may take at the 95th percentile
/// while an attack runs, in a debug build on a shared two-core machine with
/// the other tests running in parallel. Measured there: medians of 1-3 ms,
/// 95th percentiles under 15 ms, and a rare slowest move of up to 110 ms
/// (the scheduler, not the server). A server that let an attack hold up
/// its accept loop, a table or the store would be far slower.
const HONEST_P95: Duration = Duration::from_millis(50);

/// The most the median honest round trip may take under attack.
const HONEST_P50: Duration = Duration::from_millis(10);

/// No honest move may take longer than this: a stall, not noise.
const HONEST_MAX: Duration = Duration::from_millis(1000);

/// The attack is repeated until the honest game has made this many moves.
const HONEST_MOVES: usize = 60;

/// The pause between honest moves: a brisk human, and well inside the
/// default rate limit (50 messages a second per connection).
const HONEST_PACE: Duration = Duration::from_millis(15);

/// What the honest game did while an attack ran.
#[derive(Debug)]
struct Honest {
    latencies: Vec<Duration>,
    rounds: u32,
}

/// Plays X-wins-in-five rounds with rematches at a fresh table until
/// `stop`, finishing the round in progress, counting moves in `moves`;
/// returns every move's round trip. Panics if any move or rematch is
/// refused.
async fn honest_game(server: &Server, stop: Arc<AtomicBool>, moves: Arc<AtomicUsize>) -> Honest {
    let (mut x, mut o, table) = pair(server, json!({"public": false})).await;
    let mut honest = Honest {
        latencies: Vec::new(),
        rounds: 0,
    };
    loop {
        for (ply, cell) in ["a1", "b1", "a2", "b2", "a3"].into_iter().enumerate() {
            let by_x = ply % 2 == 0;
            let mover = if by_x { &mut x } else { &mut o };
            tokio::time::sleep(HONEST_PACE).await;
            let sent = Instant::now();
            let state = mover.play(&table, cell).await;
            honest.latencies.push(sent.elapsed());
            moves.fetch_add(1, Relaxed);
            if cell == "a3" {
                assert_eq!(state.status, TableStatus::RoundOver, "{state:?}");
                assert_eq!(state.scores.x, honest.rounds + 1, "{state:?}");
            }
        }
        honest.rounds += 1;
        if stop.load(Relaxed) {
            return honest;
        }
        x.ok(json!({"type":"rematch","table_id":table})).await;
        let events = o.ok(json!({"type":"rematch","table_id":table})).await;
        let next = last_table(&events).expect("the new round's state");
        assert_eq!(next.status, TableStatus::InProgress, "{next:?}");
    }
}

/// Runs `attack` over and over while an honest game is played on the same
/// server, until the honest game has made [`HONEST_MOVES`] moves; then
/// checks they were all accepted and quick. Returns how many times the
/// attack ran.
async fn under_attack<F: Future<Output = ()>>(
    server: &Server,
    mut attack: impl FnMut() -> F,
) -> u64 {
    let stop = Arc::new(AtomicBool::new(false));
    let moves = Arc::new(AtomicUsize::new(0));
    let honest = tokio::spawn({
        let view = server.view();
        let (stop, moves) = (Arc::clone(&stop), Arc::clone(&moves));
        async move { honest_game(&view, stop, moves).await }
    });
    // Let the honest game get going before the attack starts.
    while moves.load(Relaxed) == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let mut runs = 0;
    while runs == 0 || moves.load(Relaxed) < HONEST_MOVES {
        attack().await;
        runs += 1;
    }
    stop.store(true, Relaxed);
    let honest = tokio::time::timeout(Duration::from_secs(20), honest)
        .await
        .expect("the honest game finishes its round")
        .expect("the honest game never had a move refused");
    let mut sorted = honest.latencies.clone();
    sorted.sort();
    let at = |q: usize| sorted[(sorted.len() * q).div_ceil(100) - 1];
    let (p50, p95, max) = (at(50), at(95), at(100));
    eprintln!(
        "{runs} attacks; honest game: {} rounds, {} moves, p50 {p50:?}, p95 {p95:?}, max {max:?}",
        honest.rounds,
        sorted.len(),
    );
    for (value, bound, what) in [
        (p50, HONEST_P50, "median"),
        (p95, HONEST_P95, "95th percentile"),
        (max, HONEST_MAX, "slowest"),
    ] {
        assert!(
            value < bound,
            "honest moves slowed down under attack: {what} {value:?} over {} moves",
            sorted.len()
        );
    }
    runs
}

/// `oxo_refusals_total{code="..."}` from `/metrics`.
async fn refusals(server: &Server, code: &str) -> u64 {
    metric(server, &format!("oxo_refusals_total{{code=\"{code}\"}}")).await
}

/// `oxo_closes_total{code="..."}` from `/metrics`: WebSockets the server
/// closed with `code`.
async fn closes(server: &Server, code: u16) -> u64 {
    metric(server, &format!("oxo_closes_total{{code=\"{code}\"}}")).await
}

/// One sample from `/metrics`, by name and labels.
async fn metric(server: &Server, series: &str) -> u64 {
    server
        .metric(series)
        .await
        .unwrap_or_else(|| panic!("no {series} in /metrics"))
}

/// Reads until the close frame; `None` if the connection ended without one.
async fn close_code(c: &mut Client) -> Option<u16> {
    loop {
        match c.recv_any().await {
            Incoming::Msg(_) => {}
            Incoming::Close(Some(f)) => return Some(u16::from(f.code)),
            Incoming::Close(None) | Incoming::Ended => return None,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_over_the_size_limit_close_1009() {
    let owned = Server::start().await;
    let server = &owned;
    let runs = under_attack(server, || async move {
        let mut attackers = Vec::new();
        for i in 0..20 {
            attackers.push(async move {
                let mut c = server.client("Big").await;
                // Just over the protocol's limit: refused and closed by the
                // client's protocol side, with a reason.
                let text = format!(
                    r#"{{"type":"chat","table_id":"t","text":"{}"}}"#,
                    "z".repeat(4096)
                );
                c.send_text(&text).await;
                assert_eq!(c.recv().await["code"], "bad_request");
                let (code, reason) = c.expect_close().await;
                assert_eq!(code, 1009, "{reason}");
                // Far over the transport's limit (16 KiB): the WebSocket
                // layer refuses to buffer it, and the connection ends.
                let mut d = server.client("Huge").await;
                let big = "q".repeat(64 * 1024 + i);
                let _ = d.ws().send(Message::text(big)).await;
                let code = close_code(&mut d).await;
                assert!(matches!(code, Some(1009) | None), "{code:?}");
            });
        }
        futures_util::future::join_all(attackers).await;
    })
    .await;
    assert!(refusals(server, "bad_request").await >= 20 * runs);
    // Both kinds: the protocol side's and the WebSocket layer's.
    assert_eq!(closes(server, 1009).await, 40 * runs);
    owned.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn binary_frames_close_1003() {
    let owned = Server::start().await;
    let server = &owned;
    let runs = under_attack(server, || async move {
        let attackers = (0..20).map(|i| async move {
            let mut c = if i % 2 == 0 {
                server.client("Bin").await
            } else {
                server.connect().await
            };
            c.ws()
                .send(Message::binary(vec![0xde, 0xad, 0xbe, 0xef]))
                .await
                .unwrap();
            let (code, reason) = c.expect_close().await;
            assert_eq!(code, 1003, "{reason}");
        });
        futures_util::future::join_all(attackers).await;
    })
    .await;
    assert_eq!(closes(server, 1003).await, 20 * runs);
    owned.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_frames_of_invalid_utf8_close_1007() {
    let owned = Server::start().await;
    let server = &owned;
    let runs = under_attack(server, || async move {
        // A stray byte, an overlong '/', a UTF-16 surrogate, a truncated
        // sequence: none is UTF-8.
        for bad in [
            &b"{\"type\":\"ping\",\"x\":\"\xff\"}"[..],
            b"{\"type\":\"ping\",\"x\":\"\xc0\xaf\"}",
            b"{\"type\":\"ping\",\"x\":\"\xed\xa0\x80\"}",
            b"{\"type\":\"ping\",\"x\":\"\xe2\x82",
        ] {
            let mut raw = RawWs::connect(server).await;
            raw.frame(true, 0x1, br#"{"type":"hello","version":1}"#)
                .await;
            raw.frame(true, 0x1, bad).await;
            let (code, reason) = raw.close_frame().await;
            assert_eq!(code, 1007, "{bad:?}");
            // Says what is accepted, not the decoder's garbled bytes.
            assert_eq!(
                reason, "text frames and close reasons must be valid UTF-8",
                "{bad:?}"
            );
        }
        // Split across fragments: each valid on its own byte boundary, the
        // whole not.
        let mut raw = RawWs::connect(server).await;
        raw.frame(false, 0x1, b"{\"type\":\"ping\",\"x\":\"\xe2\x82")
            .await;
        raw.frame(true, 0x0, b"\x41\"}").await;
        assert_eq!(raw.close_code().await, 1007);
    })
    .await;
    assert_eq!(closes(server, 1007).await, 5 * runs);
    owned.stop().await;
}

/// A close frame whose reason is not UTF-8 is refused with 1007 too, and
/// the reason says so: the client's text frames were fine, so a reason
/// that blamed them would send its author looking in the wrong place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_close_frame_whose_reason_is_not_utf8_is_told_so() {
    let server = Server::start().await;
    let mut raw = RawWs::connect(&server).await;
    raw.frame(true, 0x1, br#"{"type":"hello","version":1}"#)
        .await;
    raw.frame(true, 0x8, b"\x03\xe8bye \xff").await;
    let (code, reason) = raw.close_frame().await;
    assert_eq!(code, 1007, "{reason}");
    assert_eq!(
        reason, "text frames and close reasons must be valid UTF-8",
        "names both places UTF-8 is required"
    );
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deeply_nested_json_is_refused() {
    let owned = Server::start().await;
    let server = &owned;
    let runs = under_attack(server, || async move {
        let mut c = server.client("Deep").await;
        // 2,000 deep fits in a frame: serde_json's recursion limit (128)
        // refuses it, and the connection goes on.
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            let depth = 4000 / (open.len() + close.len()) - 10;
            let text = format!(
                r#"{{"type":"ping","id":7,"x":{}1{}}}"#,
                open.repeat(depth),
                close.repeat(depth)
            );
            assert!(text.len() <= oxo_protocol::limits::MAX_FRAME_BYTES);
            c.send_text(&text).await;
            let e = c.recv().await;
            assert_eq!(e["code"], "bad_request", "{e}");
            let message = e["message"].as_str().unwrap();
            assert!(message.contains("recursion limit"), "{message}");
        }
        // Unclosed, so that nothing but the depth can fail.
        c.send_text(&format!(r#"{{"x":{}"#, "[".repeat(4000))).await;
        let e = c.recv().await;
        assert!(
            e["message"].as_str().unwrap().contains("recursion limit"),
            "{e}"
        );
        c.send(json!({"type":"ping","id":8})).await;
        assert_eq!(c.recv().await, json!({"type":"pong","id":8}));
        // 10,000 deep is 10 KB: over the frame limit before any parsing.
        c.send_text(&format!(r#"{{"x":{}}}"#, "[".repeat(10_000)))
            .await;
        let e = c.recv().await;
        assert_eq!(e["code"], "bad_request", "{e}");
        let (code, reason) = c.expect_close().await;
        assert_eq!(code, 1009, "{reason}");
    })
    .await;
    assert!(refusals(server, "bad_request").await >= 4 * runs);
    assert_eq!(closes(server, 1009).await, runs);
    owned.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numbers_out_of_range_are_refused_and_never_wrap() {
    let owned = Server::start().await;
    let server = &owned;
    let runs = under_attack(server, || async move {
        // Before hello: a version that does not fit in 32 bits is not
        // version 1 modulo 2^32, but a version this server does not speak.
        let mut c = server.connect().await;
        c.send_text(r#"{"type":"hello","version":4294967297}"#)
            .await;
        assert_eq!(c.recv().await["code"], "unsupported_version");
        c.send_text(r#"{"type":"hello","version":1e999}"#).await;
        assert_eq!(c.recv().await["code"], "bad_request");
        c.hello(json!({"type":"hello","version":1,"name":"Numa"}))
            .await;
        let mut o = server.client("Otto").await;
        let table = c.create(json!({"seat":"X"})).await.id.to_string();
        o.ok(json!({"type":"join_table","table_id":table})).await;
        // Cells that would be b2 (index 4) if truncated to 8 or 32 bits,
        // and other numbers no cell has.
        let bad = [
            r#"{"type":"move","table_id":"T","cell":260}"#,
            r#"{"type":"move","table_id":"T","cell":4294967300}"#,
            r#"{"type":"move","table_id":"T","cell":18446744073709551620}"#,
            r#"{"type":"move","table_id":"T","cell":1e999}"#,
            r#"{"type":"move","table_id":"T","cell":4.0}"#,
            r#"{"type":"move","table_id":"T","cell":-4}"#,
            r#"{"type":"move","id":18446744073709551616,"table_id":"T","cell":"a1"}"#,
            r#"{"type":"move","id":1e400,"table_id":"T","cell":"a1"}"#,
            r#"{"type":"move","id":1.5,"table_id":"T","cell":"a1"}"#,
            r#"{"type":"create_table","options":{"move_time_ms":0}}"#,
            r#"{"type":"create_table","options":{"move_time_ms":4294967295}}"#,
            r#"{"type":"create_table","options":{"move_time_ms":-1000}}"#,
            r#"{"type":"create_table","options":{"bot":{"level":"easy","think_ms":4294967295}}}"#,
        ];
        for text in bad {
            let text = text.replace("\"T\"", &format!("\"{table}\""));
            c.send_text(&text).await;
            let e = c.until("error").await;
            assert_eq!(e["code"], "bad_request", "{text} -> {e}");
        }
        // Nothing was played, and the connection still works.
        let state = c.ok(json!({"type":"sync","table_id":table})).await;
        let state = last_table(&state).unwrap();
        assert_eq!(state.board, ".........");
        c.play(&table, "b2").await;
    })
    .await;
    let n = refusals(server, "bad_request").await;
    assert!(n >= 14 * runs, "{n} bad_request refusals in {runs} runs");
    assert!(refusals(server, "unsupported_version").await >= runs);
    owned.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_ten_thousand_messages_a_second_is_limited_then_closed() {
    // The default limits: 50 a second, bursts of 100, closed after 200
    // refusals within 10 s.
    let owned = Server::start().await;
    let server = &owned;
    let runs = under_attack(server, || async move {
        let flooder = server.client("Flo").await;
        let (mut sink, mut stream) = flooder.into_ws().split();
        let reader = tokio::spawn(async move {
            let (mut pongs, mut limited) = (0, 0);
            loop {
                match tokio::time::timeout(WAIT, stream.next()).await {
                    Ok(Some(Ok(Message::Text(t)))) => {
                        let v: Value = serde_json::from_str(&t).unwrap();
                        if v["type"] == "pong" {
                            pongs += 1;
                        } else {
                            assert_eq!(v["code"], "rate_limited", "{v}");
                            limited += 1;
                        }
                    }
                    Ok(Some(Ok(Message::Close(f)))) => {
                        let f = f.expect("a close frame with a code");
                        return (pongs, limited, u16::from(f.code), f.reason);
                    }
                    Ok(Some(Ok(_))) => {}
                    other => panic!("expected a close frame, got {other:?}"),
                }
            }
        });
        // 100 messages every 10 ms, for at most a second.
        let ping = Message::text(r#"{"type":"ping"}"#);
        let start = Instant::now();
        'flood: for tick in 0..100u32 {
            for _ in 0..100 {
                if sink.feed(ping.clone()).await.is_err() {
                    break 'flood;
                }
            }
            if sink.flush().await.is_err() || reader.is_finished() {
                break;
            }
            let next = start + Duration::from_millis(10) * (tick + 1);
            tokio::time::sleep_until(tokio::time::Instant::from_std(next)).await;
        }
        let (pongs, limited, code, reason) = reader.await.unwrap();
        assert_eq!(code, 1008, "{reason}");
        assert!(reason.contains("rate limit"), "{reason}");
        assert!((100..=110).contains(&pongs), "{pongs} pongs");
        assert!(limited >= 190, "{limited} refusals");
    })
    .await;
    assert!(refusals(server, "rate_limited").await >= 200 * runs);
    assert_eq!(closes(server, 1008).await, runs);
    owned.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slowloris_connections_are_closed_after_the_handshake_timeout() {
    let timeout = Duration::from_millis(500);
    let owned = Server::with(Config {
        handshake_timeout: timeout,
        idle_timeout: Duration::from_millis(800),
        ..config()
    })
    .await;
    let server = &owned;
    let runs = under_attack(server, || async move {
        let start = Instant::now();
        let mut silent = Vec::new();
        for _ in 0..2_000 {
            silent.push(TcpStream::connect(server.addr).await.unwrap());
        }
        let mut partial = Vec::new();
        for i in 0..200 {
            let mut tcp = TcpStream::connect(server.addr).await.unwrap();
            let head = b"GET /ws HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgr";
            tcp.write_all(&head[..10 + i % 50]).await.unwrap();
            partial.push(tcp);
        }
        // Upgraded, then silent: closed for want of a `hello` (as soon as
        // an idle connection would be: the handshake timeout is longer).
        let mut idle = Vec::new();
        for _ in 0..50 {
            idle.push(server.connect().await);
        }
        // A newcomer is served while all of that is open.
        let (status, _) = server.get("/healthz").await;
        assert_eq!(status, 200);
        let opened = start.elapsed();
        // Every one is closed by the server (end of stream or reset),
        // without a response, soon after the timeout.
        let closed = futures_util::future::join_all(silent.into_iter().chain(partial).map(
            |mut tcp| async move {
                let mut buf = [0; 256];
                match tokio::time::timeout(Duration::from_secs(5), tcp.read(&mut buf)).await {
                    Ok(Ok(0) | Err(_)) => Instant::now(),
                    Ok(Ok(n)) => panic!(
                        "a response to a slowloris connection: {:?}",
                        String::from_utf8_lossy(&buf[..n])
                    ),
                    Err(_) => panic!("a slowloris connection was kept open"),
                }
            },
        ))
        .await;
        let last = closed.iter().max().unwrap().duration_since(start);
        eprintln!("opened 2,200 slow connections in {opened:?}; all closed by {last:?}");
        assert!(last < opened + timeout + Duration::from_secs(2), "{last:?}");
        for mut c in idle {
            let (code, reason) = c.expect_close().await;
            assert_eq!((code, reason.as_str()), (1008, "no hello in time"));
        }
    })
    .await;
    assert_eq!(
        metric(server, "oxo_http_header_timeouts_total").await,
        2_200 * runs
    );
    assert_eq!(closes(server, 1008).await, 50 * runs);
    owned.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nobody_acts_for_another_seat_or_table_without_its_token() {
    let owned = Server::start().await;
    let server = &owned;
    let runs = under_attack(server, || async move {
        let (mut x1, mut o1, t1) = pair(server, json!({})).await;
        let (mut x2, _o2, t2) = pair(server, json!({})).await;
        // O moving on X's turn; X of one table at the other.
        o1.refused(
            json!({"type":"move","table_id":t1,"cell":"a1"}),
            "not_your_turn",
        )
        .await;
        for msg in [
            json!({"type":"move","table_id":t2,"cell":"a1"}),
            json!({"type":"forfeit","table_id":t2}),
            json!({"type":"rematch","table_id":t2}),
            json!({"type":"leave_table","table_id":t2}),
        ] {
            x1.refused(msg, "not_seated").await;
        }
        x1.refused(
            json!({"type":"join_table","table_id":t2,"seat":"X"}),
            "table_full",
        )
        .await;
        // A player's public id is not its token, nor is a token in another
        // case, or one digit off.
        let upper = x2.token.to_ascii_uppercase();
        let mut off = x2.token.clone().into_bytes();
        off[63] = if off[63] == b'0' { b'1' } else { b'0' };
        let off = String::from_utf8(off).unwrap();
        for token in [x2.player_id.clone(), upper, off, format!("{} ", x2.token)] {
            let mut thief = server.connect().await;
            thief
                .send(json!({"type":"hello","version":1,"token":token}))
                .await;
            assert_eq!(thief.recv().await["code"], "invalid_token", "{token}");
            thief
                .refused(
                    json!({"type":"move","table_id":t2,"cell":"a1"}),
                    "hello_required",
                )
                .await;
        }
        // Nothing moved anywhere.
        for (c, t) in [(&mut x1, &t1), (&mut x2, &t2)] {
            let state = last_table(&c.ok(json!({"type":"sync","table_id":t})).await).unwrap();
            assert_eq!(state.board, ".........");
            assert_eq!(state.status, TableStatus::InProgress);
        }
    })
    .await;
    assert!(refusals(server, "not_seated").await >= 4 * runs);
    assert!(refusals(server, "not_your_turn").await >= runs);
    assert!(refusals(server, "invalid_token").await >= 4 * runs);
    owned.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_table_ids_cannot_be_guessed() {
    let owned = Server::start().await;
    let server = &owned;
    let runs = under_attack(server, || async move {
        let mut host = server.client("Host").await;
        let table = host.create(json!({"public": false})).await.id.to_string();
        assert_eq!(table.len(), 32);
        let mut guesser = server.client("Gus").await;
        // Near misses of the real id.
        let mut last = table.clone().into_bytes();
        last[31] = if last[31] == b'0' { b'1' } else { b'0' };
        let near = [
            table.to_ascii_uppercase(),
            table[..31].to_owned(),
            format!("{table}0"),
            format!(" {table}"),
            format!("{table}\u{0}"),
            String::from_utf8(last).unwrap(),
            String::new(),
            "*".to_owned(),
            "%".to_owned(),
        ];
        // And random ids of the right shape, as many as the burst allows.
        let random = (1..=36u32).map(|i| format!("{:032x}", u128::from(i) * 0x9e37_79b9_7f4a_7c15));
        for guess in near.into_iter().chain(random) {
            for msg in [
                json!({"type":"join_table","table_id":guess}),
                json!({"type":"watch_table","table_id":guess}),
            ] {
                guesser.refused(msg, "no_such_table").await;
            }
        }
        // Not listed anywhere.
        let (_, tables) = server.get("/api/tables").await;
        assert!(!tables.contains(&table), "{tables}");
        guesser.send(json!({"type":"watch_lobby"})).await;
        let lobby = guesser.until("lobby").await;
        assert!(!lobby.to_string().contains(&table), "{lobby}");
        // Guessing faster than that is a flood: rate limited.
        for i in 0..40u32 {
            guesser
                .send(json!({"type":"join_table","id":i,"table_id":format!("{i:032x}")}))
                .await;
        }
        let mut codes = Vec::new();
        while codes.len() < 40 {
            let e = guesser.until("error").await;
            codes.push(e["code"].as_str().unwrap().to_owned());
        }
        assert!(
            codes
                .iter()
                .all(|c| c == "no_such_table" || c == "rate_limited"),
            "{codes:?}"
        );
        assert!(codes.iter().any(|c| c == "rate_limited"), "{codes:?}");
        // With the id, anyone may join: the id is the key.
        let mut friend = server.client("Fay").await;
        friend
            .ok(json!({"type":"join_table","table_id":table}))
            .await;
    })
    .await;
    assert!(refusals(server, "no_such_table").await >= 90 * runs);
    assert!(refusals(server, "rate_limited").await >= runs);
    owned.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_reused_after_the_game_controls_nothing() {
    let owned = Server::start().await;
    let server = &owned;
    let runs = under_attack(server, || async move {
        let (mut x, mut o, table) = pair(server, json!({})).await;
        for (by_x, cell) in [(true, "a1"), (false, "b1"), (true, "a2"), (false, "b2")] {
            let c = if by_x { &mut x } else { &mut o };
            c.play(&table, cell).await;
        }
        let end = x.play(&table, "a3").await;
        assert_eq!(end.status, TableStatus::RoundOver);
        // Another connection with X's token, after the round: it is X, and
        // X can no longer play or forfeit the finished round.
        let (mut again, welcome) = server.resume(&x.token).await;
        // A finished round is not a game to resume.
        assert_eq!(welcome["tables"], json!([]));
        again
            .refused(
                json!({"type":"move","table_id":table,"cell":"c3"}),
                "game_over",
            )
            .await;
        again
            .refused(json!({"type":"forfeit","table_id":table}), "game_over")
            .await;
        // Both leave: the table closes, and the token opens nothing there.
        x.ok(json!({"type":"leave_table","table_id":table})).await;
        o.ok(json!({"type":"leave_table","table_id":table})).await;
        drop(again);
        let (mut later, welcome) = server.resume(&x.token).await;
        assert_eq!(welcome["tables"], json!([]));
        for msg in [
            json!({"type":"move","table_id":table,"cell":"c3"}),
            json!({"type":"rematch","table_id":table}),
            json!({"type":"join_table","table_id":table}),
        ] {
            later.refused(msg, "no_such_table").await;
        }
        // The record of the game is intact.
        let id = end.game_id.expect("a game id");
        let (status, record) = server.get_json(&format!("/api/games/{id}")).await;
        assert_eq!(status, 200);
        assert_eq!(record["moves"].as_array().unwrap().len(), 5, "{record}");
    })
    .await;
    assert!(refusals(server, "game_over").await >= 2 * runs);
    assert!(refusals(server, "no_such_table").await >= 3 * runs);
    owned.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn spectators_cannot_move() {
    let owned = Server::start().await;
    let server = &owned;
    let runs = under_attack(server, || async move {
        let (mut x, mut o, table) = pair(server, json!({})).await;
        let mut spectators = Vec::new();
        for _ in 0..10 {
            let mut s = server.client("Spec").await;
            s.ok(json!({"type":"watch_table","table_id":table})).await;
            spectators.push(s);
        }
        x.play(&table, "b2").await;
        for s in &mut spectators {
            for msg in [
                json!({"type":"move","table_id":table,"cell":"a1"}),
                json!({"type":"forfeit","table_id":table}),
                json!({"type":"rematch","table_id":table}),
            ] {
                s.refused(msg, "not_seated").await;
            }
            s.refused(json!({"type":"join_table","table_id":table}), "table_full")
                .await;
        }
        // O, whose turn it is, is unaffected.
        let state = o.play(&table, "a1").await;
        assert_eq!(state.moves.len(), 2);
        for s in &mut spectators {
            s.table_until(|t| t.moves.len() == 2).await;
        }
    })
    .await;
    assert!(refusals(server, "not_seated").await >= 30 * runs);
    assert!(refusals(server, "table_full").await >= 10 * runs);
    owned.stop().await;
}
