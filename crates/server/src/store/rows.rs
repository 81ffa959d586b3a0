//! The vocabulary of storage: the changes a store applies ([`Write`]) and
//! the rows it hands back, named, the same for every implementation.
//!
//! Also the one rule about what a reader may see (see [`GamesQuery`] and
//! [`GameRow::record`]), so that every store answers the HTTP API alike.
//! This file knows no storage engine: no SQL, no locks, no I/O.

use std::sync::Arc;

use oxo_core::{BotLevel, ByPlayer, Game, Outcome, Player, Square};
use oxo_protocol::{
    ChatLine, GameId, GameRecord, PlayerId, RecordPlayer, RecordedMove, Scores, TableId,
    TableOptions, TableStatus,
};

use crate::ids::TokenHash;

/// How many of the newest finished games a listing looks at, at most.
///
/// A listing walks down the newest finished games (with a player, that
/// player's, by the index on each seat) and stops after `limit` matches or
/// this many games looked at: there is no index by privacy.
pub(crate) const PLAYER_SCAN: u32 = 100_000;

/// One row-level change.
#[derive(Debug)]
pub(crate) enum Write {
    /// A new player.
    Player {
        id: Arc<str>,
        token_hash: TokenHash,
        name: Arc<str>,
    },
    /// A player's new display name.
    PlayerName { id: Arc<str>, name: Arc<str> },
    /// A table's whole row (insert or update).
    Table(Box<TableRow>),
    /// A round started.
    GameStart(Box<GameStart>),
    /// A move of a game.
    Move(NewMove),
    /// A game ended.
    GameEnd(GameEnd),
    /// A chat message at a table. The store keeps a table's latest
    /// [`CHAT_HISTORY_MESSAGES`]: older ones go as newer come.
    ///
    /// [`CHAT_HISTORY_MESSAGES`]: oxo_protocol::limits::CHAT_HISTORY_MESSAGES
    Chat(Box<ChatRow>),
    /// The table with key `table` closed: its chat messages go.
    ChatCleared { table: i64 },
    /// A health probe: rewrites the one row of `health`.
    HealthProbe { at_ms: i64 },
    /// The rest of the commit holds only while the table with key `table`
    /// is still under lease `epoch`: a store shared by several nodes
    /// refuses the whole commit with [`ServerError::Fenced`] once another
    /// node has taken the table over (a higher epoch). A store that one
    /// server owns alone (SQLite, memory) has no other owner to fear and
    /// passes it.
    ///
    /// [`ServerError::Fenced`]: crate::error::ServerError::Fenced
    Fence { table: i64, epoch: i64 },
}

/// A move (`ply` from 1) of the game with key `game`, to store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NewMove {
    pub(crate) game: i64,
    pub(crate) ply: u32,
    pub(crate) player: Player,
    pub(crate) cell: Square,
    pub(crate) at_ms: i64,
    /// The request id the move came with, kept to recognise retries.
    pub(crate) req_id: Option<u64>,
}

/// The end of the game with key `game` after `moves` moves, to store.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GameEnd {
    pub(crate) game: i64,
    pub(crate) outcome: Outcome,
    pub(crate) moves: u32,
    pub(crate) at_ms: i64,
}

/// What an insert of a table's row that finds it stored already sets (the
/// `ON CONFLICT (seq) DO UPDATE SET` of every SQL engine): everything but
/// its `id`, `options` and `created_ms` (see [`TableRow`]).
pub(crate) const TABLE_ROW_UPDATE: &str = "status = excluded.status, x_player = excluded.x_player,
    o_player = excluded.o_player, bot_seat = excluded.bot_seat,
    round = excluded.round, score_x = excluded.score_x,
    score_o = excluded.score_o, draws = excluded.draws,
    game = excluded.game, updated_ms = excluded.updated_ms,
    x_away_until_ms = excluded.x_away_until_ms,
    o_away_until_ms = excluded.o_away_until_ms,
    x_rematch = excluded.x_rematch, o_rematch = excluded.o_rematch";

/// A table as stored.
///
/// Written whole ([`Write::Table`]); a table that exists already keeps its
/// `id`, `options` and `created_ms` and takes everything else.
#[derive(Clone, Debug)]
pub(crate) struct TableRow {
    /// The integer key.
    pub(crate) seq: i64,
    pub(crate) id: Arc<str>,
    pub(crate) options: TableOptions,
    pub(crate) status: TableStatus,
    /// Player ids of the human seats.
    pub(crate) seats: ByPlayer<Option<Arc<str>>>,
    pub(crate) bot_seat: Option<Player>,
    pub(crate) round: u32,
    pub(crate) scores: Scores,
    /// The key of the current (or last) game.
    pub(crate) game: Option<i64>,
    pub(crate) created_ms: i64,
    /// For each seat whose player is away: when (Unix ms) the seat's grace
    /// period ends. Kept so that the end stays where it was across a
    /// restart or a takeover.
    pub(crate) away_until_ms: ByPlayer<Option<i64>>,
    /// At a finished round: which seats asked for another (acknowledged,
    /// so kept across a restart or a takeover).
    pub(crate) rematch: ByPlayer<bool>,
}

/// One side of a game as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GamePlayer {
    pub(crate) id: Arc<str>,
    pub(crate) name: Arc<str>,
    pub(crate) bot: Option<BotLevel>,
}

/// The start of a round.
#[derive(Clone, Debug)]
pub(crate) struct GameStart {
    /// The integer key.
    pub(crate) seq: i64,
    pub(crate) id: Arc<str>,
    pub(crate) table_id: Arc<str>,
    pub(crate) round: u32,
    pub(crate) first: Player,
    pub(crate) players: ByPlayer<GamePlayer>,
    pub(crate) at_ms: i64,
    /// Whether the table is public; the records of private tables are
    /// listed only for their players.
    pub(crate) public: bool,
}

/// A game as stored: how it started and, once over, how it ended.
#[derive(Clone, Debug)]
pub(crate) struct GameRow {
    pub(crate) start: GameStart,
    /// When it ended; `None` while it is played.
    pub(crate) ended_ms: Option<i64>,
    pub(crate) outcome: Option<Outcome>,
}

impl GameRow {
    /// Whether `asker` played in this game.
    fn played_by(&self, asker: Option<&str>) -> bool {
        let players = &self.start.players;
        asker.is_some_and(|a| a == &*players.x.id || a == &*players.o.id)
    }

    /// The record of this game with `moves`, as `asker` (the player id a
    /// request proved, if any) may see it: a game at a private table names
    /// its table only to its two players.
    pub(crate) fn record(&self, moves: Vec<RecordedMove>, asker: Option<&str>) -> GameRecord {
        let start = &self.start;
        let shows_table = start.public || self.played_by(asker);
        let player = |p: &GamePlayer| RecordPlayer {
            id: PlayerId::from(Arc::clone(&p.id)),
            name: p.name.to_string(),
            bot: p.bot,
        };
        GameRecord {
            id: GameId::from(Arc::clone(&start.id)),
            table_id: shows_table.then(|| TableId::from(Arc::clone(&start.table_id))),
            round: start.round,
            players: ByPlayer {
                x: player(&start.players.x),
                o: player(&start.players.o),
            },
            first: start.first,
            moves,
            outcome: self.outcome,
            started_at_ms: start.at_ms,
            ended_at_ms: self.ended_ms,
        }
    }
}

/// `GET /api/games?player=&limit=`: which finished games to list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct GamesQuery {
    /// Only this player's games.
    pub(crate) player: Option<String>,
    /// The player id the request proved, if any.
    pub(crate) asker: Option<String>,
    /// The most games to return.
    pub(crate) limit: u32,
}

impl GamesQuery {
    /// Whether the game between `x` and `o` (player ids), at a public table
    /// or not, is listed.
    ///
    /// Without `player`: the games of public tables, and the asker's own.
    /// With `player`: that player's games at public tables, and their games
    /// at private tables too if the asker is that player.
    pub(crate) fn lists(&self, x: &str, o: &str, public: bool) -> bool {
        let asker = self.asker.as_deref();
        match self.player.as_deref() {
            None => public || asker.is_some_and(|a| a == x || a == o),
            Some(p) => (p == x || p == o) && (public || asker == Some(p)),
        }
    }
}

/// How many of a table's latest chat messages a store keeps (see
/// [`Write::Chat`]), as the stores count message numbers.
pub(crate) const CHAT_KEPT: i64 = oxo_protocol::limits::CHAT_HISTORY_MESSAGES as i64;

/// A chat message as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ChatRow {
    /// The key of its table.
    pub(crate) table: i64,
    /// Its number at the table: 1 for the first message, then one more
    /// for each.
    pub(crate) n: i64,
    pub(crate) line: ChatLine,
    /// When it was said, in milliseconds since the Unix epoch.
    pub(crate) at_ms: i64,
}

/// A player as stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PlayerRow {
    pub(crate) id: String,
    pub(crate) token_hash: TokenHash,
    pub(crate) name: String,
}

/// An unfinished table read back whole, its current game replayed.
#[derive(Debug)]
pub(crate) struct SavedTable {
    pub(crate) row: TableRow,
    pub(crate) players: ByPlayer<Option<PlayerRow>>,
    pub(crate) game: Option<SavedGame>,
    /// The table's latest chat messages with their numbers, oldest first.
    pub(crate) chat: Vec<(i64, ChatLine)>,
    /// The moves with a request id of the table's rounds before its
    /// current one (at most [`EARLIER_ROUNDS`] of them), oldest first: a
    /// retry of one, naming its round, is still answered after a restart.
    pub(crate) earlier: Vec<EarlierMove>,
    /// The lease epoch this server holds the table under (see
    /// [`Write::Fence`]); 0 for a store one server owns alone.
    pub(crate) epoch: i64,
}

/// How many rounds before a table's current one are read back for their
/// moves' request ids: enough for the moves the table remembers (a round
/// that has any has at least one).
pub(crate) const EARLIER_ROUNDS: u32 = 32;

/// A move with a request id, of a table's earlier round, read back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct EarlierMove {
    /// Its round's game id.
    pub(crate) game_id: Arc<str>,
    /// Its move number in that round, from 1.
    pub(crate) ply: u32,
    pub(crate) player: Player,
    pub(crate) cell: Square,
    /// Its request id, stored bit for bit.
    pub(crate) req_id: u64,
}

/// The current round of a saved table.
#[derive(Debug)]
pub(crate) struct SavedGame {
    pub(crate) seq: i64,
    pub(crate) id: Arc<str>,
    pub(crate) game: Game,
    /// Request ids of the moves that had one: seat, id, cell.
    pub(crate) accepted: Vec<(Player, u64, Square)>,
    /// When the game last changed (its last move, or its start), in
    /// milliseconds since the Unix epoch: where a per-move clock runs
    /// from.
    pub(crate) last_at_ms: i64,
}

/// A move as stored, read back for recovery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MoveRow {
    pub(crate) player: Player,
    pub(crate) cell: Square,
    pub(crate) req_id: Option<u64>,
    /// When, in milliseconds since the Unix epoch.
    pub(crate) at_ms: i64,
}

/// The cluster's leader as the database knows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LeaderRow {
    /// Its node id.
    pub(crate) node: u16,
    /// Where it serves clients.
    pub(crate) addr: String,
    /// Whether that is this node.
    pub(crate) me: bool,
}
