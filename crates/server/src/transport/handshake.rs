//! A request to `/ws` that is not a WebSocket handshake gets a clear
//! answer, in JSON like every other refusal.

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

/// A request to `/ws` that is not a WebSocket handshake: its status, with
/// a JSON body saying what was wrong and what is accepted (and, for
/// another WebSocket version, the one spoken here, as RFC 6455 asks).
///
/// Only a GET or a HEAD gets here (other methods are the router's 405), so
/// a method that is not GET is a HEAD: it gets GET's answer to a request
/// that is not a handshake (400), as HTTP asks of HEAD, not a 405 that
/// would contradict the `Allow: GET,HEAD` the other methods are told.
pub(super) fn not_a_handshake(rejection: &WebSocketUpgradeRejection) -> Response {
    let error = format!(
        "Not a WebSocket handshake ({}): /ws takes a GET with Connection: Upgrade, \
         Upgrade: websocket, Sec-WebSocket-Version: 13 and a Sec-WebSocket-Key",
        rejection.body_text()
    );
    let status = match rejection {
        WebSocketUpgradeRejection::MethodNotGet(_) => StatusCode::BAD_REQUEST,
        _ => rejection.status(),
    };
    let mut response = (status, axum::Json(oxo_protocol::ApiError { error })).into_response();
    if matches!(
        rejection,
        WebSocketUpgradeRejection::InvalidWebSocketVersionHeader(_)
    ) {
        response.headers_mut().insert(
            HeaderName::from_static("sec-websocket-version"),
            HeaderValue::from_static("13"),
        );
    }
    response
}
