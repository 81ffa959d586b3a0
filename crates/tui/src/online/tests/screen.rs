//! What the table screen shows at every size the game accepts: a waiting
//! table's link under the board, and whose turn it is (or the result)
//! even at the smallest size.

use oxo_core::{Bitboard, Outcome, Player, Square, WinReason};
use oxo_protocol::{TableState, TableStatus};

use super::{Online, draw, online, state, table_msg, welcome};

/// Sizes from the smallest the game accepts to a large terminal.
const SIZES: [(u16, u16); 7] = [
    (32, 14),
    (50, 16),
    (64, 22),
    (80, 24),
    (100, 30),
    (100, 40),
    (160, 50),
];

/// The row of the screen's last board line (its bottom border).
fn board_bottom(screen: &str) -> Option<usize> {
    screen
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains('╰'))
        .map(|(i, _)| i)
        .last()
}

/// A player alone at their new table, its id and its link (a real id is
/// 32 hex digits).
fn waiting_at_a_table() -> (Online, &'static str, String) {
    let (mut o, _rx) = online();
    welcome(&mut o);
    let id = "0123456789abcdef0123456789abcdef";
    let mut table = state(id, "me");
    table.status = TableStatus::Waiting;
    table.players.o = None;
    table.game_id = None;
    table.turn = None;
    table_msg(&mut o, &table);
    (o, id, format!("http://127.0.0.1:8080/t/{id}"))
}

#[test]
fn a_waiting_tables_link_shows_under_the_board() {
    let (mut o, id, link) = waiting_at_a_table();
    for (width, height) in SIZES.into_iter().filter(|&(w, _)| w >= 64) {
        let (_, screen) = draw(&o, width, height);
        let row = screen.lines().position(|l| l.contains(&link));
        let bottom = board_bottom(&screen);
        assert!(
            row.zip(bottom).is_some_and(|(r, b)| r > b),
            "{width}x{height}: the link under the board\n{screen}"
        );
    }
    // Once the opponent came, the link goes.
    table_msg(&mut o, &state(id, "me"));
    let (_, screen) = draw(&o, 100, 30);
    assert!(!screen.contains(&link), "{screen}");
}

#[test]
fn a_waiting_table_says_it_waits_and_shows_its_whole_link_at_every_size() {
    let (o, _, link) = waiting_at_a_table();
    for (width, height) in [(32, 12), (33, 12), (40, 12), (32, 13), (40, 14)]
        .into_iter()
        .chain(SIZES)
    {
        let (_, screen) = draw(&o, width, height);
        assert!(
            screen.contains("Waiting"),
            "{width}x{height}: that it waits\n{screen}"
        );
        // The link may wrap, never lose a character.
        let joined: String = screen.split_whitespace().collect();
        assert!(
            joined.contains(&link),
            "{width}x{height}: the whole link\n{screen}"
        );
    }
}

#[test]
fn whose_turn_the_clock_and_the_result_show_at_every_size() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    let mut table = state("t1", "me");
    table.time_left_ms = Some(25_000);
    table_msg(&mut o, &table);
    for (width, height) in SIZES {
        let (_, screen) = draw(&o, width, height);
        assert!(
            screen.contains("Your move (X)"),
            "{width}x{height}\n{screen}"
        );
        assert!(screen.contains("s left"), "{width}x{height}\n{screen}");
    }
    x_won_the_top_row(&mut table);
    table.time_left_ms = None;
    table.scores.x = 1;
    table_msg(&mut o, &table);
    for (width, height) in SIZES {
        let (_, screen) = draw(&o, width, height);
        assert!(screen.contains("You win (X)"), "{width}x{height}\n{screen}");
    }
}

#[test]
fn a_watcher_of_a_finished_round_is_not_offered_a_rematch() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    // Ann and Bob play; I (`me`) only watch.
    let mut table = state("t1", "ann");
    table.spectators = 1;
    x_won_the_top_row(&mut table);
    for outcome in [Some(Outcome::Draw), table.outcome] {
        table.outcome = outcome;
        table_msg(&mut o, &table);
        for (width, height) in SIZES {
            let (_, screen) = draw(&o, width, height);
            assert!(
                screen.contains("wins") || screen.contains("Draw"),
                "{width}x{height}: the result\n{screen}"
            );
            assert!(
                !screen.contains("rematch"),
                "{width}x{height}: no rematch offered\n{screen}"
            );
        }
    }
}

/// `table`'s round over: X won with a1, b1, c1 after five moves.
fn x_won_the_top_row(table: &mut TableState) {
    table.status = TableStatus::RoundOver;
    table.turn = None;
    table.board = "XXXOO....".into();
    table.move_number = 5;
    table.outcome = Some(Outcome::Win {
        winner: Player::X,
        reason: WinReason::Line {
            cells: Bitboard::EMPTY
                .with(Square::A1)
                .with(Square::B1)
                .with(Square::C1),
        },
    });
}

#[test]
fn a_result_says_how_the_round_was_won_in_the_browsers_words() {
    use super::super::status::status;
    let (mut o, _rx) = online();
    welcome(&mut o);
    let mut table = state("t1", "me");
    x_won_the_top_row(&mut table);
    let said = |o: &super::Online, t: &TableState| status(o, t, o.seat_at(t), 200);
    table_msg(&mut o, &table);
    assert_eq!(
        said(&o, &table),
        "You win (X) — three in a row · r asks for a rematch"
    );
    for (reason, words) in [
        (WinReason::Timeout, "Bob (O) wins — you ran out of time"),
        (WinReason::Forfeit, "Bob (O) wins — you forfeited"),
        (
            WinReason::Dropped,
            "Bob (O) wins — you did not come back in time",
        ),
    ] {
        table.outcome = Some(Outcome::Win {
            winner: Player::O,
            reason,
        });
        assert_eq!(said(&o, &table), format!("{words} · r asks for a rematch"));
    }
    // A watcher reads both names, and is offered no rematch.
    let mut watched = state("t2", "ann");
    x_won_the_top_row(&mut watched);
    if let Some(x) = watched.players.x.as_mut() {
        x.name = "Ann".into();
    }
    watched.outcome = Some(Outcome::Win {
        winner: Player::X,
        reason: WinReason::Timeout,
    });
    assert_eq!(said(&o, &watched), "Ann (X) wins — Bob ran out of time");
    watched.outcome = Some(Outcome::Draw);
    assert_eq!(said(&o, &watched), "Draw!");
}

#[test]
fn twelve_rows_keep_the_board_whose_turn_and_a_key_line() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    let mut table = state("t1", "me");
    table.time_left_ms = Some(25_000);
    table_msg(&mut o, &table);
    for width in [32, 40, 80] {
        o.resize(width, 12);
        assert!(!o.too_small(), "{width}×12");
        let (_, screen) = draw(&o, width, 12);
        for row in ["1 │", "2 │", "3 │", "╰─"] {
            assert!(screen.contains(row), "{width}×12: {row}\n{screen}");
        }
        assert!(screen.contains("Your move (X)"), "{width}×12\n{screen}");
        let last = screen.lines().last().unwrap_or_default();
        assert!(
            last.contains("? keys") && last.contains("q quit"),
            "{width}×12: one line of keys\n{screen}"
        );
    }
    x_won_the_top_row(&mut table);
    table_msg(&mut o, &table);
    for width in [32, 40, 80] {
        let (_, screen) = draw(&o, width, 12);
        assert!(screen.contains("You win (X)"), "{width}×12\n{screen}");
    }
    o.resize(40, 11);
    let (_, screen) = draw(&o, 40, 11);
    assert!(screen.contains("Terminal too small"), "{screen}");
}

/// The screen's row that starts (after any board) with seat `p`'s mark
/// and a space, trimmed; the test fails if there is none.
/// A wide character's second cell, drawn as a space, is left out.
fn seat_row(screen: &str, p: char) -> String {
    let start = format!("{p} ");
    screen
        .lines()
        .find_map(|l| {
            let at = l
                .find(&start)
                .filter(|&i| i == 0 || l[..i].ends_with("  "))?;
            Some(l[at..].trim_end().replace("名 ", "名"))
        })
        .unwrap_or_else(|| panic!("no row for {p}\n{screen}"))
}

#[test]
fn a_long_name_is_cut_to_the_room_there_is_and_the_score_stays_on_its_row() {
    use oxo_protocol::TableState;
    let named = |name: &str, away: bool| -> TableState {
        let mut t = state("t1", "me");
        t.scores.o = 3;
        if let Some(bob) = t.players.o.as_mut() {
            bob.name = name.into();
            bob.connected = !away;
            bob.grace_left_ms = away.then_some(19_000);
        }
        t
    };
    let (mut o, _rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &named("Bartholomew Longname-Xy", true));
    o.resize(80, 24);
    let (_, screen) = draw(&o, 80, 24);
    let row = seat_row(&screen, 'O');
    assert!(
        row.contains('…') && row.ends_with("(away: 19 s to come back)  3"),
        "one row, the name cut: {row:?}\n{screen}"
    );
    // 24 wide characters, 48 columns, in a 40×14 terminal.
    table_msg(&mut o, &named(&"名".repeat(24), false));
    o.resize(40, 14);
    let (_, screen) = draw(&o, 40, 14);
    let row = seat_row(&screen, 'O');
    assert!(
        row.contains("名…") && row.ends_with("  3"),
        "one row, the name cut: {row:?}\n{screen}"
    );
    // Away too, in so little room: the name and score on their row, the
    // short form whole on the next.
    table_msg(&mut o, &named(&"名".repeat(24), true));
    let (_, screen) = draw(&o, 40, 14);
    let row = seat_row(&screen, 'O');
    assert!(
        row.starts_with("O 名") && row.contains('…') && row.ends_with("  3"),
        "{row:?}\n{screen}"
    );
    assert!(screen.contains("(away 19 s)"), "{row:?}\n{screen}");
    assert!(
        !screen.lines().any(|l| l.trim() == "O" || l.trim() == "3"),
        "no mark or score alone on a row\n{screen}"
    );
}

#[test]
fn offline_the_move_clock_says_it_is_unknown_instead_of_counting_down() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    let mut table = state("t1", "me");
    table.time_left_ms = Some(20_000);
    table_msg(&mut o, &table);
    let (_, screen) = draw(&o, 80, 24);
    assert!(screen.contains("Your move (X) · 20 s left"), "{screen}");
    o.news(super::News::Reconnecting(
        "Connection lost — reconnecting…".into(),
    ));
    for (width, height) in [(80, 24), (40, 14)] {
        let (_, screen) = draw(&o, width, height);
        assert!(!screen.contains("s left"), "{width}x{height}\n{screen}");
        assert!(
            screen.contains("clock unknown"),
            "{width}x{height}\n{screen}"
        );
    }
}
