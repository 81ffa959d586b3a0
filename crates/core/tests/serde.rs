//! The JSON shapes of the serde feature, which clients rely on, and round
//! trips of every value a game can produce.
#![cfg(feature = "serde")]

use oxo_core::{
    Bitboard, BotLevel, ByPlayer, Event, Game, Outcome, Player, Position, Square, Square::*,
    WinReason,
};
use std::collections::HashSet;

use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Value, json};

/// Serializes `value`, checks the JSON, and reads it back.
fn round_trip<T>(value: &T, expected: Value)
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let text = serde_json::to_string(value).expect("serializes");
    let json: Value = serde_json::from_str(&text).expect("valid JSON");
    assert_eq!(json, expected, "{value:?}");
    let back: T = serde_json::from_str(&text).expect("deserializes");
    assert_eq!(&back, value, "{text}");
}

fn round_trip_any<T>(value: &T)
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let text = serde_json::to_string(value).expect("serializes");
    let back: T = serde_json::from_str(&text).expect("deserializes");
    assert_eq!(&back, value, "{text}");
}

#[test]
fn squares_are_names() {
    assert_eq!(serde_json::to_string(&B2).expect("serializes"), r#""b2""#);
    for sq in Square::ALL {
        round_trip(&sq, json!(sq.to_string()));
        // Indices are accepted too.
        assert_eq!(
            serde_json::from_value::<Square>(json!(sq.index())).ok(),
            Some(sq)
        );
    }
    for bad in [json!("d4"), json!(9), json!(-1), json!(null), json!(["a1"])] {
        assert!(
            serde_json::from_value::<Square>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}

#[test]
fn bitboards_are_lists_of_squares() {
    round_trip(&Bitboard::EMPTY, json!([]));
    round_trip(&Bitboard::LINES[6], json!(["a1", "b2", "c3"]));
    round_trip(&Bitboard::CORNERS, json!(["a1", "c1", "a3", "c3"]));
    for bits in 0..512 {
        round_trip_any(&Bitboard::from_bits(bits).expect("nine bits"));
    }
}

#[test]
fn outcomes() {
    let top_row = Outcome::Win {
        winner: Player::X,
        reason: WinReason::Line {
            cells: [A1, B1, C1].into_iter().collect(),
        },
    };
    round_trip(
        &top_row,
        json!({"result": "win", "winner": "X", "reason": "line", "cells": ["a1", "b1", "c1"]}),
    );
    round_trip(&Outcome::Draw, json!({"result": "draw"}));
    // The exact text, field order included.
    assert_eq!(
        serde_json::to_string(&top_row).expect("serializes"),
        r#"{"result":"win","winner":"X","reason":"line","cells":["a1","b1","c1"]}"#
    );
    assert_eq!(
        serde_json::to_string(&Outcome::Draw).expect("serializes"),
        r#"{"result":"draw"}"#
    );
    for (reason, name) in [
        (WinReason::Forfeit, "forfeit"),
        (WinReason::Dropped, "dropped"),
        (WinReason::Timeout, "timeout"),
    ] {
        round_trip(
            &Outcome::Win {
                winner: Player::O,
                reason,
            },
            json!({"result": "win", "winner": "O", "reason": name}),
        );
    }
}

#[test]
fn events() {
    round_trip(
        &Event::Start { first: Player::O },
        json!({"type": "start", "first": "O"}),
    );
    round_trip(
        &Event::Move {
            player: Player::X,
            square: B2,
        },
        json!({"type": "move", "player": "X", "square": "b2"}),
    );
    round_trip(
        &Event::End {
            outcome: Outcome::Draw,
        },
        json!({"type": "end", "outcome": {"result": "draw"}}),
    );
}

#[test]
fn players_levels_and_scores() {
    round_trip(&Player::X, json!("X"));
    round_trip(&Player::O, json!("O"));
    for level in BotLevel::ALL {
        round_trip(&level, json!(level.as_str()));
    }
    round_trip(&ByPlayer { x: 100u32, o: 0 }, json!({"x": 100, "o": 0}));
}

/// An outcome and a log for every terminal position, X or O first, survive a
/// round trip (one game per position, found by walking the positions).
#[test]
fn every_outcome_and_log_round_trips() {
    fn walk(game: &mut Game, seen: &mut HashSet<Position>, finished: &mut usize) {
        if !seen.insert(*game.position()) {
            return;
        }
        if let Some(outcome) = game.outcome() {
            *finished += 1;
            round_trip_any(&outcome);
            for event in game.log().events() {
                round_trip_any(event);
            }
            return;
        }
        for sq in Square::ALL {
            if game.play(sq).is_ok() {
                walk(game, seen, finished);
                game.undo().expect("undo a move");
            }
        }
    }
    let (mut seen, mut finished) = (HashSet::new(), 0);
    for first in Player::ALL {
        walk(&mut Game::with_first(first), &mut seen, &mut finished);
    }
    assert_eq!(finished, 2 * 958);
    for player in Player::ALL {
        let mut game = Game::new();
        round_trip_any(&game.forfeit(player).expect("open game"));
    }
}
