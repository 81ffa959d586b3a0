//! The help window: the keys of the screen it is opened on, in a full and
//! a compact version. It always ends with how to close it: when the
//! terminal is too short for every key, the last keys give way.

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::widgets::render_window;
use crate::app::Screen;
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

pub(super) fn render_help(screen: Screen, theme: Theme, area: Rect, buf: &mut Buffer) {
    const FULL: [(&str, &str); 15] = [
        ("←↑↓→  h j k l", "move the cursor"),
        ("Enter  Space", "place your mark at the cursor"),
        ("1 … 9", "place on a cell:   1 2 3    a1 b1 c1"),
        ("", "numbered like      4 5 6    a2 b2 c2"),
        ("", "the board          7 8 9    a3 b3 c3"),
        ("", "(1 is top left as on a phone, not a numpad)"),
        ("a1 … c3", "place by name: column a-c, then row 1-3"),
        ("u", "undo your move (and the bot's answer)"),
        ("v", "show each free cell's value: win/draw/loss"),
        ("r", "restart this round; once over: next round"),
        ("Enter", "next round, once the game is over"),
        ("n", "new game: back to set-up"),
        ("?", "show or hide this help"),
        ("q  Ctrl-C", "quit (q twice with scores on the screen)"),
        ("", ""),
    ];
    const COMPACT: [(&str, &str); 12] = [
        ("←↑↓→ hjkl", "move"),
        ("Enter", "place, next round"),
        ("1 … 9", "1 2 3 / 4 5 6 / 7 8 9"),
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
        Screen::Game if area.width >= 64 => (&FULL, 15),
        Screen::Game => (&COMPACT, 10),
    };
    render_keys(rows, key_w, theme, area, buf);
}

/// The help window over `area`: `rows` of keys (in a column `key_w`
/// wide) and what they do, as many as fit, then how to close it. The
/// online screens show theirs with it too.
pub(crate) fn render_keys(
    rows: &[(&str, &str)],
    key_w: usize,
    theme: Theme,
    area: Rect,
    buf: &mut Buffer,
) {
    // Room inside the window, less the closing line.
    let room = usize::from(area.height.saturating_sub(3));
    let mut lines: Vec<Line> = rows
        .iter()
        .take(room)
        .map(|(key, what)| {
            Line::from(vec![
                Span::styled(format!(" {key:<key_w$}"), theme.key()),
                Span::raw(*what),
            ])
        })
        .collect();
    lines.push(Line::styled("press any key to close", theme.dim()).alignment(Alignment::Center));
    let width = area.width.min(64);
    // Clipped if the terminal is too short for every line.
    let height = (lines.len() as u16 + 2).min(area.height);
    let popup = Rect::new(
        area.x + (area.width - width) / 2,
        area.y + (area.height - height) / 2,
        width,
        height,
    );
    let inner = render_window("Keys", theme.key(), popup, buf);
    Paragraph::new(lines).render(inner, buf);
}
