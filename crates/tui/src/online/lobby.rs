//! Drawing the lobby: the title, the tables where the player holds a
//! seat (to open again), the open tables (live), and the message and keys
//! at the bottom. The list scrolls to keep the selection in sight.

use oxo_core::Player;
use oxo_protocol::{LobbyTable, TableStatus};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget, Wrap};

use super::state::{Held, Online};
use super::status::longest_name;
use super::view::{footer, title};
use crate::text::{self, name_room, truncate};

/// The lobby screen: the title, the open tables (scrolled to keep the
/// selection in sight), and the message and the keys at the bottom.
pub(super) fn render_lobby(o: &Online, area: Rect, buf: &mut Buffer) {
    // The title, a blank line, the heading and one table stay above.
    let footer_lines = footer(o, area);
    let footer_h = u16::try_from(footer_lines.len())
        .unwrap_or(u16::MAX)
        .min(area.height.saturating_sub(4));
    let bottom = Rect::new(
        area.x,
        area.bottom().saturating_sub(footer_h),
        area.width,
        footer_h,
    );
    // A blank line between the list and the footer, if there is room.
    let room = bottom.y.saturating_sub(area.y + 4).max(1);
    let mut lines = vec![title(o, area.width), Line::default()];
    lobby(o, usize::from(room), area.width, &mut lines);
    Paragraph::new(lines).wrap(Wrap { trim: false }).render(
        Rect::new(area.x, area.y, area.width, bottom.y - area.y),
        buf,
    );
    Paragraph::new(footer_lines).render(bottom, buf);
}

/// The open tables, and first the tables held (`room` rows at most, those
/// around the selection), one row of `width` columns each.
fn lobby(o: &Online, room: usize, width: u16, lines: &mut Vec<Line<'static>>) {
    let rows: Vec<String> = o
        .held
        .iter()
        .map(|h| held_row(o, h, usize::from(width)))
        .chain(o.open_tables().map(|t| open_row(t, usize::from(width))))
        .collect();
    let first = (o.selected + 1).saturating_sub(room);
    let shown = rows.len().min(first + room);
    let what = if o.held.is_empty() {
        "Open tables"
    } else {
        "Your tables, then open tables"
    };
    let heading = if rows.len() > room {
        format!("{what} ({}-{shown} of {})", first + 1, rows.len())
    } else {
        what.to_owned()
    };
    lines.push(Line::styled(
        heading,
        Style::new().add_modifier(Modifier::BOLD),
    ));
    if rows.is_empty() {
        lines.push(Line::from("  none yet: c creates one, 1-4 plays a bot"));
    }
    for (i, row) in rows.iter().enumerate().skip(first).take(room) {
        let marker = if i == o.selected { "▸ " } else { "  " };
        lines.push(Line::from(truncate(
            &format!("{marker}{row}"),
            usize::from(width),
        )));
    }
}

/// A table status in a lobby row.
fn status_word(status: TableStatus) -> &'static str {
    match status {
        TableStatus::Waiting => "waiting",
        TableStatus::InProgress => "playing",
        TableStatus::RoundOver => "round over",
        TableStatus::Closed => "closed",
    }
}

/// A table where I hold a seat, as the lobby lists it: who sits, and its
/// status, in play whose move it is (its id until its state came); the
/// names cut to fit a row of `width` columns.
fn held_row(o: &Online, h: &Held, width: usize) -> String {
    let Some(t) = &h.state else {
        return format!("yours: table {}", truncate(h.id.as_str(), 12));
    };
    let name = |p: Player, room: usize| {
        t.players[p]
            .as_ref()
            .map_or_else(|| "(free)".to_owned(), |i| truncate(&i.name, room))
    };
    let row = |room: usize| {
        let status = match (t.status, t.turn) {
            (TableStatus::InProgress, Some(turn)) if o.seat_at(t) == Some(turn) => {
                "your move".to_owned()
            }
            (TableStatus::InProgress, Some(turn)) => format!("{} to move", name(turn, room)),
            (status, _) => status_word(status).to_owned(),
        };
        format!(
            "yours: {} vs {}  {status}",
            name(Player::X, room),
            name(Player::O, room)
        )
    };
    row(name_room(longest_name(t).min(20), |room| {
        fits_row(&row(room), width)
    }))
}

/// Whether lobby row `row` fits `width` columns after its marker.
fn fits_row(row: &str, width: usize) -> bool {
    text::width(row) + 2 <= width
}

/// An open table, as the lobby lists it, its names cut to fit a row of
/// `width` columns.
fn open_row(t: &LobbyTable, width: usize) -> String {
    let name = |p: Player, room: usize| {
        t.players[p]
            .as_deref()
            .map_or_else(|| "(free)".to_owned(), |n| truncate(n, room))
    };
    let clock = t
        .options
        .move_time_ms
        .map_or_else(String::new, |ms| format!(", {} s a move", ms / 1000));
    let row = |room: usize| {
        format!(
            "{} vs {}  {}  ({}{clock}, {} watching)",
            name(Player::X, room),
            name(Player::O, room),
            status_word(t.status),
            t.options.starter.describe(),
            t.spectators
        )
    };
    let longest = Player::ALL
        .into_iter()
        .filter_map(|p| t.players[p].as_deref())
        .map(text::width)
        .max()
        .unwrap_or(0);
    // The names and the status first: what follows may be cut.
    let short = |room: usize| {
        let (x, o) = (name(Player::X, room), name(Player::O, room));
        format!("{x} vs {o}  {}", status_word(t.status))
    };
    row(name_room(longest.min(20), |room| {
        fits_row(&short(room), width)
    }))
}
