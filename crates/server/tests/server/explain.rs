//! `GET /api/analyze/game`: every move of a game judged by the solver, on
//! known lines, on bad input, and on random games checked against
//! `oxo_core::solver` directly.

use oxo_core::{Player, Position, Rng, Square, Value, solver};
use proptest::prelude::*;
use serde_json::{Value as Json, json};

use crate::common::Server;

/// The answer for `first` and comma-separated `moves`, which must be a 200.
async fn explain(server: &Server, first: &str, moves: &str) -> Json {
    let (status, body) = server
        .get_json(&format!("/api/analyze/game?first={first}&moves={moves}"))
        .await;
    assert_eq!(status, 200, "{first} {moves}: {body}");
    body
}

fn value(result: &str, plies: u8) -> Json {
    json!({ "result": result, "plies": plies })
}

/// One game holds every verdict: X b2, O a1 (draws kept), X b1, O c1??
/// (b3 held the draw), X a2 (a win kept, if slower than b3), O c2 (lost
/// anyway), X a3?? (a win turned into a loss: b3 won), O b3?! (the win let
/// go: c3 won), X c3 (the draw kept). Values computed by hand, and the same
/// as the solver's (see `every_ply_agrees_with_the_solver`).
#[tokio::test]
async fn one_game_shows_every_verdict() {
    let server = Server::start().await;
    let body = explain(&server, "X", "b2,a1,b1,c1,a2,c2,a3,b3,c3").await;
    let moves = body["moves"].as_array().expect("moves");
    // ply: player cell before after verdict best
    let expected = [
        "X b2 draw/9 draw/9 kept_draw a1,b1,c1,a2,b2,c2,a3,b3,c3",
        "O a1 draw/8 draw/8 kept_draw a1,c1,a3,c3",
        "X b1 draw/7 draw/7 kept_draw b1,c1,a2,c2,a3,b3,c3",
        "O c1 draw/6 loss/2 blunder b3",
        "X a2 win/1 win/3 kept_win a2,c2,b3",
        "O c2 loss/2 loss/2 lost_anyway c2,a3,b3,c3",
        "X a3 win/1 loss/2 blunder b3",
        "O b3 win/1 draw/2 threw_win c3",
        "X c3 draw/1 draw/1 kept_draw c3",
    ];
    assert_eq!(moves.len(), expected.len());
    for (i, (m, line)) in moves.iter().zip(expected).enumerate() {
        let f: Vec<&str> = line.split(' ').collect();
        let solved = |text: &str| {
            let (result, plies) = text.split_once('/').expect("result/plies");
            value(result, plies.parse().expect("plies"))
        };
        let want = json!({
            "ply": i + 1,
            "player": f[0],
            "cell": f[1],
            "before": solved(f[2]),
            "after": solved(f[3]),
            "verdict": f[4],
            "best": f[5].split(',').collect::<Vec<_>>(),
        });
        assert_eq!(m, &want, "ply {}", i + 1);
    }
    assert_eq!(
        body["decided"],
        json!({"ply": 4, "player": "O", "cell": "c1", "best": ["b3"]}),
        "the first mistake decides, later ones do not move it"
    );
    assert_eq!(body["first"], "X");
    assert_eq!(body["final"]["position"], "OXOXXOXOX");
    assert_eq!(body["final"]["outcome"], json!({"result": "draw"}));
    assert_eq!(body["final"]["value"], value("draw", 0));
    server.stop().await;
}

/// A perfect game has no deciding move; a won game ends in a loss in 0 for
/// the side to move; O may move first; a game without moves is the empty
/// board; an unfinished game says what the position is worth.
#[tokio::test]
async fn perfect_won_unfinished_and_empty_games() {
    let server = Server::start().await;
    let perfect = explain(&server, "X", "b2,a1").await;
    assert_eq!(perfect["decided"], Json::Null);
    assert!(
        perfect["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .all(|m| m["verdict"] == "kept_draw")
    );
    assert_eq!(perfect["final"]["turn"], "X");
    assert!(perfect["final"].get("outcome").is_none());
    assert_eq!(perfect["final"]["value"], value("draw", 7));

    // The replay test's game, with O first: X b1?? (b2 held), O wins.
    let won = explain(&server, "o", "a1,b1,b2,c1,c3").await;
    assert_eq!(won["first"], "O");
    let verdicts: Vec<&Json> = won["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| &m["verdict"])
        .collect();
    assert_eq!(
        verdicts,
        [
            "kept_draw",
            "blunder",
            "kept_win",
            "lost_anyway",
            "kept_win"
        ]
    );
    assert_eq!(
        won["decided"],
        json!({"ply": 2, "player": "X", "cell": "b1", "best": ["b2"]})
    );
    assert_eq!(won["final"]["outcome"]["winner"], "O");
    assert_eq!(won["final"]["turn"], "X");
    assert_eq!(won["final"]["value"], value("loss", 0));

    let empty = explain(&server, "X", "").await;
    assert_eq!(empty["moves"], json!([]));
    assert_eq!(empty["decided"], Json::Null);
    assert_eq!(empty["final"]["value"], value("draw", 9));
    server.stop().await;
}

#[tokio::test]
async fn cells_are_names_or_indexes_from_zero_as_on_the_wire() {
    let server = Server::start().await;
    let by_index = explain(&server, "X", "4,0,8").await;
    assert_eq!(by_index, explain(&server, "X", "b2,a1,c3").await);
    let (status, body) = server.get_json("/api/analyze/game?first=X&moves=9").await;
    assert_eq!(status, 400, "{body}");
    server.stop().await;
}

#[tokio::test]
async fn bad_input_is_a_400_saying_what_is_accepted() {
    let server = Server::start().await;
    for (query, says) in [
        ("moves=b2", "first is required: X or O"),
        ("first=Z&moves=b2", "first must be X or O, not \"Z\""),
        ("first=X", "moves is required: comma-separated cells a1..c3"),
        (
            "first=X&moves=b2,d4",
            "move 2 of moves: 'd4' is not a cell: use a1..c3",
        ),
        ("first=X&moves=b2,,a1", "move 2 of moves: '' is not a cell"),
        (
            "first=X&moves=b2,a1,b2",
            "move 3 (X b2) is illegal: b2 is already taken (by X)",
        ),
        (
            "first=X&moves=a1,a2,b1,b2,c1,c2",
            "move 6 (O c2) is illegal: the game is over",
        ),
        (
            "first=X&moves=a1,b1,c1,a2,b2,c2,a3,b3,c3,a1",
            "moves holds at most 9 cells",
        ),
    ] {
        let (status, body) = server.get_json(&format!("/api/analyze/game?{query}")).await;
        assert_eq!(status, 400, "{query}: {body}");
        let error = body["error"].as_str().expect("an error string");
        assert!(
            error.contains(says),
            "{query}: {error:?} should say {says:?}"
        );
    }
    // A long list (as long as a request target may be) is refused
    // without being read to its end.
    let long = vec!["a1"; 2_500].join(",");
    let (status, body) = server
        .get_json(&format!("/api/analyze/game?first=X&moves={long}"))
        .await;
    assert_eq!(status, 400, "{body}");
    server.stop().await;
}

/// What the endpoint should say about `moves` from the empty board, worked
/// out here from `oxo_core::solver` alone.
fn expected(first: Player, moves: &[Square]) -> Json {
    let view = |v: Value| value(v.kind(), v.plies());
    let mut position = Position::empty(first);
    let mut plies = Vec::new();
    let mut decided = Json::Null;
    for (i, &cell) in moves.iter().enumerate() {
        let before = solver::value(&position);
        let after = solver::table()
            .move_value(&position, cell)
            .expect("the moves are legal");
        let best: Vec<String> = solver::analyze(&position)
            .iter()
            .filter(|m| m.value.kind() == before.kind())
            .map(|m| m.square)
            .collect::<oxo_core::Bitboard>()
            .into_iter()
            .map(|sq| sq.to_string())
            .collect();
        let verdict = match (before.kind(), after.kind()) {
            ("win", "win") => "kept_win",
            ("draw", "draw") => "kept_draw",
            ("win", "draw") => "threw_win",
            ("win" | "draw", "loss") => "blunder",
            ("loss", "loss") => "lost_anyway",
            other => panic!("a move better than its position: {other:?}"),
        };
        let player = position.turn().to_string();
        if decided.is_null() && matches!(verdict, "threw_win" | "blunder") {
            decided =
                json!({"ply": i + 1, "player": player, "cell": cell.to_string(), "best": best});
        }
        plies.push(json!({
            "ply": i + 1,
            "player": player,
            "cell": cell.to_string(),
            "before": view(before),
            "after": view(after),
            "verdict": verdict,
            "best": best,
        }));
        position = position.play(cell).expect("a legal game");
    }
    let mut end = json!({
        "position": position.to_string(),
        "turn": position.turn().to_string(),
        "value": view(solver::value(&position)),
    });
    if let Some(outcome) = position.outcome() {
        end["outcome"] = serde_json::to_value(outcome).expect("an outcome");
    }
    json!({"first": first.to_string(), "moves": plies, "decided": decided, "final": end})
}

/// A random legal game from `seed`: a random first player, random moves
/// until the game ends or `cut` moves are played.
fn random_game(seed: u64, cut: usize) -> (Player, Vec<Square>) {
    let mut rng = Rng::new(seed);
    let first = if rng.chance(1, 2) {
        Player::X
    } else {
        Player::O
    };
    let mut position = Position::empty(first);
    let mut moves = Vec::new();
    while moves.len() < cut && !position.is_over() {
        let cell = rng.pick(position.legal_moves()).expect("a free cell");
        moves.push(cell);
        position = position.play(cell).expect("a free cell");
    }
    (first, moves)
}

/// Every ply of many random games (whole or cut short) agrees with the
/// solver asked directly: values before and after, verdicts, best cells,
/// the deciding move and the final value.
#[test]
fn every_ply_agrees_with_the_solver() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .expect("a runtime");
    let server = runtime.block_on(Server::start());
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig::with_cases(300));
    runner
        .run(&(any::<u64>(), 0..=9usize), |(seed, cut)| {
            let (first, moves) = random_game(seed, cut);
            let list: Vec<String> = moves.iter().map(Square::to_string).collect();
            let got = runtime.block_on(explain(&server, &first.to_string(), &list.join(",")));
            prop_assert_eq!(got, expected(first, &moves), "{} {:?}", first, list);
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    runtime.block_on(server.stop());
}
