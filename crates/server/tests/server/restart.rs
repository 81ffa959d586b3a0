//! State that survives a restart (graceful here; `kill -9` is tested with the
//! real binary in the oxo crate's tests).

use std::path::PathBuf;

use oxo_core::Player;
use oxo_protocol::{TableState, TableStatus};
use oxo_server::{Config, DbLocation};
use serde_json::json;

use crate::common::{Client, Server, config, pair};

/// A database file in a directory of its own, removed when dropped (also
/// when a test fails).
struct TempDb {
    path: PathBuf,
}

impl TempDb {
    fn new(name: &str) -> TempDb {
        let dir = std::env::temp_dir().join(format!(
            "oxo-server-test-{name}-{}-{}",
            std::process::id(),
            rand_suffix()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        TempDb {
            path: dir.join("oxo.db"),
        }
    }

    /// The tests' configuration on this file.
    fn config(&self) -> Config {
        Config {
            db: DbLocation::File(self.path.clone()),
            ..config()
        }
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        if let Some(dir) = self.path.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn rand_suffix() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

#[tokio::test]
async fn unfinished_games_resume_after_a_restart() {
    let db = TempDb::new("restart");
    let cfg = || db.config();
    let server = Server::with(cfg()).await;
    let (mut x, mut o, table) = pair(&server, json!({"starter":"alternate"})).await;
    x.play(&table, "a1").await;
    o.play(&table, "b1").await;
    let game_id = x.play(&table, "a2").await.game_id.unwrap();
    let (xt, ot) = (x.token.clone(), o.token.clone());
    // A second, finished table whose scores must survive too.
    server.stop().await;
    drop((x, o));

    let server = Server::with(cfg()).await;
    let (mut x, welcome) = server.resume(&xt).await;
    assert_eq!(welcome["tables"], json!([table]));
    let state = x.table_until(|_| true).await;
    assert_eq!(state.board, "XO.X.....");
    assert_eq!(state.turn, Some(Player::O));
    assert_eq!(state.status, TableStatus::InProgress);
    assert!(
        !state.players.o.as_ref().unwrap().connected,
        "O has not come back yet"
    );
    assert!(state.players.o.as_ref().unwrap().grace_left_ms.is_some());
    let (mut o, _) = server.resume(&ot).await;
    o.table_until(|t| t.players.x.as_ref().unwrap().connected)
        .await;
    o.play(&table, "b2").await;
    let end = x.play(&table, "a3").await;
    assert_eq!(end.status, TableStatus::RoundOver);
    assert_eq!(end.scores.x, 1);
    let (status, rec) = server.get_json(&format!("/api/games/{game_id}")).await;
    assert_eq!(status, 200);
    assert_eq!(rec["moves"].as_array().unwrap().len(), 5);
    assert_eq!(rec["outcome"]["winner"], "X");
    // A rematch after the restart still alternates the starter.
    x.ok(json!({"type":"rematch","table_id":table})).await;
    let events = o.ok(json!({"type":"rematch","table_id":table})).await;
    let next = crate::common::last_table(&events).unwrap();
    assert_eq!((next.round, next.first), (2, Some(Player::O)));
    server.stop().await;

    // And the finished round's score is there after another restart.
    let server = Server::with(cfg()).await;
    let (mut x, _) = server.resume(&xt).await;
    let state = x.table_until(|_| true).await;
    assert_eq!((state.round, state.scores.x), (2, 1));
    server.stop().await;
}

#[tokio::test]
async fn a_corrupt_table_is_skipped_and_the_others_resume() {
    let db = TempDb::new("corrupt");
    let cfg = || db.config();
    let server = Server::with(cfg()).await;
    // Four tables, one move each; three get a corrupt row below.
    let mut tables = Vec::new();
    for _ in 0..4 {
        let (mut x, o, table) = pair(&server, json!({})).await;
        x.play(&table, "b2").await;
        tables.push((x.token.clone(), o.token.clone(), table));
    }
    server.stop().await;
    {
        let conn = rusqlite::Connection::open(&db.path).unwrap();
        let bad_status = "UPDATE tables SET status = 'bogus' WHERE id = ?1";
        let bad_options = "UPDATE tables SET options = 'not json' WHERE id = ?1";
        let bad_move = "UPDATE moves SET cell = 'z9'
                        WHERE game = (SELECT game FROM tables WHERE id = ?1)";
        for (sql, (_, _, table)) in [bad_status, bad_options, bad_move].iter().zip(&tables) {
            assert_eq!(conn.execute(sql, [table]).unwrap(), 1, "{sql}");
        }
    }

    // The server starts, without the three broken tables...
    let server = Server::with(cfg()).await;
    for (xt, _, _) in &tables[..3] {
        let (_, welcome) = server.resume(xt).await;
        assert_eq!(welcome["tables"], json!([]), "{welcome}");
    }
    // ...and the sound one goes on where it was.
    let (xt, ot, table) = &tables[3];
    let (mut x, welcome) = server.resume(xt).await;
    assert_eq!(welcome["tables"], json!([table]));
    let state = x.table_until(|_| true).await;
    assert_eq!(state.board, "....X....");
    let (mut o, _) = server.resume(ot).await;
    let state = o.play(table, "a1").await;
    assert_eq!(state.board, "O...X....");
    server.stop().await;
}

/// A per-move clock keeps running while the server is down: its deadline
/// is the last move's time plus the limit, not a fresh limit from the
/// restart (docs/protocol.md, Reconnecting).
#[tokio::test]
async fn a_per_move_clock_keeps_its_deadline_across_a_restart() {
    let db = TempDb::new("clock");
    let cfg = || db.config();
    let (xt, _) = x_plays_a1_on_a_clock(&db).await;
    // Down for two seconds.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;

    let server = Server::with(cfg()).await;
    let (mut x, _) = server.resume(&xt).await;
    let state = x.table_until(|_| true).await;
    assert_eq!(state.turn, Some(Player::O));
    let left = state.time_left_ms.expect("a clock");
    assert!(
        (5_000..=28_000).contains(&left),
        "O's clock ran on while the server was down: {left} ms left of 30,000"
    );
    server.stop().await;
}

/// A grace period keeps its end across a restart: a player who went away
/// before it has what was left of theirs, not a fresh one
/// (docs/protocol.md, Reconnecting).
#[tokio::test]
async fn an_away_players_grace_period_keeps_its_end_across_a_restart() {
    let db = TempDb::new("grace");
    let cfg = || Config {
        reconnect_grace: LONG_GRACE,
        ..db.config()
    };
    let server = Server::with(cfg()).await;
    let (x, ot, _) = o_away_three_seconds(&server).await;
    // Then the server restarts.
    let xt = x.token.clone();
    server.stop().await;
    drop(x);

    let server = Server::with(cfg()).await;
    let (mut x, _) = server.resume(&xt).await;
    assert_o_grace_ran_on(&x.table_until(|_| true).await);
    // X's going away was never stored (the server stopped under it): a
    // fresh period.
    let (mut o, _) = server.resume(&ot).await;
    let state = o.table_until(|_| true).await;
    let left = state.players.x.as_ref().unwrap().grace_left_ms;
    assert!(
        left.is_none() || left >= Some(17_500),
        "X's period: {left:?}"
    );
    server.stop().await;
}

/// Stored times that make no sense (from a broken clock, or written by
/// hand) resume like times long gone or far ahead: never a crash, at
/// least 5 s for the player to move and to come back, never more than the
/// whole period.
#[tokio::test]
async fn absurd_stored_times_resume_within_the_least_and_the_whole_period() {
    let db = TempDb::new("absurd-times");
    let cfg = || db.config();
    let (xt, table) = x_plays_a1_on_a_clock(&db).await;
    {
        let conn = rusqlite::Connection::open(&db.path).unwrap();
        conn.execute_batch(&format!(
            "UPDATE moves SET at_ms = {min};
             UPDATE games SET started_ms = {min};
             UPDATE tables SET o_away_until_ms = {min}, x_away_until_ms = {max};",
            min = i64::MIN,
            max = i64::MAX
        ))
        .unwrap();
    }

    let server = Server::with(cfg()).await;
    let (mut x, welcome) = server.resume(&xt).await;
    assert_eq!(welcome["tables"], json!([table]));
    let state = x.table_until(|_| true).await;
    assert_eq!(state.board, "X........");
    let clock = state.time_left_ms.expect("a clock");
    assert!((4_000..=5_000).contains(&clock), "O's clock: {clock} ms");
    let grace = state.players.o.as_ref().unwrap().grace_left_ms;
    assert!(
        grace.is_some_and(|ms| (4_000..=5_000).contains(&ms)),
        "O's grace period: {grace:?} ms"
    );
    server.stop().await;
}

/// On a server on `db`: X and O sit down at a table with a 30 s clock
/// per move, X plays a1, and the server stops. Returns X's token and the
/// table.
async fn x_plays_a1_on_a_clock(db: &TempDb) -> (String, String) {
    let server = Server::with(db.config()).await;
    let (mut x, _o, table) = pair(&server, json!({"move_time_ms": 30_000})).await;
    x.play(&table, "a1").await;
    let xt = x.token.clone();
    server.stop().await;
    (xt, table)
}

/// The grace period of the tests of its end across an outage.
pub(crate) const LONG_GRACE: std::time::Duration = std::time::Duration::from_secs(20);

/// On `server` (with [`LONG_GRACE`]): X and O sit down, X plays a1, and O
/// goes away for three seconds. Returns X (still there), O's token and
/// the table.
pub(crate) async fn o_away_three_seconds(server: &Server) -> (Client, String, String) {
    let (mut x, o, table) = pair(server, json!({})).await;
    x.play(&table, "a1").await;
    let ot = o.token.clone();
    drop(o);
    x.table_until(|t| !t.players.o.as_ref().unwrap().connected)
        .await;
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    (x, ot, table)
}

/// The table after [`o_away_three_seconds`] and an outage, as a player
/// sees it once it resumed: O's grace period ran on from when O left
/// (but at least 5 s are left).
pub(crate) fn assert_o_grace_ran_on(state: &TableState) {
    let left = state.players.o.as_ref().unwrap().grace_left_ms;
    assert!(
        left.is_some_and(|ms| (5_000..=17_500).contains(&ms)),
        "O's grace period ran on from when O left: {left:?} ms left of 20,000"
    );
}

/// A rematch asked for, and acknowledged, before a restart still counts
/// after it: the other player's rematch starts the next round.
#[tokio::test]
async fn a_rematch_asked_before_a_restart_still_counts_after_it() {
    let db = TempDb::new("rematch");
    let cfg = || db.config();
    let server = Server::with(cfg()).await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    o.ok(json!({"type":"forfeit","table_id":table})).await;
    x.ok(json!({"type":"rematch","table_id":table})).await;
    let ot = o.token.clone();
    server.stop().await;
    drop((x, o));

    let server = Server::with(cfg()).await;
    let (mut o, _) = server.resume(&ot).await;
    let events = o.ok(json!({"type":"join_table","table_id":table})).await;
    let state = crate::common::last_table(&events).unwrap();
    assert_eq!(state.status, TableStatus::RoundOver);
    assert!(state.players.x.as_ref().unwrap().wants_rematch, "{state:?}");
    let events = o.ok(json!({"type":"rematch","table_id":table})).await;
    let next = crate::common::last_table(&events).unwrap();
    assert_eq!((next.round, next.status), (2, TableStatus::InProgress));
    server.stop().await;
}

/// The chat so far survives a restart: a page reloaded after it reads the
/// messages from the new process, and the conversation goes on after them.
#[tokio::test]
async fn the_chat_so_far_survives_a_restart() {
    let db = TempDb::new("chat");
    let cfg = || db.config();
    let server = Server::with(cfg()).await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    crate::chat::say_good_luck(&mut x, &mut o, &table).await;
    let xt = x.token.clone();
    server.stop().await;
    drop((x, o));

    let server = Server::with(cfg()).await;
    let (mut x, _) = server.resume(&xt).await;
    crate::chat::the_chat_so_far_goes_on(&mut x, &table).await;
    server.stop().await;
}

/// A retry of a move from an earlier round, naming its round, is
/// recognised after a restart too: the table remembers its last accepted
/// moves across rounds, and a restart does not make it forget those of
/// the rounds before the current one.
#[tokio::test]
async fn a_retry_of_an_earlier_rounds_move_is_recognised_after_a_restart() {
    let db = TempDb::new("retry-earlier");
    let cfg = || db.config();
    let server = Server::with(cfg()).await;
    let (mut x, mut o, table) = pair(&server, json!({"starter":"x"})).await;
    let first = json!({"type":"move","id":7,"table_id":table,"cell":"a1"});
    x.send(first).await;
    let reply = x.until("ok").await;
    let round1 = reply["game_id"].clone();
    o.until("table").await;
    o.ok(json!({"type":"forfeit","table_id":table})).await;
    x.ok(json!({"type":"rematch","table_id":table})).await;
    o.ok(json!({"type":"rematch","table_id":table})).await;
    x.table_until(|t| t.round == 2 && t.status == TableStatus::InProgress)
        .await;
    let xt = x.token.clone();
    server.stop().await;
    drop((x, o));

    let server = Server::with(cfg()).await;
    let (mut x, _) = server.resume(&xt).await;
    x.table_until(|t| t.round == 2).await;
    x.send(json!({"type":"move","id":7,"table_id":table,"cell":"a1","game_id":round1}))
        .await;
    let reply = loop {
        let v = x.recv().await;
        if v["id"] == 7 {
            break v;
        }
    };
    assert_eq!(reply["type"], "ok", "{reply}");
    assert_eq!(reply["game_id"], round1, "{reply}");
    assert_eq!(reply["ply"], 1, "{reply}");
    // Nothing was played in round 2.
    let (events, _) = x.request(json!({"type":"sync","table_id":table})).await;
    assert_eq!(
        crate::common::last_table(&events).unwrap().board,
        "........."
    );
    server.stop().await;
}
