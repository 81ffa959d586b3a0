//! Checks on what a request carries, each turned into the refusal a client
//! gets: chat text, display names and a new table's options.
//!
//! The rules themselves live with their limits: names in `accounts`,
//! table options in the protocol crate ([`TableOptions::validate`]), chat
//! length here (the protocol's [`MAX_CHAT_CHARS`]).

use std::sync::Arc;

use oxo_protocol::limits::MAX_CHAT_CHARS;
use oxo_protocol::{ErrorCode, TableOptions};

use crate::accounts::validate_name;
use crate::config::RateLimit;
use crate::error::ClientError;

/// A chat message cleaned (control characters become spaces, then trimmed)
/// and checked for length.
pub(super) fn chat(text: &str) -> Result<String, ClientError> {
    let cleaned: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let cleaned = cleaned.trim();
    let chars = cleaned.chars().count();
    if chars == 0 {
        return Err(ClientError::new(
            ErrorCode::ChatTooLong,
            "The chat message is empty",
        ));
    }
    if chars > MAX_CHAT_CHARS {
        return Err(ClientError::new(
            ErrorCode::ChatTooLong,
            format!(
                "The chat message has {chars} characters; at most {MAX_CHAT_CHARS} are allowed"
            ),
        ));
    }
    Ok(cleaned.to_owned())
}

/// The refusal of a chat message over the chat rate `limit`.
pub(super) fn chat_rate(limit: RateLimit) -> ClientError {
    ClientError::new(
        ErrorCode::RateLimited,
        format!(
            "Too many chat messages: {} in a row, then one every {:.1} s",
            limit.burst,
            1.0 / limit.per_second
        ),
    )
}

/// A display name, checked (see [`validate_name`]).
pub(super) fn name(name: &str) -> Result<Arc<str>, ClientError> {
    validate_name(name).map_err(|m| ClientError::new(ErrorCode::InvalidName, m))
}

/// A new table's options, checked against the protocol's limits.
pub(super) fn options(options: &TableOptions) -> Result<(), ClientError> {
    options
        .validate()
        .map_err(|e| ClientError::bad_request(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_is_cleaned_and_bounded() {
        assert_eq!(chat(" hi\tthere\n").ok().as_deref(), Some("hi there"));
        assert_eq!(
            chat("\u{7}").map_err(|e| e.code),
            Err(ErrorCode::ChatTooLong)
        );
        let long = "x".repeat(MAX_CHAT_CHARS + 1);
        assert_eq!(chat(&long).map_err(|e| e.code), Err(ErrorCode::ChatTooLong));
    }

    #[test]
    fn bad_options_are_bad_requests() {
        let options = TableOptions {
            move_time_ms: Some(1),
            ..TableOptions::default()
        };
        let e = super::options(&options).expect_err("too short");
        assert_eq!(e.code, ErrorCode::BadRequest);
        assert!(
            e.message.starts_with("options.move_time_ms must be from"),
            "{e}"
        );
    }
}
