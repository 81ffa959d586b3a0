//! The app's intents without a terminal: set-up, rounds, restarts, the
//! set-up screen and back, bots' ticks and pauses, hints and help.

use oxo_core::Square::*;
use oxo_core::{Player, Starter};

use super::*;
use crate::form::Field;

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
    assert_eq!(app.config.first, Starter::X);
}

#[test]
fn rounds_restart_and_new_setup() {
    let mut app = App::seated("A", "B");
    for sq in [A1, B1, A2, B2, A3] {
        app.play(sq);
    }
    app.confirm(); // next round
    let s = app.session().expect("session");
    assert_eq!(s.round(), 2);
    assert_eq!(s.scores().x, 1);
    app.play(C3);
    app.restart();
    assert!(app.moves().is_empty());
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
    let mut app = App::seated("bot:perfect", "bot:random");
    assert!(app.wants_tick());
    for _ in 0..9 {
        app.tick();
    }
    assert!(!app.wants_tick());
    assert!(app.session().is_some_and(|s| s.game().is_over()));
}

#[test]
fn a_bots_pause_runs_from_its_turn_whatever_the_keys() {
    let mut app = App::seated("bot:perfect", "bot:random");
    let t0 = Instant::now();
    assert_eq!(app.bot_due(t0), Some(t0 + BOT_PAUSE));
    for i in 1..6 {
        app.toggle_hints();
        let later = t0 + BOT_PAUSE / 6 * i;
        assert_eq!(
            app.bot_due(later),
            Some(t0 + BOT_PAUSE),
            "a key does not restart the pause"
        );
    }
    app.tick();
    let t1 = t0 + BOT_PAUSE;
    assert_eq!(
        app.bot_due(t1),
        Some(t1 + BOT_PAUSE),
        "the next bot's pause starts at its turn"
    );
}

#[test]
fn hints_and_help_toggle() {
    let mut app = App::seated("A", "B");
    app.toggle_hints();
    assert!(app.hints());
    app.toggle_help();
    assert_eq!(app.overlay(), Some(Overlay::Help));
    app.close_overlay();
    assert_eq!(app.overlay(), None);
}

#[test]
fn bots_wait_while_their_board_is_hidden() {
    let mut app = App::seated("bot:perfect", "bot:random");
    let t0 = Instant::now();
    // A terminal too small to draw the board: nothing happens unseen.
    app.resize(20, 8);
    assert_eq!(app.bot_due(t0), None);
    app.tick();
    assert!(app.moves().is_empty(), "no move while too small");
    // The help window over the board: the game waits for it to close.
    app.resize(80, 24);
    app.toggle_help();
    assert_eq!(app.bot_due(t0), None);
    app.tick();
    assert!(app.moves().is_empty(), "no move under the help");
    app.close_overlay();
    assert_eq!(app.bot_due(t0), Some(t0 + BOT_PAUSE));
    app.tick();
    assert_eq!(app.moves().len(), 1);
}

/// Between two people `u` takes back one move, whoever made it: its
/// refusal on an empty board fits, not "no move of yours" as against a bot.
#[test]
fn undo_between_people_is_worded_for_people() {
    let mut app = App::seated("Ann", "Bob");
    app.undo();
    let said = app.message().map(|m| m.text.clone()).unwrap_or_default();
    assert_eq!(said, "There is no move to take back yet");
}
