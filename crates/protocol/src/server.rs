//! Messages from the server to clients.

use serde::{Deserialize, Serialize};

use crate::{ErrorCode, GameId, LobbyTable, PlayerId, TableId, TableState};

/// What the server sends. Tagged by `"type"` in snake case.
///
/// Every request gets exactly one reply, `ok` or `error`, carrying the
/// request's `id`. Events (`table`, `chat`, `lobby`) come whenever something
/// changes; the `table` event caused by a request reaches its sender before
/// the request's `ok`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ServerMsg {
    /// The reply to `hello`.
    Welcome {
        /// The request id of the `hello`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
        /// The protocol version the server speaks.
        version: u32,
        /// The secret session token: present it in a later `hello` to come
        /// back as the same player. Never shown to anyone else.
        token: String,
        /// The player's public id, as it appears in table states.
        player_id: PlayerId,
        /// The display name in use.
        name: String,
        /// Tables where this player holds a seat (to resume after a reconnect).
        tables: Vec<TableId>,
    },
    /// A request was accepted.
    Ok {
        /// The request id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
        /// The table concerned (e.g. the id of a table just created).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        table_id: Option<TableId>,
        /// For a `move`: the game (round) the move was recorded in.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        game_id: Option<GameId>,
        /// For a `move`: its number in that game (1 for the first move).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        ply: Option<u32>,
    },
    /// A request was refused; nothing changed.
    Error {
        /// The request id, if the request could be read that far.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
        /// The stable code.
        code: ErrorCode,
        /// What was wrong, for people (e.g. "b2 is already taken").
        message: String,
    },
    /// A table's new state, after any change.
    Table {
        /// The state.
        table: TableState,
    },
    /// A chat message at a table.
    Chat {
        /// The table.
        table_id: TableId,
        /// The sender's public id.
        from_id: PlayerId,
        /// The sender's display name.
        from_name: String,
        /// The message.
        text: String,
        /// The sender held no seat at the table when they wrote it (a
        /// spectator). Absent: `false`.
        #[serde(default, skip_serializing_if = "core::ops::Not::not")]
        watching: bool,
    },
    /// The reply to `chat_history`: the table's latest chat messages,
    /// oldest first (at most [`limits::CHAT_HISTORY_MESSAGES`] and
    /// [`limits::CHAT_HISTORY_CHARS`] characters of text).
    ///
    /// [`limits::CHAT_HISTORY_MESSAGES`]: crate::limits::CHAT_HISTORY_MESSAGES
    /// [`limits::CHAT_HISTORY_CHARS`]: crate::limits::CHAT_HISTORY_CHARS
    ChatHistory {
        /// The table.
        table_id: TableId,
        /// The messages, oldest first.
        messages: Vec<ChatLine>,
    },
    /// The public tables that are waiting for a player or being played.
    Lobby {
        /// The tables.
        tables: Vec<LobbyTable>,
    },
    /// The reply to `ping`.
    Pong {
        /// The request id.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<u64>,
    },
    /// The server is going away (shutdown); reconnect later with your token.
    Closing {
        /// Why.
        reason: String,
    },
}

/// One chat message of a table's history (as in a `chat` event, without
/// the table).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ChatLine {
    /// The sender's public id.
    pub from_id: PlayerId,
    /// The sender's display name when they wrote it.
    pub from_name: String,
    /// The message.
    pub text: String,
    /// The sender held no seat at the table when they wrote it (a
    /// spectator). Absent: `false`.
    #[serde(default, skip_serializing_if = "core::ops::Not::not")]
    pub watching: bool,
}

impl ServerMsg {
    /// An `ok` reply, naming the table concerned if any.
    #[must_use]
    pub fn ok(id: Option<u64>, table_id: Option<TableId>) -> ServerMsg {
        ServerMsg::Ok {
            id,
            table_id,
            game_id: None,
            ply: None,
        }
    }

    /// An `error` reply.
    #[must_use]
    pub fn error(id: Option<u64>, code: ErrorCode, message: impl Into<String>) -> ServerMsg {
        ServerMsg::Error {
            id,
            code,
            message: message.into(),
        }
    }
}
