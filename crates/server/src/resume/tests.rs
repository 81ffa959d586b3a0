//! Tables listed on start run when asked for, without waiting for the
//! background read of every table, and as if they had started with the
//! server.

#![allow(clippy::unwrap_used)]

use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Duration;

use futures_util::future::BoxFuture;
use oxo_protocol::{GameRecord, GameSummary};
use serde_json::{Value, json};

use crate::config::{Config, DbLocation};
use crate::error::ServerError;
use crate::ids::TokenHash;
use crate::metrics::Metrics;
use crate::store::{GamesQuery, PlayerRow, SavedTable, Sqlite, Store, TableRow, TempDb, Write};
use crate::{AppState, LocalClient};

type StoreFuture<'a, T> = BoxFuture<'a, Result<T, ServerError>>;

/// A SQLite store whose read of every unfinished table waits until the
/// test opens the gate: the background start of `resume` is held back.
#[derive(Debug)]
struct Gated {
    inner: Sqlite,
    gate: Mutex<mpsc::Receiver<()>>,
    read: AtomicBool,
}

impl Store for Gated {
    fn next_table_seq(&self) -> i64 {
        self.inner.next_table_seq()
    }
    fn next_game_seq(&self) -> i64 {
        self.inner.next_game_seq()
    }
    fn commit(&self, writes: Vec<Write>) -> StoreFuture<'_, ()> {
        self.inner.commit(writes)
    }
    fn player_by_token(&self, token_hash: TokenHash) -> StoreFuture<'_, Option<PlayerRow>> {
        self.inner.player_by_token(token_hash)
    }
    fn game_record<'a>(
        &'a self,
        id: &'a str,
        asker: Option<&'a str>,
    ) -> StoreFuture<'a, Option<GameRecord>> {
        self.inner.game_record(id, asker)
    }
    fn recent_games(&self, query: GamesQuery) -> StoreFuture<'_, Vec<GameSummary>> {
        self.inner.recent_games(query)
    }
    fn health(&self, limit: Duration) -> BoxFuture<'_, Result<(), String>> {
        self.inner.health(limit)
    }
    fn unfinished_tables(&self) -> Result<Vec<SavedTable>, ServerError> {
        let _ = self.gate.lock().unwrap().recv();
        let tables = self.inner.unfinished_tables();
        self.read.store(true, SeqCst);
        tables
    }
    fn unfinished_rows(&self) -> Result<Vec<TableRow>, ServerError> {
        self.inner.unfinished_rows()
    }
    fn unfinished_table(&self, seq: i64) -> StoreFuture<'_, Option<SavedTable>> {
        self.inner.unfinished_table(seq)
    }
    fn close(&self) -> BoxFuture<'_, ()> {
        self.inner.close()
    }
}

/// The next message of `client` that `pick` accepts.
async fn until(client: &mut LocalClient, pick: impl Fn(&Value) -> bool) -> Value {
    let wait = async {
        loop {
            let text = client.recv().await.expect("the server answers");
            let msg: Value = serde_json::from_str(&text).unwrap();
            if pick(&msg) {
                return msg;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), wait)
        .await
        .expect("the message came")
}

/// A client that said hello (with `token`, or as a new player named
/// `name`), and the `welcome`.
async fn hello(state: &AppState, name: &str, token: Option<&str>) -> (LocalClient, Value) {
    let mut client = state.connect_local();
    let hello = match token {
        Some(token) => json!({"type": "hello", "version": 1, "token": token}),
        None => json!({"type": "hello", "version": 1, "name": name}),
    };
    client.send(&hello.to_string()).await;
    let welcome = until(&mut client, |m| m["type"] == "welcome").await;
    (client, welcome)
}

/// Sends request `id` and waits for its `ok`.
async fn ok(client: &mut LocalClient, id: u64, mut request: Value) -> Value {
    request["id"] = json!(id);
    client.send(&request.to_string()).await;
    let reply = until(client, |m| m["id"] == id).await;
    assert_eq!(reply["type"], "ok", "{request} got {reply}");
    reply
}

/// The first run on `config`: Alice and Bob play b2 at one table, Carol
/// plays a bot at a public one, and the server stops under them (nobody's going
/// away is stored). Returns the two tables and Bob's token.
async fn first_run(config: Config) -> (String, String, String) {
    let state = AppState::new(config).unwrap();
    let (mut alice, _) = hello(&state, "Alice", None).await;
    let (mut bob, welcome) = hello(&state, "Bob", None).await;
    let bob_token = welcome["token"].as_str().unwrap().to_owned();
    let (mut carol, _) = hello(&state, "Carol", None).await;
    let options = json!({"seat": "X"});
    let created = ok(
        &mut alice,
        1,
        json!({"type": "create_table", "options": options}),
    )
    .await;
    let table = created["table_id"].as_str().unwrap().to_owned();
    ok(
        &mut bob,
        1,
        json!({"type": "join_table", "table_id": table}),
    )
    .await;
    ok(
        &mut alice,
        2,
        json!({"type": "move", "table_id": table, "cell": "b2"}),
    )
    .await;
    // Listed in the lobby with nobody connected (a waiting table is not).
    let bot = json!({"seat": "X", "bot": {"level": "random"}});
    let waiting = ok(
        &mut carol,
        1,
        json!({"type": "create_table", "options": bot}),
    )
    .await;
    let waiting = waiting["table_id"].as_str().unwrap().to_owned();
    state.shutdown().await;
    (table, waiting, bob_token)
}

/// The server starts again on `config`, its read of every table held back
/// until something is sent on the channel returned.
fn gated_restart(config: Config) -> (AppState, Arc<Gated>, mpsc::Sender<()>) {
    let (open, gate) = mpsc::channel();
    let metrics = Arc::new(Metrics::default());
    let store = Arc::new(Gated {
        inner: Sqlite::open(&config.db, Arc::clone(&metrics)).unwrap(),
        gate: Mutex::new(gate),
        read: AtomicBool::new(false),
    });
    let state = AppState::with_store(config, store.clone(), metrics).unwrap();
    (state, store, open)
}

fn config(db: &TempDb) -> Config {
    Config {
        db: DbLocation::File(db.path()),
        reconnect_grace: Duration::from_secs(20),
        ..Config::default()
    }
}

#[tokio::test]
async fn a_table_asked_for_runs_before_the_others_are_read_back_with_its_clocks_from_the_start() {
    let db = TempDb::new("resume");
    let (table, waiting, bob_token) = first_run(config(&db)).await;
    let (state, store, open) = gated_restart(config(&db));
    tokio::time::sleep(Duration::from_secs(2)).await;

    // Bob comes back: his seat is there, and so is the table, alone.
    let (mut bob, welcome) = hello(&state, "", Some(&bob_token)).await;
    assert_eq!(welcome["tables"], json!([table]));
    let seen = until(&mut bob, |m| m["type"] == "table").await;
    assert!(
        !store.read.load(SeqCst),
        "the table waited for all the others"
    );
    assert_eq!(seen["table"]["board"], "....X....");
    // Alice's grace period runs from the start, 2 s ago, not from now.
    let left = seen["table"]["players"]["x"]["grace_left_ms"]
        .as_u64()
        .unwrap();
    assert!(
        (1_000..=18_500).contains(&left),
        "Alice's period: {left} ms left of 20,000"
    );
    ok(
        &mut bob,
        2,
        json!({"type": "move", "table_id": table, "cell": "a1"}),
    )
    .await;

    // The rest starts once read: Carol's table comes to the lobby, and
    // Bob's table, started already, is left as it is.
    open.send(()).unwrap();
    let (mut dave, _) = hello(&state, "Dave", None).await;
    dave.send(r#"{"type":"watch_lobby"}"#).await;
    until(&mut dave, |m| {
        m["type"] == "lobby"
            && m["tables"]
                .as_array()
                .unwrap()
                .iter()
                .any(|t| t["id"] == waiting.as_str())
    })
    .await;
    assert!(store.read.load(SeqCst));
    let sync = json!({"type": "sync", "id": 3, "table_id": table});
    bob.send(&sync.to_string()).await;
    let seen = until(&mut bob, |m| m["type"] == "table").await;
    assert_eq!(seen["table"]["board"], "O...X....");
    assert_eq!(until(&mut bob, |m| m["id"] == 3).await["type"], "ok");
    state.shutdown().await;
}

/// A table that does not read back when it is asked for is taken down:
/// what was sent to it is refused, and the rest goes on.
#[tokio::test]
async fn a_table_that_does_not_read_back_when_asked_for_refuses_what_was_sent_to_it() {
    let db = TempDb::new("resume-broken");
    let (table, waiting, bob_token) = first_run(config(&db)).await;
    rusqlite::Connection::open(db.path())
        .unwrap()
        .execute_batch("UPDATE moves SET cell = 'z9'")
        .unwrap();
    let (state, _store, open) = gated_restart(config(&db));

    // Listed from its row, so Bob's seat shows; it fails once read.
    let (mut bob, welcome) = hello(&state, "", Some(&bob_token)).await;
    assert_eq!(welcome["tables"], json!([table]));
    let sync = json!({"type": "sync", "id": 2, "table_id": table});
    bob.send(&sync.to_string()).await;
    let refused = until(&mut bob, |m| m["id"] == 2).await;
    assert_eq!(refused["code"], "no_such_table", "{refused}");

    // Carol's table resumes.
    open.send(()).unwrap();
    let (mut carol, _) = hello(&state, "Dave", None).await;
    let watch = json!({"type": "watch_table", "id": 1, "table_id": waiting});
    carol.send(&watch.to_string()).await;
    assert_eq!(until(&mut carol, |m| m["id"] == 1).await["type"], "ok");
    state.shutdown().await;
}
