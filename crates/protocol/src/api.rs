//! Bodies of the HTTP API (`/api/...`).

use oxo_core::{Event, Outcome, Player, Square};
use serde::{Deserialize, Serialize};

/// A JSON error body, sent with 400 or 404.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiError {
    /// What was wrong and what is accepted.
    pub error: String,
}

/// A player of a recorded game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordPlayer {
    /// Public player id.
    pub id: String,
    /// Display name at the time.
    pub name: String,
    /// The bot's level, for a bot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<oxo_core::BotLevel>,
}

/// One recorded move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordedMove {
    /// 1-based move number.
    pub ply: u32,
    /// Who moved.
    pub player: Player,
    /// Where.
    pub cell: Square,
    /// When, in milliseconds since the Unix epoch.
    pub at_ms: i64,
}

/// `GET /api/games/{id}`: a game (one round of a table), finished or not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's id.
    pub id: String,
    /// The table it was played at. Absent for a game at a private table,
    /// unless the request came from one of its two players.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_id: Option<String>,
    /// The round number at that table.
    pub round: u32,
    /// The players.
    pub players: oxo_core::ByPlayer<RecordPlayer>,
    /// Who moved first.
    pub first: Player,
    /// Every move with its time.
    pub moves: Vec<RecordedMove>,
    /// How it ended (absent while in progress).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// Start time, milliseconds since the Unix epoch.
    pub started_at_ms: i64,
    /// End time, once finished.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at_ms: Option<i64>,
}

/// An entry of `GET /api/games`: a finished game in brief.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameSummary {
    /// The game's id.
    pub id: String,
    /// The players' names.
    pub players: oxo_core::ByPlayer<String>,
    /// How it ended.
    pub outcome: Outcome,
    /// The number of moves.
    pub moves: u32,
    /// End time, milliseconds since the Unix epoch.
    pub ended_at_ms: i64,
}

/// `GET /api/games/{id}/log?start=&end=`: a slice of a game's event log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogSlice {
    /// The game's id.
    pub game_id: String,
    /// The number of events in the whole log.
    pub total: usize,
    /// Index of the first event returned.
    pub start: usize,
    /// One past the index of the last event returned.
    pub end: usize,
    /// The events `[start, end)`.
    pub events: Vec<Event>,
}

/// One move in an analysis.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MoveAnalysis {
    /// The move.
    pub cell: Square,
    /// `win`, `draw` or `loss` for the side to move.
    pub result: String,
    /// Plies to the end under perfect play, counting this move.
    pub plies: u8,
}

/// `GET /api/analyze?position=`: the solver's view of a position.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AnalyzeResponse {
    /// The position in canonical notation.
    pub position: String,
    /// The side to move.
    pub turn: Player,
    /// The result if the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// `win`, `draw` or `loss` for the side to move.
    pub result: String,
    /// Plies to the end under perfect play.
    pub plies: u8,
    /// Every legal move, best first.
    pub moves: Vec<MoveAnalysis>,
}
