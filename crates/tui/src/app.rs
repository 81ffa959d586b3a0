//! The full-screen game's state: which screen shows, the set-up form, the
//! session, the cursor and the messages.
//!
//! Every change is a method named after what the player wants ([`App::play`],
//! [`App::undo`], [`App::next_round`], ...), with no terminal involved: the
//! key bindings in [`crate::input`] only pick the method, and the drawing in
//! [`crate::ui`] only reads the state.

use std::io;
use std::time::Duration;

use crossterm::event;
use oxo_core::{BotLevel, ByPlayer, Player, Square, Starter};
use ratatui::DefaultTerminal;

use oxo_protocol::limits::MAX_NAME_CHARS;

use crate::config::{Config, DEFAULT_NAMES, Seat, check_name};
use crate::session::{Refusal, Session};
use crate::theme::Theme;

/// How long a bot waits before each move when bots play both marks, so that
/// people can follow the game.
const BOT_PAUSE: Duration = Duration::from_millis(600);

/// Which screen is showing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Screen {
    /// The set-up form: names, mode, who starts.
    Setup,
    /// The board.
    Game,
}

/// A window drawn over the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Overlay {
    /// The list of keys (`?`).
    Help,
}

/// How a message reads: news, or a refusal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Tone {
    /// Something happened: the bot moved, a round began.
    Info,
    /// A move or key was refused; nothing changed.
    Warn,
}

/// A one-line message under the board, until the next key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Message {
    /// How it reads.
    pub tone: Tone,
    /// What it says.
    pub text: String,
}

/// A direction to move the cursor in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Towards column `a`.
    Left,
    /// Towards column `c`.
    Right,
    /// Towards row 1.
    Up,
    /// Towards row 3.
    Down,
}

/// Who the person at the keyboard plays against, on the set-up screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Opponent {
    /// Another person at the same keyboard.
    Person,
    /// A bot.
    Bot,
}

/// A field of the set-up form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// Two people or against a bot.
    Mode,
    /// The bot's strength.
    Level,
    /// Which mark the bot plays.
    BotSide,
    /// The name of the person playing this mark.
    Name(Player),
    /// Who starts each round.
    First,
    /// The start button.
    Start,
}

/// The set-up form. It starts from the last [`Config`], so `n` brings back
/// the choices of the running game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupForm {
    /// Two people or against a bot.
    pub opponent: Opponent,
    /// The bot's strength.
    pub level: BotLevel,
    /// The mark the bot plays.
    pub bot_side: Player,
    /// The names typed so far for each mark (the bot's is not used).
    pub names: ByPlayer<String>,
    /// Who starts each round.
    pub first: Starter,
    /// The field with the focus.
    pub focus: Field,
}

impl SetupForm {
    /// The form showing `config`'s choices.
    #[must_use]
    pub fn from_config(config: &Config) -> SetupForm {
        let human_name = |seat: &Seat, p: Player| match seat {
            Seat::Human(name) => name.clone(),
            Seat::Bot(_) => DEFAULT_NAMES[p].to_owned(),
        };
        let names = ByPlayer::new_with(|p| human_name(&config.players[p], p));
        let (opponent, level, bot_side) = match (&config.players.x, &config.players.o) {
            (Seat::Human(_), Seat::Human(_)) => (Opponent::Person, BotLevel::Perfect, Player::O),
            (Seat::Bot(level), Seat::Human(_)) => (Opponent::Bot, *level, Player::X),
            (_, Seat::Bot(level)) => (Opponent::Bot, *level, Player::O),
        };
        SetupForm {
            opponent,
            level,
            bot_side,
            names,
            first: config.first,
            focus: Field::Mode,
        }
    }

    /// The fields shown for the chosen mode, top to bottom.
    #[must_use]
    pub fn fields(&self) -> Vec<Field> {
        match self.opponent {
            Opponent::Person => vec![
                Field::Mode,
                Field::Name(Player::X),
                Field::Name(Player::O),
                Field::First,
                Field::Start,
            ],
            Opponent::Bot => vec![
                Field::Mode,
                Field::Level,
                Field::BotSide,
                Field::Name(!self.bot_side),
                Field::First,
                Field::Start,
            ],
        }
    }

    /// Moves the focus to the next field (`forward`) or the previous one,
    /// wrapping around.
    pub fn focus_next(&mut self, forward: bool) {
        let fields = self.fields();
        let n = fields.len();
        let at = fields.iter().position(|&f| f == self.focus).unwrap_or(0);
        self.focus = fields[if forward {
            (at + 1) % n
        } else {
            (at + n - 1) % n
        }];
    }

    /// Changes the focused choice to the next (`forward`) or previous option;
    /// does nothing on a name or the start button.
    pub fn cycle(&mut self, forward: bool) {
        fn step<T: Copy + PartialEq>(all: &[T], now: T, forward: bool) -> T {
            let n = all.len();
            let at = all.iter().position(|&x| x == now).unwrap_or(0);
            all[if forward {
                (at + 1) % n
            } else {
                (at + n - 1) % n
            }]
        }
        match self.focus {
            Field::Mode => {
                self.opponent = match self.opponent {
                    Opponent::Person => Opponent::Bot,
                    Opponent::Bot => Opponent::Person,
                };
            }
            Field::Level => self.level = step(&BotLevel::ALL, self.level, forward),
            Field::BotSide => self.bot_side = !self.bot_side,
            Field::First => self.first = step(&Starter::ALL, self.first, forward),
            Field::Name(_) | Field::Start => {}
        }
    }

    /// Types `c` into the focused name (up to [`MAX_NAME_CHARS`] characters,
    /// no control characters). Returns whether a name took it.
    pub fn type_char(&mut self, c: char) -> bool {
        let Field::Name(p) = self.focus else {
            return false;
        };
        let name = &mut self.names[p];
        if !c.is_control() && name.chars().count() < MAX_NAME_CHARS {
            name.push(c);
        }
        true
    }

    /// Deletes the last character of the focused name.
    pub fn backspace(&mut self) {
        if let Field::Name(p) = self.focus {
            self.names[p].pop();
        }
    }

    /// The seats chosen: empty names become `Player 1` / `Player 2`.
    #[must_use]
    pub fn seats(&self) -> ByPlayer<Seat> {
        ByPlayer::new_with(|p| {
            if self.opponent == Opponent::Bot && p == self.bot_side {
                Seat::Bot(self.level)
            } else {
                Seat::Human(
                    check_name(&self.names[p]).unwrap_or_else(|_| DEFAULT_NAMES[p].to_owned()),
                )
            }
        })
    }
}

/// The state of the full-screen game.
///
/// ```
/// use oxo_core::Square;
/// use oxo_tui::{App, Config, Screen, Theme};
///
/// let mut app = App::new(Config { setup: false, seed: Some(1), ..Config::default() }, Theme::MONO);
/// assert_eq!(app.screen(), Screen::Game);
/// app.play(Square::B2);
/// app.play(Square::B2); // refused: the message says so, nothing changes
/// assert_eq!(app.session().map(|s| s.game().moves().len()), Some(1));
/// assert!(app.message().is_some_and(|m| m.text.contains("already taken")));
/// ```
#[derive(Debug)]
pub struct App {
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
}

impl App {
    /// The app for `config`: on the set-up screen if `config.setup`, else in
    /// round 1 (with the bot's first move played if a bot starts).
    #[must_use]
    pub fn new(config: Config, theme: Theme) -> App {
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
        };
        if !app.config.setup {
            app.start(app.config.clone());
        }
        app
    }

    /// Runs the game in `terminal` until the player quits: draw, then wait
    /// for a key (or, in a bots-only game, for the pause before the next
    /// bot move), and again.
    ///
    /// # Errors
    ///
    /// The terminal could not be drawn to or read from.
    pub fn run(mut self, terminal: &mut DefaultTerminal) -> io::Result<()> {
        while self.running {
            terminal.draw(|frame| frame.render_widget(&self, frame.area()))?;
            if self.wants_tick() && !event::poll(BOT_PAUSE)? {
                self.tick();
                continue;
            }
            self.handle_event(&event::read()?);
        }
        Ok(())
    }

    /// The screen showing.
    #[must_use]
    pub const fn screen(&self) -> Screen {
        self.screen
    }

    /// The theme to draw with.
    #[must_use]
    pub const fn theme(&self) -> Theme {
        self.theme
    }

    /// The set-up form.
    #[must_use]
    pub const fn form(&self) -> &SetupForm {
        &self.form
    }

    /// The set-up form, to change it.
    pub fn form_mut(&mut self) -> &mut SetupForm {
        &mut self.form
    }

    /// The session, once a game has started.
    #[must_use]
    pub const fn session(&self) -> Option<&Session> {
        self.session.as_ref()
    }

    /// The cell under the cursor.
    #[must_use]
    pub const fn cursor(&self) -> Square {
        self.cursor
    }

    /// The column letter typed and waiting for a row (`0` for `a`).
    #[must_use]
    pub const fn pending_column(&self) -> Option<u8> {
        self.column
    }

    /// The window over the screen, if any.
    #[must_use]
    pub const fn overlay(&self) -> Option<Overlay> {
        self.overlay
    }

    /// Whether the free cells show their perfect-play values.
    #[must_use]
    pub const fn hints(&self) -> bool {
        self.hints
    }

    /// The message under the board.
    #[must_use]
    pub const fn message(&self) -> Option<&Message> {
        self.message.as_ref()
    }

    /// Whether the app goes on (`false` once the player quit).
    #[must_use]
    pub const fn is_running(&self) -> bool {
        self.running
    }

    /// Whether the game waits on a bot with bots in both seats: the event
    /// loop then calls [`App::tick`] after a pause, so people can watch.
    /// (A bot playing a person answers at once, inside the person's move.)
    #[must_use]
    pub fn wants_tick(&self) -> bool {
        self.screen == Screen::Game
            && self
                .session
                .as_ref()
                .is_some_and(|s| s.bots_only() && s.bot_to_move().is_some())
    }

    /// Lets a bot move in a bots-only game.
    pub fn tick(&mut self) {
        if self.wants_tick() {
            if let Some(s) = self.session.as_mut() {
                if let Some(played) = s.bot_move() {
                    self.cursor = played.square;
                }
            }
        }
    }

    fn info(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            tone: Tone::Info,
            text: text.into(),
        });
    }

    fn warn(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            tone: Tone::Warn,
            text: text.into(),
        });
    }

    /// Ends the app.
    pub fn quit(&mut self) {
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
    pub fn start_from_form(&mut self) {
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
    pub fn leave_setup(&mut self) {
        if self.session.is_some() {
            self.screen = Screen::Game;
            self.form = SetupForm::from_config(&self.config);
        } else {
            self.quit();
        }
    }

    /// Goes back to the set-up screen (`n`). The running game waits there
    /// until a new one starts.
    pub fn open_setup(&mut self) {
        self.form = SetupForm::from_config(&self.config);
        self.screen = Screen::Setup;
        self.overlay = None;
        self.column = None;
    }

    fn announce_round(&mut self, restarted: bool) {
        if let Some(s) = &self.session {
            let starter = s.label(s.game().first());
            let text = if restarted {
                format!("Round {} restarted: {starter} starts", s.round())
            } else if s.tossed() {
                format!("Round {}: the coin says {starter} starts", s.round())
            } else {
                format!("Round {}: {starter} starts", s.round())
            };
            self.info(text);
        }
    }

    /// Lets the bot answer, if a bot plays a person and is to move, and says
    /// where it played.
    fn answer(&mut self) {
        let Some(s) = self.session.as_mut() else {
            return;
        };
        if s.bots_only() {
            return;
        }
        // The cursor stays where the person left it: their next move is
        // often near their last one.
        let mut news = None;
        while let Some(played) = s.bot_move() {
            news = Some((s.label(played.player), played.square));
        }
        if let Some((bot, square)) = news {
            // Keep the news of a new round that the bot opened.
            let text = match &self.message {
                Some(m) if m.tone == Tone::Info && m.text.starts_with("Round ") => {
                    format!("{} · played {square}", m.text)
                }
                _ => format!("{bot} played {square}"),
            };
            self.info(text);
        }
    }

    /// Moves the cursor one cell, wrapping around the edges.
    pub fn move_cursor(&mut self, direction: Direction) {
        let (col, row) = (self.cursor.column(), self.cursor.row());
        let (col, row) = match direction {
            Direction::Left => ((col + 2) % 3, row),
            Direction::Right => ((col + 1) % 3, row),
            Direction::Up => (col, (row + 2) % 3),
            Direction::Down => (col, (row + 1) % 3),
        };
        if let Some(sq) = Square::from_coords(col, row) {
            self.cursor = sq;
        }
        self.column = None;
    }

    /// Plays the cell under the cursor, or starts the next round once the
    /// game is over (Enter and Space).
    pub fn confirm(&mut self) {
        let over = self.session.as_ref().is_some_and(|s| s.game().is_over());
        if over {
            self.next_round();
        } else {
            self.play(self.cursor);
        }
    }

    /// Plays `square` for the person to move, and lets the bot answer.
    /// A refused move changes nothing but the message.
    pub fn play(&mut self, square: Square) {
        self.column = None;
        let Some(s) = self.session.as_mut() else {
            return;
        };
        self.cursor = square;
        match s.play(square) {
            Ok(_) => {
                self.message = None;
                self.answer();
            }
            Err(Refusal::GameOver) => {
                self.warn("The game is over: Enter starts the next round");
            }
            Err(Refusal::BotToMove) => self.warn("Wait for the bot's move"),
            Err(refusal) => self.warn(refusal.to_string()),
        }
    }

    /// A column letter typed (`0` for `a`): moves the cursor to that column
    /// and waits for the row digit.
    pub fn type_column(&mut self, column: u8) {
        if let Some(sq) = Square::from_coords(column, self.cursor.row()) {
            self.cursor = sq;
            self.column = Some(column);
        }
    }

    /// A digit typed: with a column letter before it, `1`..`3` is the row
    /// (`b` `2` plays b2); else `1`..`9` is the cell numbered row by row from
    /// the top left (`5` plays b2).
    pub fn type_digit(&mut self, digit: u8) {
        let square = match self.column.take() {
            Some(col) if (1..=3).contains(&digit) => Square::from_coords(col, digit - 1),
            _ => digit.checked_sub(1).and_then(Square::from_index),
        };
        if let Some(sq) = square {
            self.play(sq);
        }
    }

    /// Takes back the last move of the person to move (and the bot's answer).
    pub fn undo(&mut self) {
        self.column = None;
        let Some(s) = self.session.as_mut() else {
            return;
        };
        match s.undo() {
            Ok(undone) => {
                if let Some(&(_, sq)) = undone.last() {
                    self.cursor = sq;
                }
                let list: Vec<String> = undone.iter().rev().map(|(_, sq)| sq.to_string()).collect();
                self.info(format!("Took back {}", list.join(" and ")));
            }
            Err(Refusal::GameOver) => {
                self.warn("The game is over and its result counts: r replays, Enter goes on");
            }
            Err(Refusal::NothingToUndo) => self.warn("There is no move of yours to undo"),
            Err(refusal) => self.warn(refusal.to_string()),
        }
    }

    /// Clears the board and plays the round again (`r`).
    pub fn restart(&mut self) {
        self.column = None;
        let Some(s) = self.session.as_mut() else {
            return;
        };
        s.restart();
        self.cursor = Square::B2;
        self.announce_round(true);
        self.answer();
    }

    /// Starts the next round once the game is over.
    pub fn next_round(&mut self) {
        self.column = None;
        let Some(s) = self.session.as_mut() else {
            return;
        };
        match s.next_round() {
            Ok(()) => {
                self.cursor = Square::B2;
                self.announce_round(false);
                self.answer();
            }
            Err(_) => self.warn("Finish this game first, or press r to restart it"),
        }
    }

    /// Shows or hides the perfect-play value of every free cell (`v`).
    pub fn toggle_hints(&mut self) {
        self.hints = !self.hints;
        if self.hints {
            self.info("Each free cell shows its value with perfect play");
        }
    }

    /// Shows or hides the list of keys (`?`).
    pub fn toggle_help(&mut self) {
        self.overlay = match self.overlay {
            Some(Overlay::Help) => None,
            None => Some(Overlay::Help),
        };
    }

    /// Closes the help window.
    pub fn close_overlay(&mut self) {
        self.overlay = None;
    }

    /// Forgets a typed column letter (`Esc`).
    pub fn cancel(&mut self) {
        self.column = None;
        self.message = None;
    }
}

#[cfg(test)]
mod tests {
    use oxo_core::Square::*;

    use super::*;

    fn game(x: &str, o: &str) -> App {
        let config = Config {
            players: ByPlayer {
                x: x.parse().expect("seat"),
                o: o.parse().expect("seat"),
            },
            first: Starter::X,
            seed: Some(5),
            setup: false,
            plain: false,
        };
        App::new(config, Theme::MONO)
    }

    fn moves(app: &App) -> Vec<Square> {
        app.session()
            .map(|s| s.game().moves().to_vec())
            .unwrap_or_default()
    }

    #[test]
    fn set_up_then_play() {
        let mut app = App::new(Config::default(), Theme::MONO);
        assert_eq!(app.screen(), Screen::Setup);
        assert!(app.session().is_none());
        let form = app.form_mut();
        form.focus = Field::Name(Player::X);
        form.names.x.clear();
        for c in "Alice".chars() {
            assert!(form.type_char(c));
        }
        form.focus_next(true);
        form.focus_next(true);
        assert_eq!(form.focus, Field::First);
        form.cycle(true);
        assert_eq!(form.first, Starter::X);
        app.start_from_form();
        assert_eq!(app.screen(), Screen::Game);
        let s = app.session().expect("started");
        assert_eq!(s.label(Player::X), "Alice (X)");
        assert_eq!(s.label(Player::O), "Player 2 (O)");
        assert_eq!(s.starter(), Starter::X);
    }

    #[test]
    fn form_against_a_bot() {
        let mut form = SetupForm::from_config(&Config::default());
        assert_eq!(form.fields().len(), 5);
        form.cycle(true);
        assert_eq!(form.opponent, Opponent::Bot);
        assert_eq!(
            form.fields(),
            vec![
                Field::Mode,
                Field::Level,
                Field::BotSide,
                Field::Name(Player::X),
                Field::First,
                Field::Start
            ]
        );
        form.focus = Field::Level;
        form.cycle(false);
        assert_eq!(form.level, BotLevel::Medium);
        form.focus = Field::BotSide;
        form.cycle(true);
        form.focus = Field::Name(Player::O);
        form.names.o = "  ".into();
        assert!(form.type_char('\u{7}'));
        assert_eq!(form.names.o, "  ", "control characters are not typed");
        let seats = form.seats();
        assert_eq!(seats.x, Seat::Bot(BotLevel::Medium));
        assert_eq!(seats.o, Seat::Human("Player 2".into()));
        // Names stop at the limit.
        for _ in 0..40 {
            form.type_char('z');
        }
        assert_eq!(form.names.o.chars().count(), MAX_NAME_CHARS);
        form.backspace();
        assert_eq!(form.names.o.chars().count(), MAX_NAME_CHARS - 1);
    }

    #[test]
    fn cursor_wraps_and_places() {
        let mut app = game("A", "B");
        assert_eq!(app.cursor(), B2);
        app.move_cursor(Direction::Up);
        app.move_cursor(Direction::Up);
        assert_eq!(app.cursor(), B3);
        app.move_cursor(Direction::Right);
        app.move_cursor(Direction::Right);
        assert_eq!(app.cursor(), A3);
        app.confirm();
        assert_eq!(moves(&app), vec![A3]);
    }

    #[test]
    fn digits_and_names() {
        let mut app = game("A", "B");
        app.type_digit(5);
        app.type_column(2);
        assert_eq!(app.pending_column(), Some(2));
        app.type_digit(1);
        app.type_digit(1);
        assert_eq!(moves(&app), vec![B2, C1, A1]);
        // A column letter then a digit past 3 plays the numbered cell.
        app.type_column(0);
        app.type_digit(9);
        assert_eq!(moves(&app), vec![B2, C1, A1, C3]);
    }

    #[test]
    fn refused_moves_change_nothing() {
        let mut app = game("A", "B");
        app.play(B2);
        app.play(B2);
        assert_eq!(moves(&app), vec![B2]);
        let msg = app.message().expect("a refusal");
        assert_eq!(msg.tone, Tone::Warn);
        assert_eq!(msg.text, "b2 is already taken (by X)");
        for sq in [A1, C1, A3, A2, C2, B1, B3, C3] {
            app.play(sq);
        }
        assert!(app.session().is_some_and(|s| s.game().is_over()));
        app.play(A1);
        assert!(
            app.message()
                .is_some_and(|m| m.text.starts_with("The game is over"))
        );
        app.undo();
        assert_eq!(moves(&app).len(), 9);
        assert_eq!(app.session().map(|s| s.scores().draws), Some(1));
    }

    #[test]
    fn bot_answers_at_once_and_undo_takes_both() {
        let mut app = game("A", "bot:perfect");
        app.play(A1);
        assert_eq!(moves(&app).len(), 2, "the bot answered");
        assert!(
            app.message()
                .is_some_and(|m| m.text.starts_with("Impossible (O) played "))
        );
        app.undo();
        assert!(moves(&app).is_empty());
        assert!(
            app.message()
                .is_some_and(|m| m.text.starts_with("Took back a1 and "))
        );
    }

    #[test]
    fn rounds_restart_and_new_setup() {
        let mut app = game("A", "B");
        for sq in [A1, B1, A2, B2, A3] {
            app.play(sq);
        }
        app.confirm(); // next round
        let s = app.session().expect("session");
        assert_eq!(s.round(), 2);
        assert_eq!(s.scores().x, 1);
        app.play(C3);
        app.restart();
        assert!(moves(&app).is_empty());
        assert!(
            app.message()
                .is_some_and(|m| m.text == "Round 2 restarted: A (X) starts")
        );
        app.next_round();
        assert!(app.message().is_some_and(|m| m.tone == Tone::Warn));
        app.open_setup();
        assert_eq!(app.screen(), Screen::Setup);
        app.leave_setup();
        assert_eq!(app.screen(), Screen::Game);
        app.open_setup();
        app.start_from_form();
        let s = app.session().expect("session");
        assert_eq!(s.scores().x, 1, "same players keep their scores");
        assert!(app.is_running());
        app.quit();
        assert!(!app.is_running());
    }

    #[test]
    fn bot_vs_bot_ticks() {
        let mut app = game("bot:perfect", "bot:random");
        assert!(app.wants_tick());
        for _ in 0..9 {
            app.tick();
        }
        assert!(!app.wants_tick());
        assert!(app.session().is_some_and(|s| s.game().is_over()));
    }

    #[test]
    fn hints_and_help_toggle() {
        let mut app = game("A", "B");
        app.toggle_hints();
        assert!(app.hints());
        app.toggle_help();
        assert_eq!(app.overlay(), Some(Overlay::Help));
        app.close_overlay();
        assert_eq!(app.overlay(), None);
    }
}
