//! The HTTP API, metrics and the web UI.

use serde_json::json;

use crate::common::{Server, pair};

#[tokio::test]
async fn records_logs_and_lists_of_games() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    let game_id = x.play(&table, "a1").await.game_id.unwrap();
    // An unfinished game already has a record.
    let (status, rec) = server.get_json(&format!("/api/games/{game_id}")).await;
    assert_eq!(status, 200);
    assert_eq!(rec["moves"].as_array().unwrap().len(), 1);
    assert!(rec.get("outcome").is_none());
    for (by_x, cell) in [(false, "b1"), (true, "a2"), (false, "b2"), (true, "a3")] {
        let mover = if by_x { &mut x } else { &mut o };
        mover.play(&table, cell).await;
    }
    let (status, rec) = server.get_json(&format!("/api/games/{game_id}")).await;
    assert_eq!(status, 200, "{rec}");
    assert_eq!(rec["id"], game_id.as_str());
    assert_eq!(rec["table_id"], table.as_str());
    assert_eq!(rec["round"], 1);
    assert_eq!(rec["first"], "X");
    assert_eq!(rec["players"]["x"]["name"], "Xena");
    assert_eq!(rec["players"]["o"]["id"], o.player_id.as_str());
    assert_eq!(rec["outcome"]["result"], "win");
    assert_eq!(rec["outcome"]["winner"], "X");
    assert_eq!(rec["outcome"]["reason"], "line");
    let moves = rec["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 5);
    assert_eq!(moves[0]["ply"], 1);
    assert_eq!(moves[4]["cell"], "a3");
    assert!(moves[4]["at_ms"].as_i64().unwrap() >= moves[0]["at_ms"].as_i64().unwrap());
    assert!(rec["ended_at_ms"].as_i64().is_some());

    let (status, log) = server.get_json(&format!("/api/games/{game_id}/log")).await;
    assert_eq!(status, 200);
    assert_eq!(
        (
            log["total"].as_u64(),
            log["start"].as_u64(),
            log["end"].as_u64()
        ),
        (Some(7), Some(0), Some(7))
    );
    assert_eq!(log["events"][0], json!({"type":"start","first":"X"}));
    assert_eq!(log["events"][6]["type"], "end");
    let (_, slice) = server
        .get_json(&format!("/api/games/{game_id}/log?start=1&end=3"))
        .await;
    assert_eq!(
        slice["events"],
        json!([
            {"type":"move","player":"X","square":"a1"},
            {"type":"move","player":"O","square":"b1"},
        ])
    );
    let (_, past) = server
        .get_json(&format!("/api/games/{game_id}/log?start=5&end=99"))
        .await;
    assert_eq!(
        (past["start"].as_u64(), past["end"].as_u64()),
        (Some(5), Some(7))
    );
    // A whole number too large for the server's integers is past the end
    // all the same: clamped, not refused as "not a whole number".
    let (status, huge) = server
        .get_json(&format!(
            "/api/games/{game_id}/log?start=5&end=99999999999999999999999"
        ))
        .await;
    assert_eq!(status, 200, "{huge}");
    assert_eq!(
        (huge["start"].as_u64(), huge["end"].as_u64()),
        (Some(5), Some(7))
    );
    // Past the end: clamped to an empty slice at the end.
    let (_, empty) = server
        .get_json(&format!("/api/games/{game_id}/log?start=9&end=20"))
        .await;
    assert_eq!(
        (empty["start"].as_u64(), empty["end"].as_u64()),
        (Some(7), Some(7))
    );
    assert_eq!(empty["events"], json!([]));
    // `end` defaults to the length of the log, so `start` alone past it
    // is after `end`.
    for bad in [
        "start=x",
        "start=3&end=1",
        "end=-1",
        "start=20&end=10",
        "start=9",
    ] {
        let (status, body) = server
            .get_json(&format!("/api/games/{game_id}/log?{bad}"))
            .await;
        assert_eq!(status, 400, "{bad}");
        assert!(body["error"].is_string());
    }

    let (status, list) = server.get_json("/api/games").await;
    assert_eq!(status, 200);
    assert_eq!(list[0]["id"], game_id.as_str());
    assert_eq!(list[0]["moves"], 5);
    assert_eq!(list[0]["players"], json!({"x":"Xena","o":"Otto"}));
    let (_, mine) = server
        .get_json(&format!("/api/games?player={}&limit=1", x.player_id))
        .await;
    assert_eq!(mine.as_array().unwrap().len(), 1);
    let (_, none) = server.get_json("/api/games?player=nobody").await;
    assert_eq!(none, json!([]));
    for bad in ["limit=0", "limit=101", "limit=ten", "player="] {
        assert_eq!(
            server.get(&format!("/api/games?{bad}")).await.0,
            400,
            "{bad}"
        );
    }
    // A player id that cannot be one says what was sent and what is accepted.
    for bad in [String::new(), "p".repeat(65)] {
        let (status, body) = server.get_json(&format!("/api/games?player={bad}")).await;
        assert_eq!(status, 400, "{bad}");
        let error = body["error"].as_str().expect("an error");
        assert!(error.contains("1 to 64 characters"), "{error}");
        assert!(error.contains(&format!("\"{bad:.40}")), "{error}");
    }
    // A huge value is not echoed back whole.
    let (status, body) = server
        .get(&format!("/api/games?limit={}", "9".repeat(6_000)))
        .await;
    assert_eq!(status, 400);
    assert!(body.len() < 400, "{body}");
    for path in [
        format!("/api/analyze?position={}", "X".repeat(6_000)),
        format!("/api/analyze/game?first={}&moves=", "X".repeat(6_000)),
    ] {
        let (status, body) = server.get(&path).await;
        assert_eq!(status, 400, "{path}");
        assert!(body.len() < 400, "{body}");
    }

    let (status, missing) = server
        .get_json("/api/games/ffffffffffffffffffffffffffffffff")
        .await;
    assert_eq!(status, 404);
    assert!(missing["error"].as_str().unwrap().contains("no game"));
    assert_eq!(server.get("/api/games/nope/log").await.0, 404);
    assert_eq!(server.get("/api/nothing/here").await.0, 404);
    // A game id that is not text at all: a JSON 400 too.
    for path in ["/api/games/%ff%ff", "/api/games/%ff%ff/log"] {
        let (status, head, body) = server.get_full(path).await;
        assert_eq!(status, 400, "{path}");
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: application/json"),
            "{path}: {head}"
        );
        let body: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(
            body["error"].as_str().unwrap().contains("game id"),
            "{path}: {body}"
        );
    }
    // Every unknown API path, the bare prefix included, gets a JSON 404.
    for path in [
        "/api",
        "/api/",
        "/api/nothing",
        "/api/nothing/",
        "/api/games/x/y/z",
    ] {
        let (status, head, body) = server.get_full(path).await;
        assert_eq!(status, 404, "{path}");
        assert!(
            head.to_ascii_lowercase()
                .contains("content-type: application/json"),
            "{path}: {head}"
        );
        let body: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(body["error"].is_string(), "{path}: {body}");
    }
    server.stop().await;
}

#[tokio::test]
async fn analysis_health_metrics_and_tables() {
    let server = Server::start().await;
    let (status, a) = server.get_json("/api/analyze?position=X.O.X....").await;
    assert_eq!(status, 200, "{a}");
    assert_eq!(a["turn"], "O");
    assert_eq!(
        a["moves"][0],
        json!({"cell":"c3","result":"draw","plies":6})
    );
    assert_eq!(a["result"], "draw");
    let (_, over) = server.get_json("/api/analyze?position=XXXOO....").await;
    assert_eq!(over["outcome"]["winner"], "X");
    assert_eq!(over["moves"], json!([]));
    for bad in [
        "/api/analyze",
        "/api/analyze?position=XXXXXXXXX",
        "/api/analyze?position=abc",
    ] {
        let (status, body) = server.get_json(bad).await;
        assert_eq!(status, 400, "{bad}");
        assert!(body["error"].is_string(), "{bad}");
    }
    assert_eq!(
        server.get_json("/healthz").await,
        (200, json!({"status":"ok"}))
    );

    let (_x, _o, table) = pair(&server, json!({})).await;
    let (status, tables) = server.get_json("/api/tables").await;
    assert_eq!(status, 200);
    assert_eq!(tables[0]["id"], table.as_str());

    let (status, metrics) = server.get("/metrics").await;
    assert_eq!(status, 200);
    for name in [
        "oxo_connections 2",
        "oxo_tables 1",
        "oxo_moves_total 0",
        "oxo_move_seconds_bucket",
        "oxo_db_commit_seconds_count",
        "oxo_refusals_total{code=\"not_your_turn\"}",
    ] {
        assert!(metrics.contains(name), "{name} in {metrics}");
    }
    server.stop().await;
}

#[tokio::test]
async fn the_web_ui_is_served_with_strict_headers() {
    let server = Server::start().await;
    for path in ["/", "/t/0123456789abcdef0123456789abcdef", "/games/abc"] {
        let (status, head, body) = server.get_full(path).await;
        assert_eq!(status, 200, "{path}");
        let head = head.to_ascii_lowercase();
        assert!(
            head.contains("content-type: text/html; charset=utf-8"),
            "{head}"
        );
        assert!(
            head.contains(
                "content-security-policy: default-src 'self'; connect-src 'self' ws: wss:"
            ),
            "{head}"
        );
        assert!(head.contains("frame-ancestors 'none'"), "{head}");
        assert!(head.contains("x-content-type-options: nosniff"), "{head}");
        assert!(head.contains("referrer-policy: no-referrer"), "{head}");
        assert!(
            body.to_ascii_lowercase().contains("<!doctype html"),
            "{path}"
        );
    }
    let (status, head, _) = server.get_full("/api/tables").await;
    assert_eq!(status, 200);
    assert!(
        head.to_ascii_lowercase()
            .contains("content-security-policy")
    );
    assert_eq!(server.get("/no/such/file.js").await.0, 404);
    server.stop().await;
}

#[tokio::test]
async fn a_method_the_api_does_not_take_gets_405_with_a_json_error() {
    let server = Server::start().await;
    for (method, path) in [
        ("POST", "/api/tables"),
        ("DELETE", "/api/games/0123"),
        ("PUT", "/api/analyze"),
        ("POST", "/healthz"),
        // The files of the web UI too.
        ("POST", "/js/main.js"),
        ("OPTIONS", "/css/app.css"),
    ] {
        let res = server.request(method, path, &[]).await;
        assert_eq!(res.status, 405, "{method} {path}");
        assert_eq!(res.header("allow"), Some("GET,HEAD"), "{method} {path}");
        assert_eq!(
            res.header("content-type"),
            Some("application/json"),
            "{method} {path}"
        );
        let body: serde_json::Value =
            serde_json::from_slice(&res.body).unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let error = body["error"].as_str().unwrap_or_default();
        assert!(
            error.contains(method) && error.contains("GET"),
            "{method} {path}: {body}"
        );
    }
    server.stop().await;
}

/// A request to `/ws` that is not a WebSocket handshake is told what is
/// missing, in JSON like every refusal; another WebSocket version is told
/// the one spoken here (RFC 6455, 4.4).
#[tokio::test]
async fn a_request_to_ws_that_is_not_a_handshake_is_told_what_it_lacks() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = Server::start().await;
    let upgrade = "Connection: Upgrade\r\nUpgrade: websocket\r\n";
    let key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n";
    let cases = [
        (String::new(), "Connection header did not include 'upgrade'"),
        (
            format!("{upgrade}Sec-WebSocket-Version: 8\r\n{key}"),
            "`Sec-WebSocket-Version` header did not include '13'",
        ),
        (
            format!("{upgrade}Sec-WebSocket-Version: 13\r\n"),
            "`Sec-WebSocket-Key` header missing",
        ),
        // RFC 6455 4.2.1: one key, 16 bytes in base64; one version.
        (
            format!("{upgrade}Sec-WebSocket-Version: 13\r\n{key}{key}"),
            "`Sec-WebSocket-Key` header sent more than once",
        ),
        (
            format!("{upgrade}Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: short\r\n"),
            "`Sec-WebSocket-Key` header is not 16 bytes in base64",
        ),
        (
            format!("{upgrade}Sec-WebSocket-Version: 13\r\nSec-WebSocket-Version: 8\r\n{key}"),
            "`Sec-WebSocket-Version` header sent more than once",
        ),
    ];
    for (headers, what) in cases {
        let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        let req = format!("GET /ws HTTP/1.1\r\nHost: test\r\n{headers}\r\n");
        tcp.write_all(req.as_bytes()).await.unwrap();
        // Read until the whole body (its content-length) is in.
        let mut raw = Vec::new();
        let (head, body) = loop {
            let mut chunk = [0; 4096];
            let n = tokio::time::timeout(crate::common::WAIT, tcp.read(&mut chunk))
                .await
                .expect("an answer in time")
                .unwrap();
            assert!(n > 0, "closed early: {}", String::from_utf8_lossy(&raw));
            raw.extend_from_slice(&chunk[..n]);
            let text = String::from_utf8_lossy(&raw).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase()
                            .strip_prefix("content-length: ")
                            .map(str::to_owned)
                    })
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .expect("a content-length");
                if body.len() >= length {
                    break (head.to_owned(), body.to_owned());
                }
            }
        };
        assert!(head.starts_with("HTTP/1.1 400"), "{head}");
        let body: serde_json::Value = serde_json::from_str(&body).expect("a JSON body");
        let error = body["error"].as_str().expect("an error");
        assert!(error.contains(what), "{error}");
        assert!(error.contains("Sec-WebSocket-Version: 13"), "{error}");
        let tells_version = head
            .to_ascii_lowercase()
            .contains("sec-websocket-version: 13");
        assert_eq!(tells_version, what.contains("Version"), "{head}");
    }
    server.stop().await;
}

/// `HEAD /ws` is answered as `GET /ws` without a handshake is (HTTP asks
/// HEAD to get GET's answer without its body): 400, not a 405 that would
/// contradict the `Allow: GET,HEAD` every other method is told at `/ws`.
#[tokio::test]
async fn head_on_ws_gets_what_a_get_without_a_handshake_gets() {
    let server = Server::start().await;
    let get = server.request("GET", "/ws", &[]).await;
    let head = server.request("HEAD", "/ws", &[]).await;
    assert_eq!(get.status, 400);
    assert_eq!(head.status, 400, "{}", head.head);
    assert_eq!(head.header("content-type"), Some("application/json"));
    assert!(head.body.is_empty(), "a HEAD answer has no body");
    let post = server.request("POST", "/ws", &[]).await;
    assert_eq!(post.status, 405);
    assert_eq!(post.header("allow"), Some("GET,HEAD"));
    server.stop().await;
}

/// The HTTP layer takes a request head of at most 100 header fields, as
/// docs/protocol.md says: one more is refused with 431 before any route.
#[tokio::test]
async fn a_request_with_more_than_100_header_fields_gets_431() {
    let server = Server::start().await;
    // `request` sends `Host` and `Connection` besides these.
    let names: Vec<String> = (0..99).map(|i| format!("X-Field-{i}")).collect();
    let fields: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "1")).collect();
    let at_most = server.request("GET", "/api/tables", &fields[..98]).await;
    assert_eq!(at_most.status, 200);
    let over = server.request("GET", "/api/tables", &fields).await;
    assert_eq!(over.status, 431);
    assert_refusal_says(&over, "101 header fields; at most 100 are accepted");
    // Past what the HTTP layer reads at all, the status comes alone.
    let names: Vec<String> = (0..400).map(|i| format!("X-Field-{i}")).collect();
    let fields: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "1")).collect();
    let unread = server.request("GET", "/api/tables", &fields).await;
    assert_eq!((unread.status, unread.body.len()), (431, 0));
    server.stop().await;
}

/// An HTTP refusal's body: JSON whose `error` contains `says`, with the
/// headers every response carries.
fn assert_refusal_says(res: &crate::common::HttpResponse, says: &str) {
    let body: serde_json::Value = serde_json::from_slice(&res.body)
        .unwrap_or_else(|e| panic!("{e}: not JSON: {:?}\n{}", res.body, res.head));
    let error = body["error"].as_str().unwrap_or_default();
    assert!(error.contains(says), "{error:?} does not say {says:?}");
    assert_eq!(res.header("content-type"), Some("application/json"));
    assert_eq!(res.header("x-content-type-options"), Some("nosniff"));
}

/// A request target (path and query) over 8 KiB is refused with 414 and
/// a JSON body saying what is accepted, on every route alike.
#[tokio::test]
async fn a_request_target_over_8_kib_gets_414_with_a_json_error() {
    let server = Server::start().await;
    for path in ["/api/analyze?position=", "/", "/ws?x=", "/nope/"] {
        let at_most = format!("{path}{}", "a".repeat(8192 - path.len()));
        let res = server.request("GET", &at_most, &[]).await;
        assert_ne!(res.status, 414, "{path}: 8,192 bytes are taken");
        let over = format!("{at_most}a");
        let res = server.request("GET", &over, &[]).await;
        assert_eq!(res.status, 414, "{path}");
        assert_refusal_says(&res, "8193 bytes long; at most 8192 are accepted");
    }
    server.stop().await;
}

/// A request head of more than 64 KiB in all (a few huge headers, say) is
/// refused with 431 and a JSON body saying what is accepted.
#[tokio::test]
async fn a_request_head_over_64_kib_gets_431_with_a_json_error() {
    let server = Server::start().await;
    let big = "b".repeat(4000);
    let fields: Vec<(&str, &str)> = [
        "X-A", "X-B", "X-C", "X-D", "X-E", "X-F", "X-G", "X-H", "X-I", "X-J", "X-K", "X-L", "X-M",
        "X-N", "X-O", "X-P", "X-Q", "X-R",
    ]
    .iter()
    .map(|n| (*n, big.as_str()))
    .collect();
    let res = server.request("GET", "/api/tables", &fields[..15]).await;
    assert_eq!(res.status, 200, "60 KB of fields are taken");
    let res = server.request("GET", "/api/tables", &fields).await;
    assert_eq!(res.status, 431);
    assert_refusal_says(&res, "at most 65536 are accepted");
    server.stop().await;
}

/// An HTTP/1.1 request must name one host (RFC 9112 3.2): one without
/// `Host`, or with two, is refused with 400 and a JSON body, on every
/// route; HTTP/1.0 needs none.
#[tokio::test]
async fn an_http_1_1_request_without_one_host_gets_400() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let server = Server::start().await;
    let ask = |req: String| async move {
        let mut tcp = tokio::net::TcpStream::connect(server.addr).await.unwrap();
        tcp.write_all(req.as_bytes()).await.unwrap();
        let mut raw = Vec::new();
        tokio::time::timeout(crate::common::WAIT, tcp.read_to_end(&mut raw))
            .await
            .expect("an answer in time")
            .unwrap();
        String::from_utf8_lossy(&raw).into_owned()
    };
    for path in ["/api/tables", "/healthz", "/", "/ws"] {
        for hosts in ["", "Host: a\r\nHost: b\r\n"] {
            let answer = ask(format!(
                "GET {path} HTTP/1.1\r\n{hosts}Connection: close\r\n\r\n"
            ))
            .await;
            assert!(
                answer.starts_with("HTTP/1.1 400"),
                "{path} {hosts:?}: {answer}"
            );
            assert!(answer.contains(r#"{"error":"#), "{answer}");
            assert!(answer.contains("one Host header"), "{answer}");
        }
    }
    let answer = ask("GET /healthz HTTP/1.0\r\n\r\n".into()).await;
    assert!(answer.starts_with("HTTP/1.0 200"), "{answer}");
    server.stop().await;
}
