//! Checks on what a request carries, each turned into the refusal a client
//! gets: chat text, display names and a new table's options.
//!
//! The rules themselves live elsewhere: names and chat in `text`, table
//! options in the protocol crate ([`TableOptions::validate`]).

use std::sync::Arc;

use oxo_protocol::{ErrorCode, TableOptions};

use crate::config::RateLimit;
use crate::error::ClientError;
use crate::text::{clean_chat, validate_name};

/// A chat message cleaned and checked for length (see [`clean_chat`]).
pub(super) fn chat(text: &str) -> Result<String, ClientError> {
    clean_chat(text).map_err(|m| ClientError::new(ErrorCode::ChatTooLong, m))
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
