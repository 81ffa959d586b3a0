//! `oxo serve` survives `kill -9`: start the real binary, play three moves,
//! SIGKILL it, start it again on the same database, come back with both
//! tokens, finish the game and read its record over HTTP. Then SIGTERM
//! stops it cleanly.

use std::net::SocketAddr;
use std::path::Path;

use oxo_client::{Link, LinkOptions, Welcome};
use oxo_core::{Player, Square};
use oxo_protocol::{ClientMsg, ServerMsg, TableId, TableOptions, TableState, TableStatus};
use serde_json::Value;
use tokio::process::Child;

mod common;

use common::{WAIT, call};

/// Sends `msg` and returns the last `table` state before its `ok`.
async fn request(link: &mut Link, msg: ClientMsg) -> TableState {
    let (reply, table) = call(link, msg).await;
    assert!(matches!(reply, Ok(ServerMsg::Ok { .. })), "{reply:?}");
    table.expect("a table state before the ok")
}

async fn hello(addr: SocketAddr, token: Option<&str>, name: Option<&str>) -> (Link, Welcome) {
    let options = LinkOptions::default();
    let mut link = Link::connect_to(addr, &format!("ws://{addr}/ws"), options)
        .await
        .expect("connect");
    let welcome = link
        .hello(token.map(str::to_owned), name.map(str::to_owned), WAIT)
        .await
        .expect("welcome");
    (link, welcome)
}

fn play(table: &TableId, cell: Square) -> ClientMsg {
    ClientMsg::Move {
        table_id: table.clone(),
        cell,
        game_id: None,
    }
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
    let (mut x, wx) = hello(addr, None, Some("Xena")).await;
    let (mut o, wo) = hello(addr, None, Some("Otto")).await;
    let options = TableOptions {
        seat: Some(Player::X),
        ..TableOptions::default()
    };
    let table = request(&mut x, ClientMsg::CreateTable { options }).await;
    let table_id = table.id.clone();
    let join = ClientMsg::JoinTable {
        table_id: table_id.clone(),
        seat: None,
    };
    request(&mut o, join).await;
    request(&mut x, play(&table_id, Square::A1)).await;
    request(&mut o, play(&table_id, Square::B1)).await;
    let state = request(&mut x, play(&table_id, Square::A2)).await;
    let game_id = state.game_id.expect("game id");

    // SIGKILL: no chance to flush anything.
    server.kill().await.expect("kill -9");
    drop((x, o));

    let (mut server, addr) = start(&db).await;
    let (mut x, wx2) = hello(addr, Some(&wx.token), None).await;
    assert_eq!(wx2.player_id, wx.player_id);
    assert_eq!(wx2.tables, std::slice::from_ref(&table_id));
    let (mut o, _) = hello(addr, Some(&wo.token), None).await;
    let state = request(&mut o, play(&table_id, Square::B2)).await;
    let cells = [Square::A1, Square::B1, Square::A2, Square::B2];
    assert_eq!(state.moves, cells);
    let state = request(&mut x, play(&table_id, Square::A3)).await;
    assert_eq!(state.status, TableStatus::RoundOver);
    assert_eq!(state.outcome.and_then(|o| o.winner()), Some(Player::X));

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
    let closing = tokio::time::timeout(WAIT, x.recv()).await;
    assert!(
        matches!(closing, Ok(Ok(ServerMsg::Closing { .. }))),
        "{closing:?}"
    );
    let status = tokio::time::timeout(WAIT, server.wait())
        .await
        .expect("exits in time")
        .expect("wait");
    assert!(status.success(), "{status}");
    let _ = std::fs::remove_dir_all(&dir);
}
