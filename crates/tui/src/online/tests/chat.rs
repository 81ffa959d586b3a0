//! The chat lines a table screen shows: live messages, and the table's
//! history taken in when it comes.

use oxo_protocol::{ChatLine, PlayerId, ServerMsg};

use super::super::state::OFFLINE_CHAT;
use super::{News, draw, online, state, table_msg, welcome};

fn chat(table: &str, from: &str, text: &str) -> News {
    News::Message(Box::new(ServerMsg::Chat {
        table_id: table.into(),
        from_id: PlayerId::from("p2"),
        from_name: from.into(),
        text: text.into(),
        watching: false,
    }))
}

fn history(table: &str, texts: &[&str]) -> News {
    let messages = texts
        .iter()
        .map(|text| ChatLine {
            from_id: PlayerId::from("p2"),
            from_name: "Bob".into(),
            text: (*text).into(),
            watching: false,
        })
        .collect();
    News::Message(Box::new(ServerMsg::ChatHistory {
        table_id: table.into(),
        messages,
    }))
}

#[test]
fn the_tables_history_replaces_the_lines_shown_and_keeps_the_latest() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "me"));
    o.news(chat("t1", "Bob", "hi"));
    assert_eq!(o.chat, ["Bob: hi"]);
    // Another table's history, or chat, is not this table's.
    o.news(history("t2", &["elsewhere"]));
    o.news(chat("t2", "Eve", "elsewhere"));
    assert_eq!(o.chat, ["Bob: hi"]);
    let texts: Vec<String> = (1..=13).map(|i| i.to_string()).collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    o.news(history("t1", &texts));
    let kept: Vec<String> = (2..=13).map(|i| format!("Bob: {i}")).collect();
    assert_eq!(o.chat, kept);
    o.news(chat("t1", "Bob", "gg"));
    assert_eq!(o.chat.first().map(String::as_str), Some("Bob: 3"));
    assert_eq!(o.chat.last().map(String::as_str), Some("Bob: gg"));
    assert_eq!(o.chat.len(), 12);
}

#[test]
fn a_tall_screen_shows_more_than_the_last_four_lines() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "me"));
    for text in ["one", "two", "three", "four", "five", "six"] {
        o.news(chat("t1", "Bob", text));
    }
    let (_, screen) = draw(&o, 120, 45);
    for text in ["one", "two", "three", "four", "five", "six"] {
        assert!(screen.contains(&format!("Bob: {text}")), "{text}\n{screen}");
    }
    // A small one shows the newest that fit, whose turn first.
    let (_, screen) = draw(&o, 32, 14);
    assert!(!screen.contains("Bob: one"), "{screen}");
}

#[test]
fn a_long_message_wraps_under_its_text() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "me"));
    let words = "the quick brown fox jumps over the lazy dog and runs far away";
    o.news(chat("t1", "Bob", words));
    for (width, height) in [(64, 22), (110, 30), (80, 24)] {
        let (_, screen) = draw(&o, width, height);
        // By characters: the board's lines are drawn with wide bytes.
        let rows: Vec<Vec<char>> = screen.lines().map(|l| l.chars().collect()).collect();
        let text = |row: &[char], from: usize| -> String {
            row.get(from..)
                .unwrap_or_default()
                .iter()
                .collect::<String>()
        };
        let (first, at) = rows
            .iter()
            .enumerate()
            .find_map(|(y, row)| {
                text(row, 0)
                    .find("Bob: the")
                    .map(|b| (y, text(row, 0)[..b].chars().count()))
            })
            .unwrap_or_else(|| panic!("{width}x{height}: the message\n{screen}"));
        let under = at + "Bob: ".len();
        // Every continuation row starts under the text, until the last word.
        let mut seen = text(&rows[first], under).trim_end().to_owned();
        for row in &rows[first + 1..] {
            if seen.ends_with("away") {
                break;
            }
            assert!(
                row[at..under].iter().all(|&c| c == ' ') && row.get(under) != Some(&' '),
                "{width}x{height}: a row under the text\n{screen}"
            );
            seen.push(' ');
            seen.push_str(text(row, under).trim_end());
        }
        assert_eq!(seen, words, "{width}x{height}\n{screen}");
    }
}

#[test]
fn the_history_adds_only_what_is_not_shown_and_a_forgotten_one_clears_nothing() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "me"));
    o.news(chat("t1", "Bob", "hi"));
    o.news(chat("t1", "Bob", "there"));
    // After a reconnect: what was said meanwhile follows what is shown.
    o.news(history("t1", &["hi", "there", "missed"]));
    assert_eq!(o.chat, ["Bob: hi", "Bob: there", "Bob: missed"]);
    // After a server restart the table's history is gone: the lines
    // already read stay.
    o.news(history("t1", &[]));
    assert_eq!(o.chat, ["Bob: hi", "Bob: there", "Bob: missed"]);
    // The server's window moved on: it starts inside what is shown.
    o.news(history("t1", &["there", "missed", "new"]));
    assert_eq!(o.chat, ["Bob: hi", "Bob: there", "Bob: missed", "Bob: new"]);
}

#[test]
fn a_spectators_line_is_marked_as_in_the_browser() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "me"));
    o.news(News::Message(Box::new(ServerMsg::Chat {
        table_id: "t1".into(),
        from_id: PlayerId::from("p3"),
        from_name: "Wanda".into(),
        text: "go X".into(),
        watching: true,
    })));
    o.news(chat("t1", "Bob", "thanks"));
    assert_eq!(o.chat, ["Wanda (watching): go X", "Bob: thanks"]);
}

#[test]
fn a_long_chat_line_being_typed_shows_its_end_where_the_typing_goes_on() {
    let (mut o, _rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "me"));
    let typed = format!("hello {}the end", "abcdefghij".repeat(20));
    super::press(&mut o, &format!("m{typed}"));
    for (width, height) in [(32, 12), (40, 14), (80, 24)] {
        o.resize(width, height);
        let (_, screen) = draw(&o, width, height);
        assert!(screen.contains("the end▏"), "{width}x{height}\n{screen}");
    }
}

#[test]
fn offline_m_says_the_chat_waits_for_the_connection_and_a_line_typed_is_kept() {
    let (mut o, mut rx) = online();
    welcome(&mut o);
    table_msg(&mut o, &state("t1", "me"));
    o.news(News::Reconnecting("Connection lost — reconnecting…".into()));
    // The keys row leaves chat out offline: m says why, opens nothing.
    super::press(&mut o, "m");
    assert!(o.typing.is_none());
    assert_eq!(o.message, OFFLINE_CHAT);
    // A line typed before the drop is kept, not lost, until it can go.
    o.news(News::Welcome {
        name: "Me".into(),
        player_id: "me".into(),
        tables: Vec::new(),
    });
    super::press(&mut o, "mgood game");
    o.news(News::Reconnecting("Connection lost — reconnecting…".into()));
    super::press(&mut o, "\n");
    assert_eq!(o.typing.as_deref(), Some("good game"));
    assert_eq!(o.message, OFFLINE_CHAT);
    assert!(super::sent(&mut rx).is_empty());
    welcome(&mut o);
    super::press(&mut o, "\n");
    assert!(o.typing.is_none());
    assert_eq!(
        super::sent(&mut rx),
        [oxo_protocol::ClientMsg::Chat {
            table_id: "t1".into(),
            text: "good game".into()
        }]
    );
}
