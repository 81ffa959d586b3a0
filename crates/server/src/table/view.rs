//! What people see of a table: its state for players and spectators, its
//! lobby entry, and the names in a game's record.

use std::sync::Arc;
use std::time::Duration;

use oxo_core::{ByPlayer, Game, Player};
use oxo_protocol::{BotSeat, LobbyTable, PlayerInfo, TableId, TableState};
use tokio::time::Instant;

use super::rules::{Phase, Seat, State, Turn};
use crate::accounts::Account;
use crate::conn::Conn;
use crate::store::GamePlayer;

/// The name a seat shows in pass and play, where one player holds both:
/// "Player X" and "Player O", in the state and in the game's record.
pub(super) fn pass_and_play_name(seat: Player) -> &'static str {
    seat.fold_xo("Player X", "Player O")
}

/// A bot's player id: one per level.
pub(super) fn bot_id(bot: &BotSeat) -> String {
    format!("bot-{}", bot.level.as_str())
}

fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

/// A table as its actor holds it: the rules' state and the people.
#[derive(Clone, Copy, Debug)]
pub(super) struct View<'a> {
    pub(super) id: &'a TableId,
    pub(super) state: &'a State,
    /// The accounts of the people seated, by seat.
    pub(super) accounts: &'a ByPlayer<Option<Arc<Account>>>,
    /// Every attached connection: players' and spectators'.
    pub(super) members: &'a [Conn],
}

impl View<'_> {
    /// The name shown for `seat`.
    fn name(&self, seat: Player) -> String {
        match &self.state.seats()[seat] {
            Some(Seat::Bot(b)) => b.level.display_name().to_owned(),
            Some(Seat::Human(_)) if self.state.same_player_both_seats() => {
                pass_and_play_name(seat).to_owned()
            }
            Some(Seat::Human(_)) => self.accounts[seat]
                .as_ref()
                .map_or_else(String::new, |a| a.name().to_string()),
            None => String::new(),
        }
    }

    /// Connections that hold no seat.
    pub(super) fn spectators(&self) -> u32 {
        let mut watching = self
            .members
            .iter()
            .filter(|m| !self.state.is_seated(&m.account.id));
        // People, not connections: one spectator with two tabs is one.
        let n = match (watching.next(), watching.next()) {
            (None, _) => 0,
            (Some(_), None) => 1,
            (Some(a), Some(b)) => {
                let mut people: std::collections::HashSet<&str> =
                    [&*a.account.id, &*b.account.id].into_iter().collect();
                people.extend(watching.map(|m| &*m.account.id));
                people.len()
            }
        };
        u32::try_from(n).unwrap_or(u32::MAX)
    }

    fn player_info(&self, seat: Player, now: Instant) -> Option<PlayerInfo> {
        let phase = self.state.phase();
        let over = matches!(phase, Phase::Over { .. });
        Some(match self.state.seats()[seat].as_ref()? {
            Seat::Human(h) => PlayerInfo {
                id: h.player.clone(),
                name: self.name(seat),
                bot: None,
                connected: h.connected,
                grace_left_ms: h
                    .grace_until
                    .filter(|_| matches!(phase, Phase::Playing { .. }))
                    .map(|t| millis(t.saturating_duration_since(now))),
                wants_rematch: matches!(phase, Phase::Over { rematch, .. } if rematch[seat]),
            },
            Seat::Bot(b) => PlayerInfo {
                id: bot_id(b).into(),
                name: self.name(seat),
                bot: Some(b.level),
                connected: true,
                grace_left_ms: None,
                wants_rematch: over,
            },
        })
    }

    /// The state every player and spectator is sent.
    pub(super) fn table_state(&self, now: Instant) -> TableState {
        let s = self.state;
        let empty = Game::new();
        let round = s.phase().round();
        let game = round.map_or(&empty, |r| &r.game);
        let (turn, time_left_ms) = match s.phase() {
            Phase::Playing { round, turn } => (
                round.game.to_move(),
                match turn {
                    Turn::Human {
                        deadline: Some(t), ..
                    } => Some(millis(t.saturating_duration_since(now))),
                    _ => None,
                },
            ),
            _ => (None, None),
        };
        TableState {
            id: self.id.clone(),
            status: s.status(),
            options: *s.options(),
            players: ByPlayer::new_with(|p| self.player_info(p, now)),
            spectators: self.spectators(),
            round: s.round().max(1),
            game_id: round.map(|r| r.key.id.clone()),
            first: round.map(|r| r.game.first()),
            board: game.position().board().to_string(),
            moves: game.moves().to_vec(),
            move_number: u32::try_from(game.moves().len()).expect("a game has at most 9 moves"),
            turn,
            time_left_ms,
            outcome: game.outcome(),
            scores: s.scores(),
        }
    }

    /// The table's line in the lobby.
    pub(super) fn lobby_entry(&self) -> LobbyTable {
        LobbyTable {
            id: self.id.clone(),
            status: self.state.status(),
            players: ByPlayer::new_with(|p| self.state.seats()[p].as_ref().map(|_| self.name(p))),
            spectators: self.spectators(),
            options: *self.state.options(),
        }
    }

    /// Both sides of a round as its record names them.
    pub(super) fn game_players(&self) -> ByPlayer<GamePlayer> {
        ByPlayer::new_with(|p| {
            let id: Arc<str> = match &self.state.seats()[p] {
                Some(Seat::Human(h)) => Arc::from(h.player.as_str()),
                Some(Seat::Bot(b)) => Arc::from(bot_id(b)),
                None => Arc::from(""),
            };
            GamePlayer {
                id,
                name: Arc::from(self.name(p)),
                bot: match &self.state.seats()[p] {
                    Some(Seat::Bot(b)) => Some(b.level),
                    _ => None,
                },
            }
        })
    }
}
