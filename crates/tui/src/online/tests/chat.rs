//! The chat lines a table screen shows: live messages, and the table's
//! history replacing them when it comes.

use oxo_protocol::{ChatLine, PlayerId, ServerMsg};

use super::{News, online, state, table_msg, welcome};

fn chat(table: &str, from: &str, text: &str) -> News {
    News::Message(Box::new(ServerMsg::Chat {
        table_id: table.into(),
        from_id: PlayerId::from("p2"),
        from_name: from.into(),
        text: text.into(),
    }))
}

fn history(table: &str, texts: &[&str]) -> News {
    let messages = texts
        .iter()
        .map(|text| ChatLine {
            from_id: PlayerId::from("p2"),
            from_name: "Bob".into(),
            text: (*text).into(),
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
    o.news(history("t1", &["1", "2", "3", "4", "5", "hi"]));
    assert_eq!(o.chat, ["Bob: 3", "Bob: 4", "Bob: 5", "Bob: hi"]);
    o.news(chat("t1", "Bob", "gg"));
    assert_eq!(o.chat, ["Bob: 4", "Bob: 5", "Bob: hi", "Bob: gg"]);
}
