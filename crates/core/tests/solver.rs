//! The solver against a plain minimax written here, against known facts of
//! tic-tac-toe strategy, and against itself (values, move lists and best
//! moves agree), for every reachable position of games X or O starts.

use std::collections::HashMap;
use std::sync::OnceLock;

use oxo_core::{Bitboard, Player, Position, Square, Value, solver};

/// Every position reachable from the empty board with X or with O to move,
/// walked with `Position::play`, in notation order.
fn reachable() -> &'static [Position] {
    static ALL: OnceLock<Vec<Position>> = OnceLock::new();
    ALL.get_or_init(|| {
        fn visit(pos: Position, seen: &mut HashMap<Position, ()>) {
            if seen.insert(pos, ()).is_some() {
                return;
            }
            for sq in Square::ALL {
                if let Ok(child) = pos.play(sq) {
                    visit(child, seen);
                }
            }
        }
        let mut seen = HashMap::new();
        for first in Player::ALL {
            visit(Position::empty(first), &mut seen);
        }
        let mut all: Vec<Position> = seen.into_keys().collect();
        all.sort_by_key(|p| p.to_string());
        all
    })
}

/// A game value for the side to move, computed here from the rules alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Naive {
    Win(u8),
    Draw(u8),
    Loss(u8),
}

impl Naive {
    /// Higher is better for the side to move: win soon, then win late, then
    /// draw, then lose late, then lose soon.
    fn rank(self) -> i32 {
        match self {
            Naive::Win(n) => 100 - i32::from(n),
            Naive::Draw(_) => 0,
            Naive::Loss(n) => i32::from(n) - 100,
        }
    }

    /// The value for the player who moved into a position worth `self` to
    /// the opponent.
    fn for_mover(self) -> Naive {
        match self {
            Naive::Win(n) => Naive::Loss(n + 1),
            Naive::Draw(n) => Naive::Draw(n + 1),
            Naive::Loss(n) => Naive::Win(n + 1),
        }
    }

    fn of(value: Value) -> Naive {
        match value {
            Value::Win(n) => Naive::Win(n),
            Value::Draw(n) => Naive::Draw(n),
            Value::Loss(n) => Naive::Loss(n),
        }
    }
}

/// Full minimax over the game tree from `pos` (memoised by position).
fn minimax(pos: Position, memo: &mut HashMap<Position, Naive>) -> Naive {
    if let Some(&v) = memo.get(&pos) {
        return v;
    }
    let value = match pos.outcome() {
        Some(outcome) => match outcome.winner() {
            Some(winner) => {
                assert_eq!(winner, !pos.turn(), "{pos}: the last mover wins");
                Naive::Loss(0)
            }
            None => Naive::Draw(0),
        },
        None => {
            let mut best: Option<Naive> = None;
            for sq in Square::ALL {
                let Ok(child) = pos.play(sq) else { continue };
                let v = minimax(child, memo).for_mover();
                best = Some(match best {
                    Some(b) if b.rank() >= v.rank() => {
                        if let (Naive::Draw(a), Naive::Draw(c)) = (b, v) {
                            assert_eq!(a, c, "{pos}: draws fill the board");
                        }
                        b
                    }
                    _ => v,
                });
            }
            best.expect("an unfinished position has a move")
        }
    };
    memo.insert(pos, value);
    value
}

#[test]
fn the_empty_board_is_a_draw() {
    assert_eq!(solver::value(&Position::new()), Value::Draw(9));
    assert_eq!(solver::value(&Position::empty(Player::O)), Value::Draw(9));
    assert_eq!(
        solver::Table::solve().value(&Position::new()),
        Value::Draw(9)
    );
    // No first move wins or loses.
    let moves = solver::analyze(&Position::new());
    assert_eq!(moves.len(), 9);
    assert!(moves.iter().all(|m| m.value == Value::Draw(9)), "{moves:?}");
}

#[test]
fn the_table_holds_every_reachable_position() {
    let table = solver::Table::solve();
    // Positions of games O starts are those of games X starts with the
    // marks swapped, so one table of 5,478 serves both.
    assert_eq!(reachable().len(), 2 * 5_478);
    assert_eq!(table.len(), 5_478);
    assert!(!table.is_empty());
    assert_eq!(format!("{table:?}"), "Table { positions: 5478 }");
    assert_eq!(solver::table().len(), 5_478);
}

#[test]
fn minimax_agrees_on_result_and_distance_everywhere() {
    let mut memo = HashMap::new();
    let fresh = solver::Table::solve();
    for &pos in reachable() {
        let naive = minimax(pos, &mut memo);
        assert_eq!(Naive::of(solver::value(&pos)), naive, "{pos}");
        assert_eq!(fresh.value(&pos), solver::value(&pos), "{pos}");
    }
    // The same values without the memo, from a few positions.
    fn plain(pos: Position) -> Naive {
        match pos.outcome() {
            Some(o) if o.winner().is_some() => Naive::Loss(0),
            Some(_) => Naive::Draw(0),
            None => Square::ALL
                .into_iter()
                .filter_map(|sq| pos.play(sq).ok())
                .map(|child| plain(child).for_mover())
                .max_by_key(|v| v.rank())
                .expect("a move"),
        }
    }
    for text in [
        "X........",
        "....X....",
        ".X.......",
        "X...O....",
        "XO.......",
    ] {
        let pos: Position = text.parse().expect("legal");
        assert_eq!(Naive::of(solver::value(&pos)), plain(pos), "{text}");
    }
}

#[test]
fn values_agree_with_move_lists() {
    for &pos in reachable() {
        let value = solver::value(&pos);
        let moves = solver::analyze(&pos);
        let best = solver::table().best_moves(&pos);
        assert_eq!(solver::best_moves(&pos), best, "{pos}");
        if let Some(outcome) = pos.outcome() {
            let expected = if outcome.winner().is_some() {
                Value::Loss(0)
            } else {
                Value::Draw(0)
            };
            assert_eq!(value, expected, "{pos}");
            assert!(moves.is_empty(), "{pos}");
            assert!(best.is_empty(), "{pos}");
            continue;
        }
        assert_eq!(moves[0].value, value, "{pos}");
        // One entry per legal move, each valued from the position it leads to.
        let listed: Bitboard = moves.iter().map(|m| m.square).collect();
        assert_eq!(listed, pos.legal_moves(), "{pos}");
        assert_eq!(moves.len(), pos.legal_moves().count() as usize);
        for m in &moves {
            let child = pos.play(m.square).expect("a legal move");
            let from_child = Naive::of(solver::value(&child)).for_mover();
            assert_eq!(Naive::of(m.value), from_child, "{pos} {}", m.square);
            assert_eq!(solver::table().move_value(&pos, m.square), Some(m.value));
        }
        // Best first, ties in square order.
        for pair in moves.windows(2) {
            assert!(pair[0].value >= pair[1].value, "{pos}: {moves:?}");
            if pair[0].value == pair[1].value {
                assert!(pair[0].square < pair[1].square, "{pos}: {moves:?}");
            }
        }
        let of_best_value: Bitboard = moves
            .iter()
            .filter(|m| m.value == value)
            .map(|m| m.square)
            .collect();
        assert_eq!(best, of_best_value, "{pos}");
        assert!(!best.is_empty());
        assert!(u32::from(value.plies()) <= pos.board().empty().count());
    }
}

/// The worst result for the side to move when it always plays one of the
/// solver's best moves and the opponent plays anything: this must be the
/// solver's value, exactly.
fn guaranteed(pos: Position, me: Player, memo: &mut HashMap<(Position, Player), Naive>) -> Naive {
    if let Some(&v) = memo.get(&(pos, me)) {
        return v;
    }
    let value = match pos.outcome() {
        Some(o) => match o.winner() {
            Some(w) if w == me => Naive::Win(0),
            Some(_) => Naive::Loss(0),
            None => Naive::Draw(0),
        },
        None => {
            let choices = if pos.turn() == me {
                solver::table().best_moves(&pos)
            } else {
                pos.legal_moves()
            };
            choices
                .into_iter()
                .map(|sq| {
                    let child = pos.play(sq).expect("a legal move");
                    // One ply further from the end, from my point of view.
                    match guaranteed(child, me, memo) {
                        Naive::Win(n) => Naive::Win(n + 1),
                        Naive::Draw(n) => Naive::Draw(n + 1),
                        Naive::Loss(n) => Naive::Loss(n + 1),
                    }
                })
                .min_by_key(|v| v.rank())
                .expect("a move")
        }
    };
    memo.insert((pos, me), value);
    value
}

#[test]
fn best_moves_guarantee_the_value_against_any_defence() {
    let mut memo = HashMap::new();
    for &pos in reachable() {
        let me = pos.turn();
        // So best play never loses a position that is not lost, wins a won
        // one within the solver's distance, and delays a loss as promised.
        let value = Naive::of(solver::value(&pos));
        assert_eq!(guaranteed(pos, me, &mut memo), value, "{pos}");
    }
}

/// Known opening theory, not computed here: after a corner opening only the
/// centre holds the draw; after a centre opening only the corners; after an
/// edge opening the centre, the two adjacent corners and the opposite edge.
#[test]
fn opening_theory() {
    let drawing_replies = |first: Square| -> Bitboard {
        let pos = Position::new().play(first).expect("legal");
        solver::analyze(&pos)
            .into_iter()
            .filter(|m| matches!(m.value, Value::Draw(_)))
            .map(|m| m.square)
            .collect()
    };
    use Square::*;
    assert_eq!(drawing_replies(A1), Bitboard::from(B2));
    assert_eq!(drawing_replies(C3), Bitboard::from(B2));
    assert_eq!(drawing_replies(B2), Bitboard::CORNERS);
    assert_eq!(
        drawing_replies(B1),
        [B2, A1, C1, B3].into_iter().collect::<Bitboard>()
    );
    // Every other reply to the corner opening loses.
    let pos = Position::new().play(A1).expect("legal");
    for m in solver::analyze(&pos).iter().filter(|m| m.square != B2) {
        assert!(matches!(m.value, Value::Loss(_)), "{m:?}");
    }
}

#[test]
fn known_positions() {
    let value = |text: &str| solver::value(&text.parse::<Position>().expect(text));
    // X to move completes the top row.
    assert_eq!(value("XX.OO...."), Value::Win(1));
    // O to move must block at c3 and then the board fills.
    assert_eq!(value("X.O.X...."), Value::Draw(6));
    // Opposite corners against the centre: O holds the draw with an edge.
    assert_eq!(value("X...O...X"), Value::Draw(6));
    // X a1, O b1, X b2: O must block c3, then X forks with a2 and wins.
    assert_eq!(value("XO..X...."), Value::Loss(4));
    // Already lost.
    assert_eq!(value("XXXOO...."), Value::Loss(0));
    assert_eq!(value("XOXXOOOXX"), Value::Draw(0));
}

#[test]
fn values_order_and_print() {
    let ordered = [
        Value::Loss(0),
        Value::Loss(2),
        Value::Loss(4),
        Value::Draw(5),
        Value::Win(5),
        Value::Win(3),
        Value::Win(1),
    ];
    for pair in ordered.windows(2) {
        assert!(pair[0] < pair[1], "{pair:?}");
    }
    // Draws of any length are equally good; the order still tells them
    // apart, as `==` does.
    assert_eq!(
        Value::Draw(3).cmp(&Value::Draw(7)),
        std::cmp::Ordering::Less
    );
    assert!(Value::Draw(7) < Value::Win(9) && Value::Loss(1) < Value::Draw(0));
    assert_eq!(Value::Win(3).to_string(), "win in 3");
    assert_eq!(Value::Draw(4).to_string(), "draw");
    assert_eq!(Value::Loss(2).to_string(), "loss in 2");
    assert_eq!(Value::Loss(0).to_string(), "lost");
    assert_eq!(Value::Win(3).describe(Player::O), "O wins in 3");
    assert_eq!(Value::Loss(2).describe(Player::O), "X wins in 2");
    assert_eq!(Value::Draw(2).describe(Player::X), "draw");
    // A finished game: the side to move has lost already, not "in 0".
    let lost: Position = "XXXOO....".parse().expect("legal");
    assert_eq!(solver::value(&lost).describe(lost.turn()), "X has won");
    assert_eq!(Value::Loss(2).kind(), "loss");
    assert_eq!(Value::Draw(6).plies(), 6);
}

/// `Ord` agrees with `==` (as `Ord` requires, and `BTreeSet` and
/// `dedup` rely on): two values compare equal only when they are equal.
#[test]
fn value_order_agrees_with_equality() {
    let all: Vec<Value> = (0..=9)
        .flat_map(|n| [Value::Win(n), Value::Draw(n), Value::Loss(n)])
        .collect();
    for a in &all {
        for b in &all {
            assert_eq!(a.cmp(b) == std::cmp::Ordering::Equal, a == b, "{a:?} {b:?}");
            assert_eq!(a.cmp(b), b.cmp(a).reverse(), "{a:?} {b:?}");
        }
    }
    let set: std::collections::BTreeSet<Value> = [Value::Draw(3), Value::Draw(7)].into();
    assert_eq!(set.len(), 2);
}

#[test]
fn move_value_of_a_move_that_is_not_legal_is_none_not_a_panic() {
    for pos in reachable() {
        for sq in Square::ALL {
            let legal = pos.legal_moves().contains(sq);
            let value = solver::table().move_value(pos, sq);
            assert_eq!(value.is_some(), legal, "{pos} {sq}: {value:?}");
        }
    }
    let pos: Position = "X.O.X.OX.".parse().expect("legal");
    assert_eq!(solver::table().move_value(&pos, Square::B2), None, "taken");
    let over: Position = "XXXOO....".parse().expect("legal");
    assert_eq!(solver::table().move_value(&over, Square::C3), None, "over");
}
