//! Messages from a client to the server.

use oxo_core::{Player, Square};
use serde::{Deserialize, Deserializer, Serialize};

use crate::limits::MAX_REQUEST_ID;
use crate::whole::Whole;
use crate::{GameId, TableId, TableOptions};

/// One request from a client: the message and the client's optional request
/// id, which the server's reply carries back. A retried `move` with the same
/// id is never applied twice.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Request {
    /// The client's own id for this request, echoed in the reply: an
    /// integer from 0 to [`MAX_REQUEST_ID`] (2^53 − 1); a larger one makes
    /// the request unreadable (`bad_request`).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "request_id"
    )]
    #[cfg_attr(feature = "schema", schemars(range(max = MAX_REQUEST_ID)))]
    pub id: Option<u64>,
    /// The request.
    #[serde(flatten)]
    pub msg: ClientMsg,
}

/// Reads a request id, refusing those above [`MAX_REQUEST_ID`] and
/// saying that range (not a `u64`'s) to one that is not a whole number.
fn request_id<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let whole = Whole {
        field: "id",
        unit: "",
        min: 0,
        max: MAX_REQUEST_ID,
        limit: MAX_REQUEST_ID,
    };
    whole.read(d)
}

/// The `id` of a message that may not parse as a [`Request`] (an unknown
/// `type`, a missing field), so that its refusal can still carry it.
/// `None` when there is no readable id in range.
///
/// ```
/// assert_eq!(oxo_protocol::peek_id(r#"{"type":"fly","id":7}"#), Some(7));
/// assert_eq!(oxo_protocol::peek_id(r#"{"id":9007199254740992}"#), None);
/// assert_eq!(oxo_protocol::peek_id("not json"), None);
/// ```
#[must_use]
pub fn peek_id(text: &str) -> Option<u64> {
    #[derive(Deserialize)]
    struct PeekId {
        #[serde(default)]
        id: Option<u64>,
    }
    serde_json::from_str::<PeekId>(text)
        .ok()
        .and_then(|p| p.id)
        .filter(|&id| id <= MAX_REQUEST_ID)
}

/// What a client asks of the server. Tagged by `"type"` in snake case.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ClientMsg {
    /// Must be the first message: the protocol version, and the token from an
    /// earlier `welcome` to come back as the same player.
    Hello {
        /// The protocol version the client speaks ([`crate::PROTOCOL_VERSION`]).
        /// Any whole number is read, so that a server can answer every
        /// version it does not speak with `unsupported_version`.
        version: i64,
        /// The secret session token from an earlier `welcome`, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        token: Option<String>,
        /// The display name to use (validated; defaults to "Player").
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// Changes the display name.
    SetName {
        /// The new display name.
        name: String,
    },
    /// Creates a table and seats the creator.
    CreateTable {
        /// The table's options.
        #[serde(default, deserialize_with = "crate::strict::object_or_null")]
        options: TableOptions,
    },
    /// Takes a seat at a table (`seat` picks X or O; any free seat if absent).
    JoinTable {
        /// The table.
        table_id: TableId,
        /// The seat wanted.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seat: Option<Player>,
    },
    /// Watches a table as a spectator.
    WatchTable {
        /// The table.
        table_id: TableId,
    },
    /// Leaves a table (a seated player in a game in progress forfeits).
    LeaveTable {
        /// The table.
        table_id: TableId,
    },
    /// The client stops showing the table (e.g. its player went back to
    /// the home page) but keeps its seat: this connection no longer counts
    /// as the player being there. A seated player with no other connection
    /// at the table is shown away, and during a round the reconnect grace
    /// runs; a spectator stops watching. `join_table` (or any request
    /// about the table) comes back.
    StepAway {
        /// The table.
        table_id: TableId,
    },
    /// Plays a cell (`"b2"` or an index 0..8).
    Move {
        /// The table.
        table_id: TableId,
        /// The cell.
        cell: Square,
        /// The game (round) the move is meant for, from the table state's
        /// `game_id`. When given, the move is never applied to another
        /// round: a move that arrives after its round ended is refused
        /// (`game_over`) instead of landing in the next one.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        game_id: Option<GameId>,
    },
    /// Resigns the current round.
    Forfeit {
        /// The table.
        table_id: TableId,
    },
    /// Asks for the next round; it starts when both players have asked.
    Rematch {
        /// The table.
        table_id: TableId,
    },
    /// Sends a chat message to everyone at the table.
    Chat {
        /// The table.
        table_id: TableId,
        /// The message.
        text: String,
    },
    /// Asks for the table's recent chat (sent as a `chat_history`
    /// message): what a client shows on opening a table, after a reload or
    /// a reconnect.
    ChatHistory {
        /// The table.
        table_id: TableId,
    },
    /// Asks for the table's current state (sent as a `table` message).
    Sync {
        /// The table.
        table_id: TableId,
    },
    /// Subscribes to the lobby: a `lobby` message now and after every change.
    WatchLobby,
    /// Stops the lobby subscription.
    UnwatchLobby,
    /// Asks for a `pong`.
    Ping,
}

impl ClientMsg {
    /// The `type` name of this message.
    #[must_use]
    pub const fn kind(&self) -> &'static str {
        match self {
            ClientMsg::Hello { .. } => "hello",
            ClientMsg::SetName { .. } => "set_name",
            ClientMsg::CreateTable { .. } => "create_table",
            ClientMsg::JoinTable { .. } => "join_table",
            ClientMsg::WatchTable { .. } => "watch_table",
            ClientMsg::LeaveTable { .. } => "leave_table",
            ClientMsg::StepAway { .. } => "step_away",
            ClientMsg::Move { .. } => "move",
            ClientMsg::Forfeit { .. } => "forfeit",
            ClientMsg::Rematch { .. } => "rematch",
            ClientMsg::Chat { .. } => "chat",
            ClientMsg::ChatHistory { .. } => "chat_history",
            ClientMsg::Sync { .. } => "sync",
            ClientMsg::WatchLobby => "watch_lobby",
            ClientMsg::UnwatchLobby => "unwatch_lobby",
            ClientMsg::Ping => "ping",
        }
    }

    /// The table this message is about, if any.
    #[must_use]
    pub fn table_id(&self) -> Option<&TableId> {
        match self {
            ClientMsg::JoinTable { table_id, .. }
            | ClientMsg::WatchTable { table_id }
            | ClientMsg::LeaveTable { table_id }
            | ClientMsg::StepAway { table_id }
            | ClientMsg::Move { table_id, .. }
            | ClientMsg::Forfeit { table_id }
            | ClientMsg::Rematch { table_id }
            | ClientMsg::Chat { table_id, .. }
            | ClientMsg::ChatHistory { table_id }
            | ClientMsg::Sync { table_id } => Some(table_id),
            _ => None,
        }
    }
}
