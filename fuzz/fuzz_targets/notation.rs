//! The position notation parser on arbitrary text: it never panics; what
//! parses is exactly what some game reaches (legal ⇔ reachable, checked
//! against every position reachable from either starter), prints back to
//! text that parses to the same position, and has the outcome its board
//! shows; what is refused as impossible is not reachable with any side to
//! move the text allows.

#![no_main]

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use oxo_core::{ParsePositionError, Player, Position, Square};

/// Every position some game reaches (game-over positions included), and
/// for each board the sides that can be to move on it.
struct Reachable {
    positions: HashSet<Position>,
    turns: HashMap<String, Vec<Player>>,
}

fn board_text(pos: &Position) -> String {
    Square::ALL
        .into_iter()
        .map(|sq| pos.board().get(sq).map_or('.', Player::char))
        .collect()
}

fn reachable() -> &'static Reachable {
    static R: OnceLock<Reachable> = OnceLock::new();
    R.get_or_init(|| {
        let mut r = Reachable {
            positions: HashSet::new(),
            turns: HashMap::new(),
        };
        let mut stack: Vec<Position> = Player::ALL.into_iter().map(Position::empty).collect();
        while let Some(pos) = stack.pop() {
            if !r.positions.insert(pos) {
                continue;
            }
            r.turns
                .entry(board_text(&pos))
                .or_default()
                .push(pos.turn());
            if pos.outcome().is_none() {
                stack.extend(
                    pos.legal_moves()
                        .into_iter()
                        .map(|sq| pos.play(sq).expect("a legal move plays")),
                );
            }
        }
        r
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let r = reachable();
    match text.parse::<Position>() {
        Ok(pos) => {
            assert!(
                r.positions.contains(&pos),
                "{text:?} parsed to an unreachable {pos:?}"
            );
            let printed = pos.to_string();
            assert_eq!(
                printed.parse::<Position>(),
                Ok(pos),
                "{text:?} printed as {printed:?}"
            );
            // One mark per cell, counts within one of each other, and the
            // outcome is what the board shows.
            let x = pos.board().marks(Player::X).count();
            let o = pos.board().marks(Player::O).count();
            assert!(x.abs_diff(o) <= 1, "{text:?}");
            assert_eq!(pos.ply(), x + o, "{text:?}");
            if let Some(outcome) = pos.outcome() {
                assert!(pos.legal_moves().is_empty() || outcome.winner().is_some());
            }
        }
        Err(ParsePositionError::Illegal(e)) => {
            assert!(!e.reasons().is_empty(), "{text:?}");
            // The board part is well formed: nine cells before any space.
            let board: String = text
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .chars()
                .filter(|c| *c != '/')
                .map(|c| c.to_ascii_uppercase())
                .collect();
            let stated = text
                .split_whitespace()
                .nth(1)
                .and_then(|t| t.parse::<Player>().ok());
            let turns = r.turns.get(&board).map_or(&[][..], Vec::as_slice);
            match stated {
                Some(p) => assert!(!turns.contains(&p), "{text:?} is reachable: {e}"),
                None => assert!(turns.is_empty(), "{text:?} is reachable: {e}"),
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
