//! The full-screen game's state: which screen shows, the set-up form, the
//! session, the cursor and the messages.
//!
//! Every change is a method named after what the player wants ([`App::play`],
//! [`App::undo`], [`App::next_round`], ...), with no terminal involved: the
//! key bindings (`input`) only pick the method, and the drawing (`ui`) only
//! reads the state. This file holds the state, the screens and the event
//! loop; `turns` holds the intents of a game in progress.

use std::io;
use std::time::{Duration, Instant};

use crossterm::event;
use oxo_core::Square;
use ratatui::DefaultTerminal;

use crate::config::Config;
use crate::form::SetupForm;
use crate::session::Session;
use crate::signals::{self, Watch};
use crate::theme::Theme;

mod turns;

/// How long a bot waits before each move when bots play both marks, so that
/// people can follow the game.
const BOT_PAUSE: Duration = Duration::from_millis(600);

/// How often the event loop looks for signals while no key arrives.
const SIGNAL_CHECK: Duration = Duration::from_millis(100);

/// The smallest terminal width the game draws in: the small board (21
/// columns) with room for the status and a message beside the keys.
pub(crate) const MIN_WIDTH: u16 = 32;
/// The smallest terminal height the game draws in: the small board (8 rows
/// with its column letters), whose turn it is (or the result), a message of
/// up to two rows and one row of keys. Below [`TITLE_HEIGHT`] the title bar
/// gives way to them; the scoreboard, the move list and chat go first.
pub(crate) const MIN_HEIGHT: u16 = 12;
/// The smallest terminal height with the title bar.
pub(crate) const TITLE_HEIGHT: u16 = 13;

/// What `v` says the values shown are, and the short form for a terminal
/// where that does not fit (the small board shows `W3`, `D`, `L2`).
pub(crate) const VALUES_NOTE: &str =
    "Values with perfect play: win/loss in N plies (moves by both), or draw";
/// The short form of [`VALUES_NOTE`].
pub(crate) const VALUES_NOTE_SHORT: &str = "Values: W/L in N plies, D: draw";

/// Which screen is showing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Screen {
    /// The set-up form: names, mode, who starts.
    Setup,
    /// The board.
    Game,
}

/// A window drawn over the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Overlay {
    /// The list of keys (`?`).
    Help,
}

/// How a message reads: news, or a refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Tone {
    /// Something happened: the bot moved, a round began.
    Info,
    /// A move or key was refused; nothing changed.
    Warn,
}

/// A one-line message under the board, until the next key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Message {
    /// How it reads.
    pub(crate) tone: Tone,
    /// What it says.
    pub(crate) text: String,
}

/// A direction to move the cursor in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Direction {
    /// Towards column `a`.
    Left,
    /// Towards column `c`.
    Right,
    /// Towards row 1.
    Up,
    /// Towards row 3.
    Down,
}

impl Direction {
    /// The cell next to `from` this way, wrapping around the board's edge.
    #[must_use]
    pub(crate) fn step(self, from: Square) -> Square {
        let (col, row) = (from.column(), from.row());
        let (col, row) = match self {
            Direction::Left => ((col + 2) % 3, row),
            Direction::Right => ((col + 1) % 3, row),
            Direction::Up => (col, (row + 2) % 3),
            Direction::Down => (col, (row + 1) % 3),
        };
        Square::from_coords(col, row).expect("a column and a row below 3")
    }
}

/// The state of the full-screen game.
///
/// A refused move or key changes nothing but the message, which says why.
#[derive(Debug)]
pub(crate) struct App {
    config: Config,
    theme: Theme,
    screen: Screen,
    form: SetupForm,
    /// The running session; kept while the set-up screen shows, so that `Esc`
    /// goes back to it and a new session with the same players keeps its
    /// scores.
    session: Option<Session>,
    cursor: Square,
    /// A column letter typed (`a`..`c`), waiting for its row digit.
    column: Option<u8>,
    overlay: Option<Overlay>,
    hints: bool,
    message: Option<Message>,
    running: bool,
    /// The terminal's size, as last told (`None` until then).
    size: Option<(u16, u16)>,
    /// In a bots-only game: when the bot to move plays (its pause runs
    /// from its turn, whatever keys arrive meanwhile).
    bot_at: Option<Instant>,
    /// Ctrl-Z was pressed: the loop suspends the game.
    suspend: bool,
    /// `q` was pressed once with scores on the screen: the next `q` quits.
    quit_armed: bool,
}

impl App {
    /// The app for `config`: on the set-up screen if `config.setup`, else in
    /// round 1 (with the bot's first move played if a bot starts).
    #[must_use]
    pub(crate) fn new(config: Config, theme: Theme) -> App {
        let mut app = App {
            form: SetupForm::from_config(&config),
            config,
            theme,
            screen: Screen::Setup,
            session: None,
            cursor: Square::B2,
            column: None,
            overlay: None,
            hints: false,
            message: None,
            running: true,
            size: None,
            bot_at: None,
            suspend: false,
            quit_armed: false,
        };
        if !app.config.setup {
            app.start(app.config.clone());
        }
        app
    }

    /// Runs the game in `terminal` until the player quits: draw (`ui`'s
    /// `impl Widget for &App`), then wait for a key and hand it to
    /// `input`'s [`App::handle_event`] (or, in a bots-only game, wait out the
    /// pause before the next bot move), and again. Between keys it answers
    /// the `signals` (see `signals`): it suspends and resumes with the
    /// terminal restored meanwhile, and ends the process of a terminating
    /// signal once the terminal is restored. Setting the terminal up and
    /// restoring it on a normal exit is the caller's job.
    ///
    /// # Errors
    ///
    /// The terminal could not be drawn to or read from.
    pub(crate) fn run(mut self, terminal: &mut DefaultTerminal, signals: &Watch) -> io::Result<()> {
        let size = terminal.size()?;
        self.resize(size.width, size.height);
        while self.is_running() {
            terminal.draw(|frame| frame.render_widget(&self, frame.area()))?;
            if signals.resumed() {
                terminal.clear()?;
                continue;
            }
            if std::mem::take(&mut self.suspend) {
                signals::suspend();
                continue;
            }
            let now = Instant::now();
            let wait = match self.bot_due(now) {
                Some(due) if due <= now => {
                    self.tick();
                    continue;
                }
                Some(due) => (due - now).min(SIGNAL_CHECK),
                None => SIGNAL_CHECK,
            };
            if event::poll(wait)? {
                self.handle_event(&event::read()?);
            }
        }
        Ok(())
    }

    /// Ctrl-Z: suspend the game (job control), the terminal restored.
    pub(crate) fn suspend(&mut self) {
        self.suspend = true;
    }

    /// The screen showing.
    #[must_use]
    pub(crate) const fn screen(&self) -> Screen {
        self.screen
    }

    /// The theme to draw with.
    #[must_use]
    pub(crate) const fn theme(&self) -> Theme {
        self.theme
    }

    /// The set-up form.
    #[must_use]
    pub(crate) const fn form(&self) -> &SetupForm {
        &self.form
    }

    /// The set-up form, to change it.
    pub(crate) fn form_mut(&mut self) -> &mut SetupForm {
        &mut self.form
    }

    /// The session, once a game has started.
    #[must_use]
    pub(crate) const fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// The cell under the cursor.
    #[must_use]
    pub(crate) const fn cursor(&self) -> Square {
        self.cursor
    }

    /// The column letter typed and waiting for a row (`0` for `a`).
    #[must_use]
    pub(crate) const fn pending_column(&self) -> Option<u8> {
        self.column
    }

    /// The window over the screen, if any.
    #[must_use]
    pub(crate) const fn overlay(&self) -> Option<Overlay> {
        self.overlay
    }

    /// Whether the free cells show their perfect-play values.
    #[must_use]
    pub(crate) const fn hints(&self) -> bool {
        self.hints
    }

    /// The message under the board.
    #[must_use]
    pub(crate) const fn message(&self) -> Option<&Message> {
        self.message.as_ref()
    }

    /// The terminal is now `width`×`height`.
    pub(crate) fn resize(&mut self, width: u16, height: u16) {
        self.size = Some((width, height));
    }

    /// The terminal's size, as last told.
    #[must_use]
    pub(crate) const fn size(&self) -> Option<(u16, u16)> {
        self.size
    }

    /// Whether the terminal is too small to draw the game: then only
    /// quitting and resizing act, so that nothing happens unseen.
    #[must_use]
    pub(crate) fn too_small(&self) -> bool {
        self.size
            .is_some_and(|(w, h)| w < MIN_WIDTH || h < MIN_HEIGHT)
    }

    /// Whether the app goes on (`false` once the player quit).
    #[must_use]
    pub(crate) const fn is_running(&self) -> bool {
        self.running
    }

    /// Whether the game waits on a bot with bots in both seats: the event
    /// loop then calls [`App::tick`] after a pause, so people can watch.
    /// (A bot playing a person answers at once, inside the person's move.)
    /// Not while the board is hidden (the help window over it, or a
    /// terminal too small to draw it): nothing happens unseen.
    #[must_use]
    pub(crate) fn wants_tick(&self) -> bool {
        self.screen == Screen::Game
            && self.overlay.is_none()
            && !self.too_small()
            && self
                .session
                .as_ref()
                .is_some_and(|s| s.bots_only() && s.bot_to_move().is_some())
    }

    /// In a bots-only game, when the bot to move plays: [`BOT_PAUSE`] after
    /// its turn began (the first call that sees the turn), whatever happens
    /// meanwhile; `None` when no bot waits to move.
    pub(crate) fn bot_due(&mut self, now: Instant) -> Option<Instant> {
        if !self.wants_tick() {
            self.bot_at = None;
            return None;
        }
        Some(*self.bot_at.get_or_insert(now + BOT_PAUSE))
    }

    /// Lets a bot move in a bots-only game.
    pub(crate) fn tick(&mut self) {
        self.bot_at = None;
        if self.wants_tick() {
            if let Some(s) = self.session.as_mut() {
                if let Some(played) = s.bot_move() {
                    self.cursor = played.square;
                }
            }
        }
    }

    /// Ends the app.
    pub(crate) fn quit(&mut self) {
        self.running = false;
    }

    /// Starts a new session with `config`'s players, keeping the scores if
    /// the players are the same as before.
    fn start(&mut self, config: Config) {
        let mut session = Session::new(&config);
        if let Some(previous) = &self.session {
            session.carry_scores_from(previous);
        }
        self.config = config;
        self.session = Some(session);
        self.screen = Screen::Game;
        self.overlay = None;
        self.column = None;
        self.cursor = Square::B2;
        self.announce_round(false);
        self.answer();
    }

    /// Starts the game from the set-up form.
    pub(crate) fn start_from_form(&mut self) {
        let config = Config {
            players: self.form.seats(),
            first: self.form.first,
            setup: false,
            ..self.config.clone()
        };
        self.start(config);
    }

    /// Leaves the set-up screen back to the running game, if there is one;
    /// else quits.
    pub(crate) fn leave_setup(&mut self) {
        if self.session.is_some() {
            self.screen = Screen::Game;
            self.form = SetupForm::from_config(&self.config);
        } else {
            self.quit();
        }
    }

    /// Goes back to the set-up screen (`n`). The running game waits there
    /// until a new one starts.
    pub(crate) fn open_setup(&mut self) {
        self.form = SetupForm::from_config(&self.config);
        self.screen = Screen::Setup;
        self.overlay = None;
        self.column = None;
    }

    /// Shows or hides the list of keys (`?`).
    pub(crate) fn toggle_help(&mut self) {
        self.overlay = match self.overlay {
            Some(Overlay::Help) => None,
            None => Some(Overlay::Help),
        };
    }

    /// Closes the help window.
    pub(crate) fn close_overlay(&mut self) {
        self.overlay = None;
    }
}

#[cfg(test)]
impl App {
    /// A game between `x` and `o` (as [`Config::seated`] seats them), in
    /// black and white.
    pub(crate) fn seated(x: &str, o: &str) -> App {
        App::new(Config::seated(x, o), Theme::MONO)
    }

    /// The moves of the current game (none before a game starts).
    pub(crate) fn moves(&self) -> Vec<Square> {
        self.session()
            .map(|s| s.game().moves().to_vec())
            .unwrap_or_default()
    }
}

#[cfg(test)]
mod tests;
