//! Tables as clients see them.

use crate::{GameId, PlayerId, TableId};
use oxo_core::{BotLevel, ByPlayer, Outcome, Player, Scores, Square, Starter};
use serde::{Deserialize, Serialize};

/// A bot in one seat of a table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BotSeat {
    /// How strong it is.
    pub level: BotLevel,
    /// A pause before each bot move, in milliseconds, so that it feels less
    /// abrupt to humans (0: answer at once).
    #[serde(default, deserialize_with = "crate::whole::think_ms")]
    pub think_ms: u32,
}

/// A table's options, fixed at creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(default)]
pub struct TableOptions {
    /// Listed in the lobby (`true`), or reached only by its id (`false`).
    #[serde(deserialize_with = "crate::strict::null_as_true")]
    pub public: bool,
    /// Who starts each round.
    #[serde(deserialize_with = "crate::strict::null_as_default")]
    pub starter: Starter,
    /// A per-move time limit in milliseconds; running out loses the round.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::whole::move_time_ms"
    )]
    pub move_time_ms: Option<u32>,
    /// A bot in the seat the creator does not take.
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "crate::strict::optional_object"
    )]
    pub bot: Option<BotSeat>,
    /// The creator's seat (random if absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seat: Option<Player>,
    /// Pass and play: the creator holds both seats and moves for whichever
    /// side is to move (two people on one screen).
    #[serde(
        skip_serializing_if = "core::ops::Not::not",
        deserialize_with = "crate::strict::null_as_default"
    )]
    pub pass_and_play: bool,
}

impl Default for TableOptions {
    fn default() -> TableOptions {
        TableOptions {
            public: true,
            starter: Starter::X,
            move_time_ms: None,
            bot: None,
            seat: None,
            pass_and_play: false,
        }
    }
}

/// Where a table is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TableStatus {
    /// A seat is free.
    Waiting,
    /// A round is being played.
    InProgress,
    /// The round has ended; a rematch starts the next one.
    RoundOver,
    /// The table is closed; nothing more happens.
    Closed,
}

/// A seated player as everyone at the table sees them (never the token).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct PlayerInfo {
    /// The player's public id (from their `welcome`).
    pub id: PlayerId,
    /// Display name.
    pub name: String,
    /// The bot's level if this seat is a bot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotLevel>,
    /// Whether the player is connected now (bots always are).
    pub connected: bool,
    /// Milliseconds left to come back before losing, while disconnected
    /// during a round.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_left_ms: Option<u64>,
    /// Whether the player has asked for a rematch.
    #[serde(default)]
    pub wants_rematch: bool,
}

/// Everything a client needs to draw a table, sent after every change.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct TableState {
    /// The table's id (unguessable for private tables).
    pub id: TableId,
    /// Where the table is in its life.
    pub status: TableStatus,
    /// The options it was created with.
    pub options: TableOptions,
    /// The seats.
    pub players: ByPlayer<Option<PlayerInfo>>,
    /// How many spectators are watching.
    pub spectators: u32,
    /// The round number, from 1.
    pub round: u32,
    /// The id of this round's game record (for its replay), once it started.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub game_id: Option<GameId>,
    /// Who moved first this round; absent before the first round starts
    /// (the starter rule, a coin toss perhaps, decides it then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<Player>,
    /// The board in position notation (`X.O.X....`).
    pub board: String,
    /// This round's moves in order.
    pub moves: Vec<Square>,
    /// The number of moves played this round.
    pub move_number: u32,
    /// Whose turn it is, while the round is in progress.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub turn: Option<Player>,
    /// Milliseconds left for the current move, if the table has a time limit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_left_ms: Option<u64>,
    /// How the round ended, once it has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// Wins per seat and draws across rounds.
    pub scores: Scores,
}

/// A table as listed in the lobby.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LobbyTable {
    /// The table's id.
    pub id: TableId,
    /// Where it is in its life.
    pub status: TableStatus,
    /// Names in the seats.
    pub players: ByPlayer<Option<String>>,
    /// How many spectators.
    pub spectators: u32,
    /// Its options.
    pub options: TableOptions,
}
