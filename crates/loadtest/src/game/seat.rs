//! One seat of a game as its driver keeps it: the connection, what the seat
//! knows of the table from that connection, and its one request in flight.
//! Plain data; the driver's modules decide what to do with it.

use oxo_core::{Player, Square};
use oxo_protocol::{ErrorCode, GameId, PlayerId, TableState, TableStatus};
use tokio::time::Instant;

use oxo_client::Link;

/// What a seat knows of the table, from its own connection.
#[derive(Debug, Clone)]
pub(super) struct View {
    pub(super) round: u32,
    pub(super) move_number: u32,
    pub(super) status: TableStatus,
    pub(super) turn: Option<Player>,
    pub(super) moves: Vec<Square>,
    pub(super) game_id: Option<GameId>,
    /// Whether the state shows that this seat asked for a rematch.
    pub(super) asked_rematch: bool,
}

impl View {
    /// What `seat` reads off the state `t`.
    pub(super) fn of(t: &TableState, seat: Player) -> View {
        View {
            round: t.round,
            move_number: t.move_number,
            status: t.status,
            turn: t.turn,
            moves: t.moves.clone(),
            game_id: t.game_id.clone(),
            asked_rematch: t.players[seat].as_ref().is_some_and(|p| p.wants_rematch),
        }
    }
}

/// A request in flight.
#[derive(Debug)]
pub(super) struct Pending {
    pub(super) id: u64,
    pub(super) sent_at: Instant,
    pub(super) kind: PendingKind,
}

/// What a request in flight asked for.
#[derive(Debug)]
pub(super) enum PendingKind {
    /// A real move, for `ply` (1-based) of `round`.
    Move {
        round: u32,
        ply: u32,
        cell: Square,
        game_id: Option<GameId>,
        /// When the state showing the move arrived.
        seen: Option<Instant>,
    },
    /// A move the server must refuse with `expected`.
    Refusal {
        expected: ErrorCode,
    },
    Rematch,
    Sync,
}

impl PendingKind {
    /// The kind's name in error kinds (`timeout:move`, `refused:sync:…`).
    pub(super) fn name(&self) -> &'static str {
        match self {
            PendingKind::Move { .. } => "move",
            PendingKind::Refusal { .. } => "refusal",
            PendingKind::Rematch => "rematch",
            PendingKind::Sync => "sync",
        }
    }
}

/// One player of a game.
#[derive(Debug)]
pub(super) struct Seat {
    pub(super) seat: Player,
    pub(super) conn: Option<Link>,
    pub(super) token: String,
    pub(super) player_id: PlayerId,
    pub(super) view: Option<View>,
    pub(super) pending: Option<Pending>,
    /// The turn `(round, move_number)` the timer and refusal roll are for.
    pub(super) turn_key: (u32, u32),
    pub(super) ready_at: Instant,
    pub(super) refusal_rolled: bool,
    /// The last round this seat asked a rematch for.
    pub(super) rematch_round: u32,
    pub(super) backoff_until: Instant,
    /// A resync (sync or join after a reconnect) was refused: ask again
    /// once the backoff is over (the table may be moving between nodes).
    pub(super) resync: bool,
}

impl Seat {
    /// Seat `seat`, connected as the player of `token` and `player_id`.
    pub(super) fn new(seat: Player, conn: Link, token: String, player_id: PlayerId) -> Seat {
        let now = Instant::now();
        Seat {
            seat,
            conn: Some(conn),
            token,
            player_id,
            view: None,
            pending: None,
            turn_key: (0, u32::MAX),
            ready_at: now,
            refusal_rolled: false,
            rematch_round: 0,
            backoff_until: now,
            resync: false,
        }
    }
}
