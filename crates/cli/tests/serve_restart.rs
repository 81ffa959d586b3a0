//! `oxo serve` survives `kill -9`: start the real binary, play three moves,
//! SIGKILL it, start it again on the same database, come back with both
//! tokens, finish the game and read its record over HTTP. Then SIGTERM
//! stops it cleanly.

use std::net::SocketAddr;
use std::path::Path;

use futures_util::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::process::Child;
use tokio_tungstenite::tungstenite::Message;

mod common;

use common::WAIT;

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<TcpStream>>;

async fn recv(ws: &mut Ws) -> Value {
    loop {
        let msg = tokio::time::timeout(WAIT, ws.next())
            .await
            .expect("a message in time")
            .expect("open")
            .expect("a frame");
        if let Message::Text(t) = msg {
            return serde_json::from_str(&t).expect("JSON");
        }
    }
}

/// Sends `msg` with `id` and returns the last `table` state before the `ok`.
async fn request(ws: &mut Ws, id: u64, mut msg: Value) -> Value {
    msg["id"] = json!(id);
    ws.send(Message::text(msg.to_string())).await.expect("send");
    let mut table = Value::Null;
    loop {
        let v = recv(ws).await;
        match v["type"].as_str() {
            Some("table") => table = v["table"].clone(),
            Some("ok") if v["id"] == json!(id) => return table,
            Some("error") => panic!("{msg} refused: {v}"),
            _ => {}
        }
    }
}

async fn hello(addr: SocketAddr, hello: Value) -> (Ws, Value) {
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{addr}/ws"))
        .await
        .expect("connect");
    ws.send(Message::text(hello.to_string()))
        .await
        .expect("send");
    let welcome = recv(&mut ws).await;
    assert_eq!(welcome["type"], "welcome", "{welcome}");
    (ws, welcome)
}

async fn get(addr: SocketAddr, path: &str) -> (u16, Value) {
    let (status, body) = common::get(addr, path).await;
    (status, serde_json::from_str(&body).expect("JSON body"))
}

async fn start(db: &Path) -> (Child, SocketAddr) {
    common::start(db, &[], None).await
}

#[tokio::test]
async fn acknowledged_moves_survive_kill_9() {
    let dir = std::env::temp_dir().join(format!("oxo-serve-restart-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let db = dir.join("oxo.db");

    let (mut server, addr) = start(&db).await;
    let (mut x, wx) = hello(addr, json!({"type":"hello","version":1,"name":"Xena"})).await;
    let (mut o, wo) = hello(addr, json!({"type":"hello","version":1,"name":"Otto"})).await;
    let table = request(
        &mut x,
        1,
        json!({"type":"create_table","options":{"seat":"X"}}),
    )
    .await;
    let table_id = table["id"].as_str().expect("table id").to_owned();
    request(&mut o, 1, json!({"type":"join_table","table_id":table_id})).await;
    request(
        &mut x,
        2,
        json!({"type":"move","table_id":table_id,"cell":"a1"}),
    )
    .await;
    request(
        &mut o,
        2,
        json!({"type":"move","table_id":table_id,"cell":"b1"}),
    )
    .await;
    let state = request(
        &mut x,
        3,
        json!({"type":"move","table_id":table_id,"cell":"a2"}),
    )
    .await;
    let game_id = state["game_id"].as_str().expect("game id").to_owned();

    // SIGKILL: no chance to flush anything.
    server.kill().await.expect("kill -9");
    drop((x, o));

    let (mut server, addr) = start(&db).await;
    let (mut x, wx2) = hello(
        addr,
        json!({"type":"hello","version":1,"token":wx["token"]}),
    )
    .await;
    assert_eq!(wx2["player_id"], wx["player_id"]);
    assert_eq!(wx2["tables"], json!([table_id]));
    let (mut o, _) = hello(
        addr,
        json!({"type":"hello","version":1,"token":wo["token"]}),
    )
    .await;
    let state = request(
        &mut o,
        3,
        json!({"type":"move","table_id":table_id,"cell":"b2"}),
    )
    .await;
    assert_eq!(state["moves"], json!(["a1", "b1", "a2", "b2"]));
    let state = request(
        &mut x,
        4,
        json!({"type":"move","table_id":table_id,"cell":"a3"}),
    )
    .await;
    assert_eq!(state["status"], "round_over");
    assert_eq!(state["outcome"]["winner"], "X");

    let (status, record) = get(addr, &format!("/api/games/{game_id}")).await;
    assert_eq!(status, 200, "{record}");
    let cells: Vec<&str> = record["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m["cell"].as_str().expect("cell"))
        .collect();
    assert_eq!(cells, ["a1", "b1", "a2", "b2", "a3"]);
    assert_eq!(record["outcome"]["reason"], "line");
    assert_eq!(record["players"]["o"]["name"], "Otto");

    // SIGTERM: a graceful stop that tells clients and exits 0.
    let pid = server.id().expect("pid").to_string();
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("run kill");
    assert!(sent.success());
    let closing = recv(&mut x).await;
    assert_eq!(closing["type"], "closing");
    let status = tokio::time::timeout(WAIT, server.wait())
        .await
        .expect("exits in time")
        .expect("wait");
    assert!(status.success(), "{status}");
    let _ = std::fs::remove_dir_all(&dir);
}
