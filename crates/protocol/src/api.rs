//! Bodies of the HTTP API (`/api/...`).

use crate::{GameId, PlayerId, TableId};
use oxo_core::{Event, Outcome, Player, Square};
use serde::{Deserialize, Serialize};

/// A JSON error body, sent with 400 or 404.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ApiError {
    /// What was wrong and what is accepted.
    pub error: String,
}

/// A player of a recorded game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RecordPlayer {
    /// Public player id.
    pub id: PlayerId,
    /// Display name at the time.
    pub name: String,
    /// The bot's level, for a bot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<oxo_core::BotLevel>,
}

/// One recorded move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GameRecord {
    /// The game's id.
    pub id: GameId,
    /// The table it was played at. Absent for a game at a private table,
    /// unless the request came from one of its two players.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table_id: Option<TableId>,
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GameSummary {
    /// The game's id.
    pub id: GameId,
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LogSlice {
    /// The game's id.
    pub game_id: GameId,
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
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

/// `win`, `draw` or `loss`: a result under perfect play, for one player.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum ValueKind {
    /// The player wins whatever the other does.
    Win,
    /// Neither can force a win.
    Draw,
    /// The other player wins whatever this one does.
    Loss,
}

/// A position's value for one player under perfect play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct SolvedValue {
    /// Win, draw or loss.
    pub result: ValueKind,
    /// Plies to the end of the game under perfect play (for a draw: the free
    /// cells).
    pub plies: u8,
}

impl From<oxo_core::Value> for SolvedValue {
    fn from(value: oxo_core::Value) -> SolvedValue {
        let result = match value {
            oxo_core::Value::Win(_) => ValueKind::Win,
            oxo_core::Value::Draw(_) => ValueKind::Draw,
            oxo_core::Value::Loss(_) => ValueKind::Loss,
        };
        SolvedValue {
            result,
            plies: value.plies(),
        }
    }
}

/// What a move did to its mover's value. Only win, draw or loss count: a
/// slower win is still a kept win.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// A win before, a win after.
    KeptWin,
    /// A draw before, a draw after.
    KeptDraw,
    /// A win before, only a draw after.
    ThrewWin,
    /// A win or a draw before, a loss after.
    Blunder,
    /// A loss before, and every move loses.
    LostAnyway,
}

impl Verdict {
    /// The verdict on a move that turned `before` into `after` (both for the
    /// mover). It is read from `after`, compared with `before`: a move never
    /// gets more than its position's value, so `after` is a win only if
    /// `before` was.
    #[must_use]
    pub const fn of(before: ValueKind, after: ValueKind) -> Verdict {
        match (before, after) {
            (_, ValueKind::Win) => Verdict::KeptWin,
            (ValueKind::Win, ValueKind::Draw) => Verdict::ThrewWin,
            (_, ValueKind::Draw) => Verdict::KeptDraw,
            (ValueKind::Loss, ValueKind::Loss) => Verdict::LostAnyway,
            (_, ValueKind::Loss) => Verdict::Blunder,
        }
    }

    /// Whether the move made its mover's value worse (`ThrewWin`, `Blunder`).
    #[must_use]
    pub const fn is_mistake(self) -> bool {
        matches!(self, Verdict::ThrewWin | Verdict::Blunder)
    }
}

/// One ply of `GET /api/analyze/game`: a move and what it did.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlyExplanation {
    /// 1-based move number.
    pub ply: u32,
    /// Who moved.
    pub player: Player,
    /// Where.
    pub cell: Square,
    /// The value of the position before the move, for the mover.
    pub before: SolvedValue,
    /// The value the mover got by this move: the resulting position's value
    /// turned back to the mover's view, with plies counted from before the
    /// move (so a move that keeps the value has `after == before`).
    pub after: SolvedValue,
    /// What the move did to the mover's value.
    pub verdict: Verdict,
    /// The cells that keep the mover's best result (win, draw or loss), in
    /// board order `a1, b1, c1, a2, …`; they include `cell` unless the move
    /// was a mistake. In a lost position this is every free cell.
    pub best: Vec<Square>,
}

/// The move that first made its mover's value worse.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DecidingMove {
    /// 1-based move number.
    pub ply: u32,
    /// Who moved.
    pub player: Player,
    /// Where.
    pub cell: Square,
    /// The cells that would have kept the mover's value, in board order.
    pub best: Vec<Square>,
}

/// The position a game reached and its value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FinalPosition {
    /// The position in canonical notation.
    pub position: String,
    /// The side to move (the side that would move next once the game is over).
    pub turn: Player,
    /// The result if the moves ended the game (a line or a full board).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// The position's value for `turn` (`loss` in 0 plies once a line is
    /// complete, `draw` in 0 on a full board).
    pub value: SolvedValue,
}

/// `GET /api/analyze/game?first=&moves=`: every move of a game judged by the
/// solver, in one answer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct GameExplanation {
    /// Who moved first.
    pub first: Player,
    /// One entry per move, in order.
    pub moves: Vec<PlyExplanation>,
    /// The first move whose verdict is `threw_win` or `blunder`; `null` when
    /// every move kept its mover's value.
    pub decided: Option<DecidingMove>,
    /// Where the moves led (`final` in JSON).
    #[serde(rename = "final")]
    pub end: FinalPosition,
}
