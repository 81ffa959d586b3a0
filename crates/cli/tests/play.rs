//! `oxo play` through the real binary: the line mode with piped input, and
//! the full-screen game driven in tmux.

use std::io::Write as _;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

mod common;

const OXO: &str = env!("CARGO_BIN_EXE_oxo");

/// Runs `oxo play ARGS` with `input` on standard input (a pipe, so the line
/// mode runs) and returns its output.
fn play(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(OXO)
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run oxo");
    let mut stdin = child.stdin.take().expect("stdin");
    // The game may stop reading early (`quit`): a broken pipe is fine.
    let _ = stdin.write_all(input);
    drop(stdin);
    child.wait_with_output().expect("oxo ends")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

#[test]
fn help_lists_every_command_and_key() {
    let out = play(&["--help"], b"");
    let text = stdout(&out);
    for item in [
        "undo (u)",
        "restart (r)",
        "scores (s)",
        "hint (h, v, values)",
        "next (n)",
        "help (?)",
        "quit (q)",
        "Ctrl-U",
        "Ctrl-Z",
        "mouse click",
        "plies",
    ] {
        assert!(text.contains(item), "{item:?} in oxo play --help:\n{text}");
    }
}

mod line_mode {
    use super::*;

    #[test]
    fn a_won_game() {
        let out = play(&["--x", "A", "--o", "B"], b"a1\nb1\na2\nb2\na3\n");
        assert!(out.status.success(), "{out:?}");
        assert!(out.stderr.is_empty());
        let text = stdout(&out);
        assert!(text.contains("\nResult: A (X) wins with a1 a2 a3\n"));
        insta::assert_snapshot!(text);
    }

    #[test]
    fn numbers_and_names_mix() {
        let out = play(
            &["--x", "A", "--o", "B", "--plain"],
            b"5\nA1\n 9 \nc1\n7\nB1\n",
        );
        let text = stdout(&out);
        assert!(out.status.success());
        for line in [
            "A (X) plays b2",
            "B (O) plays a1",
            "A (X) plays c3",
            "A (X) plays a3",
            "Result: B (O) wins with a1 b1 c1",
        ] {
            assert!(text.contains(&format!("{line}\n")), "{line}: {text}");
        }
    }

    #[test]
    fn bad_input_lines_are_refused() {
        let mut input = b"undo\nzz\nd4\n0\n10\nb2\nb2\n\n   \nb 2\n".to_vec();
        input.extend_from_slice(&[0xff, 0xfe, b'\n']);
        input.extend_from_slice(&[b'x'; 5000]);
        input.extend_from_slice(b"\nc3\n");
        let out = play(&["--x", "A", "--o", "B"], &input);
        assert!(out.status.success(), "bad lines are not errors: {out:?}");
        let text = stdout(&out);
        assert!(text.contains("Refused: there is no move to undo\n"));
        for bad in ["zz", "d4", "0", "10", "b 2"] {
            assert!(
                text.contains(&format!(
                    "Refused: '{bad}' is not a cell or a command (try b2, 5 or help)\n"
                )),
                "{bad}"
            );
        }
        assert!(text.contains("Refused: b2 is already taken (by X)\n"));
        assert_eq!(text.matches("Refused: ").count(), 9);
        assert!(
            text.contains("B (O) plays c3\n"),
            "play goes on after bad lines"
        );
        insta::assert_snapshot!(text);
    }

    #[test]
    fn restart_and_a_second_round() {
        let input = b"b2\na1\nrestart\na1\nb1\na2\nb2\na3\nscores\nb2\nundo\nscores\n";
        let out = play(&["--x", "Ann", "--o", "Bo"], input);
        assert!(out.status.success());
        let text = stdout(&out);
        assert!(text.contains("Round 1 restarted: Ann (X) starts\n"));
        assert!(text.contains("Result: Ann (X) wins with a1 a2 a3\n"));
        // The starter alternates: Bo opens round 2, and undo takes back his move.
        assert!(text.contains("Round 2: Bo (O) starts\n"));
        assert!(text.contains("Bo (O) plays b2\n"));
        assert!(text.contains("Undone: O b2\n"));
        assert_eq!(
            text.matches("Scores: Ann (X) 1, Bo (O) 0, draws 0\n")
                .count(),
            3
        );
        insta::assert_snapshot!(text);
    }

    #[test]
    fn the_perfect_bot_never_loses() {
        for seed in ["1", "2", "3", "4"] {
            let moves = b"1\n2\n3\n4\n5\n6\n7\n8\n9\n".repeat(3);
            let args = ["--x", "Alice", "--o", "bot:perfect", "--seed", seed];
            let out = play(&args, &moves);
            assert!(out.status.success());
            let text = stdout(&out);
            assert!(!text.contains("Result: Alice (X) wins"), "seed {seed}");
            assert!(text.contains("Impossible (O) plays "));
            assert!(text.matches("Result: ").count() >= 2, "seed {seed}: {text}");
            // The same seed replays the same session.
            assert_eq!(stdout(&play(&args, &moves)), text);
        }
    }

    #[test]
    fn a_bot_can_start_and_coin_tosses_say_so() {
        let out = play(
            &[
                "--x",
                "bot:medium",
                "--o",
                "Zed",
                "--first",
                "x",
                "--seed",
                "9",
            ],
            b"",
        );
        let text = stdout(&out);
        assert!(text.contains("Round 1: Medium (X) starts\n"));
        assert!(text.contains("Medium (X) plays "));
        assert!(
            text.ends_with("Zed (O) to move\nFinal scores: Medium (X) 0, Zed (O) 0, draws 0\n")
        );

        let out = play(&["--first", "toss", "--seed", "5"], b"");
        assert!(stdout(&out).contains(" starts (coin toss)\n"));
    }

    #[test]
    fn bots_only_play_one_game_per_next() {
        let out = play(
            &[
                "--x",
                "bot:perfect",
                "--o",
                "bot:perfect",
                "--first",
                "toss",
            ],
            b"next\nnext\n",
        );
        assert!(out.status.success());
        assert_eq!(stdout(&out).matches("Result: draw\n").count(), 3);
    }

    #[test]
    fn hint_help_and_quit() {
        let out = play(&["--x", "A", "--o", "B"], b"a1\nhint\nhelp\nquit\nb2\n");
        assert!(out.status.success());
        let text = stdout(&out);
        // Best first: after a corner, only the centre holds the draw.
        assert!(text.contains("Hint for B (O): b2 draw, "), "{text}");
        assert!(!text.contains("Hint for B (O): b2 draw, a2 draw"));
        assert!(text.contains(
            "Commands: undo (u), restart (r), scores (s), hint (h, v, values), next (n), help (?), quit (q)\n"
        ));
        assert!(text.contains("Values: win in N or loss in N count plies"));
        assert!(!text.contains("plays b2"), "nothing is read after quit");
    }

    #[test]
    fn empty_input_ends_at_once() {
        let out = play(&[], b"");
        assert!(out.status.success());
        assert_eq!(
            stdout(&out),
            "Players: Player 1 (X) vs Player 2 (O)\nRound 1: Player 1 (X) starts\n   a b c\n1  . . .\n2  . . .\n3  . . .\nPlayer 1 (X) to move\nFinal scores: Player 1 (X) 0, Player 2 (O) 0, draws 0\n"
        );
    }

    #[test]
    fn bad_flags_fail_with_a_message() {
        for (args, needle) in [
            (&["--o", "bot:genius"][..], "is not a bot"),
            (&["--first", "y"][..], "is not a first-move rule"),
            (&["--x", ""][..], "cannot be empty"),
            (
                &["--seed", "abc"][..],
                "'abc' is not a seed: use a whole number",
            ),
            (
                &["--seed", "-1"][..],
                "'-1' is not a seed: use a whole number",
            ),
            // Online play has no line mode: refused, not ignored.
            (
                &["--server", "http://127.0.0.1:9", "--plain"][..],
                "--plain is for offline games; online play needs the full screen",
            ),
            (
                &["--plain", "http://127.0.0.1:9/t/abc"][..],
                "--plain is for offline games",
            ),
            (&["--plain", "--server"][..], "--plain is for offline games"),
        ] {
            let out = play(args, b"");
            assert_eq!(out.status.code(), Some(2), "{args:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(needle), "{args:?}: {err}");
        }
    }

    #[test]
    fn conflicting_options_and_bad_online_names_are_refused_before_connecting() {
        // Port 9 answers nothing: a refusal here comes before connecting.
        let link = "http://127.0.0.1:9/t/abc";
        for (args, needle) in [
            (
                &[link, "--server", "http://127.0.0.1:10"][..],
                "--server names another server than the link",
            ),
            (&[link, "--x", "bot:easy"][..], "--x is for offline games"),
            (
                &[
                    "--server",
                    "http://127.0.0.1:9",
                    "--o",
                    "Bo",
                    "--first",
                    "x",
                ][..],
                "--o and --first are for offline games",
            ),
            (
                &["--server", "--seed", "3"][..],
                "--seed is for offline games",
            ),
            (
                &["--x", "A", "--name", "B"][..],
                "--name is for online play",
            ),
            (&["--name", "B", "--plain"][..], "--name is for online play"),
            // The name rules offline and online alike, in the same words.
            (
                &["--server", "http://127.0.0.1:9", "--name", ""][..],
                "a player's name cannot be empty",
            ),
            (&[link, "--name", "a\u{7}b"][..], "cannot be used"),
            (
                &[link, "--name", &"n".repeat(30)][..],
                "is too long (at most 24 characters)",
            ),
            // A computer player's name, or one that looks like it (a
            // Cyrillic Е), in the server's words, before connecting.
            (
                &["--server", "http://127.0.0.1:9", "--name", "Easy"][..],
                "\"Easy\" is the name of a computer player or a pass-and-play seat; pick another",
            ),
            (
                &[link, "--name", "\u{0415}asy"][..],
                "is the name of a computer player",
            ),
        ] {
            let out = play(args, b"");
            assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains(needle), "{args:?}: {err}");
            assert!(!err.contains("invalid_name"), "{args:?}: {err}");
        }
        // The same server twice is no conflict; a query, a fragment and an
        // upper-case scheme are addresses (here refused only for want of a
        // terminal, after the flags are read).
        for args in [
            &[link, "--server", "http://127.0.0.1:9"][..],
            &["http://127.0.0.1:9/t/abc?ref=x"][..],
            &["http://127.0.0.1:9/t/abc#chat"][..],
            &["--server", "HTTP://127.0.0.1:9"][..],
        ] {
            let out = play(args, b"");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
            assert!(err.contains("needs a terminal"), "{args:?}: {err}");
        }
    }
}

mod tui {
    use super::*;
    use common::tmux::Tmux;

    /// The number at the end of the scoreboard row holding `label`
    /// (`│ ▶ X  Alice        0 │`), if the scoreboard shows.
    fn score(screen: &str, label: &str) -> Option<u32> {
        let line = screen
            .lines()
            .find(|l| l.contains(label) && l.contains('│'))?;
        let cells: Vec<&str> = line.split('│').collect();
        let panel = cells.get(cells.len().checked_sub(2)?)?;
        panel.split_whitespace().last()?.parse().ok()
    }

    /// Finished rounds on the scoreboard: Alice's wins, the bot's and draws.
    fn results(screen: &str) -> Option<u32> {
        Some(score(screen, "X  Alice")? + score(screen, "O  Impossible")? + score(screen, "Draws")?)
    }

    fn moves_listed(screen: &str) -> bool {
        screen.contains(" 1.  X ")
    }

    #[test]
    fn full_game_against_the_perfect_bot_in_tmux() {
        let Some(tmux) = Tmux::start(
            "full_game_against_the_perfect_bot_in_tmux",
            100,
            35,
            "--x Alice --o bot:perfect --first x --seed 11",
        ) else {
            return;
        };
        let screen = tmux.wait_for("round 1", |s| s.contains("Alice (X) to move"));
        assert!(screen.contains("Scoreboard") && screen.contains("Round 1"));

        // Round 1: try every cell in turn; taken cells are refused, and the
        // game ends before the last digit.
        for round in 1..=2u32 {
            tmux.send(&["-l", "123456789"]);
            let screen = tmux.wait_for("the result", |s| {
                (s.contains("wins!") || s.contains("Draw!")) && results(s) == Some(round)
            });
            assert!(!screen.contains("Alice (X) wins!"), "{screen}");
            assert!(screen.contains("Impossible (O) wins!") || screen.contains("Draw!"));
            assert!(screen.contains("Enter next round"));
            assert_eq!(score(&screen, "X  Alice"), Some(0));
            tmux.send(&["Enter"]);
            let next = round + 1;
            let screen = tmux.wait_for("the next round", |s| {
                s.contains(&format!("Round {next} ")) && !moves_listed(s)
            });
            assert_eq!(
                results(&screen),
                Some(round),
                "the scoreboard keeps round {round}"
            );
        }

        // Round 3: one move, then restart.
        tmux.send(&["5"]);
        tmux.wait_for("a move", moves_listed);
        tmux.send(&["r"]);
        let screen = tmux.wait_for("the restart", |s| s.contains("Round 3 restarted"));
        assert!(!moves_listed(&screen));
        assert!(screen.contains("Alice (X) to move"));
        assert_eq!(results(&screen), Some(2));

        // Quit: the program ends and the terminal is restored.
        // With scores on the screen, q asks once.
        tmux.send(&["q"]);
        tmux.wait_for("the question", |s| s.contains("Press q again to quit"));
        tmux.send(&["q"]);
        let screen = tmux.wait_for("the exit", |s| s.contains("TTY="));
        assert!(screen.contains("EXIT=0"), "{screen}");
        assert!(
            screen.contains("TTY=icanon"),
            "raw mode is off again: {screen}"
        );
        assert!(
            !screen.contains("Scoreboard"),
            "the alternate screen is gone"
        );
    }

    #[test]
    fn ctrl_c_quits_and_restores_the_terminal() {
        let Some(tmux) = Tmux::start("ctrl_c_quits_and_restores_the_terminal", 60, 20, "") else {
            return;
        };
        tmux.wait_for("the set-up screen", |s| s.contains("New game"));
        tmux.send(&["C-c"]);
        let screen = tmux.wait_for("the exit", |s| s.contains("TTY="));
        assert!(
            screen.contains("EXIT=0") && screen.contains("TTY=icanon"),
            "{screen}"
        );
    }

    #[test]
    fn a_dumb_terminal_gets_the_line_mode() {
        let Some(tmux) = Tmux::start_command(
            "a_dumb_terminal_gets_the_line_mode",
            60,
            20,
            &["env", "TERM=dumb", OXO, "play", "--x", "A", "--o", "B"],
        ) else {
            return;
        };
        let screen = tmux.wait_for("the line mode", |s| s.contains("A (X) to move"));
        assert!(screen.contains("Players: A (X) vs B (O)"), "{screen}");
        assert_eq!(
            tmux.flags().split(' ').next(),
            Some("0"),
            "no alternate screen"
        );
    }

    /// A terminal that goes away (its window closed) ends the game: it
    /// neither lingers nor spins on a terminal that answers every read with
    /// nothing.
    #[test]
    fn a_closed_terminal_ends_the_game() {
        let Some(tmux) = Tmux::start_command(
            "a_closed_terminal_ends_the_game",
            60,
            20,
            &[OXO, "play", "--x", "A", "--o", "B"],
        ) else {
            return;
        };
        tmux.wait_for("the game", |s| s.contains("A (X) to move"));
        let pid = tmux.oxo_pid_or_pane();
        let _ = tmux.run(&["kill-server"]);
        let start = Instant::now();
        loop {
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let state = state
                .rsplit(')')
                .next()
                .and_then(|r| r.split_whitespace().next());
            if matches!(state, None | Some("Z" | "X")) {
                break;
            }
            assert!(
                start.elapsed() < Duration::from_secs(5),
                "oxo play {pid} still runs ({state:?}) after its terminal closed"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// `kill -SIGNAL` from outside ends the game with the terminal restored
    /// (cooked mode, normal screen, cursor shown) and the conventional
    /// status (128 + the signal's number).
    fn a_signal_from_outside_restores_the_terminal(test: &str, signal: &str, status: u8) {
        let Some(tmux) = Tmux::start(test, 60, 20, "") else {
            return;
        };
        tmux.wait_for("the set-up screen", |s| s.contains("New game"));
        tmux.signal(signal);
        let screen = tmux.wait_for("the exit", |s| s.contains("TTY="));
        assert!(
            screen.contains(&format!("EXIT={status}")) && screen.contains("TTY=icanon"),
            "{signal}: {screen}"
        );
        tmux.wait_flags(signal, "0 1");
    }

    #[test]
    fn sigterm_restores_the_terminal() {
        a_signal_from_outside_restores_the_terminal("sigterm_restores_the_terminal", "TERM", 143);
    }

    #[test]
    fn sighup_restores_the_terminal() {
        a_signal_from_outside_restores_the_terminal("sighup_restores_the_terminal", "HUP", 129);
    }

    #[test]
    fn sigint_from_outside_restores_the_terminal() {
        a_signal_from_outside_restores_the_terminal(
            "sigint_from_outside_restores_the_terminal",
            "INT",
            130,
        );
    }

    /// Ctrl-Z (or SIGTSTP from outside) suspends with the terminal
    /// restored (the shell's prompt, cooked mode, cursor shown); `fg`
    /// redraws and the game goes on.
    #[test]
    fn suspend_restores_the_terminal_and_fg_redraws() {
        let Some(tmux) = Tmux::start_in_shell("suspend_restores_the_terminal_and_fg_redraws", "")
        else {
            return;
        };
        tmux.wait_for("the set-up screen", |s| s.contains("New game"));
        tmux.wait_flags("playing", "1 0");
        for how in ["C-z", "TSTP"] {
            if how == "C-z" {
                tmux.send(&["C-z"]);
            } else {
                tmux.signal(how);
            }
            tmux.wait_flags(how, "0 1");
            tmux.wait_for("the shell's job report", |s| s.contains("Stopped"));
            tmux.send(&[
                "-l",
                "stty -a | grep -o -- '-*icanon' | sed 's/^/STOPPED=/'",
            ]);
            tmux.send(&["Enter"]);
            tmux.wait_for("cooked mode while stopped", |s| {
                s.contains("STOPPED=icanon")
            });
            tmux.send(&["-l", "clear; fg"]);
            tmux.send(&["Enter"]);
            tmux.wait_flags("resumed", "1 0");
            tmux.wait_for("the redrawn set-up screen", |s| s.contains("New game"));
        }
        // A stopped job leaves the rest of its command line behind: ask the
        // shell for the status and the mode once the game has ended.
        tmux.send(&["q"]);
        tmux.wait_flags("the exit", "0 1");
        tmux.send(&[
            "-l",
            "echo EXIT=$?; stty -a | grep -o -- '-*icanon' | sed 's/^/TTY=/'",
        ]);
        tmux.send(&["Enter"]);
        let screen = tmux.wait_for("the exit", |s| {
            s.contains("TTY=icanon") || s.contains("TTY=-")
        });
        assert!(
            screen.contains("EXIT=0") && screen.contains("TTY=icanon"),
            "{screen}"
        );
    }
}
