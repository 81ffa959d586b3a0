//! The `?` key lists the keys online as offline, in the lobby and at a
//! table; any key closes the list and does nothing else.

use oxo_protocol::ServerMsg;

use super::{News, draw, lobby_entry, online, press, sent, state, table_msg, welcome};

#[test]
fn question_mark_lists_the_keys_in_the_lobby_and_at_a_table_and_any_key_closes_it() {
    let (mut o, mut rx) = online();
    welcome(&mut o);
    o.news(News::Message(Box::new(ServerMsg::Lobby {
        tables: vec![lobby_entry("t1")],
    })));
    // The keys line says that `?` lists them.
    let (_, screen) = draw(&o, 80, 24);
    assert!(screen.contains("? keys"), "{screen}");
    press(&mut o, "?");
    let (_, screen) = draw(&o, 80, 24);
    assert!(screen.contains("Keys"), "{screen}");
    assert!(screen.contains("press any key to close"), "{screen}");
    assert!(screen.contains("watch the table"), "{screen}");
    // The closing key does nothing else: Enter does not join.
    press(&mut o, "\n");
    assert!(sent(&mut rx).is_empty());
    let (_, screen) = draw(&o, 80, 24);
    assert!(!screen.contains("press any key to close"), "{screen}");

    table_msg(&mut o, &state("t1", "me"));
    let (_, screen) = draw(&o, 100, 30);
    assert!(screen.contains("? keys"), "{screen}");
    press(&mut o, "?");
    for (width, height) in [(32, 14), (80, 24)] {
        let (_, screen) = draw(&o, width, height);
        assert!(screen.contains("Keys"), "{width}x{height}\n{screen}");
        assert!(
            screen.contains("press any key to close"),
            "{width}x{height}\n{screen}"
        );
    }
    let (_, screen) = draw(&o, 80, 24);
    assert!(screen.contains("forfeit"), "{screen}");
    // q closes the list; it does not ask to quit.
    press(&mut o, "q");
    assert!(o.running);
    let (_, screen) = draw(&o, 80, 24);
    assert!(!screen.contains("press any key to close"), "{screen}");
    assert!(!screen.contains("Press q again"), "{screen}");
    assert!(sent(&mut rx).is_empty());
}

#[test]
fn question_mark_is_typed_in_a_chat_line() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "me"));
    press(&mut o, "mwhy?");
    assert_eq!(o.typing.as_deref(), Some("why?"));
    let (_, screen) = draw(&o, 80, 24);
    assert!(!screen.contains("press any key to close"), "{screen}");
}

#[test]
fn the_lobby_help_names_the_bots_as_the_footer_and_the_browser_do() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    press(&mut o, "?");
    for (width, height) in [(32, 14), (80, 24)] {
        let (_, screen) = draw(&o, width, height);
        for bot in ["Random", "Easy", "Medium", "Impossible"] {
            assert!(screen.contains(bot), "{bot}: {width}x{height}\n{screen}");
        }
        assert!(!screen.contains("best"), "{width}x{height}\n{screen}");
    }
}

#[test]
fn a_click_on_the_help_window_plays_no_cell_under_it() {
    let (mut o, mut rx) = super::seated(".........", &[]);
    let area = ratatui::layout::Rect::new(0, 0, 80, 24);
    let (x, y) = super::centre_of(&o, area, oxo_core::Square::B2);
    press(&mut o, "?");
    let (_, screen) = draw(&o, 80, 24);
    assert!(screen.contains("Keys"), "{screen}");
    o.click(area, x, y);
    assert_eq!(sent(&mut rx), [], "a click through the help window");
    assert!(o.help, "the help stays until a key closes it, as offline");
}
