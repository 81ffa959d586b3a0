//! The protocol decoder on arbitrary bytes: decoding a client request (as
//! the server does for every text frame, with `parse_request`) or a server
//! message (as clients do) never panics, and whatever decodes re-encodes
//! to JSON that decodes to the same message; what `parse_request` reads,
//! serde's derived reader reads the same.

#![no_main]

use libfuzzer_sys::fuzz_target;
use oxo_protocol::{Request, ServerMsg, parse_request};

fuzz_target!(|data: &[u8]| {
    let request = serde_json::from_slice::<Request>(data);
    // The server decodes text frames, which are UTF-8, with `from_str`: it
    // must agree with `from_slice`.
    if let Ok(text) = std::str::from_utf8(data) {
        let from_str = serde_json::from_str::<Request>(text);
        assert_eq!(from_str.is_ok(), request.is_ok(), "{text:?}");
        if let Ok(strict) = parse_request(text) {
            assert_eq!(from_str.ok(), Some(strict), "{text:?}");
        }
    }
    if let Ok(req) = request {
        let json = serde_json::to_string(&req).expect("a request encodes");
        let back: Request = parse_request(&json).expect("an encoded request decodes");
        assert_eq!(back, req, "{json}");
    }
    if let Ok(msg) = serde_json::from_slice::<ServerMsg>(data) {
        let json = serde_json::to_string(&msg).expect("a server message encodes");
        let back: ServerMsg =
            serde_json::from_str(&json).expect("an encoded server message decodes");
        assert_eq!(back, msg, "{json}");
    }
});
