//! A request to `/ws` that is not a WebSocket handshake gets a clear
//! answer, in JSON like every other refusal.

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::http::header::{SEC_WEBSOCKET_KEY, SEC_WEBSOCKET_VERSION};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// What `/ws` takes, for every refusal of a handshake.
const TAKES: &str = "/ws takes a GET with Connection: Upgrade, Upgrade: websocket, \
                     Sec-WebSocket-Version: 13 and a Sec-WebSocket-Key";

/// What axum's extractor lets through and RFC 6455 (4.2.1) does not: the
/// key and the version each sent once, the key a base64 nonce of 16 bytes.
/// The refusal (`400`, as for what axum refuses) of a handshake that
/// breaks them.
pub(super) fn bad_fields(headers: &HeaderMap) -> Option<Response> {
    let why = if headers.get_all(SEC_WEBSOCKET_KEY).iter().count() > 1 {
        "`Sec-WebSocket-Key` header sent more than once"
    } else if headers.get_all(SEC_WEBSOCKET_VERSION).iter().count() > 1 {
        "`Sec-WebSocket-Version` header sent more than once"
    } else if !headers
        .get(SEC_WEBSOCKET_KEY)
        .is_some_and(|k| is_nonce(k.as_bytes()))
    {
        "`Sec-WebSocket-Key` header is not 16 bytes in base64"
    } else {
        return None;
    };
    Some(refusal(StatusCode::BAD_REQUEST, why))
}

/// Whether `key` is 16 bytes in base64: 22 characters of the alphabet and
/// `==`.
fn is_nonce(key: &[u8]) -> bool {
    key.len() == 24
        && key.ends_with(b"==")
        && key[..22]
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || c == b'+' || c == b'/')
}

/// `status` with a JSON body saying `why` and what is accepted; when the
/// version is at fault, also the one spoken here, as RFC 6455 asks.
fn refusal(status: StatusCode, why: &str) -> Response {
    let error = format!("Not a WebSocket handshake ({why}): {TAKES}");
    let mut response = (status, axum::Json(oxo_protocol::ApiError { error })).into_response();
    if why.contains("Sec-WebSocket-Version") {
        response.headers_mut().insert(
            HeaderName::from_static("sec-websocket-version"),
            HeaderValue::from_static("13"),
        );
    }
    response
}

/// A request to `/ws` that is not a WebSocket handshake: its status, with
/// a JSON body saying what was wrong and what is accepted (and, for
/// another WebSocket version, the one spoken here, as RFC 6455 asks).
///
/// Only a GET or a HEAD gets here (other methods are the router's 405), so
/// a method that is not GET is a HEAD: it gets GET's answer to a request
/// that is not a handshake (400), as HTTP asks of HEAD, not a 405 that
/// would contradict the `Allow: GET,HEAD` the other methods are told.
pub(super) fn not_a_handshake(rejection: &WebSocketUpgradeRejection) -> Response {
    let status = match rejection {
        WebSocketUpgradeRejection::MethodNotGet(_) => StatusCode::BAD_REQUEST,
        _ => rejection.status(),
    };
    refusal(status, &rejection.body_text())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_a_nonce_of_16_bytes_in_base64() {
        assert!(is_nonce(b"dGhlIHNhbXBsZSBub25jZQ=="));
        assert!(
            !is_nonce(b"dGhlIHNhbXBsZSBub25jZQ"),
            "padding is part of it"
        );
        assert!(!is_nonce(b"dGhlIHNhbXBsZSBub25jZQ=x"));
        assert!(!is_nonce(b"dGhlIHNhbXBsZSBub25j*Q=="));
        assert!(!is_nonce(b"short"));
    }
}
