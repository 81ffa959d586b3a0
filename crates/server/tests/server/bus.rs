//! Two nodes on one PostgreSQL database and one NATS bus: each runs the
//! tables created on it; a client on the other node plays there through
//! the bus (requests forwarded, the table's frames relayed back); the
//! lobby lists both nodes' tables; when a node stops, the other takes its
//! tables over and the players, coming back, finish the game.

use std::time::Duration;

use oxo_core::Player;
use oxo_server::{Config, DbLocation};
use serde_json::json;

use crate::cluster::{finish_elsewhere, testdb};
use crate::common::{Server, config};

#[path = "../../src/bus/testbus.rs"]
mod testbus;

fn node(db: &str, bus: &str, node: u16) -> Config {
    Config {
        db: DbLocation::Postgres {
            url: db.to_owned(),
            node,
        },
        bus: Some(bus.to_owned()),
        lease_ttl: Duration::from_millis(1_000),
        ..config()
    }
}

/// Waits until `server` is on the bus and has renewed its leases once.
async fn ready(server: &Server) {
    for _ in 0..200 {
        let (_, metrics) = server.get("/metrics").await;
        if metrics.contains("oxo_bus_up 1") {
            // One lease round.
            tokio::time::sleep(Duration::from_millis(400)).await;
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the node never came up");
}

/// A test database and bus, and nodes 1 to `N` on them (each with the
/// config `config` makes of its own), all ready; `None` (the test skips)
/// without PostgreSQL or NATS. The bus lives as long as the value.
async fn cluster<const N: usize>(
    config: impl Fn(Config) -> Config,
) -> Option<(testbus::TestBus, [Server; N])> {
    let db = testdb::database()?;
    let bus = testbus::TestBus::start()?;
    let mut nodes = Vec::new();
    for i in 1..=N {
        let id = u16::try_from(i).expect("a node id");
        nodes.push(Server::with(config(node(&db, &bus.url, id))).await);
    }
    for server in &nodes {
        ready(server).await;
    }
    Some((bus, nodes.try_into().ok()?))
}

#[tokio::test]
async fn a_client_on_another_node_plays_through_the_bus_and_a_stopped_nodes_table_moves() {
    let Some((_bus, [a, b])) = cluster(|c| c).await else {
        return;
    };

    // A watcher of the lobby on node 2 sees node 1's new public table.
    let mut watcher = b.client("Wanda").await;
    watcher.ok(json!({"type":"watch_lobby"})).await;

    let mut x = a.client("Xena").await;
    let mut o = b.client("Otto").await;
    let created = x
        .create(json!({"seat":"X", "starter":"x", "public": true}))
        .await;
    let table = created.id.to_string();
    loop {
        let lobby = watcher.until("lobby").await;
        if lobby["tables"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["id"] == json!(table))
        {
            break;
        }
    }

    // O, on node 2, joins and plays on node 1's table.
    o.ok(json!({"type":"join_table","table_id":table})).await;
    x.table_until(|t| t.players.o.is_some()).await;
    x.play(&table, "a1").await;
    let seen = o.table_until(|t| t.board == "X........").await;
    assert_eq!(seen.turn, Some(Player::O));
    let after = o.play(&table, "b1").await;
    assert_eq!(after.board, "XO.......");
    x.table_until(|t| t.board == "XO.......").await;

    // Chat and a refusal travel too.
    o.ok(json!({"type":"chat","table_id":table,"text":"hi from node 2"}))
        .await;
    let chat = x.until("chat").await;
    assert_eq!(chat["text"], "hi from node 2");
    let history = o.ok(json!({"type":"chat_history","table_id":table})).await;
    let history = history.iter().find(|e| e["type"] == "chat_history");
    assert_eq!(
        history.map(|h| h["messages"][0]["text"].clone()),
        Some(json!("hi from node 2"))
    );
    // Stepping away and back travels too.
    o.ok(json!({"type":"step_away","table_id":table})).await;
    x.table_until(|t| !t.players.o.as_ref().unwrap().connected)
        .await;
    o.ok(json!({"type":"join_table","table_id":table})).await;
    x.table_until(|t| t.players.o.as_ref().unwrap().connected)
        .await;
    o.refused(
        json!({"type":"move","table_id":table,"cell":"c3"}),
        "not_your_turn",
    )
    .await;
    let game_id = x.play(&table, "a2").await.game_id.unwrap();

    let (_, metrics) = b.get("/metrics").await;
    let forwarded = metric(&metrics, "oxo_forwarded_requests_total");
    assert!(forwarded >= 4, "{metrics}");
    assert!(metric(&metrics, "oxo_bus_frames_total") >= 4, "{metrics}");

    // Node 1 stops: node 2 takes its table over; both players come back
    // on node 2 and finish the game.
    let (xt, ot) = (x.token.clone(), o.token.clone());
    a.stop().await;
    let (_, reason) = o.expect_close().await;
    assert!(reason.contains("reconnect"), "{reason}");
    drop((x, o));
    finish_elsewhere(&b, (&xt, &ot), &table, game_id.as_str()).await;
    b.stop().await;
}

fn metric(metrics: &str, name: &str) -> u64 {
    metrics
        .lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or(0)
}

/// The limit on seats in play holds across the cluster, not per node: a
/// player with the most seats allowed on one node gets no more on another.
#[tokio::test]
async fn the_seat_limit_counts_every_nodes_tables() {
    let limited = |c| Config {
        max_tables_per_player: 2,
        ..c
    };
    let Some((_bus, [a, b])) = cluster(limited).await else {
        return;
    };

    let mut x = a.client("Xena").await;
    x.create(json!({"seat":"X"})).await;
    x.create(json!({"seat":"X"})).await;
    x.refused(
        json!({"type":"create_table","options":{"seat":"X"}}),
        "too_many_tables",
    )
    .await;

    // The same player on node 2: neither a new table nor a seat at one.
    let (mut x2, _) = b.resume(&x.token).await;
    x2.refused(
        json!({"type":"create_table","options":{"seat":"X"}}),
        "too_many_tables",
    )
    .await;
    let mut o = b.client("Otto").await;
    let table = o.create(json!({"seat":"O"})).await.id.to_string();
    x2.refused(
        json!({"type":"join_table","table_id":table}),
        "too_many_tables",
    )
    .await;
    a.stop().await;
    b.stop().await;
}

/// The value of metric `name` on `server`, once `done` accepts it (10 s
/// at most, then the last value).
async fn metric_when(server: &Server, name: &str, done: impl Fn(u64) -> bool) -> u64 {
    let mut value = 0;
    for _ in 0..500 {
        let (_, metrics) = server.get("/metrics").await;
        value = metric(&metrics, name);
        if done(value) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    value
}

/// A node that stops cleanly shares its tables out among the nodes it
/// hears on the bus, rather than the first to claim taking them all (a
/// rolling restart would otherwise pile every table onto one node); the
/// players of a game on it finish that game on its new node.
#[tokio::test]
async fn a_stopped_nodes_tables_are_shared_out_among_the_others() {
    let Some((_bus, [a, b, c])) = cluster(|c| c).await else {
        return;
    };
    assert_eq!(metric_when(&a, "oxo_bus_peers", |n| n == 2).await, 2);

    // Four tables on node 1: a game in play and three waiting.
    let mut x = a.client("Xena").await;
    let mut o = a.client("Otto").await;
    let table = x
        .create(json!({"seat":"X", "starter":"x"}))
        .await
        .id
        .to_string();
    o.ok(json!({"type":"join_table","table_id":table})).await;
    x.play(&table, "a1").await;
    o.play(&table, "b1").await;
    let game_id = x.play(&table, "a2").await.game_id.unwrap();
    for name in ["Yuri", "Zoe", "Walt"] {
        a.client(name).await.create(json!({"seat":"X"})).await;
    }
    assert_eq!(metric(&a.get("/metrics").await.1, "oxo_tables"), 4);

    let (xt, ot) = (x.token.clone(), o.token.clone());
    drop((x, o));
    a.stop().await;
    let both = || async {
        metric(&b.get("/metrics").await.1, "oxo_tables")
            + metric(&c.get("/metrics").await.1, "oxo_tables")
    };
    for _ in 0..500 {
        if both().await == 4 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let on_b = metric(&b.get("/metrics").await.1, "oxo_tables");
    let on_c = metric(&c.get("/metrics").await.1, "oxo_tables");
    assert_eq!((on_b, on_c), (2, 2), "node 1's four tables, shared out");

    finish_elsewhere(&b, (&xt, &ot), &table, game_id.as_str()).await;
    b.stop().await;
    c.stop().await;
}

/// A rematch asked for (and acknowledged) before its table's node stops
/// still counts at the node that takes the table over, as after a
/// restart: the other player's rematch starts the next round.
#[tokio::test]
async fn a_rematch_asked_before_a_takeover_still_counts_after_it() {
    let Some((_bus, [a, b])) = cluster(|c| c).await else {
        return;
    };
    let mut x = a.client("Xena").await;
    let mut o = b.client("Otto").await;
    let table = x.create(json!({"seat":"X"})).await.id.to_string();
    o.ok(json!({"type":"join_table","table_id":table})).await;
    x.ok(json!({"type":"forfeit","table_id":table})).await;
    x.ok(json!({"type":"rematch","table_id":table})).await;
    let (xt, ot) = (x.token.clone(), o.token.clone());
    drop((x, o));
    a.stop().await;

    // A finished round is not in the welcome: X comes back by joining.
    let (mut x, _) = b.resume(&xt).await;
    let mut joined = None;
    for _ in 0..100 {
        let (events, reply) = x
            .request(json!({"type":"join_table","table_id":table}))
            .await;
        if reply["type"] == "ok" {
            joined = crate::common::last_table(&events);
            break;
        }
        assert_eq!(reply["code"], "table_moving", "{reply}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let state = joined.expect("X came back to the table");
    assert!(state.players.x.as_ref().unwrap().wants_rematch, "{state:?}");
    let (mut o, _) = b.resume(&ot).await;
    let events = o.ok(json!({"type":"rematch","table_id":table})).await;
    let round = crate::common::last_table(&events).expect("a state");
    assert_eq!(round.round, 2, "{round:?}");
    b.stop().await;
}
