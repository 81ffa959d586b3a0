//! Leases and fencing between two nodes on one PostgreSQL database.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use oxo_core::{Player, Square};

use super::Postgres;
use super::testdb::database;
use crate::error::ServerError;
use crate::metrics::Metrics;
use crate::store::conformance::{finished_game, table_with_a_move};
use crate::store::contract::Store;
use crate::store::rows::{GamesQuery, NewMove, PLAYER_SCAN, Write};

const TTL: Duration = Duration::from_millis(300);

fn node(url: &str, id: u16) -> Postgres {
    Postgres::open(url, id, TTL, Arc::new(Metrics::default())).unwrap()
}

fn o_moves(cell: Square, epoch: i64) -> Vec<Write> {
    vec![
        Write::Fence { table: 1, epoch },
        Write::Move(NewMove {
            game: 1,
            ply: 2,
            player: Player::O,
            cell,
            at_ms: 1,
            req_id: Some(8),
        }),
    ]
}

#[tokio::test]
async fn a_stale_owner_cannot_write_after_a_takeover() {
    let Some(url) = database() else { return };
    let (a, b) = (node(&url, 1), node(&url, 2));
    let mut writes = vec![Write::Fence { table: 1, epoch: 1 }];
    writes.extend(table_with_a_move(1));
    a.commit(writes).await.unwrap();

    // A fresh lease is A's alone.
    assert!(b.claim_orphans(false).await.unwrap().is_empty());
    assert_eq!(a.renew_leases().await.unwrap(), Some(vec![(1, 1)]));

    // A stops renewing; once the lease has run out, B takes the table over
    // with the next epoch, its game replayed.
    tokio::time::sleep(TTL + Duration::from_millis(100)).await;
    let taken = b.claim_orphans(false).await.unwrap();
    assert_eq!(taken.len(), 1);
    assert_eq!(taken[0].epoch, 2);
    let game = taken[0].game.as_ref().unwrap();
    assert_eq!(game.game.to_move(), Some(Player::O));

    // A wakes up: its write under epoch 1 is refused whole, and its renewal
    // shows it holds nothing.
    let refused = a.commit(o_moves(Square::A1, 1)).await;
    assert!(
        matches!(
            refused,
            Err(ServerError::Fenced {
                table: 1,
                ours: 1,
                current: 2
            })
        ),
        "{refused:?}"
    );
    assert_eq!(a.renew_leases().await.unwrap(), Some(vec![]));
    let record = b.game_record("g1", None).await.unwrap().unwrap();
    assert_eq!(record.moves.len(), 1, "nothing of the stale commit");

    // The new owner writes under its epoch.
    b.commit(o_moves(Square::C3, 2)).await.unwrap();
    let record = a.game_record("g1", None).await.unwrap().unwrap();
    assert_eq!(record.moves.len(), 2);
    assert_eq!(record.moves[1].cell, Square::C3);
    assert_eq!(b.renew_leases().await.unwrap(), Some(vec![(1, 2)]));
}

#[tokio::test]
async fn nodes_never_hand_out_the_same_key() {
    let Some(url) = database() else { return };
    let (a, b) = (node(&url, 1), node(&url, 2));
    let mut keys: Vec<i64> = (0..100)
        .flat_map(|_| [a.next_game_seq(), b.next_game_seq()])
        .collect();
    let mut unique = keys.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), 200, "two nodes, one key space");
    // A restarted node starts above every key in the database.
    let last = keys.pop().unwrap();
    a.commit(table_with_a_move(last)).await.unwrap();
    let again = node(&url, 2);
    assert!(again.next_game_seq() > last);
}

#[tokio::test]
async fn a_node_learns_when_another_nodes_lease_runs_out() {
    let Some(url) = database() else { return };
    let (a, b) = (node(&url, 1), node(&url, 2));
    assert_eq!(b.next_expiry().await.unwrap(), None, "no tables yet");
    let mut writes = vec![Write::Fence { table: 1, epoch: 1 }];
    writes.extend(table_with_a_move(1));
    a.commit(writes).await.unwrap();

    // Its own leases are not A's concern; B sees A's run out within a TTL.
    assert_eq!(a.next_expiry().await.unwrap(), None);
    let due = b.next_expiry().await.unwrap().unwrap();
    assert!(due > Duration::ZERO && due <= TTL, "{due:?}");

    // Once it has run out, it is due now; claimed, it is B's own.
    tokio::time::sleep(TTL + Duration::from_millis(50)).await;
    assert_eq!(b.next_expiry().await.unwrap(), Some(Duration::ZERO));
    assert_eq!(b.claim_orphans(false).await.unwrap().len(), 1);
    assert_eq!(b.next_expiry().await.unwrap(), None);
    assert!(a.next_expiry().await.unwrap().is_some());
}

/// `n` finished public games between players `a` and `b` (ids `other1`..,
/// ending later as they go), written straight into the database; the
/// client that wrote them, for more SQL.
async fn other_games(url: &str, n: i64) -> tokio_postgres::Client {
    let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(connection);
    client
        .execute(
            "INSERT INTO games (seq, id, table_id, round, first, x_id, x_name, o_id, o_name,
                                started_ms, ended_ms, outcome, moves, public)
             SELECT i + 10, 'other' || i, 't', i, 'X', 'a', 'A', 'b', 'B', 0, 1000 + i,
                    '{\"result\":\"draw\"}', 9, true
             FROM generate_series(1, $1::bigint) AS i",
            &[&n],
        )
        .await
        .unwrap();
    client
}

#[tokio::test]
async fn a_players_games_are_found_behind_a_scan_worth_of_newer_games() {
    let Some(url) = database() else { return };
    let store = node(&url, 1);
    store
        .commit(finished_game(1, "p", "q", true, 1))
        .await
        .unwrap();
    let _client = other_games(&url, PLAYER_SCAN.into()).await;
    let query = GamesQuery {
        player: Some("q".into()),
        asker: None,
        limit: 20,
    };
    let games = store.recent_games(query).await.unwrap();
    let ids: Vec<_> = games.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(ids, ["g1"]);
}

/// `GET /api/games` fetches one page from the database, not the whole scan
/// to page in memory: with many listed games, the statement answers at
/// most `limit` rows, with or without a player, anonymous or not.
#[tokio::test]
async fn the_games_list_fetches_one_page_of_rows() {
    let Some(url) = database() else { return };
    let store = node(&url, 1);
    store
        .commit(finished_game(1, "p", "q", false, 1))
        .await
        .unwrap();
    let client = other_games(&url, 500).await;
    for (player, asker) in [(None, None), (None, Some("q")), (Some("a"), None)] {
        let query = GamesQuery {
            player: player.map(str::to_owned),
            asker: asker.map(str::to_owned),
            limit: 5,
        };
        let rows = super::reads::listed_rows(&client, &query).await.unwrap();
        assert_eq!(rows.len(), 5, "{query:?}");
        let games = store.recent_games(query).await.unwrap();
        let ids: Vec<_> = games.iter().map(|g| g.id.as_str()).collect();
        assert_eq!(
            ids,
            ["other500", "other499", "other498", "other497", "other496"]
        );
    }
    // A player's own private game, older than all the others, is found
    // behind them.
    let query = GamesQuery {
        player: Some("q".into()),
        asker: Some("q".into()),
        limit: 100,
    };
    let games = store.recent_games(query).await.unwrap();
    let ids: Vec<_> = games.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(ids, ["g1"]);
}
