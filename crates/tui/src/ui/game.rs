//! The game screen: the board with the scoreboard panel beside it (or a
//! one-line scoreboard under it when the terminal is narrow), and the status
//! lines under the board. The layout picks the largest board that fits.

use oxo_core::{Bitboard, Player, Square};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use super::board::{CellView, Size, render_board};
use super::panel::render_panel;
use crate::app::{App, Tone, VALUES_NOTE, VALUES_NOTE_SHORT};
use crate::session::Session;
use crate::text::{self, truncate};
use crate::theme::Theme;

/// Width of the scoreboard panel beside the board.
const PANEL_WIDTH: u16 = 30;
/// Columns between the board and the panel.
const PANEL_GAP: u16 = 4;

/// Where the parts of the game screen go.
struct GameLayout {
    size: Size,
    /// The board with its labels.
    board: Rect,
    /// The scoreboard panel, or `None` for a one-line scoreboard.
    panel: Option<Rect>,
    /// The status lines (and the one-line scoreboard), centred under the
    /// board.
    status_y: u16,
    /// The horizontal centre of the board.
    center_x: u16,
}

/// The cell drawn at column `x`, row `y` of the game screen's `body`.
pub(super) fn square_at(body: Rect, x: u16, y: u16) -> Option<Square> {
    let layout = game_layout(body);
    let (bw, bh) = layout.size.labelled();
    if layout.board.width < bw || layout.board.height < bh {
        return None;
    }
    Square::ALL.into_iter().find(|&sq| {
        let rect = super::board::cell_rect(layout.size, layout.board, sq);
        rect.contains(ratatui::layout::Position { x, y })
    })
}

fn game_layout(body: Rect) -> GameLayout {
    let options = [
        (Size::Large, true),
        (Size::Medium, true),
        (Size::Large, false),
        (Size::Medium, false),
        (Size::Small, true),
        (Size::Small, false),
    ];
    let fits = |size: Size, panel: bool| {
        let (w, h) = size.labelled();
        let w = if panel {
            w + PANEL_GAP + PANEL_WIDTH
        } else {
            w
        };
        let h = h + 2 + u16::from(!panel);
        w <= body.width && h <= body.height
    };
    let (size, panel) = options
        .into_iter()
        .find(|&(size, panel)| fits(size, panel))
        .unwrap_or((Size::Small, false));
    let (bw, bh) = size.labelled();
    let group_w = if panel {
        bw + PANEL_GAP + PANEL_WIDTH
    } else {
        bw
    };
    let lines_below = 2 + u16::from(!panel);
    let gap = u16::from(bh + lines_below < body.height);
    let group_h = bh + gap + lines_below;
    let x = body.x + body.width.saturating_sub(group_w) / 2;
    let y = body.y + body.height.saturating_sub(group_h) / 2;
    let board = Rect::new(x, y, bw, bh).intersection(body);
    let panel = panel.then(|| {
        Rect::new(x + bw + PANEL_GAP, y + 1, PANEL_WIDTH, bh.saturating_sub(1)).intersection(body)
    });
    GameLayout {
        size,
        board,
        panel,
        status_y: y + bh + gap,
        center_x: x + bw / 2 + 1,
    }
}

pub(super) fn render_game(app: &App, s: &Session, body: Rect, buf: &mut Buffer) {
    let theme = app.theme();
    let layout = game_layout(body);
    let game = s.game();
    let outcome = game.outcome();
    let mut values = [None; 9];
    if app.hints() {
        for h in s.hints() {
            values[usize::from(h.square.index())] = Some(h.value);
        }
    }
    let view = CellView {
        cursor: s.human_to_move().map(|_| app.cursor()),
        last: game.moves().last().copied(),
        win: outcome.map_or(Bitboard::EMPTY, |o| o.cells()),
        over: game.is_over(),
        // Bots in both seats: nobody types a cell's number.
        numbers: !s.bots_only(),
        values,
    };
    render_board(
        game.position().board(),
        &view,
        layout.size,
        layout.board,
        theme,
        buf,
    );
    if let Some(panel) = layout.panel {
        render_panel(s, panel, theme, buf);
    }

    // Status: whose turn or the result, then the message.
    let status = status_line(s, theme, body.width);
    let mut lines = vec![status];
    // The rows left under the status for the message.
    let room = body.bottom().saturating_sub(layout.status_y + 1);
    lines.extend(message_lines(app, s, theme, body.width, room));
    if layout.panel.is_none() {
        lines.push(score_line(s, theme, body.width));
    }
    for (i, line) in lines.into_iter().enumerate() {
        let y = layout.status_y + i as u16;
        if y >= body.bottom() {
            break;
        }
        let w = (line.width() as u16).min(body.width);
        let x = layout
            .center_x
            .saturating_sub(w / 2)
            .clamp(body.x, body.right().saturating_sub(w));
        line.render(Rect::new(x, y, w, 1), buf);
    }
}

fn status_line(s: &Session, theme: Theme, width: u16) -> Line<'static> {
    // Room for the name beside " (X) is thinking…".
    let room = usize::from(width).saturating_sub(17);
    let game = s.game();
    match game.outcome() {
        Some(outcome) => match outcome.winner() {
            Some(winner) => {
                let wins = format!("{} ({winner}) wins!", truncate(s.name(winner), room));
                let cells = format!("  ({})", outcome.cells());
                let mut spans = vec![Span::styled(wins.clone(), theme.result(Some(winner)))];
                // The line's cells, when they fit whole (the board shows
                // them too).
                if text::width(&wins) + text::width(&cells) <= usize::from(width) {
                    spans.push(Span::styled(cells, theme.dim()));
                }
                Line::from(spans)
            }
            None => Line::styled("Draw! Nobody wins this round", theme.result(None)),
        },
        None => {
            let player = game.position().turn();
            let verb = if s.is_bot(player) {
                " is thinking…"
            } else {
                " to move"
            };
            Line::from(vec![
                Span::styled(
                    truncate(s.name(player), room),
                    Style::new().add_modifier(Modifier::BOLD),
                ),
                Span::raw(" ("),
                Span::styled(player.to_string(), theme.mark(player)),
                Span::raw(")"),
                Span::raw(verb),
            ])
        }
    }
}

/// The message under the status, in lines of at most `width` columns
/// (wrapped at spaces); the values note in its short form when the long
/// one would take more than `room` rows.
fn message_lines(
    app: &App,
    s: &Session,
    theme: Theme,
    width: u16,
    room: u16,
) -> Vec<Line<'static>> {
    let (text, style) = if let Some(col) = app.pending_column() {
        let letter = char::from(b'a' + col);
        (format!("{letter}… now the row: 1, 2 or 3"), theme.info())
    } else {
        match app.message() {
            Some(m) if m.tone == Tone::Warn => (m.text.clone(), theme.warn()),
            _ if s.game().is_over() => (
                "Enter or r: next round · n: new game".to_owned(),
                theme.info(),
            ),
            Some(m) => (m.text.clone(), theme.info()),
            None if app.hints() => (VALUES_NOTE.to_owned(), theme.info()),
            None => return vec![Line::default()],
        }
    };
    let fits = |text: &str| wrap(text, usize::from(width)).len() <= usize::from(room.max(1));
    let text = if text == VALUES_NOTE && !fits(&text) {
        VALUES_NOTE_SHORT.to_owned()
    } else {
        text
    };
    wrap(&text, usize::from(width))
        .into_iter()
        .map(|line| Line::styled(line, style))
        .collect()
}

/// `text` in lines of at most `width` columns, broken at spaces (a word
/// longer than a line is cut).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().expect("one line at least");
        let need =
            crate::text::width(line) + usize::from(!line.is_empty()) + crate::text::width(word);
        if need <= width || line.is_empty() {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(&truncate(word, width));
        } else {
            lines.push(truncate(word, width));
        }
    }
    lines
}

/// `X NAME N  O NAME N  draws N` in `width` columns: the names are cut
/// (with `…`) to make room, never a score.
fn score_line(s: &Session, theme: Theme, width: u16) -> Line<'static> {
    let scores = s.scores();
    let (x, o, draws) = (
        scores.x.to_string(),
        scores.o.to_string(),
        format!("draws {}", scores.draws),
    );
    // "X " + name + " " + x + "  " + "O " + name + " " + o + "  " + draws
    let fixed = 2 + 1 + x.len() + 2 + 2 + 1 + o.len() + 2 + draws.len();
    let room = usize::from(width).saturating_sub(fixed);
    let name = |p: Player| truncate(s.name(p), room / 2);
    Line::from(vec![
        Span::styled(Player::X.to_string(), theme.mark(Player::X)),
        Span::raw(format!(" {} {x}  ", name(Player::X))),
        Span::styled(Player::O.to_string(), theme.mark(Player::O)),
        Span::raw(format!(" {} {o}  ", name(Player::O))),
        Span::styled(draws, theme.dim()),
    ])
}
