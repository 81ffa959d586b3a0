//! The help window: the keys of the screen it is opened on, in a full and
//! a compact version, wrapped between words to the window's width. It
//! always ends with how to close it: when the terminal is too short for
//! every key, the last keys give way, but never the one that quits.

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::widgets::render_window;
use crate::app::Screen;
use crate::text;
use crate::theme::Theme;

/// The set-up screen's keys: full, then compact.
const SETUP: [(&str, &str); 10] = [
    ("↑↓  Tab", "next or previous field"),
    ("←→  Space", "change the choice"),
    ("letters", "type a name (q and ? too, on a name)"),
    ("Backspace", "delete the last letter"),
    ("Ctrl-U", "clear the name"),
    ("Enter", "start the game"),
    ("Esc", "back to the game (or quit)"),
    ("?", "show or hide this help"),
    ("q  Ctrl-C", "quit"),
    ("", ""),
];

/// The game screen's keys in full.
const FULL: [(&str, &str); 15] = [
    ("←↑↓→  h j k l", "move the cursor"),
    ("Enter  Space", "place your mark at the cursor"),
    ("1 … 9", "place on a cell:   1 2 3    a1 b1 c1"),
    ("", "numbered like      4 5 6    a2 b2 c2"),
    ("", "the board          7 8 9    a3 b3 c3"),
    ("", "(1 is top left as on a phone, not a numpad)"),
    ("a1 … c3", "place by name: column a-c, then row 1-3"),
    (
        "u  Backspace",
        "take back the last move (and a bot's reply)",
    ),
    ("v", "show each free cell's value: win/draw/loss"),
    ("r", "restart this round; once over: next round"),
    ("Enter", "next round, once the game is over"),
    ("n", "new game: back to set-up"),
    ("?", "show or hide this help"),
    ("q  Ctrl-C", "quit (q twice with scores on the screen)"),
    ("", ""),
];

/// Where [`FULL`]'s keys that need nobody at the keyboard begin: the game
/// screen's keys when bots play both marks.
const WATCH_FROM: usize = 8;

/// The game screen's keys when bots play both marks (nobody at the keyboard
/// moves), compact.
const WATCH_COMPACT: [(&str, &str); 7] = [
    ("v", "values of free cells"),
    ("r", "restart, or next round"),
    ("Enter", "next round, once over"),
    ("n", "new game"),
    ("?", "this help"),
    ("q", "quit"),
    ("", ""),
];

/// The help window of `screen`; with `bots_only`, the game screen's keys
/// leave out those that place or take back a mark.
pub(super) fn render_help(
    screen: Screen,
    bots_only: bool,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    const COMPACT: [(&str, &str); 12] = [
        ("←↑↓→ hjkl", "move"),
        ("Enter", "place, next round"),
        ("1 … 9", "123 / 456 / 789"),
        ("", "1 = a1, top left"),
        ("a1 … c3", "column, then row"),
        ("u", "undo"),
        ("v", "values of free cells"),
        ("r", "restart, or next round"),
        ("n", "new game"),
        ("?", "this help"),
        ("q", "quit"),
        ("", ""),
    ];
    let (rows, key_w): (&[(&str, &str)], usize) = match screen {
        Screen::Setup => (&SETUP, 12),
        Screen::Game if bots_only && area.width >= 64 => (&FULL[WATCH_FROM..], 15),
        Screen::Game if bots_only => (&WATCH_COMPACT, 10),
        Screen::Game if area.width >= 64 => (&FULL, 15),
        Screen::Game => (&COMPACT, 10),
    };
    render_keys(rows, key_w, theme, area, buf);
}

/// The help window over `area`: `rows` of keys (in a column `key_w`
/// wide) and what they do, wrapped between words under their column, then
/// how to close it. A row with no key goes on from the row above it; one
/// with neither is a blank line. When they do not all fit, the blank lines
/// give way first, then the keys from the last up, but never the last key
/// (quitting). The online screens show theirs with it too.
pub(crate) fn render_keys(
    rows: &[(&str, &str)],
    key_w: usize,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    let width = area.width.min(64);
    // Inside the borders: a space, the key column, then what it does.
    let what_w = usize::from(width.saturating_sub(2)).saturating_sub(1 + key_w);
    let mut entries: Vec<Entry> = Vec::new();
    for &(key, what) in rows {
        // As written when it fits (the board's numbers line up), else
        // between words.
        let wrapped = if text::width(what) <= what_w {
            vec![what.to_owned()]
        } else {
            text::wrap(what, what_w.max(1))
        };
        let lines = wrapped.into_iter().enumerate().map(|(i, row)| {
            let key = if i == 0 { key } else { "" };
            Line::from(vec![
                Span::styled(format!(" {key:<key_w$}"), theme.key()),
                Span::raw(row),
            ])
        });
        let goes_on = key.is_empty() && !what.is_empty();
        match entries.last_mut() {
            Some(entry) if goes_on => entry.lines.extend(lines),
            _ if key.is_empty() && what.is_empty() => entries.push(Entry {
                keyed: false,
                lines: vec![Line::default()],
            }),
            _ => entries.push(Entry {
                keyed: true,
                lines: lines.collect(),
            }),
        }
    }
    // Room inside the window, less the closing line.
    let room = usize::from(area.height.saturating_sub(3));
    let taken = |entries: &[Entry]| entries.iter().map(|e| e.lines.len()).sum::<usize>();
    while taken(&entries) > room && entries.len() > 1 {
        let last_key = entries.iter().rposition(|e| e.keyed);
        let gives_way = entries
            .iter()
            .rposition(|e| !e.keyed)
            .or_else(|| (0..entries.len()).rev().find(|&i| Some(i) != last_key));
        match gives_way {
            Some(i) => {
                entries.remove(i);
            }
            None => break,
        }
    }
    let mut lines: Vec<Line> = entries.into_iter().flat_map(|e| e.lines).collect();
    lines.push(Line::styled("press any key to close", theme.dim()).alignment(Alignment::Center));
    // Clipped if the terminal is too short for every line.
    let height = u16::try_from(lines.len() + 2)
        .unwrap_or(u16::MAX)
        .min(area.height);
    let popup = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    let inner = render_window("Keys", theme.key(), popup, buf);
    Paragraph::new(lines).render(inner, buf);
}

/// A key of the help window with its rows (what it does, wrapped), or a
/// blank line.
struct Entry {
    keyed: bool,
    lines: Vec<Line<'static>>,
}
