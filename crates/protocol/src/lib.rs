//! oxo-protocol: the messages of oxo's WebSocket protocol and HTTP API.
//!
//! Requests go from a client to the server as [`ClientMsg`] inside a
//! [`Request`] (which adds the client's optional request `id`); everything the
//! server sends is a [`ServerMsg`]. Each is one JSON object per WebSocket text
//! frame, tagged by its `"type"` field. `docs/protocol.md` is the prose
//! contract; this crate is its executable form, shared by the server, the load
//! tool and any Rust client.
//!
//! # Examples
//!
//! ```
//! use oxo_core::Square;
//! use oxo_protocol::{ClientMsg, Request};
//!
//! let req: Request = serde_json::from_str(
//!     r#"{"type":"move","id":7,"table_id":"t1","cell":"b2"}"#,
//! )?;
//! assert_eq!(req.id, Some(7));
//! assert_eq!(req.msg, ClientMsg::Move { table_id: "t1".into(), cell: Square::B2, game_id: None });
//! # Ok::<_, serde_json::Error>(())
//! ```

mod api;
mod client;
mod error;
mod ids;
mod options;
mod reserved;
mod server;
mod strict;
mod table;
mod text;
mod whole;

pub use api::{
    AnalyzeResponse, ApiError, DecidingMove, FinalPosition, GameExplanation, GameRecord,
    GameSummary, LogSlice, MoveAnalysis, PlyExplanation, RecordPlayer, RecordedMove, SolvedValue,
    ValueKind, Verdict,
};
pub use client::{ClientMsg, Request, peek_id};
pub use error::ErrorCode;
pub use ids::{GameId, PlayerId, TableId};
pub use options::OptionsError;
pub use reserved::check_online_name;
pub use server::{ChatLine, ServerMsg};
pub use strict::parse_request;
pub use table::{BotSeat, LobbyTable, PlayerInfo, TableOptions, TableState, TableStatus};
pub use text::{MAX_MARKS, NameError, check_name, is_hidden, is_mark, shows};

pub use oxo_core::{Scores, Starter};

/// The protocol version this crate speaks; clients send it in `hello`.
pub const PROTOCOL_VERSION: u32 = 1;

/// Limits every client must respect (the server enforces them).
pub mod limits {
    /// Largest WebSocket frame the server accepts, in bytes.
    pub const MAX_FRAME_BYTES: usize = 4096;
    /// Largest frame the server sends, in bytes: clients must accept frames
    /// up to this size. Most are far smaller; the largest are a full
    /// `lobby` event ([`LOBBY_TABLES`] entries) and a full `chat_history`.
    pub const MAX_SERVER_FRAME_BYTES: usize = 65_536;
    /// Most tables a `lobby` event (and `GET /api/tables`) lists.
    pub const LOBBY_TABLES: usize = 100;
    /// Longest display name, in characters.
    pub const MAX_NAME_CHARS: usize = 24;
    /// Longest chat message, in characters.
    pub const MAX_CHAT_CHARS: usize = 280;
    /// Most chat messages a table keeps for `chat_history`.
    pub const CHAT_HISTORY_MESSAGES: usize = 50;
    /// Most characters of chat text a table keeps for `chat_history`, all
    /// messages together: the oldest go first past either bound.
    pub const CHAT_HISTORY_CHARS: usize = 4_000;
    /// Longest per-move time limit a table may set, in milliseconds (10 min).
    pub const MAX_MOVE_TIME_MS: u32 = 600_000;
    /// Shortest per-move time limit a table may set, in milliseconds.
    pub const MIN_MOVE_TIME_MS: u32 = 1_000;
    /// Longest bot "thinking" delay, in milliseconds.
    pub const MAX_BOT_THINK_MS: u32 = 5_000;
    /// Largest request id: 2^53 − 1, the largest integer a JavaScript
    /// number holds exactly.
    pub const MAX_REQUEST_ID: u64 = (1 << 53) - 1;
}
