//! Playing: wins, draws, spectators, races, retries, rematches, bots.

use std::time::{Duration, Instant};

use oxo_core::{Outcome, Player, Square, WinReason};
use oxo_protocol::{TableState, TableStatus};
use serde_json::json;

use crate::common::{Server, last_table, pair};

fn winner(t: &TableState) -> Option<(Player, &'static str)> {
    match t.outcome {
        Some(Outcome::Win { winner, reason }) => Some((winner, reason.as_str())),
        _ => None,
    }
}

#[tokio::test]
async fn a_full_game_to_a_win() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    let moves = [
        ("a1", true),
        ("b1", false),
        ("a2", true),
        ("b2", false),
        ("a3", true),
    ];
    let mut states = Vec::new();
    for (i, (cell, by_x)) in moves.into_iter().enumerate() {
        let (mover, other) = if by_x {
            (&mut x, &mut o)
        } else {
            (&mut o, &mut x)
        };
        let mine = mover.play(&table, cell).await;
        let n = u32::try_from(i + 1).unwrap();
        assert_eq!(mine.move_number, n);
        let theirs = other.table_until(|t| t.move_number == n).await;
        assert_eq!(theirs, mine, "both players see the same state");
        states.push(theirs);
    }
    let state = states.pop().unwrap();
    assert_eq!(state.status, TableStatus::RoundOver);
    assert_eq!(state.board, "XO.XO.X..");
    assert_eq!(winner(&state), Some((Player::X, "line")));
    assert_eq!(
        state.outcome.unwrap().cells().to_string(),
        "a1 a2 a3",
        "the winning cells"
    );
    assert_eq!(state.turn, None);
    assert_eq!(
        (state.scores.x, state.scores.o, state.scores.draws),
        (1, 0, 0)
    );
    o.refused(
        json!({"type":"move","table_id":table,"cell":"c3"}),
        "game_over",
    )
    .await;
    server.stop().await;
}

#[tokio::test]
async fn a_full_game_to_a_draw() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    let cells = ["b2", "a1", "a2", "c2", "b1", "b3", "c1", "a3", "c3"];
    let mut last = None;
    for (i, cell) in cells.into_iter().enumerate() {
        let mover = if i % 2 == 0 { &mut x } else { &mut o };
        last = Some(mover.play(&table, cell).await);
    }
    let state = last.unwrap();
    assert_eq!(state.status, TableStatus::RoundOver);
    assert_eq!(state.outcome, Some(Outcome::Draw));
    assert_eq!(state.move_number, 9);
    assert_eq!(state.scores.draws, 1);
    server.stop().await;
}

#[tokio::test]
async fn the_event_comes_before_the_ok_and_carries_everything() {
    let server = Server::start().await;
    let (mut x, _o, table) = pair(&server, json!({"move_time_ms": 60_000})).await;
    let (events, reply) = x
        .request(json!({"type":"move","table_id":table,"cell":"b2"}))
        .await;
    assert_eq!(reply["type"], "ok");
    assert_eq!(reply["table_id"], table.as_str());
    let state = last_table(&events).expect("table before ok");
    assert_eq!(state.board, "....X....");
    assert_eq!(state.moves, vec![Square::B2]);
    assert_eq!(state.turn, Some(Player::O));
    assert_eq!(state.status, TableStatus::InProgress);
    assert!(state.time_left_ms.is_some_and(|t| t > 50_000));
    let players = &state.players;
    assert_eq!(players.x.as_ref().unwrap().name, "Xena");
    assert_eq!(players.o.as_ref().unwrap().name, "Otto");
    assert!(players.x.as_ref().unwrap().connected && players.o.as_ref().unwrap().connected);
    assert!(state.game_id.is_some());
    server.stop().await;
}

/// A new spectator at a quiet table is counted in a state the players get
/// at once, not a second later (docs/protocol.md, `watch_table`); and a
/// spectator coming and going in a loop still sends them no more than
/// about one state a second.
#[tokio::test]
async fn the_players_see_a_new_spectator_at_once_and_a_loop_of_them_at_a_pace() {
    let server = Server::start().await;
    let (mut x, _o, table) = pair(&server, json!({})).await;
    let mut watcher = server.client("Wanda").await;
    let start = Instant::now();
    watcher
        .ok(json!({"type":"watch_table","table_id":table}))
        .await;
    x.table_until(|t| t.spectators == 1).await;
    let waited = start.elapsed();
    assert!(
        waited < Duration::from_millis(500),
        "the count came after {waited:?}"
    );
    for _ in 0..20 {
        watcher
            .ok(json!({"type":"leave_table","table_id":table}))
            .await;
        watcher
            .ok(json!({"type":"watch_table","table_id":table}))
            .await;
    }
    let heard = x.ok(json!({"type":"sync","table_id":table})).await;
    let states = heard.iter().filter(|e| e["type"] == "table").count() - 1;
    assert!(states < 10, "40 comings and goings sent {states} states");
    x.table_until(|t| t.spectators == 1).await;
    server.stop().await;
}

#[tokio::test]
async fn a_spectator_sees_every_move() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    let mut watcher = server.client("Wanda").await;
    let events = watcher
        .ok(json!({"type":"watch_table","table_id":table}))
        .await;
    assert_eq!(last_table(&events).unwrap().spectators, 1);
    let cells = ["a1", "b1", "a2", "b2", "a3"];
    for (i, cell) in cells.into_iter().enumerate() {
        let mover = if i % 2 == 0 { &mut x } else { &mut o };
        mover.play(&table, cell).await;
    }
    let mut seen = Vec::new();
    while seen.len() < 5 {
        let t = watcher.table_until(|_| true).await;
        if t.move_number as usize > seen.len() {
            assert_eq!(t.move_number as usize, seen.len() + 1, "no move skipped");
            seen.push(*t.moves.last().unwrap());
        }
    }
    assert_eq!(
        seen,
        vec![Square::A1, Square::B1, Square::A2, Square::B2, Square::A3]
    );
    watcher
        .refused(
            json!({"type":"move","table_id":table,"cell":"c3"}),
            "not_seated",
        )
        .await;
    server.stop().await;
}

#[tokio::test]
async fn two_clients_racing_for_the_same_cell_exactly_one_wins() {
    let server = Server::start().await;
    for _ in 0..5 {
        let (mut x, mut o, table) = pair(&server, json!({})).await;
        // X to move; both send b2 at once.
        let mv = json!({"type":"move","id":1,"table_id":table,"cell":"b2"});
        let (a, b) = tokio::join!(x.send(mv.clone()), o.send(mv));
        let ((), ()) = (a, b);
        let rx = x.until("ok").await;
        assert_eq!(rx["id"], 1);
        // O's move came second: refused, as not O's turn or as a taken cell.
        let ro = o.until("error").await;
        assert!(
            ro["code"] == "not_your_turn" || ro["code"] == "cell_taken",
            "{ro}"
        );
        // The same player on two connections racing for one cell.
        let mut x2 = server.resume(&x.token).await.0;
        x2.table_until(|_| true).await;
        o.play(&table, "a1").await;
        x2.table_until(|t| t.move_number == 2).await;
        x.table_until(|t| t.move_number == 2).await;
        let a = json!({"type":"move","id":11,"table_id":table,"cell":"c3"});
        let b = json!({"type":"move","id":12,"table_id":table,"cell":"c3"});
        let ((), ()) = tokio::join!(x.send(a), x2.send(b));
        let mut replies = Vec::new();
        for c in [&mut x, &mut x2] {
            loop {
                let v = c.recv().await;
                if v["type"] == "ok" || v["type"] == "error" {
                    replies.push(v);
                    break;
                }
            }
        }
        let oks = replies.iter().filter(|r| r["type"] == "ok").count();
        assert_eq!(oks, 1, "{replies:?}");
        let err = replies.iter().find(|r| r["type"] == "error").unwrap();
        assert_eq!(err["code"], "not_your_turn", "{err}");
    }
    server.stop().await;
}

#[tokio::test]
async fn a_retried_move_is_applied_once() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    let mv = json!({"type":"move","id":77,"table_id":table,"cell":"a1"});
    x.send(mv.clone()).await;
    let ok = x.until("ok").await;
    assert_eq!(ok["id"], 77);
    x.send(mv.clone()).await;
    let again = x.until("ok").await;
    assert_eq!(again["id"], 77, "the retry is acknowledged, not refused");
    let events = x.ok(json!({"type":"sync","table_id":table})).await;
    let state = last_table(&events).unwrap();
    assert_eq!(state.move_number, 1, "applied once");
    assert_eq!(state.turn, Some(Player::O));
    // Same id, another cell: not a retry, so judged on its own.
    x.refused(
        json!({"type":"move","id":77,"table_id":table,"cell":"c3"}),
        "not_your_turn",
    )
    .await;
    o.play(&table, "b2").await;
    server.stop().await;
}

#[tokio::test]
async fn rematch_updates_scores_and_alternates_the_starter() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({"starter":"alternate"})).await;
    let state = x.ok(json!({"type":"sync","table_id":table})).await;
    let first = last_table(&state).unwrap();
    assert_eq!((first.round, first.first), (1, Some(Player::X)));
    let game1 = first.game_id.clone().unwrap();
    x.refused(
        json!({"type":"rematch","table_id":table}),
        "game_in_progress",
    )
    .await;
    x.ok(json!({"type":"forfeit","table_id":table})).await;
    let events = x.ok(json!({"type":"rematch","table_id":table})).await;
    let waiting = last_table(&events).unwrap();
    assert!(waiting.players.x.as_ref().unwrap().wants_rematch);
    assert_eq!(waiting.status, TableStatus::RoundOver);
    let events = o.ok(json!({"type":"rematch","table_id":table})).await;
    let round2 = last_table(&events).unwrap();
    assert_eq!(round2.status, TableStatus::InProgress);
    assert_eq!(
        (round2.round, round2.first, round2.turn),
        (2, Some(Player::O), Some(Player::O))
    );
    assert_eq!(
        (round2.scores.x, round2.scores.o),
        (0, 1),
        "X forfeited round 1"
    );
    assert_ne!(round2.game_id.clone().unwrap(), game1);
    assert_eq!(round2.move_number, 0);
    // Round 2: O wins on the board.
    for (p, cell) in [
        ("o", "a1"),
        ("x", "b1"),
        ("o", "a2"),
        ("x", "b2"),
        ("o", "a3"),
    ] {
        let c = if p == "x" { &mut x } else { &mut o };
        c.play(&table, cell).await;
    }
    o.ok(json!({"type":"rematch","table_id":table})).await;
    let events = x.ok(json!({"type":"rematch","table_id":table})).await;
    let round3 = last_table(&events).unwrap();
    assert_eq!((round3.round, round3.first), (3, Some(Player::X)));
    assert_eq!(
        (round3.scores.x, round3.scores.o, round3.scores.draws),
        (0, 2, 0)
    );
    server.stop().await;
}

#[tokio::test]
async fn forfeit_at_any_time() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    x.play(&table, "b2").await;
    // O forfeits although it is O's turn; X could too on X's turn.
    let events = o.ok(json!({"type":"forfeit","table_id":table})).await;
    let state = last_table(&events).unwrap();
    assert_eq!(winner(&state), Some((Player::X, "forfeit")));
    x.table_until(|t| t.status == TableStatus::RoundOver).await;
    o.refused(json!({"type":"forfeit","table_id":table}), "game_over")
        .await;
    server.stop().await;
}

async fn play_against(server: &Server, level: &str, think_ms: u32) -> TableState {
    let mut human = server.client("Hugo").await;
    let state = human
        .create(json!({"seat":"X","starter":"x","bot":{"level":level,"think_ms":think_ms}}))
        .await;
    let table = state.id.to_string();
    let bot = state.players.o.clone().expect("the bot sits at O");
    assert_eq!(bot.bot.map(|b| b.as_str()), Some(level));
    assert!(bot.connected);
    assert_eq!(state.status, TableStatus::InProgress);
    let mut state = state;
    loop {
        if state.status != TableStatus::InProgress {
            return state;
        }
        assert_eq!(state.turn, Some(Player::X));
        let free = state.board.find('.').unwrap();
        let cell = Square::ALL[free].to_string();
        let after = human.play(&table, &cell).await;
        if after.status != TableStatus::InProgress {
            return after;
        }
        let n = after.move_number + 1;
        state = human
            .table_until(|t| t.move_number == n || t.status != TableStatus::InProgress)
            .await;
    }
}

#[tokio::test]
async fn a_bot_of_each_level_takes_a_seat_and_answers() {
    let server = Server::start().await;
    for level in ["random", "easy", "medium", "perfect"] {
        let end = play_against(&server, level, 0).await;
        assert_eq!(end.status, TableStatus::RoundOver, "{level}");
        assert!(end.outcome.is_some(), "{level}");
        if level == "perfect" {
            assert_ne!(
                winner(&end).map(|w| w.0),
                Some(Player::X),
                "the perfect bot never loses"
            );
        }
    }
    server.stop().await;
}

#[tokio::test]
async fn a_bot_thinks_for_as_long_as_asked_and_accepts_a_rematch() {
    let server = Server::start().await;
    let mut human = server.client("Hugo").await;
    let state = human
        .create(json!({"seat":"X","bot":{"level":"perfect","think_ms":300}}))
        .await;
    let table = state.id.to_string();
    let start = Instant::now();
    human.play(&table, "a1").await;
    human.table_until(|t| t.move_number == 2).await;
    assert!(start.elapsed() >= Duration::from_millis(300));
    human.ok(json!({"type":"forfeit","table_id":table})).await;
    let events = human.ok(json!({"type":"rematch","table_id":table})).await;
    let next = last_table(&events).unwrap();
    assert_eq!((next.round, next.status), (2, TableStatus::InProgress));
    server.stop().await;
}

#[tokio::test]
async fn the_move_clock_runs_out() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({"move_time_ms": 1000})).await;
    x.play(&table, "b2").await;
    let start = Instant::now();
    let state = o.table_until(|t| t.status == TableStatus::RoundOver).await;
    assert!(start.elapsed() >= Duration::from_millis(900));
    assert_eq!(winner(&state), Some((Player::X, "timeout")));
    assert_eq!(state.scores.x, 1);
    x.table_until(|t| t.status == TableStatus::RoundOver).await;
    server.stop().await;
}

#[tokio::test]
async fn the_lobby_shows_tables_appear_and_fill() {
    let server = Server::start().await;
    let mut watcher = server.client("Lou").await;
    let events = watcher.ok(json!({"type":"watch_lobby"})).await;
    assert_eq!(events[0]["type"], "lobby");
    assert_eq!(events[0]["tables"], json!([]));
    let mut a = server.client("Ann").await;
    let private = a.create(json!({"public": false})).await.id.to_string();
    let public = a.create(json!({"seat":"X"})).await.id;
    let lobby = loop {
        let l = watcher.until("lobby").await;
        if !l["tables"].as_array().unwrap().is_empty() {
            break l;
        }
    };
    let tables = lobby["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 1, "private tables are not listed: {lobby}");
    assert_eq!(tables[0]["id"], public.as_str());
    assert_eq!(tables[0]["status"], "waiting");
    assert_eq!(tables[0]["players"]["x"], "Ann");
    let mut b = server.client("Bob").await;
    b.ok(json!({"type":"join_table","table_id":public})).await;
    loop {
        let l = watcher.until("lobby").await;
        let t = &l["tables"][0];
        if t["status"] == "in_progress" {
            assert_eq!(t["players"]["o"], "Bob");
            break;
        }
    }
    assert!(!server.get("/api/tables").await.1.contains(&private));
    watcher.ok(json!({"type":"unwatch_lobby"})).await;
    let mut c = server.client("Cid").await;
    c.create(json!({})).await;
    assert!(watcher.quiet_for(Duration::from_millis(200)).await);
    server.stop().await;
}

#[tokio::test]
async fn a_waiting_table_whose_player_dropped_leaves_the_lobby_until_they_are_back() {
    let server = Server::start().await;
    let mut watcher = server.client("Lou").await;
    watcher.ok(json!({"type":"watch_lobby"})).await;
    let mut ann = server.client("Ann").await;
    let table = ann.create(json!({})).await.id.to_string();
    let listed = |l: &serde_json::Value| {
        l["tables"]
            .as_array()
            .is_some_and(|t| t.iter().any(|t| t["id"] == table.as_str()))
    };
    while !listed(&watcher.until("lobby").await) {}
    let token = ann.token.clone();
    drop(ann);
    // Nobody to play: a newcomer would wait for a player who is gone.
    while listed(&watcher.until("lobby").await) {}
    assert!(!server.get("/api/tables").await.1.contains(&table));
    let (_ann, _) = server.resume(&token).await;
    while !listed(&watcher.until("lobby").await) {}
    server.stop().await;
}

#[tokio::test]
async fn moves_do_not_stir_the_lobby() {
    let server = Server::start().await;
    let mut watcher = server.client("Lou").await;
    watcher.ok(json!({"type":"watch_lobby"})).await;
    let (mut x, mut o, table) = pair(&server, json!({"seat":"X"})).await;
    loop {
        let l = watcher.until("lobby").await;
        if l["tables"][0]["status"] == "in_progress" {
            break;
        }
    }
    assert!(
        watcher.quiet_for(Duration::from_millis(200)).await,
        "the lobby was sent again, unchanged"
    );
    x.play(&table, "b2").await;
    o.play(&table, "a1").await;
    x.play(&table, "c3").await;
    // The lobby's entry (status, names, spectators) did not change.
    assert!(
        watcher.quiet_for(Duration::from_millis(300)).await,
        "a move sent the lobby again"
    );
    server.stop().await;
}

#[tokio::test]
async fn pass_and_play_seats_one_player_twice() {
    let server = Server::start().await;
    let mut p = server.client("Pat").await;
    let state = p.create(json!({"pass_and_play": true})).await;
    assert_eq!(state.status, TableStatus::InProgress);
    let table = state.id.to_string();
    for cell in ["a1", "b1", "a2", "b2", "a3"] {
        p.play(&table, cell).await;
    }
    let events = p.ok(json!({"type":"sync","table_id":table})).await;
    let end = last_table(&events).unwrap();
    assert_eq!(winner(&end), Some((Player::X, "line")));
    server.stop().await;
}

#[tokio::test]
async fn leaving_forfeits_and_frees_the_seat() {
    let server = Server::start().await;
    let (mut x, mut o, table) = pair(&server, json!({})).await;
    o.ok(json!({"type":"leave_table","table_id":table})).await;
    let state = x.table_until(|t| t.players.o.is_none()).await;
    assert_eq!(state.status, TableStatus::Waiting);
    assert_eq!(
        winner(&state),
        Some((Player::X, WinReason::Forfeit.as_str()))
    );
    assert_eq!(state.scores.x, 1);
    let mut n = server.client("Nina").await;
    let events = n.ok(json!({"type":"join_table","table_id":table})).await;
    let round2 = last_table(&events).unwrap();
    assert_eq!((round2.round, round2.status), (2, TableStatus::InProgress));
    assert_eq!(round2.scores.x, 1, "the scoreboard stays with the seats");
    x.ok(json!({"type":"leave_table","table_id":table})).await;
    n.ok(json!({"type":"leave_table","table_id":table})).await;
    n.refused(json!({"type":"sync","table_id":table}), "no_such_table")
        .await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bots_go_by_the_name_players_chose_them_by() {
    let server = crate::common::Server::start().await;
    let mut c = server.client("Ann").await;
    let state = c
        .create(serde_json::json!({"seat":"X","bot":{"level":"perfect"}}))
        .await;
    let bot = state.players.o.expect("the bot's seat");
    assert_eq!(bot.name, "Impossible");
    let game = state.game_id.expect("a round started");
    let (_, record) = server.get_json(&format!("/api/games/{game}")).await;
    assert_eq!(record["players"]["o"]["name"], "Impossible", "{record}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pass_and_play_seats_are_player_x_and_player_o() {
    let server = crate::common::Server::start().await;
    let mut c = server.client("Ann").await;
    let state = c.create(serde_json::json!({"pass_and_play":true})).await;
    let names = (
        state.players.x.expect("x").name,
        state.players.o.expect("o").name,
    );
    assert_eq!(names, ("Player X".to_owned(), "Player O".to_owned()));
    let game = state.game_id.expect("a round started");
    let (_, record) = server.get_json(&format!("/api/games/{game}")).await;
    assert_eq!(record["players"]["x"]["name"], "Player X", "{record}");
    assert_eq!(record["players"]["o"]["name"], "Player O", "{record}");
    server.stop().await;
}
