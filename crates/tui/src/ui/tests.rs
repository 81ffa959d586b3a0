//! Golden screens: the app drawn into ratatui's `TestBackend`, compared with
//! the snapshots in `snapshots/` (review changes with `cargo insta
//! review`, or `INSTA_UPDATE=always cargo test` and `git diff`).
//!
//! Text snapshots cannot show colours, so the highlighted screens also get a
//! *highlight map*: one character per terminal cell, `#` for the winning
//! line, `+` for the cursor, `.` for anything else.

use oxo_core::{Square, Square::*};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

use crate::app::{App, Direction, MIN_HEIGHT, MIN_WIDTH};
use crate::config::Config;
use crate::theme::Theme;

fn game(moves: &[Square]) -> App {
    let mut app = App::new(Config::seated("Alice", "Bob"), Theme::COLOR);
    for &sq in moves {
        app.play(sq);
    }
    app
}

fn draw(app: &App, width: u16, height: u16) -> Terminal<TestBackend> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test backend");
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .expect("draw");
    terminal
}

fn highlight_map(buffer: &Buffer, theme: Theme) -> String {
    let area = buffer.area;
    let mut map = String::new();
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            let cell = &buffer[(x, y)];
            map.push(if theme == Theme::COLOR {
                match cell.bg {
                    Color::Green => '#',
                    Color::DarkGray => '+',
                    _ => '.',
                }
            } else if cell.modifier.contains(Modifier::REVERSED | Modifier::BOLD) {
                '#'
            } else if cell.modifier.contains(Modifier::REVERSED) {
                '+'
            } else {
                '.'
            });
        }
        map.push('\n');
    }
    map
}

#[test]
fn setup_screen() {
    let app = App::new(Config::default(), Theme::COLOR);
    insta::assert_snapshot!(draw(&app, 100, 35).backend());
}

#[test]
fn setup_screen_against_a_bot() {
    let mut app = App::new(Config::default(), Theme::COLOR);
    app.form_mut().cycle(true);
    app.form_mut().focus_next(true);
    insta::assert_snapshot!(draw(&app, 80, 24).backend());
}

#[test]
fn mid_game() {
    let mut app = game(&[B2, A1, C3]);
    app.move_cursor(Direction::Up);
    let terminal = draw(&app, 100, 35);
    insta::assert_snapshot!(terminal.backend());
    insta::assert_snapshot!(
        "mid_game_highlight",
        highlight_map(terminal.backend().buffer(), Theme::COLOR)
    );
}

#[test]
fn win_with_highlighted_line() {
    let app = game(&[A1, B1, B2, C1, C3]);
    let terminal = draw(&app, 100, 35);
    insta::assert_snapshot!(terminal.backend());
    let map = highlight_map(terminal.backend().buffer(), Theme::COLOR);
    insta::assert_snapshot!("win_highlight", map);
    // Three cells of the diagonal, 13×5 each, and no cursor once it is over.
    assert_eq!(map.matches('#').count(), 3 * 13 * 5);
    assert_eq!(map.matches('+').count(), 0);
}

#[test]
fn win_without_colour() {
    let mut app = App::new(Config::seated("Alice", "Bob"), Theme::MONO);
    for sq in [A1, B1, B2, C1, C3] {
        app.play(sq);
    }
    let terminal = draw(&app, 80, 24);
    let buffer = terminal.backend().buffer();
    assert!(
        buffer
            .content()
            .iter()
            .all(|c| c.fg == Color::Reset && c.bg == Color::Reset),
        "NO_COLOR: no colour at all"
    );
    let map = highlight_map(buffer, Theme::MONO);
    // Below the title bar (itself in reverse video): the three 13×5 cells.
    let (_title, board) = map.split_once('\n').expect("lines");
    assert_eq!(
        board.matches('#').count(),
        3 * 13 * 5,
        "the line shows in reverse video"
    );
}

#[test]
fn draw_screen() {
    let app = game(&[B2, A1, C1, A3, A2, C2, B1, B3, C3]);
    insta::assert_snapshot!(draw(&app, 80, 24).backend());
}

#[test]
fn second_round_scoreboard() {
    let mut app = game(&[A1, B1, B2, C1, C3]);
    app.next_round();
    app.play(A2);
    insta::assert_snapshot!(draw(&app, 80, 24).backend());
}

#[test]
fn small_terminal() {
    let app = game(&[B2, A1]);
    insta::assert_snapshot!(draw(&app, 40, 16).backend());
}

#[test]
fn too_small_terminal() {
    let app = game(&[B2]);
    insta::assert_snapshot!(draw(&app, 30, 10).backend());
    // Degenerate sizes draw without panicking.
    for (w, h) in [
        (0, 0),
        (1, 1),
        (5, 2),
        (31, 14),
        (32, 13),
        (200, 14),
        (32, 80),
    ] {
        draw(&app, w, h);
    }
}

/// The words on the screen, in reading order, one space between each.
fn words(terminal: &Terminal<TestBackend>) -> String {
    let buffer = terminal.backend().buffer();
    let area = buffer.area;
    let mut text = String::new();
    for y in area.top()..area.bottom() {
        for x in area.left()..area.right() {
            text.push_str(buffer[(x, y)].symbol());
        }
        text.push(' ');
    }
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn a_terminal_too_small_always_says_how_to_go_on() {
    let app = game(&[B2]);
    // All of it where it fits wrapped, the instruction whole.
    for (w, h) in [(20, 8), (30, 10), (12, 10), (31, 5)] {
        let screen = words(&draw(&app, w, h));
        for part in [
            "Terminal too small",
            "enlarge it, or press q",
            &format!("need {MIN_WIDTH}×{MIN_HEIGHT}, have {w}×{h}"),
        ] {
            assert!(screen.contains(part), "{w}×{h}: {part}\n{screen}");
        }
    }
    // At any size, what to do shows, whole.
    for w in 8..MIN_WIDTH {
        for h in 1..MIN_HEIGHT {
            let screen = words(&draw(&app, w, h));
            assert!(
                screen.contains("enlarge it, or press q") || screen == "q quits",
                "{w}×{h}: {screen}"
            );
        }
    }
}

#[test]
fn help_overlay() {
    let mut app = game(&[B2]);
    app.toggle_help();
    insta::assert_snapshot!(draw(&app, 100, 35).backend());
    insta::assert_snapshot!("help_overlay_narrow", draw(&app, 40, 18).backend());
}

#[test]
fn hints_show_values() {
    let mut app = game(&[A1, B2, C3]);
    app.toggle_hints();
    insta::assert_snapshot!(draw(&app, 80, 24).backend());
}

#[test]
fn bot_game_against_perfect() {
    let mut app = App::new(Config::seated("Alice", "bot:perfect"), Theme::COLOR);
    app.play(B2);
    let screen = draw(&app, 100, 35).backend().to_string();
    assert!(screen.contains("Impossible (O) played "));
    assert!(screen.contains("Alice (X) to move"));
}

#[test]
fn every_size_draws() {
    let app = game(&[B2, A1, C3]);
    for w in (20..=120).step_by(7) {
        for h in (8..=40).step_by(3) {
            let screen = draw(&app, w, h).backend().to_string();
            if w >= MIN_WIDTH && h >= MIN_HEIGHT {
                assert!(screen.contains("Bob (O) to move"), "{w}×{h}");
                assert!(screen.contains("Bob"), "{w}×{h}: scores shown");
            } else {
                assert!(screen.contains("too small"), "{w}×{h}");
            }
        }
    }
}

/// The screen's rows as text, a wide character once (ratatui keeps the
/// column it covers blank).
pub(super) fn rows(terminal: &Terminal<TestBackend>) -> Vec<String> {
    let buffer = terminal.backend().buffer();
    let area = buffer.area;
    (area.top()..area.bottom())
        .map(|y| {
            (area.left()..area.right())
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
        })
        .collect()
}

#[test]
fn wide_names_never_hide_a_score_or_the_round() {
    let mut app = App::new(
        Config::seated("太郎太郎太郎太郎太郎", "🎉🎉🎉🎉🎉🎉🎉🎉🎉🎉"),
        Theme::MONO,
    );
    for sq in [A1, B1, A2, B2, A3] {
        app.play(sq);
    }
    app.next_round();
    for w in [MIN_WIDTH, 40, 48, 60, 80, 100] {
        let screen = rows(&draw(&app, w, 24));
        let all = screen.join("\n");
        let score_of = |row: &String| {
            row.trim_end()
                .trim_end_matches('│')
                .trim_end()
                .chars()
                .last()
        };
        if let Some(compact) = screen.iter().find(|r| r.contains("draws 0")) {
            // The one-line scoreboard of a narrow terminal.
            let compact = compact.trim();
            assert!(compact.starts_with("X 太"), "{w}: {compact:?}");
            assert!(
                compact.contains(" 1  O 🎉"),
                "{w}: X's score shows: {compact:?}"
            );
            assert!(
                compact.ends_with(" 0  draws 0"),
                "{w}: O's score shows: {compact:?}"
            );
        } else {
            let x_row = screen
                .iter()
                .find(|r| r.contains("X  太"))
                .unwrap_or_else(|| panic!("{w}: the X row of the scoreboard\n{all}"));
            assert_eq!(
                score_of(x_row),
                Some('1'),
                "{w}: X's score shows: {x_row:?}"
            );
            let o_row = screen
                .iter()
                .find(|r| r.contains("O  🎉"))
                .unwrap_or_else(|| panic!("{w}: the O row of the scoreboard\n{all}"));
            assert_eq!(
                score_of(o_row),
                Some('0'),
                "{w}: O's score shows: {o_row:?}"
            );
        }
        assert!(
            screen[0].contains("Round 2"),
            "{w}: the round label: {:?}",
            screen[0]
        );
    }
}

#[test]
fn help_shows_the_keys_of_its_screen_and_always_how_to_close_it() {
    let mut setup = App::new(Config::default(), Theme::MONO);
    setup.toggle_help();
    let screen = draw(&setup, 80, 24).backend().to_string();
    assert!(screen.contains("Ctrl-U"), "set-up keys: {screen}");
    assert!(screen.contains("start the game"), "{screen}");
    assert!(
        !screen.contains("place your mark"),
        "no game keys on set-up: {screen}"
    );
    let mut game = game(&[B2]);
    game.toggle_help();
    for (w, h) in [(80, 24), (40, 18), (32, 14), (60, 15)] {
        let screen = draw(&game, w, h).backend().to_string();
        assert!(screen.contains("any key to close"), "{w}×{h}: {screen}");
    }
}

#[test]
fn the_last_move_is_marked_and_the_cursor_leaves_a_played_cell() {
    let mut app = App::new(Config::seated("Alice", "bot:perfect"), Theme::MONO);
    app.play(B2);
    let s = app.session().expect("a game");
    let reply = *s.game().moves().last().expect("the bot answered");
    assert_ne!(reply, B2);
    assert!(
        s.game().position().board().get(app.cursor()).is_none(),
        "the cursor is on a free cell"
    );
    for (w, h) in [(100, 35), (80, 24), (40, 18)] {
        let terminal = draw(&app, w, h);
        let screen = terminal.backend().to_string();
        assert_eq!(
            screen.matches('•').count(),
            1,
            "{w}×{h}: one marked cell\n{screen}"
        );
        // The mark sits in the bot's reply's cell: on the row of its glyph.
        let marked_row = rows(&terminal)
            .iter()
            .position(|r| r.contains('•'))
            .expect("marked");
        let row_label = reply.to_string().chars().nth(1).expect("a row digit");
        let label_row = rows(&terminal)
            .iter()
            .enumerate()
            .filter(|(_, r)| r.trim_start().starts_with(row_label) && r.contains('│'))
            .map(|(i, _)| i)
            .next()
            .expect("the row label");
        assert!(
            marked_row.abs_diff(label_row) <= 3,
            "{w}×{h}: {marked_row} vs {label_row}\n{screen}"
        );
    }
}

#[test]
fn a_click_on_a_cell_plays_it() {
    use crossterm::event::{Event, KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    for (w, h) in [(100, 35), (80, 24), (40, 18)] {
        let mut app = game(&[]);
        app.resize(w, h);
        // Where the empty b2 shows its number, 5.
        let screen = rows(&draw(&app, w, h));
        let (y, line) = screen
            .iter()
            .enumerate()
            .find(|(_, r)| r.contains(" 5 "))
            .expect("b2's number");
        let x = line.chars().position(|c| c == '5').expect("the 5");
        let click = |kind| {
            Event::Mouse(MouseEvent {
                kind,
                column: u16::try_from(x).expect("on screen"),
                row: u16::try_from(y).expect("on screen"),
                modifiers: KeyModifiers::NONE,
            })
        };
        app.handle_event(&click(MouseEventKind::Moved));
        assert!(
            app.moves().is_empty(),
            "{w}×{h}: moving the mouse plays nothing"
        );
        app.handle_event(&click(MouseEventKind::Down(MouseButton::Left)));
        assert_eq!(app.moves(), vec![B2], "{w}×{h}");
        // A click outside the board plays nothing.
        app.handle_event(&Event::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: 0,
            row: h - 1,
            modifiers: KeyModifiers::NONE,
        }));
        assert_eq!(app.moves(), vec![B2], "{w}×{h}");
    }
}

#[test]
fn long_messages_wrap_on_narrow_terminals() {
    let mut app = game(&[B2]);
    press_q(&mut app);
    let text = app.message().expect("a question").text.clone();
    let screen = rows(&draw(&app, MIN_WIDTH, 24)).join(" ");
    let words: Vec<&str> = text.split_whitespace().collect();
    let squeezed: String = screen.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        squeezed.contains(&words.join(" ")),
        "{text:?} wraps whole:\n{screen}"
    );
}

fn press_q(app: &mut App) {
    use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    app.handle_key(KeyEvent::new(KeyCode::Char('q'), KeyModifiers::NONE));
}

/// Whether all of `text` shows on `terminal`, wrapped or not.
fn shows_whole(terminal: &Terminal<TestBackend>, text: &str) -> bool {
    let wanted: Vec<&str> = text.split_whitespace().collect();
    words(terminal).contains(&wanted.join(" "))
}

#[test]
fn twelve_rows_keep_the_board_whose_turn_the_message_and_a_key_line() {
    for width in [32, 40, 80] {
        let mut app = game(&[B2, A1, C3]);
        app.resize(width, 12);
        assert!(!app.too_small(), "{width}×12");
        // A1 is taken: refused, and the refusal reads whole.
        app.play(A1);
        let warning = app.message().expect("a refusal").text.clone();
        let terminal = draw(&app, width, 12);
        let screen = rows(&terminal);
        let all = screen.join("\n");
        for row in ["1 │", "2 │", "3 │", "╰─"] {
            assert!(
                screen.iter().any(|l| l.contains(row)),
                "{width}×12: the board's {row}\n{all}"
            );
        }
        assert!(all.contains("Bob (O) to move"), "{width}×12\n{all}");
        assert!(
            shows_whole(&terminal, &warning),
            "{width}×12: {warning}\n{all}"
        );
        let last = screen.last().expect("a row");
        assert!(last.contains("q quit"), "{width}×12: the keys\n{all}");
        // The round over: the result and how to go on.
        let mut app = game(&[A1, B1, A2, B2, A3]);
        app.resize(width, 12);
        let terminal = draw(&app, width, 12);
        let all = rows(&terminal).join("\n");
        assert!(all.contains("Alice (X) wins"), "{width}×12\n{all}");
        assert!(all.contains("next round"), "{width}×12\n{all}");
    }
    // One row less is too small.
    let screen = words(&draw(&game(&[B2]), 40, 11));
    assert!(screen.contains("Terminal too small"), "{screen}");
}

#[test]
fn twelve_rows_show_the_whole_set_up_form() {
    for width in [32, 40, 80] {
        for opponent in 0..3 {
            let mut app = App::new(Config::default(), Theme::COLOR);
            for _ in 0..opponent {
                app.form_mut().cycle(true);
            }
            let terminal = draw(&app, width, 12);
            let all = rows(&terminal).join("\n");
            for field in ["Mode", "First move", "[ Start ]"] {
                assert!(all.contains(field), "{width}×12 {opponent}: {field}\n{all}");
            }
            assert!(all.contains("Enter start"), "{width}×12: the keys\n{all}");
        }
    }
}

#[test]
fn the_values_note_reads_whole_on_a_small_terminal() {
    for (width, height) in [(32, 14), (32, 12), (40, 12), (80, 24)] {
        let mut app = game(&[A1, B2, C3]);
        app.toggle_hints();
        let note = app.message().expect("the note").text.clone();
        let terminal = draw(&app, width, height);
        let all = rows(&terminal).join("\n");
        let short = "Values: W/L in N plies, D: draw";
        assert!(
            shows_whole(&terminal, &note) || shows_whole(&terminal, short),
            "{width}×{height}\n{all}"
        );
    }
}

#[test]
fn compact_terminal() {
    let mut app = game(&[B2, A1]);
    app.toggle_hints();
    insta::assert_snapshot!(draw(&app, 40, 12).backend());
    let setup = App::new(Config::default(), Theme::COLOR);
    insta::assert_snapshot!("compact_set_up", draw(&setup, 40, 12).backend());
}

/// In a game between two bots nobody at the keyboard moves: the footer,
/// the board and the help window show only the keys that act (no cursor
/// keys, no Enter to place, no cell numbers, no undo).
#[test]
fn a_bots_only_game_shows_only_the_keys_that_work() {
    let mut app = App::new(Config::seated("bot:easy", "bot:perfect"), Theme::MONO);
    app.tick();
    for (w, h) in [(80, 24), (120, 40), (40, 14), (32, 12)] {
        let screen = rows(&draw(&app, w, h));
        let all = screen.join("\n");
        let footer = screen.last().expect("a footer row");
        for key in ["move", "place", "cell", "undo"] {
            assert!(
                !footer.contains(key),
                "{w}x{h}: {key:?} in the footer\n{all}"
            );
        }
        assert!(footer.contains("q quit"), "{w}x{h}: the quit key\n{all}");
        // The cells show no numbers to type (the row labels sit left of
        // the grid).
        for row in &screen {
            let grid = row.trim_start().trim_start_matches(['1', '2', '3']);
            if !grid.trim_start().starts_with('│') {
                continue;
            }
            let cells: String = grid.split('│').skip(1).take(3).collect();
            assert!(
                !cells.chars().any(|c| c.is_ascii_digit()),
                "{w}x{h}: a cell number in {row:?}\n{all}"
            );
        }
    }
    let wide = rows(&draw(&app, 80, 24)).join("\n");
    assert!(wide.contains("r restart"), "{wide}");
    app.toggle_help();
    let help = rows(&draw(&app, 80, 24)).join("\n");
    for gone in ["place", "undo", "move the cursor"] {
        assert!(!help.contains(gone), "{gone:?} in the help\n{help}");
    }
    assert!(help.contains("restart") && help.contains("quit"), "{help}");
}

/// On the set-up form the keys row names only keys that act on the field
/// in focus: ←→ change a choice, not a name being typed or the button.
#[test]
fn the_set_up_keys_row_offers_only_keys_that_work_on_its_field() {
    use crate::form::Field;
    let mut app = App::new(Config::default(), Theme::MONO);
    let footer = |app: &App| {
        let screen = rows(&draw(app, 80, 24));
        screen.last().cloned().unwrap_or_default()
    };
    assert!(footer(&app).contains("←→ change"), "{}", footer(&app));
    for _ in 0..app.form().fields().len() {
        app.form_mut().focus_next(true);
        let row = footer(&app);
        match app.form().focus {
            Field::Name(_) => {
                assert!(!row.contains("←→"), "{:?}: {row}", app.form().focus);
                assert!(row.contains("Ctrl-U clear"), "{row}");
            }
            Field::Start => assert!(!row.contains("←→"), "Start: {row}"),
            other => assert!(row.contains("←→ change"), "{other:?}: {row}"),
        }
    }
}

/// The help names both keys that take back a move, in words that fit a
/// game between people and one against a bot.
#[test]
fn the_help_names_both_undo_keys_in_words_for_any_game() {
    let mut app = App::new(Config::seated("Ann", "Bob"), Theme::MONO);
    app.toggle_help();
    let help = rows(&draw(&app, 80, 24)).join("\n");
    assert!(help.contains("u  Backspace"), "{help}");
    assert!(
        help.contains("take back the last move (and a bot's reply)"),
        "{help}"
    );
}
