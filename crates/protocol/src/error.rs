//! Refusal codes.

use core::fmt;

use serde::{Deserialize, Serialize};

/// Why the server refused a request: a stable code (snake case on the wire)
/// that clients can act on, always sent with a human-readable message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The message is not valid JSON, has an unknown type, a missing or
    /// mistyped field, or an out-of-range value; the message says which.
    BadRequest,
    /// The first message was not `hello`.
    HelloRequired,
    /// `hello` was sent twice on one connection.
    AlreadyHello,
    /// The client's protocol version is not supported.
    UnsupportedVersion,
    /// The session token is unknown (or malformed).
    InvalidToken,
    /// The display name is empty, too long or has unprintable characters.
    InvalidName,
    /// It is the other player's turn.
    NotYourTurn,
    /// The cell already holds a mark.
    CellTaken,
    /// The round is over (no moves or forfeits until a rematch).
    GameOver,
    /// The round is still being played (a rematch needs a finished round).
    GameInProgress,
    /// The table is waiting for a second player.
    NotStarted,
    /// The request needs a seat at this table, and the client has none.
    NotSeated,
    /// The client is already seated at this table.
    AlreadySeated,
    /// No table has this id (or it is closed).
    NoSuchTable,
    /// Both seats (or the asked-for seat) are taken.
    TableFull,
    /// The client is at too many tables already.
    TooManyTables,
    /// The chat message is empty or too long.
    ChatTooLong,
    /// Too many messages too fast; slow down.
    RateLimited,
    /// The server has too many connections.
    ServerFull,
    /// The server is shutting down.
    ShuttingDown,
    /// Something went wrong on the server; the request was not applied.
    Internal,
    /// The table is moving to another node of a cluster (its node stopped
    /// or lost it); the request was not applied. Retry it after a moment:
    /// `sync`, or the `table` event that follows, shows the state.
    TableMoving,
}

impl ErrorCode {
    /// The code as it appears on the wire, e.g. `not_your_turn`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "bad_request",
            ErrorCode::HelloRequired => "hello_required",
            ErrorCode::AlreadyHello => "already_hello",
            ErrorCode::UnsupportedVersion => "unsupported_version",
            ErrorCode::InvalidToken => "invalid_token",
            ErrorCode::InvalidName => "invalid_name",
            ErrorCode::NotYourTurn => "not_your_turn",
            ErrorCode::CellTaken => "cell_taken",
            ErrorCode::GameOver => "game_over",
            ErrorCode::GameInProgress => "game_in_progress",
            ErrorCode::NotStarted => "not_started",
            ErrorCode::NotSeated => "not_seated",
            ErrorCode::AlreadySeated => "already_seated",
            ErrorCode::NoSuchTable => "no_such_table",
            ErrorCode::TableFull => "table_full",
            ErrorCode::TooManyTables => "too_many_tables",
            ErrorCode::ChatTooLong => "chat_too_long",
            ErrorCode::RateLimited => "rate_limited",
            ErrorCode::ServerFull => "server_full",
            ErrorCode::ShuttingDown => "shutting_down",
            ErrorCode::Internal => "internal",
            ErrorCode::TableMoving => "table_moving",
        }
    }

    /// Every code, for documentation and metrics.
    pub const ALL: [ErrorCode; 22] = [
        ErrorCode::BadRequest,
        ErrorCode::HelloRequired,
        ErrorCode::AlreadyHello,
        ErrorCode::UnsupportedVersion,
        ErrorCode::InvalidToken,
        ErrorCode::InvalidName,
        ErrorCode::NotYourTurn,
        ErrorCode::CellTaken,
        ErrorCode::GameOver,
        ErrorCode::GameInProgress,
        ErrorCode::NotStarted,
        ErrorCode::NotSeated,
        ErrorCode::AlreadySeated,
        ErrorCode::NoSuchTable,
        ErrorCode::TableFull,
        ErrorCode::TooManyTables,
        ErrorCode::ChatTooLong,
        ErrorCode::RateLimited,
        ErrorCode::ServerFull,
        ErrorCode::ShuttingDown,
        ErrorCode::Internal,
        ErrorCode::TableMoving,
    ];
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
