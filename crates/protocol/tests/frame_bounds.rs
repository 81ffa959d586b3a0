//! The largest frames the server can send stay within
//! `limits::MAX_SERVER_FRAME_BYTES`, built at every documented bound with
//! the characters that cost most on the wire.

use oxo_core::{BotLevel, ByPlayer, Player, Starter};
use oxo_protocol::limits::{
    CHAT_HISTORY_CHARS, CHAT_HISTORY_MESSAGES, LOBBY_TABLES, MAX_NAME_CHARS, MAX_SERVER_FRAME_BYTES,
};
use oxo_protocol::{BotSeat, ChatLine, LobbyTable, ServerMsg, TableOptions, TableStatus};

/// A control character: JSON writes it as `\u0001`, six bytes for one
/// character, more than any character the server lets through.
const COSTLIEST: char = '\u{1}';

fn text(chars: usize) -> String {
    std::iter::repeat_n(COSTLIEST, chars).collect()
}

/// A 32-hex-digit id, as the server makes them.
fn id(n: usize) -> String {
    format!("{n:032x}")
}

fn wire(msg: &ServerMsg) -> usize {
    serde_json::to_string(msg)
        .map(|s| s.len())
        .unwrap_or(usize::MAX)
}

#[test]
fn a_full_lobby_fits_in_a_server_frame() {
    let options = TableOptions {
        public: true,
        starter: Starter::Alternate,
        move_time_ms: Some(600_000),
        bot: Some(BotSeat {
            level: BotLevel::Perfect,
            think_ms: 5_000,
        }),
        seat: Some(Player::O),
        pass_and_play: true,
    };
    let tables = (0..LOBBY_TABLES)
        .map(|n| LobbyTable {
            id: id(n).into(),
            status: TableStatus::RoundOver,
            players: ByPlayer::new_with(|_| Some(text(MAX_NAME_CHARS))),
            spectators: u32::MAX,
            options,
        })
        .collect();
    let bytes = wire(&ServerMsg::Lobby { tables });
    assert!(bytes <= MAX_SERVER_FRAME_BYTES, "{bytes} bytes");
}

#[test]
fn a_full_chat_history_fits_in_a_server_frame() {
    let per_message = CHAT_HISTORY_CHARS / CHAT_HISTORY_MESSAGES;
    let messages = (0..CHAT_HISTORY_MESSAGES)
        .map(|n| ChatLine {
            from_id: id(n).into(),
            from_name: text(MAX_NAME_CHARS),
            text: text(per_message),
            watching: true,
        })
        .collect();
    let bytes = wire(&ServerMsg::ChatHistory {
        table_id: id(0).into(),
        messages,
    });
    assert!(bytes <= MAX_SERVER_FRAME_BYTES, "{bytes} bytes");
}
