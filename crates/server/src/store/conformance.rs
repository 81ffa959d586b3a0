//! The [`Store`] contract as tests, run against every implementation: what
//! one store does, the others must do too.
//!
//! Also the fixtures other store tests share ([`table_with_a_move`]).

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use oxo_core::{ByPlayer, Outcome, Player, Square, WinReason};
use oxo_protocol::{Scores, TableOptions, TableStatus};

use super::contract::Store;
use super::memory::Memory;
use super::postgres::Postgres;
use super::rows::{GameEnd, GamePlayer, GameStart, GamesQuery, NewMove, TableRow, Write};
use super::sqlite::Sqlite;
use crate::config::DbLocation;
use crate::error::ServerError;
use crate::metrics::Metrics;

/// Every implementation, fresh and empty.
fn stores() -> Vec<Arc<dyn Store>> {
    let sqlite = Sqlite::open(&DbLocation::Memory, Arc::new(Metrics::default())).unwrap();
    let mut stores: Vec<Arc<dyn Store>> = vec![Arc::new(sqlite), Arc::new(Memory::new())];
    if let Some(url) = super::postgres::testdb::database() {
        let ttl = std::time::Duration::from_secs(2);
        let postgres = Postgres::open(&url, 0, ttl, Arc::new(Metrics::default())).unwrap();
        stores.push(Arc::new(postgres));
    }
    stores
}

fn player(id: &str) -> Write {
    Write::Player {
        id: id.into(),
        token_hash: crate::ids::hash_token(id),
        name: id.into(),
    }
}

/// Table `t{n}` (key n, `public` or not) with players `x{n}` and `o{n}`
/// and game `g{n}` (key n), in which X has played b2 with request id 7;
/// O is away, with a grace period ending at n seconds (Unix time).
pub(super) fn table_at(n: i64, public: bool) -> Vec<Write> {
    let (x, o) = (format!("x{n}"), format!("o{n}"));
    vec![
        player(&x),
        player(&o),
        game_start(n, &x, &o, public),
        Write::Move(NewMove {
            game: n,
            ply: 1,
            player: Player::X,
            cell: Square::B2,
            at_ms: 0,
            req_id: Some(7),
        }),
        Write::Table(Box::new(TableRow {
            seq: n,
            id: format!("t{n}").into(),
            options: TableOptions {
                public,
                ..TableOptions::default()
            },
            status: TableStatus::InProgress,
            seats: ByPlayer {
                x: Some(x.as_str().into()),
                o: Some(o.as_str().into()),
            },
            bot_seat: None,
            round: 1,
            scores: Scores::default(),
            game: Some(n),
            created_ms: 0,
            // O is away, with a grace period ending at n seconds.
            away_until_ms: ByPlayer {
                x: None,
                o: Some(n * 1_000),
            },
            rematch: ByPlayer::default(),
        })),
    ]
}

/// [`table_at`] a public table.
pub(super) fn table_with_a_move(n: i64) -> Vec<Write> {
    table_at(n, true)
}

/// Ends game `n` with a forfeit by O at `at_ms`.
fn forfeit(n: i64, at_ms: i64) -> Write {
    Write::GameEnd(GameEnd {
        game: n,
        outcome: Outcome::Win {
            winner: Player::X,
            reason: WinReason::Forfeit,
        },
        moves: 1,
        at_ms,
    })
}

#[tokio::test]
async fn writes_read_back_and_groups_are_atomic() {
    for store in stores() {
        let hash = crate::ids::hash_token("p1");
        store.commit(vec![player("p1")]).await.unwrap();
        // A group whose second write fails leaves no trace of its first.
        let err = store
            .commit(vec![
                Write::PlayerName {
                    id: "p1".into(),
                    name: "Bea".into(),
                },
                player("p1"),
            ])
            .await;
        assert!(err.is_err(), "{store:?}");
        let row = store.player_by_token(hash).await.unwrap().unwrap();
        assert_eq!((row.id.as_str(), row.name.as_str()), ("p1", "p1"));
        assert!(store.player_by_token([0; 32]).await.unwrap().is_none());
        assert!(
            store
                .health(std::time::Duration::from_secs(1))
                .await
                .is_ok()
        );
        store.close().await;
        assert!(matches!(
            store.commit(Vec::new()).await,
            Err(ServerError::StoreClosed)
        ));
    }
}

#[tokio::test]
async fn keys_are_handed_out_once() {
    for store in stores() {
        let (a, b) = (store.next_table_seq(), store.next_table_seq());
        assert!(a >= 1 && b > a, "{store:?}");
        let (g, h) = (store.next_game_seq(), store.next_game_seq());
        assert!(g >= 1 && h > g, "{store:?}");
        store.close().await;
    }
}

#[tokio::test]
async fn unfinished_tables_come_back_with_their_game_replayed() {
    for store in stores() {
        let mut writes = table_with_a_move(1);
        writes.extend(table_with_a_move(2));
        let closed = Write::Table(Box::new(TableRow {
            status: TableStatus::Closed,
            ..match &writes[writes.len() - 1] {
                Write::Table(row) => (**row).clone(),
                _ => unreachable!("the fixture ends with its table"),
            }
        }));
        writes.push(closed);
        store.commit(writes).await.unwrap();

        let saved = store.unfinished_tables().unwrap();
        assert_eq!(saved.len(), 1, "{store:?}");
        let t1 = &saved[0];
        assert_eq!(
            (&*t1.row.id, t1.row.status),
            ("t1", TableStatus::InProgress)
        );
        assert_eq!(t1.players.x.as_ref().unwrap().name, "x1");
        assert_eq!(
            t1.row.away_until_ms,
            ByPlayer {
                x: None,
                o: Some(1_000)
            },
            "{store:?}"
        );
        let game = t1.game.as_ref().unwrap();
        assert_eq!((&*game.id, game.seq), ("g1", 1));
        assert_eq!(game.game.to_move(), Some(Player::O));
        assert_eq!(game.accepted, [(Player::X, 7, Square::B2)]);
        store.close().await;
    }
}

#[tokio::test]
async fn private_games_are_shown_to_their_players_only() {
    for store in stores() {
        let mut writes = table_at(1, true);
        writes.extend(table_at(2, false));
        writes.extend([forfeit(1, 10), forfeit(2, 20)]);
        store.commit(writes).await.unwrap();

        let public = store.game_record("g1", None).await.unwrap().unwrap();
        assert_eq!(public.table_id.as_ref().map(|t| t.as_str()), Some("t1"));
        assert_eq!(public.moves.len(), 1);
        assert_eq!(public.ended_at_ms, Some(10));
        let private = store.game_record("g2", None).await.unwrap().unwrap();
        assert_eq!(private.table_id, None, "{store:?}");
        let mine = store.game_record("g2", Some("o2")).await.unwrap().unwrap();
        assert_eq!(mine.table_id.as_ref().map(|t| t.as_str()), Some("t2"));
        assert!(store.game_record("nope", None).await.unwrap().is_none());

        let ids = |games: Vec<oxo_protocol::GameSummary>| {
            games.into_iter().map(|g| g.id).collect::<Vec<_>>()
        };
        let query = |player: Option<&str>, asker: Option<&str>| GamesQuery {
            player: player.map(str::to_owned),
            asker: asker.map(str::to_owned),
            limit: 10,
        };
        let anyone = store.recent_games(query(None, None)).await.unwrap();
        assert_eq!(ids(anyone), ["g1"], "{store:?}");
        let o2 = store.recent_games(query(None, Some("o2"))).await.unwrap();
        assert_eq!(ids(o2), ["g2", "g1"], "newest first");
        let of_o2 = store.recent_games(query(Some("o2"), None)).await.unwrap();
        assert!(of_o2.is_empty());
        let one = GamesQuery {
            limit: 1,
            ..query(None, Some("x2"))
        };
        assert_eq!(ids(store.recent_games(one).await.unwrap()), ["g2"]);
        store.close().await;
    }
}

/// Game `g{n}` (key n) between players `x` and `o`, at a public table or
/// not, started at 0 and ended at `ended_ms`.
pub(super) fn finished_game(n: i64, x: &str, o: &str, public: bool, ended_ms: i64) -> Vec<Write> {
    vec![game_start(n, x, o, public), forfeit(n, ended_ms)]
}

/// The start of game `g{n}` (key n, round 1 of table `t{n}`) between
/// players `x` and `o`, at 0, X first.
fn game_start(n: i64, x: &str, o: &str, public: bool) -> Write {
    let seat = |id: &str| GamePlayer {
        id: id.into(),
        name: id.into(),
        bot: None,
    };
    Write::GameStart(Box::new(GameStart {
        seq: n,
        id: format!("g{n}").into(),
        table_id: format!("t{n}").into(),
        round: 1,
        first: Player::X,
        players: ByPlayer {
            x: seat(x),
            o: seat(o),
        },
        at_ms: 0,
        public,
    }))
}

#[tokio::test]
async fn a_players_games_are_listed_as_x_and_as_o_newest_first() {
    for store in stores() {
        let mut writes = Vec::new();
        for (n, x, o, public, ended) in [
            (1, "p", "q", true, 10),
            (2, "q", "p", true, 30),
            (3, "r", "s", true, 40),
            (4, "p", "r", false, 50),
            (5, "s", "p", true, 30),
            (6, "q", "p", false, 60),
        ] {
            writes.extend(finished_game(n, x, o, public, ended));
        }
        // Started, not finished: never listed.
        writes.extend(finished_game(7, "p", "q", true, 70).into_iter().take(1));
        store.commit(writes).await.unwrap();

        let listed = |player: &str, asker: Option<&str>, limit: u32| {
            let query = GamesQuery {
                player: Some(player.to_owned()),
                asker: asker.map(str::to_owned),
                limit,
            };
            let store = Arc::clone(&store);
            async move {
                let games = store.recent_games(query).await.unwrap();
                games
                    .into_iter()
                    .map(|g| g.id.to_string())
                    .collect::<Vec<_>>()
            }
        };
        // Games 2 and 5 ended in the same millisecond: the later key first.
        assert_eq!(listed("p", None, 10).await, ["g5", "g2", "g1"], "{store:?}");
        assert_eq!(listed("p", Some("q"), 10).await, ["g5", "g2", "g1"]);
        assert_eq!(
            listed("p", Some("p"), 10).await,
            ["g6", "g4", "g5", "g2", "g1"]
        );
        assert_eq!(listed("p", Some("p"), 2).await, ["g6", "g4"]);
        assert_eq!(listed("s", None, 10).await, ["g3", "g5"]);
        assert!(listed("nobody", Some("nobody"), 10).await.is_empty());
        store.close().await;
    }
}

#[tokio::test]
async fn a_new_name_shows_in_the_records_of_unfinished_games_only() {
    for store in stores() {
        let mut writes = table_at(1, true);
        writes.extend(table_at(2, true));
        writes.push(forfeit(2, 20));
        store.commit(writes).await.unwrap();
        let rename = |id: &str, name: &str| Write::PlayerName {
            id: id.into(),
            name: name.into(),
        };
        store
            .commit(vec![rename("o1", "Ola"), rename("x2", "Xavier")])
            .await
            .unwrap();

        let playing = store.game_record("g1", None).await.unwrap().unwrap();
        assert_eq!(playing.players.o.name, "Ola", "{store:?}");
        assert_eq!(playing.players.x.name, "x1");
        // A finished game keeps the names its players had.
        let finished = store.game_record("g2", None).await.unwrap().unwrap();
        assert_eq!(finished.players.x.name, "x2", "{store:?}");
        store.close().await;
    }
}

#[tokio::test]
async fn a_finished_rounds_rematch_wishes_come_back() {
    for store in stores() {
        let mut writes = table_with_a_move(1);
        let Some(Write::Table(row)) = writes.pop() else {
            unreachable!("the fixture ends with its table");
        };
        writes.push(Write::Table(Box::new(TableRow {
            status: TableStatus::RoundOver,
            rematch: ByPlayer { x: false, o: true },
            ..*row
        })));
        store.commit(writes).await.unwrap();
        let saved = store.unfinished_tables().unwrap();
        assert_eq!(
            saved[0].row.rematch,
            ByPlayer { x: false, o: true },
            "{store:?}"
        );
        store.close().await;
    }
}

#[tokio::test]
async fn a_tables_latest_chat_comes_back_with_it_and_goes_when_it_closes() {
    use oxo_protocol::ChatLine;
    use oxo_protocol::limits::CHAT_HISTORY_MESSAGES;

    use super::rows::ChatRow;

    let said = |table: i64, n: i64| {
        Write::Chat(Box::new(ChatRow {
            table,
            n,
            line: ChatLine {
                from_id: format!("x{table}").into(),
                from_name: "Ann".into(),
                text: format!("line {n}"),
                watching: n % 2 == 0,
            },
            at_ms: n,
        }))
    };
    let kept = i64::try_from(CHAT_HISTORY_MESSAGES).unwrap();
    for store in stores() {
        let mut writes = table_with_a_move(1);
        writes.extend(table_with_a_move(2));
        store.commit(writes).await.unwrap();
        for n in 1..=kept + 2 {
            store.commit(vec![said(1, n)]).await.unwrap();
        }
        store.commit(vec![said(2, 1)]).await.unwrap();
        // A number taken already (a row that did not read back): replaced.
        store.commit(vec![said(2, 1)]).await.unwrap();

        let saved = store.unfinished_tables().unwrap();
        let chat = |id: &str| -> Vec<(i64, String, bool)> {
            let table = saved.iter().find(|t| &*t.row.id == id).unwrap();
            let lines = table.chat.iter();
            lines
                .map(|(n, l)| (*n, l.text.clone(), l.watching))
                .collect()
        };
        let t1 = chat("t1");
        assert_eq!(t1.len(), CHAT_HISTORY_MESSAGES, "{store:?}");
        assert_eq!(t1[0], (3, "line 3".to_string(), false), "{store:?}");
        assert_eq!(t1[t1.len() - 1].0, kept + 2, "oldest first: {store:?}");
        assert_eq!(chat("t2"), [(1, "line 1".to_string(), false)]);

        store
            .commit(vec![Write::ChatCleared { table: 1 }])
            .await
            .unwrap();
        let saved = store.unfinished_tables().unwrap();
        let t1 = saved.iter().find(|t| &*t.row.id == "t1").unwrap();
        assert!(t1.chat.is_empty(), "{store:?}");
        store.close().await;
    }
}

#[tokio::test]
async fn the_request_ids_of_a_tables_earlier_rounds_come_back_with_it() {
    use super::rows::EarlierMove;
    for store in stores() {
        // Table t1 in round 2 (game 100), after round 1 (game 1: X played
        // b2 with request id 7, then O forfeited); table t2 in round 1.
        let mut writes = table_with_a_move(1);
        let Some(Write::Table(row)) = writes.pop() else {
            unreachable!("the fixture ends with its table");
        };
        writes.push(forfeit(1, 5));
        let Some(Write::GameStart(start)) =
            finished_game(100, "x1", "o1", true, 0).drain(..1).next()
        else {
            unreachable!("a finished game starts");
        };
        writes.push(Write::GameStart(Box::new(GameStart {
            table_id: "t1".into(),
            round: 2,
            ..*start
        })));
        writes.push(Write::Move(NewMove {
            game: 100,
            ply: 1,
            player: Player::X,
            cell: Square::A1,
            at_ms: 6,
            req_id: Some(8),
        }));
        writes.push(Write::Table(Box::new(TableRow {
            round: 2,
            game: Some(100),
            ..*row
        })));
        writes.extend(table_with_a_move(2));
        store.commit(writes).await.unwrap();

        let saved = store.unfinished_tables().unwrap();
        let t1 = saved.iter().find(|t| &*t.row.id == "t1").unwrap();
        assert_eq!(
            t1.earlier,
            [EarlierMove {
                game_id: "g1".into(),
                ply: 1,
                player: Player::X,
                cell: Square::B2,
                req_id: 7,
            }],
            "{store:?}"
        );
        assert_eq!(
            t1.game.as_ref().unwrap().accepted,
            [(Player::X, 8, Square::A1)]
        );
        let t2 = saved.iter().find(|t| &*t.row.id == "t2").unwrap();
        assert_eq!(t2.earlier, [], "{store:?}");
        store.close().await;
    }
}
