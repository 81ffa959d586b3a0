//! The table screen at the smallest size and after a round: a chat line
//! being typed always shows, the help keeps its quit line, and a rematch
//! asked for is said as such.

use oxo_core::{Outcome, Player, WinReason};
use oxo_protocol::{TableState, TableStatus};

use super::{draw, online, press, state, table_msg, welcome};

/// Table `t1` after a round I (X, "Me") won against Bob.
fn won(o: &mut super::Online) -> TableState {
    welcome(o);
    let mut over = state("t1", "me");
    over.status = TableStatus::RoundOver;
    over.board = "XXXOO....".into();
    over.turn = None;
    over.outcome = Some(Outcome::Win {
        winner: Player::X,
        reason: WinReason::Forfeit,
    });
    over.scores.x = 1;
    table_msg(o, &over);
    over
}

#[test]
fn a_chat_line_being_typed_shows_over_a_long_status_at_the_smallest_size() {
    let (mut o, _rx) = online();
    won(&mut o);
    press(&mut o, "mhello");
    for (width, height) in [(32, 12), (32, 14), (40, 12), (64, 22)] {
        let (_, screen) = draw(&o, width, height);
        assert!(
            screen.contains("say: hello"),
            "{width}x{height}: the typed line\n{screen}"
        );
    }
}

#[test]
fn the_online_help_keeps_its_quit_line_at_the_smallest_size() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    press(&mut o, "?");
    for (width, height) in [(32, 12), (40, 15)] {
        let (_, screen) = draw(&o, width, height);
        assert!(
            screen.contains("Ctrl-C"),
            "lobby {width}x{height}\n{screen}"
        );
    }
    press(&mut o, "\n");
    table_msg(&mut o, &state("t1", "me"));
    press(&mut o, "?");
    for (width, height) in [(32, 12), (40, 15)] {
        let (_, screen) = draw(&o, width, height);
        assert!(
            screen.contains("Ctrl-C"),
            "table {width}x{height}\n{screen}"
        );
    }
}

#[test]
fn a_rematch_asked_for_says_whom_it_waits_for() {
    let (mut o, mut rx) = online();
    let mut over = won(&mut o);
    press(&mut o, "r");
    assert_eq!(super::sent(&mut rx).len(), 1);
    if let Some(me) = over.players.x.as_mut() {
        me.wants_rematch = true;
    }
    table_msg(&mut o, &over);
    let (_, screen) = draw(&o, 160, 40);
    assert!(screen.contains("X Me (you) wants a rematch"), "{screen}");
    assert!(
        screen.contains("Rematch asked — waiting for Bob"),
        "{screen}"
    );
    assert!(!screen.contains("r asks for a rematch"), "{screen}");
}

#[test]
fn a_long_result_shows_whole_at_the_smallest_size() {
    let (mut o, _rx) = online();
    let mut over = won(&mut o);
    if let Some(bob) = over.players.o.as_mut() {
        bob.name = "W".repeat(24);
    }
    over.outcome = Some(Outcome::Win {
        winner: Player::O,
        reason: WinReason::Forfeit,
    });
    table_msg(&mut o, &over);
    let (_, screen) = draw(&o, 32, 12);
    // The status's last words: what to press next.
    assert!(screen.contains("rematch"), "{screen}");
}

#[test]
fn the_keys_row_says_what_a_seat_can_do_now_at_the_smallest_size() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "me"));
    let last = |o: &super::Online| {
        let (_, screen) = draw(o, 32, 12);
        screen.lines().last().unwrap_or_default().to_owned()
    };
    let playing = last(&o);
    assert!(playing.contains("1-9 play"), "{playing}");
    assert!(
        !playing.contains("rematch"),
        "no rematch during a round: {playing}"
    );
    won(&mut o);
    let over = last(&o);
    assert!(over.contains("r rematch"), "{over}");
    assert!(
        !over.contains("1-9 play"),
        "no move after the round: {over}"
    );
}

#[test]
fn both_players_show_at_the_smallest_size() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    let mut t = state("t1", "me");
    table_msg(&mut o, &t);
    for (width, height) in [(32, 12), (32, 13)] {
        let (_, screen) = draw(&o, width, height);
        assert!(screen.contains("X Me (you)"), "{width}x{height}\n{screen}");
        assert!(screen.contains("O Bob"), "{width}x{height}\n{screen}");
        assert!(screen.contains("Your move"), "{width}x{height}\n{screen}");
    }
    // Short of rows, the opponent stays over my own row: whether they
    // are away (a longer row) or with a message.
    o.message = "Not your turn".into();
    let (_, screen) = draw(&o, 32, 12);
    assert!(screen.contains("O Bob"), "{screen}");
    assert!(screen.contains("Your move"), "{screen}");
    assert!(screen.contains("Not your turn"), "{screen}");
    o.message.clear();
    if let Some(bob) = t.players.o.as_mut() {
        bob.connected = false;
        bob.grace_left_ms = Some(45_000);
    }
    table_msg(&mut o, &t);
    let (_, screen) = draw(&o, 32, 12);
    // The row has no room for the long form: the short one, on one row.
    assert!(screen.contains("O Bob (away 45 s)  0"), "{screen}");
    assert!(screen.contains("Your move"), "{screen}");
}

#[test]
fn what_a_second_press_does_shows_whole_at_the_smallest_size() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "me"));
    for (key, end) in [("q", "the round is lost"), ("f", "the round is lost")] {
        press(&mut o, key);
        let (_, screen) = draw(&o, 32, 12);
        let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains(end), "{key}: {end}\n{screen}");
        assert!(screen.contains("Your move"), "{key}\n{screen}");
    }
    // A message longer than its rows says it was cut.
    o.message = "word ".repeat(20);
    let (_, screen) = draw(&o, 32, 12);
    assert!(screen.contains("word…"), "{screen}");
}

#[test]
fn the_round_number_stays_beside_its_word_in_a_narrow_column() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "me"));
    for (width, height) in [(40, 14), (40, 20), (80, 24)] {
        let (_, screen) = draw(&o, width, height);
        assert!(screen.contains("round 1"), "{width}x{height}\n{screen}");
        assert!(screen.contains("draws 0"), "{width}x{height}\n{screen}");
    }
}

#[test]
fn after_a_reconnect_at_a_table_the_opponent_shows_at_the_smallest_size() {
    use super::super::net::News;
    let (mut o, _rx) = online();
    welcome(&mut o);
    let t = state("t1", "me");
    table_msg(&mut o, &t);
    // The server restarts: the connection drops, comes back, and the
    // table's state follows the welcome.
    o.news(News::Reconnecting("Connection lost — reconnecting…".into()));
    o.news(News::Welcome {
        name: "Me".into(),
        player_id: "me".into(),
        tables: vec!["t1".into()],
    });
    table_msg(&mut o, &t);
    for (width, height) in [(32, 12), (33, 13), (40, 12)] {
        let (_, screen) = draw(&o, width, height);
        assert!(screen.contains("Connected"), "{width}x{height}\n{screen}");
        assert!(screen.contains("O Bob"), "{width}x{height}\n{screen}");
        assert!(screen.contains("Your move"), "{width}x{height}\n{screen}");
    }
}

/// The status row at `width` x `height` of `o`'s screen that holds `words`.
fn row_with(o: &super::Online, width: u16, height: u16, words: &str) -> Option<String> {
    let (_, screen) = draw(o, width, height);
    screen
        .lines()
        .find(|row| row.contains(words))
        .map(str::to_owned)
}

#[test]
fn a_long_wide_name_in_the_status_is_cut_to_keep_it_on_its_row() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    let long = "太".repeat(24);
    let mut t = state("t1", "me");
    if let Some(bob) = t.players.o.as_mut() {
        bob.name.clone_from(&long);
    }
    t.turn = Some(Player::O);
    table_msg(&mut o, &t);
    for (width, height) in [(40, 14), (32, 12), (80, 24)] {
        let row = row_with(&o, width, height, "(O) to move");
        let row = row.unwrap_or_else(|| panic!("{width}x{height}\n{}", draw(&o, width, height).1));
        assert!(row.contains("太"), "{width}x{height}: {row}");
        let (_, screen) = draw(&o, width, height);
        assert!(screen.contains("X Me (you)"), "{width}x{height}\n{screen}");
        assert!(screen.contains("O 太"), "{width}x{height}\n{screen}");
    }
    // A won round, and whom a rematch waits for: the name on one row,
    // the words after it whole.
    // The column beside the board (a wide letter's second cell is a
    // blank of its own here).
    let name_rows = |o: &super::Online| {
        let (_, screen) = draw(o, 40, 14);
        let rows = screen.lines().filter(|row| row.contains('太')).count();
        let side: String = screen
            .lines()
            .map(|row| row.chars().skip(22).collect::<String>() + " ")
            .collect();
        (rows, side)
    };
    t.status = TableStatus::RoundOver;
    t.turn = None;
    t.outcome = Some(Outcome::Win {
        winner: Player::O,
        reason: WinReason::Line {
            cells: oxo_core::Bitboard::from_bits_truncate(0b111),
        },
    });
    table_msg(&mut o, &t);
    let (rows, screen) = name_rows(&o);
    assert_eq!(rows, 2, "the player's row and the status\n{screen}");
    let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("(O) wins — three in a row"), "{screen}");
    if let Some(me) = t.players.x.as_mut() {
        me.wants_rematch = true;
    }
    t.outcome = Some(Outcome::Draw);
    table_msg(&mut o, &t);
    let (rows, screen) = name_rows(&o);
    assert_eq!(rows, 2, "the player's row and the status\n{screen}");
    let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("Rematch asked — waiting for 太"), "{screen}");
}

#[test]
fn the_title_keeps_the_connection_state_in_a_narrow_terminal() {
    use super::super::net::News;
    let (mut o, _rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "me"));
    let title = |o: &super::Online, width: u16| {
        let (_, screen) = draw(o, width, 14);
        screen.lines().next().unwrap_or_default().to_owned()
    };
    for width in [32, 40] {
        let row = title(&o, width);
        assert!(row.trim_end().ends_with("· online"), "{width}: {row}");
    }
    o.name = "太".repeat(24);
    o.news(News::Reconnecting("Connection lost — reconnecting…".into()));
    for width in [32, 40, 80] {
        let row = title(&o, width);
        assert!(
            row.trim_end().ends_with("· reconnecting…"),
            "{width}: {row}"
        );
    }
}

#[test]
fn what_a_long_named_opponent_did_reads_whole_at_the_smallest_size() {
    let long = "太".repeat(24);
    let (mut o, _rx) = online();
    welcome(&mut o);
    let mut waiting = state("t1", "me");
    waiting.status = TableStatus::Waiting;
    waiting.players.o = None;
    table_msg(&mut o, &waiting);
    let mut playing = state("t1", "me");
    if let Some(other) = playing.players.o.as_mut() {
        other.name.clone_from(&long);
    }
    table_msg(&mut o, &playing);
    let flat = |o: &super::Online, width: u16, height: u16| {
        let (_, screen) = draw(o, width, height);
        let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
        (flat, screen)
    };
    for (width, height) in [(32, 12), (40, 14)] {
        let (flat, screen) = flat(&o, width, height);
        assert!(flat.contains("joined: the round starts"), "{screen}");
    }
    // Mid-round: leaving forfeits, so I win.
    let mut left = playing.clone();
    left.status = TableStatus::Waiting;
    left.players.o = None;
    left.turn = None;
    left.outcome = Some(Outcome::Win {
        winner: Player::X,
        reason: WinReason::Forfeit,
    });
    table_msg(&mut o, &left);
    for (width, height) in [(32, 12), (40, 14)] {
        let (flat, screen) = flat(&o, width, height);
        assert!(flat.contains("left the table: you win"), "{screen}");
    }
}

#[test]
fn at_40x14_a_seat_row_that_does_not_fit_keeps_its_words_whole() {
    let (mut o, _rx) = online();
    let mut over = won(&mut o);
    if let Some(bob) = over.players.o.as_mut() {
        bob.name = "Bobby".into();
        bob.wants_rematch = true;
    }
    table_msg(&mut o, &over);
    let (_, screen) = draw(&o, 40, 14);
    assert!(screen.contains("wants a rematch"), "{screen}");
    assert!(
        screen.contains("O Bobby  0"),
        "the name is not cut when the row wraps anyway\n{screen}"
    );
    if let Some(bob) = over.players.o.as_mut() {
        bob.wants_rematch = false;
        bob.connected = false;
        bob.grace_left_ms = Some(19_000);
    }
    table_msg(&mut o, &over);
    let (_, screen) = draw(&o, 40, 14);
    assert!(screen.contains("(away 19 s)"), "{screen}");
    assert!(screen.contains("O Bobby  0"), "{screen}");
}
