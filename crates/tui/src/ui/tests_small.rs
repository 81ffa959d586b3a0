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
