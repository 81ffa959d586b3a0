//! Colours and text attributes, with a monochrome fallback.
//!
//! The colour theme uses only the 16 basic ANSI colours, which every colour
//! terminal shows (and maps to its own palette). The monochrome theme, used
//! when `NO_COLOR` is set (<https://no-color.org>) or `TERM=dumb`, draws the
//! same screens with bold, dim, underline and reverse video only, so the
//! cursor and the winning line stay visible without colour.

use oxo_core::{Player, Value};
use ratatui::style::{Color, Modifier, Style};

/// The styles of every part of the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Theme {
    color: bool,
}

impl Default for Theme {
    fn default() -> Theme {
        Theme::COLOR
    }
}

impl Theme {
    /// The colour theme.
    pub(crate) const COLOR: Theme = Theme { color: true };
    /// The theme without colours, for `NO_COLOR`.
    pub(crate) const MONO: Theme = Theme { color: false };

    /// [`Theme::MONO`] if the environment asks for no colour (`NO_COLOR` set
    /// and not empty, or `TERM=dumb`), else [`Theme::COLOR`].
    #[must_use]
    pub(crate) fn from_env() -> Theme {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        if no_color || dumb {
            Theme::MONO
        } else {
            Theme::COLOR
        }
    }

    /// `color` in the colour theme, `mono` in the monochrome one.
    const fn pick(self, color: Style, mono: Style) -> Style {
        if self.color { color } else { mono }
    }

    fn fg(self, color: Color) -> Style {
        self.pick(Style::new().fg(color), Style::new())
    }

    /// A player's mark.
    #[must_use]
    pub(crate) fn mark(self, player: Player) -> Style {
        self.fg(player.fold_xo(Color::Cyan, Color::Magenta))
            .add_modifier(Modifier::BOLD)
    }

    /// The cell under the cursor.
    #[must_use]
    pub(crate) fn cursor(self) -> Style {
        self.pick(Style::new().on_dark_gray(), Style::new().reversed())
    }

    /// A cell of the winning line (background and mark).
    #[must_use]
    pub(crate) fn win(self) -> Style {
        self.pick(
            Style::new().on_green().black().bold(),
            Style::new().reversed().bold(),
        )
    }

    /// Less important text: labels, cell numbers, key descriptions.
    #[must_use]
    pub(crate) fn dim(self) -> Style {
        self.pick(Style::new().dark_gray(), Style::new().dim())
    }

    /// Grid lines and panel borders.
    #[must_use]
    pub(crate) fn border(self) -> Style {
        self.fg(Color::Gray)
    }

    /// A key name in the footer and the help.
    #[must_use]
    pub(crate) fn key(self) -> Style {
        self.fg(Color::Yellow).add_modifier(Modifier::BOLD)
    }

    /// The title bar.
    #[must_use]
    pub(crate) fn title_bar(self) -> Style {
        self.pick(Style::new().on_blue().white(), Style::new().reversed())
    }

    /// A refused move or command.
    #[must_use]
    pub(crate) fn warn(self) -> Style {
        self.fg(Color::Red).add_modifier(Modifier::BOLD)
    }

    /// News: the bot's move, a new round.
    #[must_use]
    pub(crate) fn info(self) -> Style {
        self.fg(Color::Gray)
    }

    /// The focused field of the set-up screen.
    #[must_use]
    pub(crate) fn focus(self) -> Style {
        self.pick(
            Style::new().yellow().bold(),
            Style::new().bold().underlined(),
        )
    }

    /// The result line: a win or a draw.
    #[must_use]
    pub(crate) fn result(self, winner: Option<Player>) -> Style {
        match winner {
            Some(player) => self.mark(player),
            None => self.fg(Color::Yellow).add_modifier(Modifier::BOLD),
        }
    }

    /// A perfect-play value shown in a free cell: green for a win, yellow for
    /// a draw, red for a loss.
    #[must_use]
    pub(crate) fn value(self, value: Value) -> Style {
        let style = match value {
            Value::Win(_) => self.fg(Color::Green),
            Value::Draw(_) => self.fg(Color::Yellow),
            Value::Loss(_) => self.fg(Color::Red),
        };
        if self.color {
            style
        } else {
            match value {
                Value::Win(_) => style.add_modifier(Modifier::BOLD),
                Value::Draw(_) => style,
                Value::Loss(_) => style.add_modifier(Modifier::DIM),
            }
        }
    }
}
