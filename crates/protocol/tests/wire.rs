//! The JSON shapes of the protocol, as docs/protocol.md documents them.

use oxo_core::{Player, Square};
use oxo_protocol::{ClientMsg, ErrorCode, Request, ServerMsg, TableOptions};
use serde_json::json;

fn req(v: serde_json::Value) -> Result<Request, serde_json::Error> {
    serde_json::from_value(v)
}

#[test]
fn requests_parse_with_and_without_id() {
    assert_eq!(
        req(json!({"type":"ping"})).unwrap(),
        Request {
            id: None,
            msg: ClientMsg::Ping
        }
    );
    assert_eq!(
        req(json!({"type":"move","id":3,"table_id":"t","cell":4})).unwrap(),
        Request {
            id: Some(3),
            msg: ClientMsg::Move {
                table_id: "t".into(),
                cell: Square::B2,
                game_id: None,
            }
        }
    );
    // An index is an index, a number or a string of one digit.
    for cell in [json!("4"), json!("B2"), json!("b2")] {
        let msg = req(json!({"type":"move","table_id":"t","cell":cell}))
            .unwrap()
            .msg;
        assert!(
            matches!(
                msg,
                ClientMsg::Move {
                    cell: Square::B2,
                    ..
                }
            ),
            "{cell}: {msg:?}"
        );
    }
    let hello = req(json!({"type":"hello","version":1})).unwrap();
    assert_eq!(
        hello.msg,
        ClientMsg::Hello {
            version: 1,
            token: None,
            name: None
        }
    );
    let create = req(json!({"type":"create_table","options":{"public":false,"bot":{"level":"perfect"},"seat":"O"}})).unwrap();
    match create.msg {
        ClientMsg::CreateTable { options } => {
            assert!(!options.public);
            assert_eq!(options.seat, Some(Player::O));
            assert_eq!(options.bot.map(|b| b.think_ms), Some(0));
        }
        other => panic!("{other:?}"),
    }
    let bare = req(json!({"type":"create_table"})).unwrap();
    assert_eq!(
        bare.msg,
        ClientMsg::CreateTable {
            options: TableOptions::default()
        }
    );
}

#[test]
fn bad_requests_are_errors_not_panics() {
    for bad in [
        json!({"type":"fly"}),
        json!({"type":"move","table_id":"t","cell":"d4"}),
        json!({"type":"move","table_id":"t","cell":9}),
        json!({"type":"move","table_id":"t","cell":"9"}),
        json!({"type":"move","table_id":"t","cell":-1}),
        json!({"type":"move","table_id":"t","cell":1e300}),
        json!({"type":"move","id":-5,"table_id":"t","cell":"a1"}),
        json!({"type":"move","id":"x","table_id":"t","cell":"a1"}),
        json!({"type":"move","table_id":7,"cell":"a1"}),
        json!({"no_type":1}),
        json!([1, 2]),
    ] {
        assert!(req(bad.clone()).is_err(), "{bad}");
    }
}

#[test]
fn server_messages_have_stable_shapes() {
    let err = ServerMsg::error(Some(9), ErrorCode::CellTaken, "b2 is already taken");
    assert_eq!(
        serde_json::to_value(&err).unwrap(),
        json!({"type":"error","id":9,"code":"cell_taken","message":"b2 is already taken"})
    );
    let ok = ServerMsg::ok(None, Some("t".into()));
    assert_eq!(
        serde_json::to_value(&ok).unwrap(),
        json!({"type":"ok","table_id":"t"})
    );
    for code in ErrorCode::ALL {
        assert_eq!(serde_json::to_value(code).unwrap(), json!(code.as_str()));
    }
}

#[test]
fn request_ids_above_two_to_the_53_are_unreadable() {
    let max = oxo_protocol::limits::MAX_REQUEST_ID;
    assert_eq!(req(json!({"type":"ping","id":max})).unwrap().id, Some(max));
    let err = req(json!({"type":"ping","id":max + 1}))
        .unwrap_err()
        .to_string();
    assert!(err.contains("too large"), "{err}");
    assert!(req(json!({"type":"ping","id":u64::MAX})).is_err());
    assert_eq!(
        oxo_protocol::peek_id(&json!({"id":max + 1}).to_string()),
        None
    );
}

/// The example table state in docs/protocol.md ("The table state") reads as
/// a [`oxo_protocol::TableState`] and agrees with itself, as a client author
/// who copies it would expect: a clock shown only with a per-move limit,
/// `move_number` the length of `moves`, and a board that is those moves.
#[test]
fn the_documented_table_state_example_is_a_consistent_state() {
    let doc = include_str!("../../../docs/protocol.md");
    let section = doc
        .split("## The table state")
        .nth(1)
        .expect("the doc has a table state section");
    let json = section
        .split("```json")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("the section opens with a JSON example");
    let state: oxo_protocol::TableState =
        serde_json::from_str(json).expect("the example is a table state");
    assert_eq!(
        state.time_left_ms.is_some(),
        state.options.move_time_ms.is_some(),
        "time_left_ms comes only with options.move_time_ms"
    );
    assert_eq!(state.move_number as usize, state.moves.len());
    let first = state.first.expect("a round in progress has a first mover");
    let mut board = ['.'; 9];
    let mut mover = first;
    for square in &state.moves {
        board[usize::from(*square as u8)] = if mover == Player::X { 'X' } else { 'O' };
        mover = !mover;
    }
    assert_eq!(state.board, board.iter().collect::<String>());
    assert_eq!(state.turn, Some(mover));
}
