//! The board: grid lines, row and column labels, and the cells with their
//! marks (big glyphs in the larger sizes), the cursor, the winning line and
//! the perfect-play values.

use oxo_core::{Bitboard, Board, Player, Square, Value};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};

use crate::theme::Theme;

/// How big the board is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Size {
    /// 13×5 cells with 9×5 marks.
    Large,
    /// 9×3 cells with 5×3 marks.
    Medium,
    /// 5×1 cells with one-letter marks.
    Small,
}

impl Size {
    /// Largest first.
    pub(crate) const ALL: [Size; 3] = [Size::Large, Size::Medium, Size::Small];

    /// One cell's width and height.
    pub(crate) const fn cell(self) -> (u16, u16) {
        match self {
            Size::Large => (13, 5),
            Size::Medium => (9, 3),
            Size::Small => (5, 1),
        }
    }

    /// The board with its grid lines and its row and column labels.
    pub(crate) const fn labelled(self) -> (u16, u16) {
        let (w, h) = self.cell();
        (3 * w + 4 + 2, 3 * h + 4 + 1)
    }

    pub(super) fn glyph(self, player: Player) -> &'static [&'static str] {
        match (self, player) {
            (Size::Large, Player::X) => &[
                "╲       ╱",
                "  ╲   ╱  ",
                "    ╳    ",
                "  ╱   ╲  ",
                "╱       ╲",
            ],
            (Size::Large, Player::O) => &[
                "  ╭───╮  ",
                " ╱     ╲ ",
                "│       │",
                " ╲     ╱ ",
                "  ╰───╯  ",
            ],
            (Size::Medium, Player::X) => &["╲   ╱", "  ╳  ", "╱   ╲"],
            (Size::Medium, Player::O) => &["╭───╮", "│   │", "╰───╯"],
            (Size::Small, Player::X) => &["X"],
            (Size::Small, Player::O) => &["O"],
        }
    }
}

/// Everything the cells need to know to draw themselves.
pub(crate) struct CellView {
    /// The cell under the cursor, when a move can be chosen.
    pub(crate) cursor: Option<Square>,
    /// The last move, marked so that a bot's reply shows without reading
    /// the message line.
    pub(crate) last: Option<Square>,
    /// The winning line's cells.
    pub(crate) win: Bitboard,
    /// Whether the round is over: empty cells stay blank, and the marks
    /// off the winning line dim.
    pub(crate) over: bool,
    /// Whether empty cells show the numbers that play them: not to someone
    /// who cannot move there (a spectator, or people watching two bots).
    pub(crate) numbers: bool,
    /// The perfect-play values shown in empty cells.
    pub(crate) values: [Option<Value>; 9],
}

/// Draws `marks` as a board of `size` in `area` (see [`Size::labelled`]).
pub(crate) fn render_board(
    marks: &Board,
    view: &CellView,
    size: Size,
    area: Rect,
    theme: Theme,
    buf: &mut Buffer,
) {
    let (cw, ch) = size.cell();
    let (bw, bh) = size.labelled();
    if area.width < bw || area.height < bh {
        return;
    }
    let gx = area.x + 2; // the grid, right of the row labels
    let gy = area.y + 1; // below the column labels
    let border = theme.border();
    let dim = theme.dim();

    // Column labels and row labels.
    for i in 0..3u16 {
        let label = char::from(b'a' + i as u8).to_string();
        buf.set_string(gx + 1 + i * (cw + 1) + cw / 2, area.y, label, dim);
        let row = char::from(b'1' + i as u8).to_string();
        buf.set_string(area.x, gy + 1 + i * (ch + 1) + ch / 2, row, dim);
    }

    // Grid lines.
    let horizontal = |left: &str, mid: &str, right: &str| {
        let seg = "─".repeat(usize::from(cw));
        format!("{left}{seg}{mid}{seg}{mid}{seg}{right}")
    };
    buf.set_string(gx, gy, horizontal("╭", "┬", "╮"), border);
    for r in 0..3u16 {
        let top = gy + 1 + r * (ch + 1);
        for dy in 0..ch {
            for c in 0..4u16 {
                buf.set_string(gx + c * (cw + 1), top + dy, "│", border);
            }
        }
        let sep = if r < 2 {
            horizontal("├", "┼", "┤")
        } else {
            horizontal("╰", "┴", "╯")
        };
        buf.set_string(gx, top + ch, sep, border);
    }

    // Cells.
    for sq in Square::ALL {
        let rect = cell_rect(size, area, sq);
        render_cell(marks.get(sq), view, size, sq, rect, theme, buf);
    }
}

/// Where `sq` is drawn when a board of `size` is drawn in `area`.
pub(crate) fn cell_rect(size: Size, area: Rect, sq: Square) -> Rect {
    let (cw, ch) = size.cell();
    // The grid starts right of the row labels and below the column labels.
    let (gx, gy) = (area.x + 2, area.y + 1);
    Rect::new(
        gx + 1 + u16::from(sq.column()) * (cw + 1),
        gy + 1 + u16::from(sq.row()) * (ch + 1),
        cw,
        ch,
    )
}

fn render_cell(
    mark: Option<Player>,
    view: &CellView,
    size: Size,
    sq: Square,
    rect: Rect,
    theme: Theme,
    buf: &mut Buffer,
) {
    let winning = view.win.contains(sq);
    if winning {
        buf.set_style(rect, theme.win());
    } else if view.cursor == Some(sq) {
        buf.set_style(rect, theme.cursor());
    }
    let centered = |text: &str, row: u16| {
        let w = u16::try_from(crate::text::width(text)).unwrap_or(u16::MAX);
        (rect.x + rect.width.saturating_sub(w) / 2, rect.y + row)
    };
    match mark {
        Some(player) => {
            let mut style = if winning {
                theme.win()
            } else {
                theme.mark(player)
            };
            if view.over && !view.win.is_empty() && !winning {
                style = style.add_modifier(Modifier::DIM);
            }
            if view.last == Some(sq) {
                style = style.add_modifier(Modifier::BOLD);
                // A dot in the cell's top right corner, inside its border.
                buf.set_string(rect.right().saturating_sub(2), rect.y, "•", style);
            }
            for (row, line) in size.glyph(player).iter().enumerate() {
                let (x, y) = centered(line, row as u16);
                // Spaces keep the background of the cell (cursor or win).
                for (i, c) in line.chars().enumerate() {
                    if c != ' ' {
                        buf.set_string(x + i as u16, y, c.to_string(), style);
                    }
                }
            }
        }
        None if view.over => {}
        None => {
            let mid = rect.height / 2;
            match view.values[usize::from(sq.index())] {
                Some(value) => {
                    let text = match size {
                        Size::Small => short_value(value),
                        Size::Medium | Size::Large => value.to_string(),
                    };
                    let (x, y) = centered(&text, mid);
                    buf.set_string(x, y, text, theme.value(value));
                }
                None if !view.numbers => {}
                None => {
                    let text = sq.number().to_string();
                    let (x, y) = centered(&text, mid);
                    let style = if view.cursor == Some(sq) {
                        Style::new().add_modifier(Modifier::BOLD)
                    } else {
                        theme.dim()
                    };
                    buf.set_string(x, y, text, style);
                }
            }
        }
    }
}

/// A value in at most three characters: `W3`, `D`, `L2`.
fn short_value(value: Value) -> String {
    match value {
        Value::Win(n) => format!("W{n}"),
        Value::Draw(_) => "D".to_owned(),
        Value::Loss(n) => format!("L{n}"),
    }
}
