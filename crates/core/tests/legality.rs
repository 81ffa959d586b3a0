//! Position notation against brute force: a text parses exactly when some
//! game reaches its board with the side to move it states (or implies), and
//! what parses prints back to itself. (The `notation` fuzz target in
//! `fuzz/` checks the same on arbitrary text, coverage-guided.)

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use oxo_core::{ParsePositionError, Player, Position, Square};
use proptest::prelude::*;

/// Every position reachable from an empty board with either starter,
/// finished games included.
fn reachable() -> &'static HashSet<Position> {
    static R: OnceLock<HashSet<Position>> = OnceLock::new();
    R.get_or_init(|| {
        let mut seen = HashSet::new();
        let mut stack: Vec<Position> = Player::ALL.into_iter().map(Position::empty).collect();
        while let Some(pos) = stack.pop() {
            if seen.insert(pos) && pos.outcome().is_none() {
                stack.extend(
                    pos.legal_moves()
                        .into_iter()
                        .map(|sq| pos.play(sq).expect("a legal move")),
                );
            }
        }
        seen
    })
}

/// For each reachable board, the sides that can be to move on it.
fn turns() -> &'static HashMap<String, Vec<Player>> {
    static T: OnceLock<HashMap<String, Vec<Player>>> = OnceLock::new();
    T.get_or_init(|| {
        let mut turns: HashMap<String, Vec<Player>> = HashMap::new();
        for pos in reachable() {
            turns.entry(board_of(pos)).or_default().push(pos.turn());
        }
        turns
    })
}

fn board_of(pos: &Position) -> String {
    Square::ALL
        .into_iter()
        .map(|sq| pos.board().get(sq).map_or('.', Player::char))
        .collect()
}

#[test]
fn reachable_positions_from_both_starters() {
    // 5,478 from X; as many from O (the mirror image), sharing the empty
    // board's cells but not its side to move.
    assert_eq!(reachable().len(), 2 * 5_478);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4_000))]

    #[test]
    fn legal_exactly_when_reachable(cells in "[XO.]{9}", turn in prop::option::of(prop_oneof![Just(Player::X), Just(Player::O)])) {
        let text = match turn {
            Some(p) => format!("{cells} {}", p.char().to_ascii_lowercase()),
            None => cells.clone(),
        };
        let reachable_turns = turns().get(&cells).map_or(&[][..], Vec::as_slice);
        let can_be_reached = match turn {
            Some(t) => reachable_turns.contains(&t),
            None => !reachable_turns.is_empty(),
        };
        match text.parse::<Position>() {
            Ok(pos) => {
                prop_assert!(reachable().contains(&pos), "{} parsed but is unreachable", text);
                prop_assert_eq!(pos.to_string().parse::<Position>(), Ok(pos));
            }
            Err(ParsePositionError::Illegal(e)) => {
                prop_assert!(!can_be_reached, "{} is reachable but refused: {}", text, e);
            }
            Err(e) => prop_assert!(false, "{} is well formed: {}", text, e),
        }
    }
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "the square is taken or the position is over")]
fn play_unchecked_on_a_taken_square_panics_in_debug_builds() {
    let mut position = Position::new();
    position.play_unchecked(Square::B2);
    position.play_unchecked(Square::B2);
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "the square is taken or the position is over")]
fn play_unchecked_after_a_line_panics_in_debug_builds() {
    let mut position = Position::new();
    for sq in [Square::A1, Square::A2, Square::B1, Square::B2, Square::C1] {
        position.play_unchecked(sq);
    }
    position.play_unchecked(Square::C3);
}
