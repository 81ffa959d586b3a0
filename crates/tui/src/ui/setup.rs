//! The set-up screen: the "OXO" logo over the form (mode, bot level and
//! side, names, who starts, the start button).

use oxo_core::{BotLevel, Player};
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use super::board::Size;
use super::widgets::render_window;
use crate::config::DEFAULT_NAMES;
use crate::form::{Field, Opponent, SetupForm};
use crate::text::{self, truncate};
use crate::theme::Theme;

fn field_label(form: &SetupForm, field: Field) -> &'static str {
    match field {
        Field::Mode => "Mode",
        Field::Level(_) if form.opponent == Opponent::Bot => "Bot",
        Field::Level(Player::X) => "Bot X",
        Field::Level(Player::O) => "Bot O",
        Field::BotSide => "Bot plays",
        Field::Name(_) if form.opponent == Opponent::Bot => "Your name",
        Field::Name(Player::X) => "Name of X",
        Field::Name(Player::O) => "Name of O",
        Field::First => "First move",
        Field::Start => "",
    }
}

fn level_note(level: BotLevel) -> &'static str {
    match level {
        BotLevel::Random => "plays anywhere",
        BotLevel::Easy => "wins when it can",
        BotLevel::Medium => "blocks, sometimes slips",
        BotLevel::Perfect => "never loses",
    }
}

pub(super) fn render_setup(form: &SetupForm, theme: Theme, body: Rect, buf: &mut Buffer) {
    let fields = form.fields();
    let n = fields.len() as u16;
    let roomy = body.height >= 2 * n + 4;
    let height = (if roomy { 2 * n + 4 } else { n + 3 }).min(body.height);
    let width = body.width.min(58);
    // The logo goes above the form when there is room for it.
    let logo = body.height >= height + 5;
    let total = height + if logo { 5 } else { 0 };
    let top = body.y + (body.height - total) / 2;
    if logo {
        render_logo(theme, Rect::new(body.x, top, body.width, 3), buf);
    }
    let area = Rect::new(
        body.x + (body.width - width) / 2,
        if logo { top + 5 } else { top },
        width,
        height,
    );
    let inner = render_window("New game", theme.border(), area, buf);

    // The labels' column, a column narrower in a narrow window; what is
    // right of it keeps a blank column before the border.
    let label_w: usize = if inner.width >= 40 { 12 } else { 11 };
    let room = usize::from(inner.width).saturating_sub(3 + label_w + 1);
    let mut lines = Vec::new();
    if roomy {
        let hint = [
            "Pick the players, then press Enter",
            "Enter starts the game",
        ]
        .into_iter()
        .find(|h| text::width(h) + 2 <= usize::from(inner.width))
        .unwrap_or_default();
        lines.push(Line::styled(hint, theme.dim()).alignment(Alignment::Center));
        lines.push(Line::default());
    }
    for &field in &fields {
        let focused = form.focus == field;
        let marker = if focused { " ▸ " } else { "   " };
        let label_style = if focused { theme.focus() } else { theme.dim() };
        if field == Field::Start {
            let (button, style) = if focused {
                ("[ Start ]", theme.focus().add_modifier(Modifier::REVERSED))
            } else {
                ("[ Start ]", Style::new().add_modifier(Modifier::BOLD))
            };
            let pad = usize::from(inner.width).saturating_sub(9) / 2;
            lines.push(Line::from(vec![
                Span::raw(" ".repeat(pad.saturating_sub(3))),
                Span::styled(marker, theme.focus()),
                Span::styled(button, style),
            ]));
            continue;
        }
        let mut spans = vec![
            Span::styled(marker, theme.focus()),
            Span::styled(
                format!("{:<label_w$}", field_label(form, field)),
                label_style,
            ),
        ];
        if let Field::Name(p) = field {
            spans.extend(name_spans(&form.names[p], p, focused, room, theme));
        } else {
            let (value, note) = match field {
                Field::Mode => match form.opponent {
                    Opponent::Person => ("Two players".to_owned(), "one keyboard"),
                    Opponent::Bot => ("Against a bot".to_owned(), ""),
                    Opponent::Bots => ("Bot against bot".to_owned(), "to watch"),
                },
                Field::Level(p) => (
                    form.levels[p].display_name().to_owned(),
                    level_note(form.levels[p]),
                ),
                Field::BotSide => (
                    form.bot_side.to_string(),
                    form.bot_side.fold_xo("you play O", "you play X"),
                ),
                Field::First => (form.first.describe().to_owned(), ""),
                Field::Name(_) | Field::Start => (String::new(), ""),
            };
            spans.extend(choice_spans(&value, note, focused, room, theme));
        }
        lines.push(Line::from(spans));
        if roomy {
            lines.push(Line::default());
        }
    }
    Paragraph::new(lines).render(inner, buf);
}

/// A choice's value (`◀ value ▶` in focus) and its note in `room`
/// columns: the note goes when it does not fit, then the value is cut.
fn choice_spans(
    value: &str,
    note: &str,
    focused: bool,
    room: usize,
    theme: Theme,
) -> Vec<Span<'static>> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    // "◀ " and " ▶" in focus; else blanks in their place, the one after
    // the value only before a note.
    let value = truncate(value, room.saturating_sub(if focused { 4 } else { 2 }));
    let with_note = !note.is_empty() && text::width(&value) + 4 + 1 + text::width(note) <= room;
    let mut spans = if focused {
        vec![
            Span::styled("◀ ", theme.key()),
            Span::styled(value, bold),
            Span::styled(" ▶", theme.key()),
        ]
    } else if with_note {
        vec![Span::raw(format!("  {value}  "))]
    } else {
        vec![Span::raw(format!("  {value}"))]
    };
    if with_note {
        spans.push(Span::styled(format!(" {note}"), theme.dim()));
    }
    spans
}

/// A name field in `room` columns: the name typed (its end while it is
/// typed, its start otherwise, cut with `…`), the cursor in focus, and
/// the default name when none is typed.
fn name_spans(
    name: &str,
    player: Player,
    focused: bool,
    room: usize,
    theme: Theme,
) -> Vec<Span<'static>> {
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let fit = room.saturating_sub(2 + usize::from(focused));
    let shown = if focused {
        text::truncate_start(name, fit)
    } else {
        truncate(name, fit)
    };
    let mut spans = vec![Span::raw("  "), Span::styled(shown, bold)];
    if focused {
        spans.push(Span::styled(
            " ",
            Style::new().add_modifier(Modifier::REVERSED),
        ));
    }
    if name.is_empty() {
        // The placeholder: the name played under if none is typed.
        spans.push(Span::styled(DEFAULT_NAMES[player], theme.dim()));
    }
    spans
}

/// "OXO" in big marks, centred in `area` (3 rows).
fn render_logo(theme: Theme, area: Rect, buf: &mut Buffer) {
    let o = Size::Medium.glyph(Player::O);
    let x = Size::Medium.glyph(Player::X);
    let width = 5 * 3 + 2 * 2;
    let left = area.x + area.width.saturating_sub(width) / 2;
    for (i, (glyph, player)) in [(o, Player::O), (x, Player::X), (o, Player::O)]
        .into_iter()
        .enumerate()
    {
        for (row, line) in glyph.iter().enumerate() {
            let y = area.y + row as u16;
            if y < area.bottom() {
                buf.set_stringn(
                    left + i as u16 * 7,
                    y,
                    line,
                    usize::from(area.width),
                    theme.mark(player),
                );
            }
        }
    }
}
