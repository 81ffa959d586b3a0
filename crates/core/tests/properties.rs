//! Properties of random games and random input: the outcome matches a plain
//! eight-line check, undo restores the exact previous state, notation round
//! trips, and no string makes a parser panic.

use oxo_core::{Bitboard, BotLevel, Game, Outcome, Player, Position, Square, Starter, WinReason};
use proptest::prelude::*;

/// The eight lines as cell indices, written out by hand.
const LINES: [[u8; 3]; 8] = [
    [0, 1, 2],
    [3, 4, 5],
    [6, 7, 8],
    [0, 3, 6],
    [1, 4, 7],
    [2, 5, 8],
    [0, 4, 8],
    [2, 4, 6],
];

/// The result of a board by looking at every line: the winner with the
/// cells of all its lines, a draw on a full board, or nothing yet.
fn naive_outcome(cells: &[Option<Player>; 9]) -> Option<Outcome> {
    for player in Player::ALL {
        let won: Vec<u8> = LINES
            .iter()
            .filter(|line| line.iter().all(|&i| cells[usize::from(i)] == Some(player)))
            .flatten()
            .copied()
            .collect();
        if !won.is_empty() {
            let cells = won.into_iter().map(Square::new).collect::<Bitboard>();
            return Some(Outcome::Win {
                winner: player,
                reason: WinReason::Line { cells },
            });
        }
    }
    cells.iter().all(Option::is_some).then_some(Outcome::Draw)
}

/// A random game: who starts, and for each ply which of the free squares
/// to take (as a fraction of the free squares).
fn games() -> impl Strategy<Value = (Player, Vec<u8>)> {
    (
        prop_oneof![Just(Player::X), Just(Player::O)],
        prop::collection::vec(any::<u8>(), 0..=9),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn random_games_follow_the_rules((first, picks) in games()) {
        let mut game = Game::with_first(first);
        let mut cells = [None; 9];
        for pick in picks {
            if game.is_over() {
                break;
            }
            let free: Vec<Square> = Square::ALL
                .into_iter()
                .filter(|sq| cells[usize::from(sq.index())].is_none())
                .collect();
            let sq = free[usize::from(pick) % free.len()];
            let mover = game.to_move().expect("the game goes on");

            let before = game.clone();
            let result = game.play(sq).expect("a free square of an unfinished game");
            prop_assert_eq!(game.undo(), Ok(sq));
            prop_assert_eq!(&game, &before);
            prop_assert_eq!(game.play(sq), Ok(result));

            cells[usize::from(sq.index())] = Some(mover);
            let expected = naive_outcome(&cells);
            prop_assert_eq!(result, expected);
            prop_assert_eq!(game.outcome(), expected);
            prop_assert_eq!(game.position().outcome(), expected);
            if let Some(Outcome::Win { winner, .. }) = expected {
                prop_assert_eq!(winner, mover);
            }

            let pos = *game.position();
            for (i, &cell) in cells.iter().enumerate() {
                prop_assert_eq!(pos.board().get(Square::new(i as u8)), cell);
            }
            let text = pos.to_string();
            prop_assert_eq!(text.parse::<Position>(), Ok(pos), "{}", text);
        }
    }

    #[test]
    fn bots_answer_random_games((first, picks) in games(), seed in any::<u64>()) {
        let mut pos = Position::empty(first);
        for pick in picks {
            let moves = pos.legal_moves();
            let Some(sq) = moves.nth(u32::from(pick) % moves.count().max(1)) else { break };
            pos = pos.play(sq).expect("legal");
        }
        for level in BotLevel::ALL {
            let choice = level.bot(seed).choose(&pos);
            prop_assert_eq!(choice.is_none(), pos.is_over());
            if let Some(sq) = choice {
                prop_assert!(pos.legal_moves().contains(sq));
            }
        }
    }

    #[test]
    fn any_string_parses_or_fails_cleanly(s in any::<String>()) {
        if let Ok(pos) = s.parse::<Position>() {
            prop_assert_eq!(pos.to_string().parse::<Position>(), Ok(pos));
        }
        if let Ok(sq) = s.parse::<Square>() {
            prop_assert_eq!(sq.to_string().parse::<Square>(), Ok(sq));
        }
        let _ = s.parse::<Player>();
        let _ = s.parse::<BotLevel>();
    }

    #[test]
    fn notation_like_strings_parse_or_fail_cleanly(s in "[xXoO./ \t1-9a-cé]{0,14}") {
        match s.parse::<Position>() {
            Ok(pos) => {
                prop_assert_eq!(pos.to_string().parse::<Position>(), Ok(pos));
                // What parsed has nine cells of the notation alphabet.
                let cells = s.chars().filter(|c| "xXoO.".contains(*c)).count();
                prop_assert!(cells >= 9, "{}", s);
            }
            Err(e) => prop_assert!(!e.to_string().is_empty()),
        }
        match s.parse::<Square>() {
            Ok(sq) => prop_assert_eq!(sq.to_string().parse::<Square>(), Ok(sq)),
            Err(e) => prop_assert_eq!(e.input(), s.as_str()),
        }
    }

    #[test]
    fn parse_errors_are_short_and_printable(
        s in prop_oneof![any::<String>(), "[\\x00-\\x1f\\x7f-\\x9f\u{202e}xXoO./ b2]{0,60}"]
    ) {
        for message in parse_errors(&s) {
            prop_assert!(message.chars().count() <= MAX_MESSAGE, "{:?}", message);
            prop_assert!(!message.chars().any(char::is_control), "{:?}", message);
        }
    }
}

/// The longest error message a parser may write, whatever the input: the
/// input is quoted, not copied whole.
const MAX_MESSAGE: usize = 200;

/// The messages of every parser that refuses `s`.
fn parse_errors(s: &str) -> Vec<String> {
    [
        s.parse::<Position>().err().map(|e| e.to_string()),
        s.parse::<oxo_core::Board>().err().map(|e| e.to_string()),
        s.parse::<Square>().err().map(|e| e.to_string()),
        Square::from_wire(s).err().map(|e| e.to_string()),
        s.parse::<Player>().err().map(|e| e.to_string()),
        s.parse::<BotLevel>().err().map(|e| e.to_string()),
        s.parse::<Starter>().err().map(|e| e.to_string()),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// A megabyte of text, or text full of terminal escapes, gives a short
/// message that says what was wrong, with the input clipped and escaped.
#[test]
fn huge_and_control_inputs_give_short_printable_errors() {
    let huge = "x".repeat(1_000_000);
    let inputs = [
        huge.clone(),
        format!("X.O.X.... {huge}"),
        format!("X.O.X.... \u{1b}]0;pwned\u{7}{huge}"),
        "\u{1b}[2J".to_owned(),
        "é".repeat(100_000),
    ];
    for input in &inputs {
        let messages = parse_errors(input);
        let head: String = input.chars().take(20).collect();
        assert_eq!(messages.len(), 7, "every parser refuses {head:?}");
        for message in messages {
            assert!(message.chars().count() <= MAX_MESSAGE, "{message:?}");
            assert!(!message.chars().any(char::is_control), "{message:?}");
        }
    }
    let err = format!("X.O.X.... {huge}")
        .parse::<Position>()
        .expect_err("a bad suffix");
    assert!(err.to_string().starts_with("unexpected \"xxxx"), "{err}");
    assert!(err.to_string().contains("…\" after the board"), "{err}");
    let err = "\u{1b}[2J".parse::<Square>().expect_err("not a cell");
    assert!(
        err.to_string().starts_with("'\\u{1b}[2J' is not a cell"),
        "{err}"
    );
    assert_eq!(err.input(), "\u{1b}[2J", "the error keeps the whole input");
}

/// A mask becomes a set only through its nine low bits: `from_bits` refuses
/// any other, `from_bits_truncate` drops them.
#[test]
fn bitboards_hold_nine_bits_only() {
    for bits in 0..=u16::MAX {
        let set = Bitboard::from_bits_truncate(bits);
        assert_eq!(set.bits(), bits & 0x1ff, "{bits:#x}");
        assert_eq!(
            Bitboard::from_bits(bits),
            (bits < 512).then_some(set),
            "{bits:#x}"
        );
    }
}

/// `Bitboard::count` and `Bitboard::nth` use tables; they must agree with
/// counting bits and walking the set, for every value.
#[test]
fn bitboard_tables_agree_with_bit_counting() {
    for bits in 0..512u16 {
        let set = Bitboard::from_bits(bits).expect("nine bits");
        assert_eq!(set.count(), bits.count_ones(), "{bits:#x}");
        let squares: Vec<Square> = set.into_iter().collect();
        for n in 0..12 {
            assert_eq!(set.nth(n), squares.get(n as usize).copied(), "{set} {n}");
        }
    }
}

/// `Rng::pick` takes the square a plain loop would: clear the `below(count)`
/// lowest squares and take the next, consuming one number even for an empty
/// set. Seeded games and replays depend on this staying the same.
#[test]
fn rng_pick_is_the_plain_loop() {
    fn plain_pick(rng: &mut oxo_core::Rng, set: Bitboard) -> Option<Square> {
        let mut bits = set.bits();
        for _ in 0..rng.below(bits.count_ones()) {
            bits &= bits - 1;
        }
        (bits != 0).then(|| Square::new(bits.trailing_zeros() as u8))
    }
    for seed in 0..20 {
        let (mut fast, mut plain) = (oxo_core::Rng::new(seed), oxo_core::Rng::new(seed));
        for bits in 0..512u16 {
            let set = Bitboard::from_bits(bits).expect("nine bits");
            assert_eq!(fast.pick(set), plain_pick(&mut plain, set), "{seed} {bits}");
        }
        assert_eq!(fast, plain);
    }
}
