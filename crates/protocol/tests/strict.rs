//! What `parse_request` refuses that serde's derived readers would take:
//! a `type` that is not a string (serde reads a number as the index of a
//! message kind) and an object given as an array of its fields in order.

use oxo_protocol::{ClientMsg, parse_request};

fn refused(text: &str) -> String {
    match parse_request(text) {
        Ok(req) => panic!("{text} was read as {req:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn the_type_must_be_a_string() {
    for text in [
        r#"{"type":0,"version":1}"#,
        r#"{"version":1,"type":0}"#,
        r#"{"type":17}"#,
        r#"{"type":true}"#,
        r#"{"type":null,"id":1}"#,
        r#"{"type":["ping"]}"#,
        r#"{"type":{"name":"ping"}}"#,
    ] {
        let e = refused(text);
        assert!(e.contains("type") && e.contains("string"), "{text}: {e}");
    }
    let e = refused(r#"{"version":1}"#);
    assert!(e.contains("type"), "{e}");
    let e = refused(r#"{"type":"ping","type":"hello"}"#);
    assert!(e.contains("duplicate field `type`"), "{e}");
}

#[test]
fn objects_must_be_objects() {
    for text in [
        r#"{"type":"create_table","options":[false,"o"]}"#,
        r#"{"type":"create_table","options":{"bot":["easy",0]}}"#,
    ] {
        let e = refused(text);
        assert!(e.contains("object"), "{text}: {e}");
    }
}

#[test]
fn what_the_protocol_shows_is_read() {
    let ok = |text: &str| parse_request(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    assert!(matches!(
        ok(r#"{"type":"hello","version":1,"id":3}"#).msg,
        ClientMsg::Hello { version: 1, .. }
    ));
    let create = ok(
        r#"{"type":"create_table","options":{"public":false,"bot":{"level":"perfect","think_ms":0}}}"#,
    );
    let ClientMsg::CreateTable { options } = create.msg else {
        panic!("{create:?}");
    };
    assert!(options.bot.is_some() && !options.public);
    for text in [
        r#"{"type":"create_table"}"#,
        r#"{"type":"create_table","options":{}}"#,
        r#"{"type":"create_table","options":{"bot":null}}"#,
        r#"{"type":"move","table_id":"t1","cell":4}"#,
        r#"{"type":"move","table_id":"t1","cell":"b2","game_id":null}"#,
        r#"{"type":"ping"}"#,
        r#"{"type":"ping","extra":[1,{"type":2}]}"#,
    ] {
        ok(text);
    }
}

#[test]
fn a_null_option_is_an_absent_one() {
    use oxo_protocol::TableOptions;
    let options = |text: &str| match parse_request(text) {
        Ok(req) => match req.msg {
            ClientMsg::CreateTable { options } => options,
            other => panic!("{text}: {other:?}"),
        },
        Err(e) => panic!("{text}: {e}"),
    };
    for text in [
        r#"{"type":"create_table","options":null}"#,
        r#"{"type":"create_table","options":{"public":null,"starter":null,"pass_and_play":null,"move_time_ms":null,"bot":null,"seat":null}}"#,
    ] {
        assert_eq!(options(text), TableOptions::default(), "{text}");
    }
    let bot =
        options(r#"{"type":"create_table","options":{"bot":{"level":"easy","think_ms":null}}}"#)
            .bot
            .expect("a bot");
    assert_eq!(bot.think_ms, 0);
    let bot = options(r#"{"type":"create_table","options":{"bot":{"level":"easy"}}}"#)
        .bot
        .expect("a bot");
    assert_eq!(
        bot.think_ms, 0,
        "think_ms defaults to 0, as docs/protocol.md says"
    );
}

#[test]
fn an_empty_message_is_told_what_a_message_is() {
    for text in ["", " ", "\n\t "] {
        let e = refused(text);
        assert!(
            e.contains("empty") && e.contains("JSON object"),
            "{text:?}: {e}"
        );
    }
}
