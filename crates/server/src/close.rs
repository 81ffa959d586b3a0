//! WebSocket close codes: every code the server closes a connection with,
//! named once (RFC 6455, 7.4.1), for the transport, the connection's
//! limits, the in-process client and the `/metrics` labels alike.
//!
//! This file owns the numbers and the one rule that maps a read error to a
//! code; deciding *when* to close is the caller's.

/// A normal close (the reply to a client's close).
pub(crate) const NORMAL: u16 = 1000;
/// Server shutting down, or idle timeout.
pub(crate) const GOING_AWAY: u16 = 1001;
/// A frame that breaks the WebSocket protocol.
pub(crate) const PROTOCOL: u16 = 1002;
/// A binary frame.
pub(crate) const UNSUPPORTED: u16 = 1003;
/// A text frame that is not UTF-8.
pub(crate) const INVALID_DATA: u16 = 1007;
/// Flooding, no `hello`, or too slow to read.
pub(crate) const POLICY: u16 = 1008;
/// A frame over the size limit.
pub(crate) const TOO_BIG: u16 = 1009;
/// Try again later: the server is full, or (cluster) a table is reloading.
pub(crate) const TRY_AGAIN: u16 = 1013;

/// The reason closed with [`INVALID_DATA`]. The WebSocket layer reports a
/// text frame and a close frame's reason that are not UTF-8 alike, so the
/// reason names both.
pub(crate) const NOT_UTF8: &str = "text frames and close reasons must be valid UTF-8";

/// The reason closed with [`TOO_BIG`], whichever check found the message
/// over `max` bytes (the server's own, or the WebSocket layer's).
pub(crate) fn too_big(max: usize) -> String {
    format!("message too big: at most {max} bytes")
}

/// The close code for a frame the WebSocket layer refused to read:
/// 1007 for a text frame that is not UTF-8, 1009 for one over the
/// transport's limit, 1002 for anything else; `None` when the client
/// simply went away (the TCP connection ended or was reset without a
/// close frame), where there is nobody left to send a close frame to.
/// axum hides tungstenite's error type, so this goes by its message
/// (the hostile-client tests pin the codes down).
pub(crate) fn for_read_error(e: &axum::Error) -> Option<u16> {
    let text = e.to_string();
    if text.contains("without closing handshake") || text.starts_with("IO error") {
        None
    } else if text.contains("UTF-8") {
        Some(INVALID_DATA)
    } else if text.contains("Message too long") || text.contains("Space limit exceeded") {
        Some(TOO_BIG)
    } else {
        Some(PROTOCOL)
    }
}
