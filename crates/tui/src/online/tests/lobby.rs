//! The lobby screen: its list scrolls to keep the selection in sight,
//! and its message and keys always show.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use oxo_protocol::ServerMsg;

use super::{News, draw, lobby_entry, online};

#[test]
fn the_list_scrolls_to_keep_the_selection_and_the_footer_in_sight() {
    let (mut o, _rx) = online();
    let tables = (0..19).map(|i| lobby_entry(&format!("t{i}"))).collect();
    o.news(News::Message(Box::new(ServerMsg::Lobby { tables })));
    o.message = "Connected".to_owned();
    for down in 0..19 {
        let (_, screen) = draw(&o, 100, 20);
        let lines: Vec<&str> = screen.lines().collect();
        assert!(
            screen.contains('▸'),
            "after {down} Down: the selection in sight\n{screen}"
        );
        assert!(
            lines.iter().any(|l| l.contains("q quit")),
            "after {down} Down: the keys\n{screen}"
        );
        assert!(
            lines.iter().any(|l| l.starts_with("Connected")),
            "after {down} Down: the message\n{screen}"
        );
        o.key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE));
    }
    // Back up to the first table: it shows again.
    for _ in 0..19 {
        o.key(KeyEvent::new(KeyCode::Up, KeyModifiers::NONE));
    }
    let (_, screen) = draw(&o, 100, 20);
    assert!(screen.contains("▸ Ann"), "{screen}");
}

#[test]
fn esc_in_the_lobby_does_not_quit_and_says_what_does() {
    let (mut o, _rx) = online();
    o.key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE));
    assert!(o.running, "Esc is back, and the lobby is the first screen");
    assert!(o.message.contains("q quits"), "{}", o.message);
    o.key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE));
    assert!(!o.running);
}

#[test]
fn twelve_rows_show_the_list_the_message_and_two_lines_of_keys() {
    let (mut o, _rx) = online();
    let tables = (0..19).map(|i| lobby_entry(&format!("t{i}"))).collect();
    o.news(News::Message(Box::new(ServerMsg::Lobby { tables })));
    o.message = "Connected".to_owned();
    for width in [32, 40, 80] {
        o.resize(width, 12);
        assert!(!o.too_small(), "{width}×12");
        for down in [0, 5, 18] {
            o.selected = down;
            let (_, screen) = draw(&o, width, 12);
            let lines: Vec<&str> = screen.lines().collect();
            assert!(screen.contains("Open tables"), "{width}×12\n{screen}");
            assert!(screen.contains('▸'), "{width}×12 at {down}\n{screen}");
            // The message right above two rows of keys.
            assert!(
                lines[lines.len() - 3].starts_with("Connected"),
                "{width}×12: the message\n{screen}"
            );
            let keys = lines[lines.len() - 2..].join(" ");
            assert!(
                keys.contains("c new") && keys.contains("? keys") && keys.contains("q quit"),
                "{width}×12: two lines of keys\n{screen}"
            );
        }
    }
}

#[test]
fn the_keys_take_at_most_two_lines_at_80_columns() {
    let (mut o, _rx) = online();
    o.news(News::Message(Box::new(ServerMsg::Lobby {
        tables: vec![lobby_entry("t1")],
    })));
    o.message = "Connected".to_owned();
    let (_, screen) = draw(&o, 80, 24);
    let lines: Vec<&str> = screen.lines().collect();
    let message = lines
        .iter()
        .position(|l| l.starts_with("Connected"))
        .expect("the message");
    let keys = &lines[message + 1..];
    assert!(
        keys.iter().filter(|l| !l.trim().is_empty()).count() <= 2,
        "{screen}"
    );
    let keys = keys.join(" ");
    for key in ["Enter join", "w watch", "1-4", "? keys", "q quit"] {
        assert!(keys.contains(key), "{key}\n{screen}");
    }
}

#[test]
fn the_lobby_keys_to_create_and_play_a_bot_show_in_a_short_terminal() {
    let (mut o, _rx) = online();
    let tables = (0..3).map(|i| lobby_entry(&format!("t{i}"))).collect();
    o.news(News::Message(Box::new(ServerMsg::Lobby { tables })));
    o.message = "Connected to http://127.0.0.1:8080 as Me".to_owned();
    for (width, height) in [(32, 12), (40, 14), (80, 15)] {
        let (_, screen) = draw(&o, width, height);
        for key in ["Enter join", "c new", "1-4 vs bot", "? keys", "q quit"] {
            assert!(screen.contains(key), "{width}x{height}: {key}\n{screen}");
        }
        assert!(screen.contains("Connected"), "{width}x{height}\n{screen}");
        assert!(screen.contains('▸'), "{width}x{height}\n{screen}");
    }
    // Wide enough, every key shows in two rows, as in a tall terminal.
    let (_, screen) = draw(&o, 80, 15);
    for key in ["w watch", "p new private", "s start", "t no clock"] {
        assert!(screen.contains(key), "80x15: {key}\n{screen}");
    }
}

#[test]
fn the_starter_and_clock_keys_say_what_they_chose_even_where_their_keys_are_hidden() {
    let (mut o, _rx) = online();
    o.message = "Connected to http://127.0.0.1:8080 as Me".to_owned();
    let press = |o: &mut super::Online, c: char| {
        o.key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    };
    press(&mut o, 't');
    for (width, height) in [(32, 12), (40, 14), (80, 24)] {
        let (_, screen) = draw(&o, width, height);
        let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("15 s a move"), "{width}x{height}\n{screen}");
    }
    press(&mut o, 's');
    for (width, height) in [(32, 12), (40, 14), (80, 24)] {
        let (_, screen) = draw(&o, width, height);
        let flat = screen.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("always X"), "{width}x{height}\n{screen}");
    }
}

/// The lobby news `ids`, in that order.
fn lobby_of(o: &mut super::Online, ids: &[&str]) {
    let tables = ids.iter().map(|id| lobby_entry(id)).collect();
    o.news(News::Message(Box::new(ServerMsg::Lobby { tables })));
}

#[test]
fn the_selection_stays_on_its_table_when_the_list_changes_around_it() {
    let (mut o, mut rx) = online();
    lobby_of(&mut o, &["t0", "t1", "t2", "t3", "t4"]);
    super::press(&mut o, "jjj");
    // Tables above the selected one go, and a new one comes first.
    lobby_of(&mut o, &["new", "t0", "t3", "t4"]);
    super::press(&mut o, "\n");
    assert_eq!(
        super::sent(&mut rx),
        [oxo_protocol::ClientMsg::JoinTable {
            table_id: "t3".into(),
            seat: None
        }]
    );
}

#[test]
fn a_selected_table_that_goes_is_said_and_enter_does_not_join_another_unseen() {
    let (mut o, mut rx) = online();
    lobby_of(&mut o, &["t0", "t1", "t2"]);
    super::press(&mut o, "j");
    lobby_of(&mut o, &["t0", "t2"]);
    let (_, screen) = draw(&o, 80, 24);
    assert!(screen.contains("no longer open"), "{screen}");
    // The selection moved to a neighbour, in sight: Enter joins that one.
    super::press(&mut o, "\n");
    let sent = super::sent(&mut rx);
    assert_eq!(sent.len(), 1, "{sent:?}");
}

#[test]
fn a_table_left_going_from_the_list_keeps_the_message_that_says_why() {
    let (mut o, _rx) = online();
    super::welcome(&mut o);
    lobby_of(&mut o, &["t0"]);
    // At my own table t0, listed in the lobby; it closes while I am away.
    super::table_msg(&mut o, &super::state("t0", "me"));
    o.news(News::Gone("t0".into()));
    assert!(o.table.is_none());
    let said = o.message.clone();
    lobby_of(&mut o, &["t1"]);
    assert_eq!(o.message, said);
}

#[test]
fn a_lobby_row_with_long_names_keeps_both_players_and_the_status() {
    let (mut o, _rx) = online();
    let mut table = lobby_entry("t1");
    table.players.x = Some("太".repeat(24));
    table.players.o = Some("名".repeat(24));
    table.status = oxo_protocol::TableStatus::InProgress;
    o.news(News::Message(Box::new(ServerMsg::Lobby {
        tables: vec![table],
    })));
    for width in [40, 64, 80] {
        let (_, screen) = draw(&o, width, 14);
        let row = screen
            .lines()
            .find(|l| l.contains("▸ 太"))
            .unwrap_or_default();
        assert!(row.contains("vs 名"), "{width}: {row}\n{screen}");
        assert!(row.contains("playing"), "{width}: {row}\n{screen}");
    }
}

#[test]
fn a_key_pressed_twice_before_the_new_table_shows_creates_one_table() {
    use super::{press, sent, state, table_msg, welcome};
    use oxo_protocol::{ClientMsg, TableStatus};
    let (mut o, mut rx) = online();
    welcome(&mut o);
    // c, then c and 1 again before the new table's state came.
    press(&mut o, "cc1p");
    let created = sent(&mut rx);
    assert_eq!(created.len(), 1, "{created:?}");
    assert!(matches!(created[0], ClientMsg::CreateTable { .. }));
    assert!(o.message.contains("being created"), "{}", o.message);
    // It shows; back in the lobby, c creates again.
    let mut new = state("n1", "me");
    new.status = TableStatus::Waiting;
    new.players.o = None;
    table_msg(&mut o, &new);
    assert!(o.table.is_some());
    press(&mut o, "\u{1b}");
    sent(&mut rx);
    press(&mut o, "c");
    assert_eq!(sent(&mut rx).len(), 1);
    // A refusal (too many tables, say) lets it be asked again.
    o.news(News::Refused("You hold seats at 10 tables".into()));
    press(&mut o, "c");
    assert_eq!(sent(&mut rx).len(), 1);
    // So does a dropped connection, once back.
    o.news(News::Reconnecting("Connection lost — reconnecting…".into()));
    welcome(&mut o);
    press(&mut o, "c");
    assert_eq!(sent(&mut rx).len(), 1);
}

#[test]
fn enter_on_a_full_table_says_that_w_watches_it() {
    let (mut o, _rx) = online();
    super::welcome(&mut o);
    o.news(News::Message(Box::new(ServerMsg::Lobby {
        tables: vec![lobby_entry("t1")],
    })));
    o.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    o.news(News::Full("Both seats are taken".into()));
    assert_eq!(o.message, "Both seats are taken: w watches the table");
    // A watcher at the table, whose free seat went meanwhile, is told
    // only that: they are watching already.
    let (mut o, _rx) = online();
    super::welcome(&mut o);
    super::table_msg(&mut o, &super::state("t1", "ann"));
    o.news(News::Full("Both seats are taken".into()));
    assert_eq!(o.message, "Both seats are taken");
}
