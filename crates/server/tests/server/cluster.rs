//! Two nodes on one PostgreSQL database: a table moves to the other node
//! when its node stops, and the game goes on there. (A node killed or
//! paused is tested with the real binary, in the oxo crate's tests.)

use std::time::Duration;

use oxo_core::Player;
use oxo_protocol::TableStatus;
use oxo_server::{Config, DbLocation};
use serde_json::json;

use crate::common::{Server, config, pair};
use crate::restart::{LONG_GRACE, assert_o_grace_ran_on, o_away_three_seconds};

#[path = "../../src/store/postgres/testdb.rs"]
pub(crate) mod testdb;

fn node(url: &str, node: u16) -> Config {
    Config {
        db: DbLocation::Postgres {
            url: url.to_owned(),
            node,
        },
        // Long enough that a node is not thought dead while a loaded test
        // machine runs other tests beside this one.
        lease_ttl: Duration::from_millis(1_000),
        ..config()
    }
}

/// Waits until `server` leads the cluster (it runs the tables).
async fn leads(server: &Server) {
    while !server
        .get("/metrics")
        .await
        .1
        .contains("oxo_cluster_leader 1")
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn a_stopped_nodes_tables_resume_on_another_node() {
    let Some(url) = testdb::database() else {
        return;
    };
    let a = Server::with(node(&url, 1)).await;
    // Node 1 leads (it runs the tables); node 2 follows.
    leads(&a).await;
    let b = Server::with(node(&url, 2)).await;
    let (mut x, mut o, table) = pair(&a, json!({"starter":"alternate"})).await;
    x.play(&table, "a1").await;
    o.play(&table, "b1").await;
    let game_id = x.play(&table, "a2").await.game_id.unwrap();
    let (xt, ot) = (x.token.clone(), o.token.clone());
    a.stop().await;
    drop((x, o));
    // Until node 2 leads, it answers connections 503 (a client tries
    // again).
    leads(&b).await;

    // Node 2 takes the table over within a lease or so; until then the
    // players may not find it there.
    finish_elsewhere(&b, (&xt, &ot), &table, game_id.as_str()).await;
    let (_, metrics) = b.get("/metrics").await;
    assert!(
        metrics.contains("oxo_tables_taken_over_total 1"),
        "{metrics}"
    );
    b.stop().await;
}

/// An away player's grace period keeps its end when the table moves to
/// another node: the new owner reads it from PostgreSQL instead of giving
/// a fresh period (docs/protocol.md, In a cluster).
#[tokio::test]
async fn an_away_players_grace_period_keeps_its_end_on_the_new_owner() {
    let Some(url) = testdb::database() else {
        return;
    };
    let grace = |cfg: Config| Config {
        reconnect_grace: LONG_GRACE,
        ..cfg
    };
    let a = Server::with(grace(node(&url, 1))).await;
    leads(&a).await;
    let b = Server::with(grace(node(&url, 2))).await;
    let (x, _, table) = o_away_three_seconds(&a).await;
    // Then the owner stops.
    let xt = x.token.clone();
    a.stop().await;
    drop(x);
    leads(&b).await;

    let mut x = b.resume_at(&xt, &table).await;
    assert_o_grace_ran_on(&x.table_until(|_| true).await);
    b.stop().await;
}

/// The chat so far moves with the table: the new owner reads it from
/// PostgreSQL, and the conversation goes on after it.
#[tokio::test]
async fn the_chat_so_far_moves_with_the_table() {
    let Some(url) = testdb::database() else {
        return;
    };
    let a = Server::with(node(&url, 1)).await;
    leads(&a).await;
    let b = Server::with(node(&url, 2)).await;
    let (mut x, mut o, table) = pair(&a, json!({})).await;
    crate::chat::say_good_luck(&mut x, &mut o, &table).await;
    let xt = x.token.clone();
    a.stop().await;
    drop((x, o));
    leads(&b).await;

    let mut x = b.resume_at(&xt, &table).await;
    crate::chat::the_chat_so_far_goes_on(&mut x, &table).await;
    b.stop().await;
}

/// Both players of `table` (tokens `x` and `o`), its node stopped after
/// X's a1, O's b1 and X's a2 (`game`), come back at `server`, which took
/// the table over: they find the board as it was, finish the round (b2,
/// a3) and the record has all five moves.
pub(crate) async fn finish_elsewhere(
    server: &Server,
    (x, o): (&str, &str),
    table: &str,
    game: &str,
) {
    let mut x = server.resume_at(x, table).await;
    let state = x.table_until(|_| true).await;
    assert_eq!(state.board, "XO.X.....");
    assert_eq!(state.turn, Some(Player::O));
    let (mut o, _) = server.resume(o).await;
    o.table_until(|t| t.players.x.as_ref().is_some_and(|p| p.connected))
        .await;
    o.play(table, "b2").await;
    let end = x.play(table, "a3").await;
    assert_eq!(end.status, TableStatus::RoundOver);
    assert_eq!(
        server.record_cells(game).await,
        ["a1", "b1", "a2", "b2", "a3"]
    );
}
