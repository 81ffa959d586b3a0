//! A watched table that closes (its last player left): the screen says
//! so, and offers only the keys that still work there.

use oxo_protocol::TableStatus;

use super::{draw, online, press, sent, state, table_msg, welcome};

#[test]
fn a_closed_table_offers_only_going_back_and_its_keys_send_nothing() {
    let (mut o, mut rx) = online();
    welcome(&mut o);
    // Watching Ann and Bob's table; both leave, and it closes.
    let mut closed = state("t1", "ann");
    table_msg(&mut o, &closed);
    closed.status = TableStatus::Closed;
    closed.players.x = None;
    closed.players.o = None;
    closed.turn = None;
    table_msg(&mut o, &closed);
    let (_, screen) = draw(&o, 80, 24);
    let keys = screen.lines().last().unwrap_or_default().to_owned();
    assert!(screen.contains("closed"), "{screen}");
    for gone in ["take the free seat", "m chat"] {
        assert!(!screen.contains(gone), "{gone}\n{screen}");
    }
    assert!(keys.contains("Esc") && keys.contains("q quit"), "{screen}");
    // A move, a rematch or a chat line would only be refused; leaving
    // has nothing to tell the server either.
    press(&mut o, "5\nrm");
    assert!(o.typing.is_none(), "no chat line at a closed table");
    assert!(sent(&mut rx).is_empty(), "nothing sent to a closed table");
    assert!(o.message.contains("closed"), "{}", o.message);
    press(&mut o, "\u{1b}");
    assert!(o.table.is_none(), "Esc goes back to the lobby");
    assert!(sent(&mut rx).is_empty(), "nothing to leave");
}

#[test]
fn the_help_at_a_closed_table_lists_only_going_back_and_quitting() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    let mut closed = state("t1", "ann");
    closed.status = TableStatus::Closed;
    closed.players.x = None;
    closed.players.o = None;
    closed.turn = None;
    table_msg(&mut o, &closed);
    press(&mut o, "?");
    let (_, screen) = draw(&o, 80, 24);
    assert!(screen.contains("back to the lobby"), "{screen}");
    for gone in ["take a free seat", "chat"] {
        assert!(!screen.contains(gone), "{gone}\n{screen}");
    }
}

#[test]
fn a_spectator_is_told_who_left_and_a_closed_table_has_nobody_watching() {
    use oxo_core::{Outcome, Player, WinReason};
    let (mut o, _rx) = online();
    welcome(&mut o);
    // Watching Ann (X) and Bob (O) mid-round, with one other watcher.
    let mut t = state("t1", "ann");
    t.players.x.as_mut().expect("Ann").name = "Ann".into();
    t.spectators = 2;
    table_msg(&mut o, &t);
    // Bob leaves: he forfeits, Ann wins.
    t.status = TableStatus::Waiting;
    t.players.o = None;
    t.turn = None;
    t.outcome = Some(Outcome::Win {
        winner: Player::X,
        reason: WinReason::Forfeit,
    });
    table_msg(&mut o, &t);
    assert_eq!(o.message, "Bob left the table: Ann wins");
    // Carol takes the free seat: the next round starts.
    let mut next = state("t1", "ann");
    next.players.x.as_mut().expect("Ann").name = "Ann".into();
    next.players.o.as_mut().expect("a seat").name = "Carol".into();
    next.round = 2;
    table_msg(&mut o, &next);
    assert_eq!(o.message, "Carol joined: the round starts");
    // Both leave one after the other; the table closes.
    let mut closed = next.clone();
    closed.status = TableStatus::Closed;
    closed.players.x = None;
    closed.players.o = None;
    closed.turn = None;
    closed.spectators = 1;
    table_msg(&mut o, &closed);
    assert_eq!(o.message, "Ann and Carol left: the table is closed");
    let (_, screen) = draw(&o, 80, 24);
    assert!(!screen.contains("watching"), "{screen}");
}
