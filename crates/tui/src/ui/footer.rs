//! The footer: the keys that matter on this screen, the least useful
//! dropped first when the terminal is narrow.

use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::app::{App, Screen};
use crate::form::Field;
use crate::text;

/// One key and what it does, for the footer.
struct KeyHint {
    key: &'static str,
    what: &'static str,
    /// Lower numbers stay longer when the footer is too narrow.
    keep: u8,
}

const fn hint(key: &'static str, what: &'static str, keep: u8) -> KeyHint {
    KeyHint { key, what, keep }
}

fn footer_hints(app: &App) -> Vec<KeyHint> {
    match (app.screen(), app.session()) {
        (Screen::Setup, session) => {
            // ←→ change a choice; a name is typed (and cleared), and the
            // button only starts.
            let field = match app.form().focus {
                Field::Name(_) => Some(hint("Ctrl-U", "clear", 3)),
                Field::Start => None,
                _ => Some(hint("←→", "change", 3)),
            };
            let mut hints = vec![hint("↑↓", "field", 2)];
            hints.extend(field);
            hints.push(hint("Enter", "start", 1));
            hints.push(if session.is_some() {
                hint("Esc", "back", 0)
            } else {
                hint("Esc", "quit", 0)
            });
            hints
        }
        (Screen::Game, Some(s)) if s.game().is_over() => vec![
            // r does the same after a finished round: no need to list it.
            // Where only two fit, the way out outlasts the help.
            hint("Enter", "next round", 0),
            hint("n", "new game", 4),
            hint("?", "keys", 2),
            hint("q", "quit", 1),
        ],
        // Bots in both seats: nobody at the keyboard places or takes back
        // a mark.
        (Screen::Game, Some(s)) if s.bots_only() => vec![
            hint("v", "values", 3),
            hint("r", "restart", 2),
            hint("n", "new game", 4),
            hint("?", "keys", 0),
            hint("q", "quit", 1),
        ],
        (Screen::Game, _) => vec![
            hint("←↑↓→", "move", 2),
            hint("Enter", "place", 3),
            hint("1-9", "cell", 4),
            hint("u", "undo", 5),
            hint("v", "values", 6),
            hint("r", "restart", 7),
            hint("n", "new game", 8),
            hint("?", "keys", 0),
            hint("q", "quit", 1),
        ],
    }
}

pub(super) fn render_footer(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = app.theme();
    let mut hints = footer_hints(app);
    let width = |hints: &[KeyHint]| -> usize {
        hints
            .iter()
            .map(|h| text::width(h.key) + text::width(h.what) + 4)
            .sum()
    };
    while width(&hints) > usize::from(area.width) && hints.len() > 1 {
        if let Some(worst) = (0..hints.len()).max_by_key(|&i| hints[i].keep) {
            hints.remove(worst);
        }
    }
    let mut spans = Vec::new();
    for h in &hints {
        spans.push(Span::styled(format!(" {}", h.key), theme.key()));
        spans.push(Span::styled(format!(" {}  ", h.what), theme.dim()));
    }
    Line::from(spans)
        .alignment(Alignment::Center)
        .render(area, buf);
}
