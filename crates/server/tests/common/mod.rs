//! A real server on an ephemeral port and real WebSocket clients.

#![allow(dead_code, unreachable_pub, missing_docs)]

use std::net::SocketAddr;
use std::time::Duration;

use oxo_client::tungstenite::Message;
use oxo_client::tungstenite::protocol::CloseFrame;
use oxo_client::{Link, LinkOptions};
use oxo_protocol::{ServerMsg, TableState};
use oxo_server::{AppState, Config};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use tokio_tungstenite::WebSocketStream;

/// How long a test waits for any one message.
pub const WAIT: Duration = Duration::from_secs(5);

/// A running server.
pub struct Server {
    pub addr: SocketAddr,
    pub state: AppState,
    stop: Option<oneshot::Sender<()>>,
    /// `None` for a [`Server::view`].
    task: Option<JoinHandle<Result<(), oxo_server::ServerError>>>,
}

/// The test configuration: in memory, short grace, generous rates.
pub fn config() -> Config {
    Config {
        reconnect_grace: Duration::from_secs(30),
        // Tests make hundreds of players and connections from one address.
        new_players: oxo_server::RateLimit::UNLIMITED,
        // And play hundreds of games quickly (the limit has its own test).
        rounds_limit: oxo_server::RateLimit::UNLIMITED,
        max_connections_per_address: 0,
        ..Config::in_memory()
    }
}

impl Server {
    pub async fn start() -> Server {
        Server::with(config()).await
    }

    pub async fn with(config: Config) -> Server {
        // Opening the store blocks (PostgreSQL's migrations, SQLite's
        // file): on a thread of its own, so that the other servers this
        // test runs on the same runtime (a cluster's nodes) go on meanwhile.
        let state = tokio::task::spawn_blocking(move || AppState::new(config))
            .await
            .expect("server start-up")
            .expect("server state");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let addr = listener.local_addr().expect("addr");
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(oxo_server::run(listener, state.clone(), async move {
            let _ = stopped.await;
        }));
        Server {
            addr,
            state,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Another handle on the same server, for a spawned task: it connects
    /// and sends requests, but cannot stop the server.
    pub fn view(&self) -> Server {
        Server {
            addr: self.addr,
            state: self.state.clone(),
            stop: None,
            task: None,
        }
    }

    pub fn ws_url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }

    /// Graceful shutdown; waits for it.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        let task = self.task.as_mut().expect("a view cannot stop the server");
        tokio::time::timeout(Duration::from_secs(10), task)
            .await
            .expect("server stops in time")
            .expect("server task")
            .expect("server ran cleanly");
    }

    /// Connects without saying hello. A cluster node that answers `503`
    /// (no node leads for a moment: a late lease renewal on a loaded
    /// machine) is tried again, as every client does, for up to 10 s.
    pub async fn connect(&self) -> Client {
        let mut tries = 0;
        let link = loop {
            match Link::connect_to(self.addr, &self.ws_url(), LinkOptions::default()).await {
                Err(oxo_client::Error::Unavailable { .. }) if tries < 200 => {
                    tries += 1;
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                link => break link.expect("connect"),
            }
        };
        Client {
            link,
            next_id: 1000,
            token: String::new(),
            player_id: String::new(),
            frames: Vec::new(),
        }
    }

    /// Connects and says hello with `name`.
    pub async fn client(&self, name: &str) -> Client {
        let mut c = self.connect().await;
        c.hello(json!({"type":"hello","version":1,"name":name}))
            .await;
        c
    }

    /// Connects and comes back with `token`.
    pub async fn resume(&self, token: &str) -> (Client, Value) {
        let mut c = self.connect().await;
        let welcome = c
            .hello(json!({"type":"hello","version":1,"token":token}))
            .await;
        (c, welcome)
    }

    /// `GET path`: status and body.
    /// Comes back with `token` until the welcome lists exactly `table` (in
    /// a cluster, another node is taking it over meanwhile).
    pub async fn resume_at(&self, token: &str, table: &str) -> Client {
        for _ in 0..100 {
            let (client, welcome) = self.resume(token).await;
            if welcome["tables"] == json!([table]) {
                return client;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the welcome never listed {table}");
    }

    /// The cells of game `game_id`'s record, in order.
    pub async fn record_cells(&self, game_id: &str) -> Vec<String> {
        let (status, record) = self.get_json(&format!("/api/games/{game_id}")).await;
        assert_eq!(status, 200, "{record}");
        record["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| m["cell"].as_str().expect("a cell").to_owned())
            .collect()
    }

    pub async fn get(&self, path: &str) -> (u16, String) {
        let (status, _, body) = self.get_full(path).await;
        (status, body)
    }

    /// `GET path`: status, raw head and body.
    pub async fn get_full(&self, path: &str) -> (u16, String, String) {
        let res = self.request("GET", path, &[]).await;
        let body = String::from_utf8_lossy(&res.body).into_owned();
        (res.status, res.head, body)
    }

    /// `GET path` with `Authorization: Bearer <token>`: status and JSON body.
    pub async fn get_as(&self, path: &str, token: &str) -> (u16, Value) {
        let auth = format!("Bearer {token}");
        let res = self.request("GET", path, &[("Authorization", &auth)]).await;
        let body = String::from_utf8_lossy(&res.body).into_owned();
        let value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"));
        (res.status, value)
    }

    /// `method path` with extra request `headers`, on a connection of its
    /// own; the body as bytes (it may be compressed), de-chunked.
    pub async fn request(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
    ) -> HttpResponse {
        let mut tcp = TcpStream::connect(self.addr).await.expect("connect");
        let mut req = format!("{method} {path} HTTP/1.1\r\nHost: test\r\nConnection: close\r\n");
        for (name, value) in headers {
            req.push_str(&format!("{name}: {value}\r\n"));
        }
        req.push_str("\r\n");
        tcp.write_all(req.as_bytes()).await.expect("write");
        let mut raw = Vec::new();
        tokio::time::timeout(WAIT, tcp.read_to_end(&mut raw))
            .await
            .expect("response in time")
            .expect("read");
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("a head and a body");
        let head = String::from_utf8(raw[..split].to_vec()).expect("an ASCII head");
        let body = &raw[split + 4..];
        let status = head
            .split(' ')
            .nth(1)
            .and_then(|s| s.parse().ok())
            .expect("status");
        let chunked = head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked");
        let body = if chunked {
            dechunk(body)
        } else {
            body.to_vec()
        };
        HttpResponse { status, head, body }
    }

    /// One sample from `/metrics`, by name and labels, e.g.
    /// `oxo_closes_total{code="1008"}`; `None` if the server has no such
    /// series.
    pub async fn metric(&self, series: &str) -> Option<u64> {
        let (status, text) = self.get("/metrics").await;
        assert_eq!(status, 200);
        let needle = format!("{series} ");
        text.lines()
            .find_map(|l| l.strip_prefix(needle.as_str()))
            .and_then(|n| n.parse().ok())
    }

    pub async fn get_json(&self, path: &str) -> (u16, Value) {
        let (status, body) = self.get(path).await;
        let value = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{path}: {e}: {body}"));
        (status, value)
    }
}

fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(eol) = body.windows(2).position(|w| w == b"\r\n") {
        let size = std::str::from_utf8(&body[..eol])
            .ok()
            .and_then(|s| usize::from_str_radix(s.trim(), 16).ok())
            .unwrap_or(0);
        if size == 0 {
            break;
        }
        let rest = &body[eol + 2..];
        out.extend_from_slice(&rest[..size]);
        body = &rest[size + 2..];
    }
    out
}

/// An HTTP response read off the wire by [`Server::request`].
pub struct HttpResponse {
    pub status: u16,
    /// The status line and headers, as sent.
    pub head: String,
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The value of header `name` (any case), if present.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().skip(1).find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    }
}

/// A WebSocket client: the protocol client's [`Link`], spoken in JSON
/// values so that tests see and write the wire format itself.
pub struct Client {
    pub link: Link,
    next_id: u64,
    pub token: String,
    pub player_id: String,
    /// Every text frame received, raw.
    pub frames: Vec<String>,
}

/// What `recv_any` can see.
#[derive(Debug)]
pub enum Incoming {
    Msg(Value),
    Close(Option<CloseFrame>),
    /// The connection ended without a close frame.
    Ended,
}

impl Client {
    /// The WebSocket itself, to send what no client should.
    pub fn ws(&mut self) -> &mut WebSocketStream<TcpStream> {
        self.link.websocket()
    }

    /// The WebSocket itself, for good (e.g. to split it).
    pub fn into_ws(self) -> WebSocketStream<TcpStream> {
        self.link.into_websocket()
    }

    pub async fn hello(&mut self, hello: Value) -> Value {
        self.send(hello).await;
        let welcome = self.recv().await;
        assert_eq!(welcome["type"], "welcome", "{welcome}");
        self.token = welcome["token"].as_str().expect("token").to_owned();
        self.player_id = welcome["player_id"].as_str().expect("player id").to_owned();
        welcome
    }

    pub async fn send(&mut self, v: Value) {
        self.send_text(&v.to_string()).await;
    }

    pub async fn send_text(&mut self, text: &str) {
        self.link.send_text(text).await.expect("send");
    }

    /// The next message, frame or end, whatever it is (pings skipped).
    pub async fn recv_any(&mut self) -> Incoming {
        // One deadline for the message, however many pings come first.
        let until = tokio::time::Instant::now() + WAIT;
        loop {
            let msg = tokio::time::timeout_at(until, self.link.next_frame())
                .await
                .expect("a message in time");
            match msg {
                Some(Ok(Message::Text(t))) => {
                    self.frames.push(t.to_string());
                    return Incoming::Msg(serde_json::from_str(&t).expect("JSON from the server"));
                }
                Some(Ok(Message::Close(frame))) => return Incoming::Close(frame),
                Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => {}
                Some(Ok(Message::Binary(_))) => panic!("the server sent a binary frame"),
                Some(Err(_)) | None => return Incoming::Ended,
            }
        }
    }

    /// The next JSON message.
    pub async fn recv(&mut self) -> Value {
        match self.recv_any().await {
            Incoming::Msg(v) => v,
            other => panic!("expected a message, got {other:?}"),
        }
    }

    /// The next message, parsed as the protocol type (checks the shape).
    pub async fn recv_msg(&mut self) -> ServerMsg {
        let v = self.recv().await;
        serde_json::from_value(v.clone()).unwrap_or_else(|e| panic!("{e}: {v}"))
    }

    /// Reads until the close frame; returns its code and reason.
    pub async fn expect_close(&mut self) -> (u16, String) {
        loop {
            match self.recv_any().await {
                Incoming::Msg(_) => {}
                Incoming::Close(Some(f)) => return (u16::from(f.code), f.reason.to_string()),
                other => panic!("expected a close frame, got {other:?}"),
            }
        }
    }

    /// Whether no message (pings aside) arrives for `d`.
    pub async fn quiet_for(&mut self, d: Duration) -> bool {
        let until = tokio::time::Instant::now() + d;
        loop {
            match tokio::time::timeout_at(until, self.link.next_frame()).await {
                Err(_) => return true,
                Ok(Some(Ok(Message::Ping(_) | Message::Pong(_)))) => {}
                Ok(_) => return false,
            }
        }
    }

    /// Sends `msg` with a fresh id; returns the events before the reply, and
    /// the reply (`ok` or `error`).
    pub async fn request(&mut self, mut msg: Value) -> (Vec<Value>, Value) {
        self.next_id += 1;
        let id = self.next_id;
        msg["id"] = json!(id);
        self.send(msg).await;
        let mut events = Vec::new();
        loop {
            let v = self.recv().await;
            if (v["type"] == "ok" || v["type"] == "error") && v["id"] == json!(id) {
                return (events, v);
            }
            events.push(v);
        }
    }

    /// Sends `msg` and expects `ok`; returns the events before it.
    pub async fn ok(&mut self, msg: Value) -> Vec<Value> {
        let (events, reply) = self.request(msg.clone()).await;
        assert_eq!(reply["type"], "ok", "{msg} -> {reply}");
        events
    }

    /// Sends `msg` and expects an error with `code`; returns its message.
    pub async fn refused(&mut self, msg: Value, code: &str) -> String {
        let (_, reply) = self.request(msg.clone()).await;
        assert_eq!(reply["type"], "error", "{msg} -> {reply}");
        assert_eq!(reply["code"], code, "{msg} -> {reply}");
        reply["message"].as_str().expect("message").to_owned()
    }

    /// Creates a table; returns its state.
    pub async fn create(&mut self, options: Value) -> TableState {
        let events = self
            .ok(json!({"type":"create_table","options":options}))
            .await;
        last_table(&events).expect("the new table's state before ok")
    }

    /// Reads until a `table` message for which `pred` holds.
    pub async fn table_until(&mut self, pred: impl Fn(&TableState) -> bool) -> TableState {
        loop {
            let v = self.recv().await;
            if v["type"] == "table" {
                let t: TableState =
                    serde_json::from_value(v["table"].clone()).expect("table state");
                if pred(&t) {
                    return t;
                }
            }
        }
    }

    /// Reads until a message of `kind`.
    pub async fn until(&mut self, kind: &str) -> Value {
        loop {
            let v = self.recv().await;
            if v["type"] == kind {
                return v;
            }
        }
    }

    /// Plays `cell` and expects `ok`; returns the state it caused.
    pub async fn play(&mut self, table: &str, cell: &str) -> TableState {
        let events = self
            .ok(json!({"type":"move","table_id":table,"cell":cell}))
            .await;
        last_table(&events).expect("a table event before the ok")
    }
}

/// The last `table` state among `events`.
pub fn last_table(events: &[Value]) -> Option<TableState> {
    events
        .iter()
        .rev()
        .find(|v| v["type"] == "table")
        .map(|v| serde_json::from_value(v["table"].clone()).expect("table state"))
}

/// Two players at a fresh table: X (the creator) and O. Both have read up to
/// the state where the round is in progress.
pub async fn pair(server: &Server, options: Value) -> (Client, Client, String) {
    let mut options = options;
    if options.get("seat").is_none() {
        options["seat"] = json!("X");
    }
    let mut x = server.client("Xena").await;
    let mut o = server.client("Otto").await;
    let table = x.create(options).await.id.to_string();
    o.ok(json!({"type":"join_table","table_id":table})).await;
    x.table_until(|t| t.players.o.is_some()).await;
    (x, o, table)
}

/// A fresh database path in its own temporary directory.
pub fn temp_db(name: &str) -> std::path::PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let dir = std::env::temp_dir().join(format!(
        "oxo-server-test-{name}-{}-{nanos}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir.join("oxo.db")
}
