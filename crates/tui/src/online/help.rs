//! The online help window (`?`): the keys of the lobby, of a seat at a
//! table, of a table watched, or of a closed one, drawn as the offline
//! game's help window.
//! Each fits the narrowest terminal the game accepts.

use oxo_protocol::TableStatus;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::state::Online;
use crate::ui::render_keys;

/// The width of the keys' column.
const KEY_W: usize = 10;

/// The lobby's keys.
const LOBBY: [(&str, &str); 12] = [
    ("↑↓  j k", "select a table"),
    ("Enter", "join the table"),
    ("w", "watch the table"),
    ("c", "new public table"),
    ("p", "new private table"),
    // The server's bots by their names, as the browser shows them.
    ("1 2 3 4", "bots: Random, Easy,"),
    ("", "Medium, Impossible"),
    ("s", "who starts"),
    ("t", "time per move"),
    ("?", "show this help"),
    ("q  Ctrl-C", "quit"),
    ("", ""),
];

/// The keys at a seat of mine.
const SEATED: [(&str, &str); 11] = [
    ("←↑↓→ hjkl", "move the cursor"),
    ("Enter", "play at the cursor"),
    ("1 … 9", "play on a cell,"),
    ("", "1 is top left"),
    ("r", "ask for a rematch"),
    ("f", "forfeit the round"),
    ("m  /", "chat"),
    ("Esc", "leave the table"),
    ("?", "show this help"),
    ("q  Ctrl-C", "quit"),
    ("", ""),
];

/// The keys at a table watched.
const WATCHING: [(&str, &str); 6] = [
    ("Enter 1-9", "take a free seat"),
    ("m  /", "chat"),
    ("Esc", "leave the table"),
    ("?", "show this help"),
    ("q  Ctrl-C", "quit"),
    ("", ""),
];

/// The keys at a closed table: nothing more happens there.
const CLOSED: [(&str, &str); 4] = [
    ("Esc", "back to the lobby"),
    ("?", "show this help"),
    ("q  Ctrl-C", "quit"),
    ("", ""),
];

/// Draws the help window of `o`'s screen over `area`, if it is open.
pub(super) fn render_help(o: &Online, area: Rect, buf: &mut Buffer) {
    if !o.help {
        return;
    }
    let rows: &[(&str, &str)] = match (&o.table, o.my_seat()) {
        (None, _) => &LOBBY,
        (Some(t), _) if t.status == TableStatus::Closed => &CLOSED,
        (Some(_), Some(_)) => &SEATED,
        (Some(_), None) => &WATCHING,
    };
    render_keys(rows, KEY_W, o.theme, area, buf);
}
