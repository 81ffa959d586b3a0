//! Key bindings: which [`App`] method each key calls.
//!
//! | key                       | game                                   | set-up             |
//! | ------------------------- | -------------------------------------- | ------------------ |
//! | `←↑↓→`, `h` `j` `k` `l`   | move the cursor                        | `↑↓` field, `←→` change |
//! | `Enter`, `Space`          | place at the cursor; next round once over | start (Space changes a choice) |
//! | `1`..`9`                  | place on cell N (1 2 3 / 4 5 6 / 7 8 9) | typed into a name |
//! | `a`..`c` then `1`..`3`    | place on that cell (`b` `2` is b2)     | typed into a name  |
//! | `u`                       | undo (a bot's answer too)              |                    |
//! | `v`                       | show the value of every free cell      |                    |
//! | `r`                       | restart the round                      |                    |
//! | `n`                       | back to set-up                         |                    |
//! | `?`                       | list the keys                          |                    |
//! | `q`, `Ctrl-C`             | quit                                   | `Esc`, `Ctrl-C`    |
//!
//! The digits follow the board and oxo-core's cell numbers: `1` is the top
//! left cell a1, as on a phone keypad. A numeric keypad has `7` at the top
//! left; oxo does not flip its rows, so that `5` is always b2 and `1` is
//! always a1 whichever keys type them.
//!
//! Values are on `v`, not `h`: `h` moves the cursor left, as the other three
//! of `h` `j` `k` `l` move it the other ways.

use crossterm::event::{
    Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseButton, MouseEvent, MouseEventKind,
};
use ratatui::layout::Rect;

use crate::app::{App, Direction, Screen};
use crate::form::Field;
use crate::ui;

impl App {
    /// Handles one terminal event: a key press changes the app; a resize
    /// is remembered (the redraw follows every event).
    pub(crate) fn handle_event(&mut self, event: &Event) {
        match event {
            Event::Key(key) => self.handle_key(*key),
            Event::Resize(width, height) => self.resize(*width, *height),
            Event::Mouse(mouse) => self.handle_mouse(*mouse),
            _ => {}
        }
    }

    /// A left click on a cell of the game screen plays it.
    fn handle_mouse(&mut self, mouse: MouseEvent) {
        if mouse.kind != MouseEventKind::Down(MouseButton::Left)
            || self.screen() != Screen::Game
            || self.overlay().is_some()
            || self.too_small()
        {
            return;
        }
        let Some((width, height)) = self.size() else {
            return;
        };
        let area = Rect::new(0, 0, width, height);
        if let Some(square) = ui::square_at(area, mouse.column, mouse.row) {
            self.disarm_quit();
            self.play(square);
        }
    }

    /// Handles one key (presses and repeats; releases are ignored).
    pub(crate) fn handle_key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if ctrl && matches!(key.code, KeyCode::Char('c' | 'C' | 'd' | 'D')) {
            self.quit();
            return;
        }
        if ctrl && matches!(key.code, KeyCode::Char('z' | 'Z')) {
            self.suspend();
            return;
        }
        if ctrl && matches!(key.code, KeyCode::Char('u' | 'U')) && self.screen() == Screen::Setup {
            self.form_mut().clear();
            return;
        }
        if ctrl || key.modifiers.contains(KeyModifiers::ALT) {
            return;
        }
        if !matches!(key.code, KeyCode::Char('q' | 'Q')) {
            self.disarm_quit();
        }
        if self.too_small() {
            // Only "enlarge it, or press q": nothing may happen unseen.
            if matches!(key.code, KeyCode::Char('q' | 'Q')) {
                self.quit();
            }
            return;
        }
        if self.overlay().is_some() {
            // Any key closes the help window; the key does nothing else.
            self.close_overlay();
            return;
        }
        match self.screen() {
            Screen::Setup => setup_key(self, key.code),
            Screen::Game => game_key(self, key.code),
        }
    }
}

fn setup_key(app: &mut App, code: KeyCode) {
    let on_name = matches!(app.form().focus, Field::Name(_));
    match code {
        KeyCode::Esc => app.leave_setup(),
        KeyCode::Enter => app.start_from_form(),
        KeyCode::Up | KeyCode::BackTab => app.form_mut().focus_next(false),
        KeyCode::Down | KeyCode::Tab => app.form_mut().focus_next(true),
        KeyCode::Left => app.form_mut().cycle(false),
        KeyCode::Right => app.form_mut().cycle(true),
        KeyCode::Backspace | KeyCode::Delete => app.form_mut().backspace(),
        KeyCode::Char(c) if on_name => {
            app.form_mut().type_char(c);
        }
        KeyCode::Char(' ') => {
            if app.form().focus == Field::Start {
                app.start_from_form();
            } else {
                app.form_mut().cycle(true);
            }
        }
        KeyCode::Char('q') => app.quit(),
        KeyCode::Char('?') => app.toggle_help(),
        _ => {}
    }
}

/// The cursor key (arrows, or vi's hjkl) `code` is, if it is one: the same
/// keys online and offline.
pub(crate) const fn direction(code: KeyCode) -> Option<Direction> {
    match code {
        KeyCode::Left | KeyCode::Char('h') => Some(Direction::Left),
        KeyCode::Right | KeyCode::Char('l') => Some(Direction::Right),
        KeyCode::Up | KeyCode::Char('k') => Some(Direction::Up),
        KeyCode::Down | KeyCode::Char('j') => Some(Direction::Down),
        _ => None,
    }
}

fn game_key(app: &mut App, code: KeyCode) {
    if let Some(d) = direction(code) {
        app.move_cursor(d);
        return;
    }
    match code {
        KeyCode::Enter | KeyCode::Char(' ') => app.confirm(),
        KeyCode::Char(c @ '1'..='9') => app.type_digit(c as u8 - b'0'),
        KeyCode::Char(c @ ('a'..='c' | 'A'..='C')) => {
            app.type_column(c.to_ascii_lowercase() as u8 - b'a');
        }
        KeyCode::Char('u') | KeyCode::Backspace => app.undo(),
        KeyCode::Char('v') => app.toggle_hints(),
        KeyCode::Char('r') => app.restart(),
        KeyCode::Char('n') => app.open_setup(),
        KeyCode::Char('?') => app.toggle_help(),
        KeyCode::Char('q') => app.ask_quit(),
        KeyCode::Esc => app.cancel(),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use oxo_core::{Player, Square};

    use super::*;
    use crate::app::Overlay;
    use crate::config::Config;
    use crate::theme::Theme;

    fn press(app: &mut App, keys: &str) {
        for c in keys.chars() {
            let code = match c {
                '\n' => KeyCode::Enter,
                '<' => KeyCode::Left,
                '>' => KeyCode::Right,
                '^' => KeyCode::Up,
                '\u{8}' => KeyCode::Backspace,
                '\u{1b}' => KeyCode::Esc,
                c => KeyCode::Char(c),
            };
            app.handle_key(KeyEvent::new(code, KeyModifiers::NONE));
        }
    }

    fn two_people() -> App {
        App::seated("A", "B")
    }

    #[test]
    fn keys_play_a_game() {
        let mut app = two_people();
        // 5 = b2 (the cursor then leaves it for b1, the nearest free cell),
        // hjkl move, Enter places, "c1" by name.
        press(&mut app, "5");
        assert_eq!(app.cursor(), Square::B1);
        press(&mut app, "h\nc1");
        assert_eq!(app.moves(), vec![Square::B2, Square::A1, Square::C1]);
        press(&mut app, "u");
        assert_eq!(app.moves(), vec![Square::B2, Square::A1]);
        press(&mut app, "r");
        assert!(app.moves().is_empty());
        press(&mut app, "12437");
        assert!(app.session().is_some_and(|s| s.game().is_over()));
        press(&mut app, "9");
        assert_eq!(app.moves().len(), 5, "no move after the end");
        press(&mut app, "\n");
        assert_eq!(app.session().map(|s| s.round()), Some(2));
    }

    #[test]
    fn after_a_finished_round_the_texts_say_what_r_does() {
        let mut app = two_people();
        press(&mut app, "12437");
        assert!(app.session().is_some_and(|s| s.game().is_over()));
        press(&mut app, "u");
        let said = app.message().map(|m| m.text.clone()).unwrap_or_default();
        assert!(!said.contains("replay"), "{said}");
        assert!(said.contains("r") && said.contains("next round"), "{said}");
        // What r does after a finished round: the next round.
        press(&mut app, "r");
        assert_eq!(app.session().map(|s| s.round()), Some(2));
    }

    #[test]
    fn only_quit_acts_while_the_terminal_is_too_small() {
        let mut app = two_people();
        app.handle_event(&Event::Resize(20, 10));
        press(&mut app, "5");
        assert!(app.moves().is_empty(), "nothing played unseen");
        press(&mut app, "?");
        assert_eq!(app.overlay(), None, "no help drawn unseen");
        app.handle_event(&Event::Resize(80, 24));
        press(&mut app, "5");
        assert_eq!(app.moves(), vec![Square::B2]);
        app.handle_event(&Event::Resize(20, 10));
        press(&mut app, "q");
        assert!(!app.is_running());
    }

    #[test]
    fn quitting_with_scores_on_screen_asks_once() {
        let mut app = two_people();
        press(&mut app, "q");
        assert!(!app.is_running(), "nothing to lose: q quits at once");
        let mut app = two_people();
        press(&mut app, "5q");
        assert!(app.is_running(), "a game under way: q asks first");
        assert!(
            app.message().is_some_and(|m| m.text.contains("q again")),
            "{:?}",
            app.message()
        );
        press(&mut app, "1");
        press(&mut app, "q");
        assert!(app.is_running(), "another key in between: ask again");
        press(&mut app, "q");
        assert!(!app.is_running());
    }

    #[test]
    fn a_quit_taken_back_takes_its_prompt_away() {
        let mut app = two_people();
        press(&mut app, "5q");
        assert!(app.message().is_some_and(|m| m.text.contains("q again")));
        press(&mut app, "x");
        assert!(
            !app.message().is_some_and(|m| m.text.contains("q again")),
            "{:?}",
            app.message()
        );
        press(&mut app, "q");
        assert!(
            app.is_running(),
            "the prompt showing again means one more q"
        );
        press(&mut app, "q");
        assert!(!app.is_running());
    }

    #[test]
    fn help_swallows_one_key() {
        let mut app = two_people();
        press(&mut app, "?");
        assert_eq!(app.overlay(), Some(Overlay::Help));
        press(&mut app, "5");
        assert_eq!(app.overlay(), None);
        assert!(app.moves().is_empty());
    }

    #[test]
    fn ctrl_c_quits_everywhere() {
        for setup in [true, false] {
            let mut app = App::new(
                Config {
                    setup,
                    ..Config::default()
                },
                Theme::MONO,
            );
            app.handle_key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
            assert!(!app.is_running());
        }
    }

    #[test]
    fn setup_keys() {
        let mut app = App::new(Config::default(), Theme::MONO);
        // Mode: against a bot; down to the name; type it; start.
        press(&mut app, ">");
        app.handle_key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE));
        assert_eq!(app.form().focus, Field::Level(Player::O));
        press(&mut app, "<");
        app.handle_key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
        app.handle_key(KeyEvent::new(KeyCode::Tab, KeyModifiers::NONE));
        press(&mut app, "Zo");
        app.handle_key(KeyEvent::new(KeyCode::Char('u'), KeyModifiers::CONTROL));
        assert_eq!(app.form().names.x, "", "Ctrl-U clears the name");
        press(&mut app, "Zoë q");
        press(&mut app, "\n");
        let s = app.session().expect("started");
        assert_eq!(s.label(Player::X), "Zoë q (X)");
        assert_eq!(s.label(Player::O), "Medium (O)");
        // Esc on set-up goes back to the game; with no game it quits.
        press(&mut app, "n\u{1b}");
        assert_eq!(app.screen(), Screen::Game);
        let mut fresh = App::new(Config::default(), Theme::MONO);
        press(&mut fresh, "\u{1b}");
        assert!(!fresh.is_running());
    }
}
