//! Drawing: `impl Widget for &App`, one `render_*` helper per part of the
//! screen, one file per screen. Nothing here changes the app.
//!
//! The title bar and the footer frame every screen; between them goes the
//! set-up form (`setup`) or the game (`game`: the `board`, the scoreboard
//! `panel` and the status lines), and the `help` window goes over either.
//! Below [`TITLE_HEIGHT`] rows the title bar gives way to the body; below
//! [`MIN_WIDTH`]×[`MIN_HEIGHT`] the screen only says that the terminal is
//! too small.

use oxo_core::Player;
use ratatui::buffer::Buffer;
use ratatui::layout::{Alignment, Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};

use crate::app::{App, MIN_HEIGHT, MIN_WIDTH, Overlay, Screen, TITLE_HEIGHT};
use crate::session::Session;
use crate::text::{self, truncate};
use crate::theme::Theme;

use footer::render_footer;
use game::render_game;
use help::render_help;
pub(crate) use help::render_keys;
use setup::render_setup;

pub(crate) mod board;
mod footer;
mod game;
mod help;
mod panel;
mod setup;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_small;
mod widgets;

/// The cell of the game screen at column `x`, row `y` of a terminal of
/// `area` (for mouse clicks), if a cell is drawn there.
pub(crate) fn square_at(area: Rect, x: u16, y: u16) -> Option<oxo_core::Square> {
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        return None;
    }
    let [_, body, _] = screen_parts(area);
    game::square_at(body, x, y)
}

/// The title bar (none below [`TITLE_HEIGHT`] rows), the body and the
/// footer of the screen.
fn screen_parts(area: Rect) -> [Rect; 3] {
    Layout::vertical([
        Constraint::Length(u16::from(area.height >= TITLE_HEIGHT)),
        Constraint::Fill(1),
        Constraint::Length(1),
    ])
    .areas(area)
}

impl Widget for &App {
    fn render(self, area: Rect, buf: &mut Buffer) {
        if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
            render_too_small(area, buf, self.theme());
            return;
        }
        let [title, body, footer] = screen_parts(area);
        if !title.is_empty() {
            render_title(self, title, buf);
        }
        match self.screen() {
            Screen::Setup => render_setup(self.form(), self.theme(), body, buf),
            Screen::Game => {
                if let Some(session) = self.session() {
                    render_game(self, session, body, buf);
                }
            }
        }
        render_footer(self, footer, buf);
        if self.overlay() == Some(Overlay::Help) {
            let bots_only = self.session().is_some_and(|s| s.bots_only());
            render_help(self.screen(), bots_only, self.theme(), area, buf);
        }
    }
}

/// Says that the terminal is too small (below [`MIN_WIDTH`]×[`MIN_HEIGHT`]),
/// that `q` quits, and how big it must be: offline and online alike. Each
/// line is wrapped between words; when they do not all fit, the sizes go
/// first, then the heading, and at the last a short "q quits" stays.
pub(crate) fn render_too_small(area: Rect, buf: &mut Buffer, theme: Theme) {
    let sizes = format!(
        "need {MIN_WIDTH}×{MIN_HEIGHT}, have {}×{}",
        area.width, area.height
    );
    // In reading order, each with its rank: lower ranks stay longer.
    let parts = [
        (1, "Terminal too small", theme.warn()),
        (0, "enlarge it, or press q", theme.dim()),
        (2, sizes.as_str(), Style::new()),
    ];
    let width = usize::from(area.width);
    let fitting = (0..parts.len()).rev().find_map(|dropped| {
        let rows: Vec<Line> = parts
            .iter()
            .filter(|(rank, _, _)| *rank <= dropped)
            .flat_map(|&(_, text, style)| {
                text::wrap(text, width)
                    .into_iter()
                    .map(move |row| Line::styled(row, style))
            })
            .collect();
        (rows.len() <= usize::from(area.height)).then_some(rows)
    });
    let rows = fitting.unwrap_or_else(|| vec![Line::styled("q quits", theme.dim())]);
    let height = u16::try_from(rows.len())
        .unwrap_or(u16::MAX)
        .min(area.height);
    let y = area.y + area.height.saturating_sub(height) / 2;
    Paragraph::new(rows)
        .alignment(Alignment::Center)
        .render(Rect::new(area.x, y, area.width, height), buf);
}

/// `· X's name (X) vs O's name (O)` in `room` columns when it can: the
/// longer names are cut first (with `…`), so that both players and their
/// marks show.
fn players(s: &Session, room: usize) -> String {
    let said = |max: usize| {
        format!(
            "· {} vs {}",
            s.label_within(Player::X, max),
            s.label_within(Player::O, max)
        )
    };
    let mark = text::width(" (X)");
    let longest = Player::ALL
        .into_iter()
        .map(|p| text::width(s.name(p)))
        .max()
        .unwrap_or(0);
    said(text::name_room(longest, |name| text::width(&said(name + mark)) <= room) + mark)
}

fn render_title(app: &App, area: Rect, buf: &mut Buffer) {
    let theme = app.theme();
    buf.set_style(area, theme.title_bar());
    let right = match (app.screen(), app.session()) {
        (Screen::Game, Some(s)) => format!("Round {} ", s.round()),
        _ => "New game ".to_owned(),
    };
    let right_width = u16::try_from(text::width(&right)).unwrap_or(u16::MAX);
    let room = usize::from(area.width.saturating_sub(right_width + 6));
    let subtitle = match (app.screen(), app.session()) {
        (Screen::Game, Some(s)) => players(s, room),
        _ => "· tic-tac-toe".to_owned(),
    };
    Line::from(vec![
        Span::styled(" oxo ", theme.title_bar().add_modifier(Modifier::BOLD)),
        Span::raw(truncate(&subtitle, room)),
    ])
    .render(area, buf);
    Line::from(right)
        .alignment(Alignment::Right)
        .render(area, buf);
}
