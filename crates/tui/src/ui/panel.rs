//! The scoreboard panel beside the board: wins and draws, who is to move,
//! and this round's starter and moves.

use oxo_core::Player;
use ratatui::buffer::Buffer;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Padding, Paragraph, Widget};

use super::widgets::titled_block;
use crate::session::Session;
use crate::text::{self, truncate};
use crate::theme::Theme;

pub(super) fn render_panel(s: &Session, area: Rect, theme: Theme, buf: &mut Buffer) {
    let [scores_area, round_area] =
        Layout::vertical([Constraint::Length(5), Constraint::Fill(1)]).areas(area);

    // Scoreboard.
    let block = titled_block("Scoreboard", theme.border()).padding(Padding::horizontal(1));
    let inner = block.inner(scores_area);
    block.render(scores_area, buf);
    let to_move = s.game().to_move();
    let width = usize::from(inner.width);
    let row = |marker: &str, mark: Option<Player>, name: &str, n: u32| -> Line<'static> {
        let count = n.to_string();
        let name_room = width.saturating_sub(5 + count.len() + 1);
        let name = truncate(name, name_room);
        let pad = width.saturating_sub(5 + text::width(&name) + count.len());
        let mark_span = match mark {
            Some(p) => Span::styled(p.to_string(), theme.mark(p)),
            None => Span::raw(" "),
        };
        Line::from(vec![
            Span::styled(format!("{marker} "), theme.key()),
            mark_span,
            Span::raw("  "),
            Span::raw(name),
            Span::raw(" ".repeat(pad)),
            Span::styled(count, Style::new().add_modifier(Modifier::BOLD)),
        ])
    };
    let marker = |p: Player| if to_move == Some(p) { "▶" } else { " " };
    let scores = s.scores();
    let lines = vec![
        row(
            marker(Player::X),
            Some(Player::X),
            s.name(Player::X),
            scores.x,
        ),
        row(
            marker(Player::O),
            Some(Player::O),
            s.name(Player::O),
            scores.o,
        ),
        row(" ", None, "Draws", scores.draws),
    ];
    Paragraph::new(lines).render(inner, buf);

    // This round: who started, and the moves.
    if round_area.height < 3 {
        return;
    }
    let block = titled_block(&format!("Round {}", s.round()), theme.border())
        .padding(Padding::horizontal(1));
    let inner = block.inner(round_area);
    block.render(round_area, buf);
    let game = s.game();
    let first = game.first();
    let lead = if s.tossed() { "Coin toss: " } else { "First: " };
    let room = usize::from(inner.width).saturating_sub(text::width(lead));
    let mut lines = vec![Line::from(vec![
        Span::styled(lead, theme.dim()),
        Span::raw(s.label_within(first, room)),
    ])];
    let moves = game.moves();
    if !moves.is_empty() {
        lines.push(Line::default());
    }
    let mut move_lines = Vec::new();
    for (turn, pair) in moves.chunks(2).enumerate() {
        let mut spans = vec![Span::styled(format!("{:>2}.", turn + 1), theme.dim())];
        for (i, sq) in pair.iter().enumerate() {
            let player = game.player_of_ply(turn * 2 + i);
            spans.push(Span::raw("  "));
            spans.push(Span::styled(player.to_string(), theme.mark(player)));
            spans.push(Span::raw(format!(" {sq}")));
        }
        move_lines.push(Line::from(spans));
    }
    // Keep the latest moves when the panel is short.
    let room = usize::from(inner.height).saturating_sub(lines.len());
    let skip = move_lines.len().saturating_sub(room);
    lines.extend(move_lines.into_iter().skip(skip));
    Paragraph::new(lines).render(inner, buf);
}
