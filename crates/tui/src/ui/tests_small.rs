//! The offline screens in small terminals and with long names: the help
//! window wraps its words and keeps its quit line, and the round panel
//! keeps the starter's mark.

use oxo_core::Square::*;
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use crate::app::App;
use crate::config::Config;
use crate::theme::Theme;

fn draw(app: &App, width: u16, height: u16) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test backend");
    terminal
        .draw(|frame| frame.render_widget(app, frame.area()))
        .expect("draw");
    super::tests::rows(&terminal)
}

/// The help window's rows: the text between its side borders.
fn help_rows(screen: &[String]) -> Vec<String> {
    screen
        .iter()
        .filter_map(|row| {
            let (_, inside) = row.split_once('│')?;
            let (inside, _) = inside.rsplit_once('│')?;
            Some(inside.trim_end().to_owned())
        })
        .collect()
}

#[test]
fn help_windows_wrap_between_words_and_always_keep_the_quit_line() {
    let mut setup = App::new(Config::default(), Theme::MONO);
    setup.toggle_help();
    let mut game = App::new(Config::seated("Alice", "Bob"), Theme::MONO);
    game.play(B2);
    game.toggle_help();
    for (name, app) in [("set-up", &setup), ("game", &game)] {
        for (w, h) in [(32, 12), (40, 15), (32, 14), (80, 24)] {
            let screen = draw(app, w, h);
            let all = screen.join("\n");
            let rows = help_rows(&screen);
            assert!(
                rows.iter()
                    .any(|r| r.contains("q  Ctrl-C") || r.trim_start().starts_with("q ")),
                "{name} {w}x{h}: the quit line\n{all}"
            );
            assert!(all.contains("any key to close"), "{name} {w}x{h}\n{all}");
            // No word is cut: every "(" has its ")" on its row or a later one.
            let text = rows.join(" ");
            assert_eq!(
                text.matches('(').count(),
                text.matches(')').count(),
                "{name} {w}x{h}: a cut row\n{all}"
            );
            for cut in ["(q an ", "(or quit "] {
                assert!(!format!("{text} ").contains(cut), "{name} {w}x{h}\n{all}");
            }
        }
    }
    // Where every key fits, the game's `?` row shows too.
    let screen = draw(&game, 32, 12).join("\n");
    assert!(screen.contains("quit"), "{screen}");
}

#[test]
fn the_round_panel_ellipsizes_a_long_starters_name_and_keeps_the_mark() {
    let long = "AVeryLongNameThatGoesOnn";
    let app = App::new(Config::seated(long, "Bob"), Theme::MONO);
    let mut seen = false;
    for w in [60, 64, 72, 80, 100] {
        let screen = draw(&app, w, 24);
        let Some(first) = screen.iter().find(|r| r.contains("First:")) else {
            continue;
        };
        seen = true;
        assert!(first.contains("(X)"), "{w}: the mark: {first:?}");
        if !first.contains(long) {
            assert!(first.contains('…'), "{w}: an ellipsis: {first:?}");
        }
    }
    assert!(seen, "some width shows the round panel");
}

/// The set-up form's rows between the window's side borders, if the
/// screen shows the window.
fn form_rows(screen: &[String]) -> Vec<String> {
    let top = screen.iter().position(|r| r.contains("New game ─"));
    let Some(top) = top else {
        return Vec::new();
    };
    screen[top + 1..]
        .iter()
        .take_while(|r| !r.contains('╰'))
        .filter_map(|row| {
            let (_, inside) = row.split_once('│')?;
            let (inside, _) = inside.rsplit_once('│')?;
            Some(inside.to_owned())
        })
        .collect()
}

#[test]
fn no_set_up_row_runs_into_the_windows_border() {
    use oxo_core::Player;

    use crate::form::Field;

    let long = "AVeryLongNameThatGoesOnn";
    for (w, h) in [
        (32, 12),
        (33, 12),
        (40, 14),
        (32, 24),
        (40, 24),
        (46, 24),
        (58, 24),
        (80, 24),
    ] {
        for opponent in 0..3 {
            for long_names in [false, true] {
                let mut app = App::new(Config::default(), Theme::MONO);
                for _ in 0..opponent {
                    app.form_mut().cycle(true);
                }
                if long_names {
                    for p in Player::ALL {
                        app.form_mut().names[p] = long.to_owned();
                    }
                }
                let fields = app.form().fields();
                for focus in fields {
                    app.form_mut().focus = focus;
                    let screen = draw(&app, w, h);
                    let all = screen.join("\n");
                    let rows = form_rows(&screen);
                    assert!(!rows.is_empty(), "{w}x{h}: the form\n{all}");
                    for row in &rows {
                        assert!(
                            row.ends_with(' '),
                            "{w}x{h} {focus:?}: {row:?} is cut at the border\n{all}"
                        );
                        // A choice in focus shows both its arrows.
                        if row.contains('◀') {
                            assert!(row.contains('▶'), "{w}x{h}: {row:?}\n{all}");
                        }
                    }
                    // A choice out of focus needs no arrows: more of it shows.
                    if opponent == 1 && focus != Field::Mode {
                        assert!(all.contains("Against a bot"), "{w}x{h}: the mode\n{all}");
                    }
                    if matches!(focus, Field::Name(_)) && long_names {
                        // The end of a name being typed shows, where the
                        // next letter goes.
                        assert!(all.contains("GoesOnn"), "{w}x{h}: the name's end\n{all}");
                    }
                }
            }
        }
    }
}

#[test]
fn a_result_reads_whole_on_a_narrow_terminal() {
    let long = "AVeryLongNameThatGoesOnn";
    for w in [32, 33, 40, 46, 80] {
        let mut app = App::new(Config::seated(long, "Bob"), Theme::MONO);
        for sq in [A1, B1, A2, B2, A3] {
            app.play(sq);
        }
        let screen = draw(&app, w, 12);
        let all = screen.join("\n");
        let row = screen
            .iter()
            .find(|r| r.contains("wins!"))
            .unwrap_or_else(|| panic!("{w}: the result\n{all}"));
        assert!(row.contains("(X) wins!"), "{w}: the mark\n{all}");
        assert_eq!(
            row.matches('(').count(),
            row.matches(')').count(),
            "{w}: the result is cut: {row:?}\n{all}"
        );
    }
}

#[test]
fn the_help_shows_the_cells_numbers_on_one_row_at_every_width() {
    let mut game = App::new(Config::seated("Alice", "Bob"), Theme::MONO);
    game.toggle_help();
    for (w, h) in [(32, 12), (40, 15), (63, 24), (80, 24)] {
        let screen = draw(&game, w, h);
        let rows = help_rows(&screen);
        // The last row of numbers whole: no lone 9 under it.
        assert!(
            rows.iter()
                .any(|r| r.contains("7 8 9") || r.contains("789")),
            "{w}x{h}\n{}",
            screen.join("\n")
        );
    }
}

#[test]
fn a_finished_round_keeps_its_quit_key_at_the_smallest_size() {
    let mut app = App::new(Config::seated("Alice", "Bob"), Theme::MONO);
    for sq in [A1, B1, A2, B2, A3] {
        app.play(sq);
    }
    for w in [32, 40, 80] {
        let screen = draw(&app, w, 12);
        let footer = screen.last().expect("a footer row");
        assert!(footer.contains("Enter next round"), "{w}: {footer:?}");
        assert!(footer.contains("q quit"), "{w}: {footer:?}");
    }
}

/// Long wide names (24 CJK letters take 48 columns) in the title and in
/// the round's news: both players show in the title, with their marks,
/// and the news keeps its words.
#[test]
fn long_wide_names_keep_the_title_and_the_news_whole() {
    let (x, o) = ("太".repeat(24), "名".repeat(24));
    let mut app = App::new(Config::seated(&x, &o), Theme::MONO);
    // A new round: its news names the starter.
    app.play(A1);
    app.play(B1);
    app.play(A2);
    app.play(B2);
    app.play(A3);
    app.next_round();
    for (w, h) in [(40, 14), (80, 24), (120, 40)] {
        let screen = draw(&app, w, h);
        let all = screen.join("\n");
        let title = &screen[0];
        assert!(title.contains("(X) vs 名"), "{w}x{h}: {title}");
        assert!(title.contains("(O)"), "{w}x{h}: {title}");
        let flat = all.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(flat.contains("(X) starts"), "{w}x{h}\n{all}");
    }
}
