//! The decoder on arbitrary input: never a panic, and whatever decodes
//! encodes to JSON that decodes to the same message. (The `protocol_decode`
//! fuzz target in `fuzz/` explores the same property coverage-guided.)

use oxo_protocol::{Request, ServerMsg};
use proptest::prelude::*;

fn check(bytes: &[u8]) -> Result<(), TestCaseError> {
    let request = serde_json::from_slice::<Request>(bytes);
    if let Ok(text) = std::str::from_utf8(bytes) {
        prop_assert_eq!(
            serde_json::from_str::<Request>(text).is_ok(),
            request.is_ok()
        );
    }
    if let Ok(req) = request {
        let json = serde_json::to_string(&req).expect("a request encodes");
        prop_assert_eq!(serde_json::from_str::<Request>(&json).ok(), Some(req));
    }
    if let Ok(msg) = serde_json::from_slice::<ServerMsg>(bytes) {
        let json = serde_json::to_string(&msg).expect("a message encodes");
        prop_assert_eq!(serde_json::from_str::<ServerMsg>(&json).ok(), Some(msg));
    }
    Ok(())
}

/// Request-shaped JSON: a known type and fields with odd values.
fn requestish() -> impl Strategy<Value = String> {
    let kind = prop_oneof![
        Just("hello"),
        Just("move"),
        Just("create_table"),
        Just("join_table"),
        Just("chat"),
        Just("ping"),
        Just("welcome"),
        Just("table"),
        Just("error"),
    ];
    let field = prop_oneof![
        Just("id"),
        Just("version"),
        Just("token"),
        Just("table_id"),
        Just("cell"),
        Just("seat"),
        Just("options"),
        Just("text"),
        Just("code"),
        Just("message"),
    ];
    let value = prop_oneof![
        Just("null".to_owned()),
        any::<i64>().prop_map(|n| n.to_string()),
        any::<u64>().prop_map(|n| n.to_string()),
        any::<f64>().prop_map(|n| format!("{n:e}")),
        "[a-cA-C1-9xXoO_]{0,6}".prop_map(|s| format!("{s:?}")),
        Just(r#"{"move_time_ms":1000,"bot":{"level":"easy"}}"#.to_owned()),
        Just("[]".to_owned()),
        Just(r#"{"x":"a"}"#.to_owned()),
    ];
    (kind, prop::collection::vec((field, value), 0..5)).prop_map(|(kind, fields)| {
        let mut s = format!(r#"{{"type":"{kind}""#);
        for (f, v) in fields {
            s.push_str(&format!(r#","{f}":{v}"#));
        }
        s.push('}');
        s
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2_000))]

    #[test]
    fn arbitrary_bytes_decode_or_fail_cleanly(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        check(&bytes)?;
    }

    #[test]
    fn arbitrary_strings_decode_or_fail_cleanly(s in any::<String>()) {
        check(s.as_bytes())?;
    }

    #[test]
    fn request_shaped_json_decodes_or_fails_cleanly(s in requestish()) {
        check(s.as_bytes())?;
    }
}
