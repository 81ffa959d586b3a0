//! How values are spelled in the database's text columns: one codec for
//! all of them, so that what is written and what is read back cannot drift.
//!
//! Names (a status, a player, a cell, a bot level) are stored as serde
//! spells them, which is also how the protocol spells them: `in_progress`,
//! `X`, `b2`, `perfect`. Structured values (a table's options, a game's
//! outcome) are stored as their JSON. Text that does not read back is
//! [`ServerError::Corrupt`], naming what it should have been.

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::error::ServerError;

/// A value stored as a bare name (see the module doc).
pub(crate) trait Name: Serialize + DeserializeOwned {}

impl Name for oxo_core::Player {}
impl Name for oxo_core::Square {}
impl Name for oxo_core::BotLevel {}
impl Name for oxo_protocol::TableStatus {}

/// The stored name of `value`.
pub(crate) fn name<T: Name>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        other => unreachable!("a stored name serializes as a string, not {other:?}"),
    }
}

/// The value named `text`; `what` names the column in the error.
///
/// # Errors
///
/// [`ServerError::Corrupt`]: `<what> "<text>"`.
pub(crate) fn parse<T: Name>(what: &str, text: &str) -> Result<T, ServerError> {
    serde_json::from_value(serde_json::Value::String(text.to_owned()))
        .map_err(|_| ServerError::Corrupt(format!("{what} {text:?}")))
}

/// A stored token hash: exactly 32 bytes.
///
/// # Errors
///
/// [`ServerError::Corrupt`] for any other length.
pub(crate) fn token_hash_of(blob: &[u8]) -> Result<crate::ids::TokenHash, ServerError> {
    crate::ids::TokenHash::try_from(blob)
        .map_err(|_| ServerError::Corrupt("token hash is not 32 bytes".into()))
}

/// The stored JSON of a structured value.
///
/// # Errors
///
/// The serializer's (the write fails).
pub(crate) fn json<T: Serialize>(value: &T) -> Result<String, serde_json::Error> {
    serde_json::to_string(value)
}

/// The value stored as `text` (JSON); `what` names it in the error.
///
/// # Errors
///
/// [`ServerError::Corrupt`]: `<what>: <why>`.
pub(crate) fn from_json<T: DeserializeOwned>(what: &str, text: &str) -> Result<T, ServerError> {
    serde_json::from_str(text).map_err(|e| ServerError::Corrupt(format!("{what}: {e}")))
}

#[cfg(test)]
mod tests {
    use oxo_core::{BotLevel, Player, Square};
    use oxo_protocol::TableStatus;

    use super::*;

    fn round_trips<T: Name + PartialEq + std::fmt::Debug>(value: T, text: &str) {
        assert_eq!(name(&value), text);
        assert_eq!(parse::<T>("it", text).ok(), Some(value));
    }

    #[test]
    fn names_are_what_earlier_versions_wrote() {
        // These spellings are in databases already: never change them.
        round_trips(TableStatus::Waiting, "waiting");
        round_trips(TableStatus::InProgress, "in_progress");
        round_trips(TableStatus::RoundOver, "round_over");
        round_trips(TableStatus::Closed, "closed");
        round_trips(Player::X, "X");
        round_trips(Player::O, "O");
        round_trips(Square::B2, "b2");
        for level in BotLevel::ALL {
            round_trips(level, level.as_str());
        }
        let err = parse::<TableStatus>("table status", "bogus").expect_err("no status");
        assert_eq!(
            err.to_string(),
            "corrupt stored data: table status \"bogus\""
        );
    }
}
