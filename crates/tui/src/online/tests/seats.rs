//! Where the player is when seats change elsewhere: a seat given up in
//! another window takes this one back to the lobby, and a reconnect in the
//! lobby stays there, listing the tables held so that one can be opened.

use oxo_protocol::{ClientMsg, ServerMsg, TableId, TableState, TableStatus};

use super::{News, draw, lobby_entry, online, press, sent, state, table_msg, welcome};

#[test]
fn a_seat_given_up_in_another_window_takes_this_one_back_to_the_lobby() {
    let (mut o, mut rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "me"));
    // The other window left: this connection gets the same final state,
    // my seat free, and is no longer at the table.
    let mut gone = state("t1", "me");
    gone.status = TableStatus::Waiting;
    gone.players.x = None;
    gone.turn = None;
    gone.game_id = None;
    table_msg(&mut o, &gone);
    assert!(o.table.is_none(), "back in the lobby");
    assert_eq!(o.message, "You left this table in another window");
    assert!(sent(&mut rx).is_empty(), "nothing to leave: {:?}", o.table);
    table_msg(&mut o, &gone);
    assert!(o.table.is_none(), "its late states do not open it again");
    let (_, screen) = draw(&o, 80, 24);
    assert!(screen.contains("Open tables"), "{screen}");

    // A watcher whose table changes hands stays.
    let (mut o, _rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "ann"));
    let mut other = state("t1", "ann");
    other.players.o = None;
    other.status = TableStatus::Waiting;
    table_msg(&mut o, &other);
    assert!(o.table.is_some());
}

/// The state of table `id` where I (X) wait for an opponent.
fn mine_waiting(id: &str) -> TableState {
    let mut table = state(id, "me");
    table.status = TableStatus::Waiting;
    table.players.o = None;
    table.game_id = None;
    table.turn = None;
    table
}

fn welcome_holding(o: &mut super::Online, tables: &[&str]) {
    o.news(News::Welcome {
        name: "Me".into(),
        player_id: "me".into(),
        tables: tables.iter().map(|&t| TableId::from(t)).collect(),
    });
    for &t in tables {
        table_msg(o, &mine_waiting(t));
    }
}

#[test]
fn a_reconnect_in_the_lobby_stays_there_and_the_tables_held_are_listed_to_open() {
    let (mut o, mut rx) = online();
    // The welcome re-attaches my seats; their states follow it.
    welcome_holding(&mut o, &["h1", "h2"]);
    assert!(o.table.is_none(), "the lobby stays");
    o.news(News::Message(Box::new(ServerMsg::Lobby {
        tables: vec![lobby_entry("t9")],
    })));
    let (_, screen) = draw(&o, 80, 24);
    assert!(screen.contains("Your tables"), "{screen}");
    assert_eq!(screen.matches("yours: Me vs (free)").count(), 2, "{screen}");
    assert!(screen.contains("Ann vs (free)"), "{screen}");
    // Dropped and back: still the lobby.
    o.news(News::Reconnecting("Connection lost — reconnecting…".into()));
    welcome_holding(&mut o, &["h1", "h2"]);
    assert!(o.table.is_none(), "the lobby stays after a reconnect");
    // Enter on the second held table opens it (join_table re-attaches).
    press(&mut o, "j\n");
    assert_eq!(sent(&mut rx), join_of("h2"));
    table_msg(&mut o, &mine_waiting("h2"));
    assert_eq!(o.table.as_ref().map(|t| t.id.as_str()), Some("h2"));
    // Back in the lobby, the open table is still below the held ones.
    press(&mut o, "\u{1b}");
    assert!(o.table.is_none());
    sent(&mut rx);
    press(&mut o, "j\n");
    assert_eq!(sent(&mut rx), join_of("t9"), "h2 was left: h1, then t9");
}

#[test]
fn a_table_created_opens_even_while_the_states_of_tables_held_come_in() {
    let (mut o, mut rx) = online();
    welcome_holding(&mut o, &["h1"]);
    press(&mut o, "c");
    assert_eq!(sent(&mut rx).len(), 1);
    table_msg(&mut o, &mine_waiting("h1"));
    assert!(o.table.is_none(), "not the table created");
    table_msg(&mut o, &mine_waiting("new"));
    assert_eq!(o.table.as_ref().map(|t| t.id.as_str()), Some("new"));
}

#[test]
fn a_public_table_of_mine_is_listed_once_as_mine() {
    let (mut o, mut rx) = online();
    welcome_holding(&mut o, &["h1"]);
    // The public lobby lists my waiting table too, and another one.
    o.news(News::Message(Box::new(ServerMsg::Lobby {
        tables: vec![lobby_entry("h1"), lobby_entry("t9")],
    })));
    let (_, screen) = draw(&o, 80, 24);
    assert_eq!(screen.matches("yours: Me vs (free)").count(), 1, "{screen}");
    assert_eq!(
        screen.matches("Ann vs (free)").count(),
        1,
        "h1 is not listed again among the open tables\n{screen}"
    );
    assert_eq!(o.lobby_rows(), 2);
    // The second row is the other table.
    press(&mut o, "j\n");
    assert_eq!(sent(&mut rx), join_of("t9"));
}

/// What Enter on the lobby's row of table `id` sends.
fn join_of(id: &str) -> [ClientMsg; 1] {
    [ClientMsg::JoinTable {
        table_id: id.into(),
        seat: None,
    }]
}

#[test]
fn a_spectator_with_no_seat_to_take_sees_no_cell_numbers() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    // Ann plays Bob; I watch.
    table_msg(&mut o, &state("t1", "ann"));
    let (_, screen) = draw(&o, 80, 24);
    assert!(screen.contains("watching"), "{screen}");
    assert!(
        !screen.contains("  5  "),
        "no number to press in an empty cell\n{screen}"
    );
    // Seated, I press them: they show.
    table_msg(&mut o, &state("t1", "me"));
    let (_, screen) = draw(&o, 80, 24);
    assert!(screen.contains("  5  "), "{screen}");
}

/// The state of table `id` where I (X) play Bob (O), `moves` played: X
/// to move after an even number, Bob after an odd one.
fn mine_playing(id: &str, moves: u32) -> TableState {
    let mut table = state(id, "me");
    table.move_number = moves;
    table.turn = Some(if moves.is_multiple_of(2) {
        oxo_core::Player::X
    } else {
        oxo_core::Player::O
    });
    table
}

#[test]
fn a_table_held_says_whose_move_it_is_and_a_move_there_is_told() {
    let (mut o, _rx) = online();
    o.news(News::Welcome {
        name: "Me".into(),
        player_id: "me".into(),
        tables: vec![TableId::from("h1")],
    });
    table_msg(&mut o, &mine_playing("h1", 1));
    let (_, screen) = draw(&o, 80, 24);
    assert!(screen.contains("yours: Me vs Bob  Bob to move"), "{screen}");
    o.message.clear();
    // Bob moves there: the row and the message say it is my move.
    table_msg(&mut o, &mine_playing("h1", 2));
    let (_, screen) = draw(&o, 80, 24);
    assert!(screen.contains("yours: Me vs Bob  your move"), "{screen}");
    assert_eq!(
        o.message,
        "Your move at your table vs Bob (Enter on its row)"
    );
    // The same state again is no news.
    o.message.clear();
    table_msg(&mut o, &mine_playing("h1", 2));
    assert_eq!(o.message, "");

    // At another table, a move at the one held is told too (without
    // the lobby's key).
    table_msg(&mut o, &mine_playing("h1", 3));
    press(&mut o, "c");
    table_msg(&mut o, &mine_waiting("new"));
    assert_eq!(o.table.as_ref().map(|t| t.id.as_str()), Some("new"));
    table_msg(&mut o, &mine_playing("h1", 4));
    assert_eq!(o.message, "Your move at your other table vs Bob");
}

#[test]
fn leaving_while_disconnected_stays_at_the_table_and_says_it_was_not_sent() {
    // In a round: Esc twice, as the keys ask when connected.
    let (mut o, mut rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "me"));
    o.news(News::Reconnecting("Connection lost — reconnecting…".into()));
    press(&mut o, "\u{1b}\u{1b}");
    assert!(sent(&mut rx).is_empty());
    assert_eq!(
        o.table.as_ref().map(|t| t.id.as_str()),
        Some("t1"),
        "the seat is still held: the table stays shown"
    );
    assert!(
        o.message.starts_with("Not sent: not connected"),
        "{}",
        o.message
    );
    // Waiting for an opponent: one Esc.
    let (mut o, mut rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &mine_waiting("t2"));
    o.news(News::Reconnecting("Connection lost — reconnecting…".into()));
    press(&mut o, "\u{1b}");
    assert!(sent(&mut rx).is_empty());
    assert!(o.table.is_some(), "still at the table");
    assert!(o.message.starts_with("Not sent"), "{}", o.message);
    // Back, Esc leaves.
    welcome(&mut o);
    press(&mut o, "\u{1b}");
    assert_eq!(
        sent(&mut rx),
        [ClientMsg::LeaveTable {
            table_id: "t2".into()
        }]
    );
    assert!(o.table.is_none());
}
