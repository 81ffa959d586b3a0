//! The line mode: `oxo play` when standard input or output is not a terminal,
//! or with `--plain`.
//!
//! [`run_lines`] documents the lines it reads and writes: they are a
//! contract with scripts, so its doc comment is where they are listed.

use std::io::{self, BufRead, Write};

use oxo_core::{Player, Square};

use crate::config::Config;
use crate::refusal::Refusal;
use crate::session::{Played, Restart, Session};
use crate::text::{escape_controls, truncate};

/// How much of a refused input line the refusal echoes, in characters.
const ECHO_CHARS: usize = 24;

/// The longest input line read, in bytes; a longer one is refused (and
/// skipped to its end without being kept).
const MAX_LINE: usize = 1024;

/// What a game between two bots says after its scores: the next round
/// waits for a line, and nobody at the keyboard would know which.
const NEXT_PROMPT: &str = "Type next for another round, or quit";

/// What reading one input line found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Read {
    /// A line (in the buffer), or the last one without a newline.
    Line,
    /// A line longer than [`MAX_LINE`]: skipped.
    TooLong,
    /// The end of the input.
    End,
}

/// Reads one line into `buf` (cleared first), keeping at most [`MAX_LINE`]
/// bytes of it: memory stays bounded whatever the input.
fn read_line(input: &mut impl BufRead, buf: &mut Vec<u8>) -> io::Result<Read> {
    buf.clear();
    let mut too_long = false;
    let mut any = false;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(match (any, too_long) {
                (false, _) => Read::End,
                (true, true) => Read::TooLong,
                (true, false) => Read::Line,
            });
        }
        any = true;
        let (part, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], Some(i + 1)),
            None => (chunk, None),
        };
        if !too_long {
            if buf.len() + part.len() > MAX_LINE {
                too_long = true;
                buf.clear();
            } else {
                buf.extend_from_slice(part);
            }
        }
        let used = done.unwrap_or(chunk.len());
        input.consume(used);
        if done.is_some() {
            return Ok(if too_long { Read::TooLong } else { Read::Line });
        }
    }
}

/// One input line of the line mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Command {
    Play(Square),
    Undo,
    Restart,
    Next,
    Scores,
    Hint,
    Help,
    Quit,
}

fn parse(line: &str) -> Option<Command> {
    let word = line.trim().to_ascii_lowercase();
    Some(match word.as_str() {
        "undo" | "u" => Command::Undo,
        "restart" | "r" => Command::Restart,
        "next" | "n" => Command::Next,
        "scores" | "score" | "s" => Command::Scores,
        // `v` and `values` as in the full-screen game.
        "hint" | "hints" | "h" | "values" | "v" => Command::Hint,
        "help" | "?" => Command::Help,
        "quit" | "exit" | "q" => Command::Quit,
        _ => Command::Play(word.parse().ok()?),
    })
}

/// Runs a session in line mode, reading `input` to its end (or `quit`) and
/// writing to `output`.
///
/// It reads one move or command per line and writes plain text, for scripts,
/// tests and terminals that cannot show the full-screen game. Every line it
/// writes has one of the stable shapes below, which scripts may rely on
/// (`NAME` is the player's name, `M` the mark `X` or `O`, `SQ` a cell `a1`..`c3`):
///
/// ```text
/// Players: NAME (X) vs NAME (O)
/// Round N: NAME (M) starts                 (+ " (coin toss)" with --first toss)
/// Round N restarted: NAME (M) starts
///    a b c                                 the board, four lines: header, then
/// 1  X . .                                 rows 1-3 with X, O or . per cell
/// 2  . O .
/// 3  . . .
/// NAME (M) to move                         a person is to move
/// NAME (M) plays SQ                        a person's or a bot's move
/// Result: NAME (M) wins with SQ SQ SQ      a won game ...
/// Result: draw                             ... or a drawn one
/// Scores: NAME (X) N, NAME (O) N, draws N  after each result and for `scores`
/// Final scores: NAME (X) N, NAME (O) N, draws N   at the end of input or `quit`
/// Undone: M SQ[, M SQ]                     most recent first
/// Hint for NAME (M): SQ VALUE, ...         best first, VALUE as `win in 3`, `draw`, `loss in 2`
/// Refused: REASON                          a move or command that changed nothing
/// ```
///
/// A refused line is echoed with its control characters escaped
/// (`\u{1b}`), and a line longer than 1 KiB is refused without being read
/// into memory.
///
/// Input lines are cells (`b2`, `B2`, or `5`: 1..9 row by row from the top
/// left) or the commands `undo`, `restart`, `scores`, `hint`, `next`, `help`
/// and `quit` (or their first letters). Blank lines are skipped. When a game
/// ends, its result and the scores are printed and the next round starts at
/// once; with bots in both seats the next round waits for `next` (or
/// `restart`; a cell is refused, the game being over), so that a script
/// decides how many games to watch, and the scores are followed by
/// `Type next for another round, or quit`. End of input ends the session.
///
/// # Errors
///
/// Reading `input` or writing `output` failed. Bad input lines are not
/// errors: they get a `Refused:` line.
///
/// # Examples
///
/// ```
/// use oxo_tui::{Config, run_lines};
///
/// let config = Config { players: oxo_core::ByPlayer { x: "A".parse()?, o: "B".parse()? },
///                       ..Config::default() };
/// let mut out = Vec::new();
/// run_lines(&config, "a1\nb1\na2\nb2\na3\n".as_bytes(), &mut out)?;
/// let out = String::from_utf8(out)?;
/// assert!(out.contains("\nResult: A (X) wins with a1 a2 a3\n"));
/// assert!(out.contains("\nScores: A (X) 1, B (O) 0, draws 0\n"));
/// # Ok::<_, Box<dyn std::error::Error>>(())
/// ```
pub fn run_lines(config: &Config, mut input: impl BufRead, output: impl Write) -> io::Result<()> {
    let mut out = Lines {
        session: Session::new(config),
        out: output,
    };
    let players = format!(
        "Players: {} vs {}",
        out.session.label(Player::X),
        out.session.label(Player::O)
    );
    out.say(&players)?;
    out.begin_round(false)?;
    let mut buf = Vec::new();
    loop {
        match read_line(&mut input, &mut buf)? {
            Read::End => break,
            Read::TooLong => {
                out.say(&format!(
                    "Refused: a line longer than {MAX_LINE} bytes (moves and commands are short)"
                ))?;
                continue;
            }
            Read::Line => {}
        }
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match parse(line) {
            Some(Command::Quit) => break,
            Some(command) => out.command(command)?,
            None => out.say(&format!(
                "Refused: '{}' is not a cell or a command (try b2, 5 or help)",
                truncate(&escape_controls(line), ECHO_CHARS)
            ))?,
        }
    }
    out.scores("Final scores")?;
    out.out.flush()
}

struct Lines<W> {
    session: Session,
    out: W,
}

impl<W: Write> Lines<W> {
    fn say(&mut self, line: &str) -> io::Result<()> {
        writeln!(self.out, "{line}")
    }

    fn refused(&mut self, refusal: Refusal) -> io::Result<()> {
        self.say(&format!("Refused: {refusal}"))
    }

    fn command(&mut self, command: Command) -> io::Result<()> {
        match command {
            Command::Play(square) => match self.session.play(square) {
                Ok(played) => {
                    self.played(played)?;
                    self.settle()
                }
                Err(refusal) => self.refused(refusal),
            },
            Command::Undo => match self.session.undo() {
                Ok(undone) => {
                    let list: Vec<String> =
                        undone.iter().map(|(p, sq)| format!("{p} {sq}")).collect();
                    self.say(&format!("Undone: {}", list.join(", ")))?;
                    self.board()?;
                    self.settle()
                }
                Err(refusal) => self.refused(refusal),
            },
            Command::Restart => {
                let restart = self.session.restart();
                self.begin_round(restart == Restart::Replayed)
            }
            Command::Next => match self.session.next_round() {
                Ok(()) => self.begin_round(false),
                Err(refusal) => self.refused(refusal),
            },
            Command::Scores => self.scores("Scores"),
            Command::Hint => self.hint(),
            Command::Help => {
                self.say("Moves: a cell a1..c3 (column a-c, row 1-3 from the top) or 1..9 row by row from the top left (1 = a1, 5 = b2, 9 = c3)")?;
                self.say("Commands: undo (u), restart (r), scores (s), hint (h, v, values), next (n), help (?), quit (q)")?;
                self.say("Values: win in N or loss in N count plies, the moves of both players")
            }
            Command::Quit => Ok(()),
        }
    }

    /// `Round N: NAME (M) starts`, or `Round N restarted: NAME (M) starts`,
    /// then the board and whatever follows.
    fn begin_round(&mut self, restarted: bool) -> io::Result<()> {
        let s = &self.session;
        let starter = s.label(s.game().first());
        let line = if restarted {
            format!("Round {} restarted: {starter} starts", s.round())
        } else {
            let toss = if s.tossed() { " (coin toss)" } else { "" };
            format!("Round {}: {starter} starts{toss}", s.round())
        };
        self.say(&line)?;
        self.board()?;
        self.settle()
    }

    fn played(&mut self, played: Played) -> io::Result<()> {
        let line = format!(
            "{} plays {}",
            self.session.label(played.player),
            played.square
        );
        self.say(&line)?;
        self.board()
    }

    /// Lets the bots move, then announces the result (and starts the next
    /// round) or says who is to move.
    fn settle(&mut self) -> io::Result<()> {
        while let Some(played) = self.session.bot_move() {
            self.played(played)?;
        }
        let s = &self.session;
        if let Some(outcome) = s.game().outcome() {
            let line = match outcome.winner() {
                Some(winner) => {
                    format!("Result: {} wins with {}", s.label(winner), outcome.cells())
                }
                None => "Result: draw".to_owned(),
            };
            self.say(&line)?;
            self.scores("Scores")?;
            if self.session.bots_only() {
                self.say(NEXT_PROMPT)
            } else {
                self.session
                    .next_round()
                    .map_err(|e| io::Error::other(format!("cannot start the next round: {e}")))?;
                self.begin_round(false)
            }
        } else if let Some(player) = s.human_to_move() {
            let line = format!("{} to move", s.label(player));
            self.say(&line)
        } else {
            Ok(())
        }
    }

    fn board(&mut self) -> io::Result<()> {
        let text = self.session.game().position().board().diagram();
        self.out.write_all(text.as_bytes())
    }

    /// `LABEL: NAME (X) N, NAME (O) N, draws N`.
    fn scores(&mut self, label: &str) -> io::Result<()> {
        let s = &self.session;
        let scores = s.scores();
        let line = format!(
            "{label}: {} {}, {} {}, draws {}",
            s.label(Player::X),
            scores.x,
            s.label(Player::O),
            scores.o,
            scores.draws
        );
        self.say(&line)
    }

    fn hint(&mut self) -> io::Result<()> {
        let s = &self.session;
        let Some(player) = s.game().to_move() else {
            return self.refused(Refusal::GameOver);
        };
        let cells: Vec<String> = s
            .hints()
            .iter()
            .map(|h| format!("{} {}", h.square, h.value))
            .collect();
        let line = format!("Hint for {}: {}", s.label(player), cells.join(", "));
        self.say(&line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(x: &str, o: &str, input: &str) -> String {
        let config = Config::seated(x, o);
        let mut out = Vec::new();
        run_lines(&config, input.as_bytes(), &mut out).expect("in-memory I/O");
        String::from_utf8(out).expect("UTF-8")
    }

    #[test]
    fn commands_parse() {
        assert_eq!(parse(" B2 "), Some(Command::Play(Square::B2)));
        assert_eq!(parse("5"), Some(Command::Play(Square::B2)));
        assert_eq!(parse("UNDO"), Some(Command::Undo));
        assert_eq!(
            parse("v"),
            Some(Command::Hint),
            "v as in the full-screen game"
        );
        assert_eq!(parse("q"), Some(Command::Quit));
        assert_eq!(parse("d4"), None);
        assert_eq!(parse("0"), None);
    }

    #[test]
    fn refusals_and_commands() {
        let out = run(
            "A",
            "B",
            "b2\nb2\nzz\n\nundo\nundo\nundo\nhint\nscores\nnext\nquit\na1\n",
        );
        assert!(out.contains("Refused: b2 is already taken (by X)\n"));
        assert!(out.contains("Refused: 'zz' is not a cell or a command (try b2, 5 or help)\n"));
        assert!(out.contains("Undone: X b2\n"));
        assert!(out.contains("Refused: there is no move to undo\n"));
        assert!(out.contains("Hint for A (X): "));
        assert!(out.contains("Scores: A (X) 0, B (O) 0, draws 0\n"));
        assert!(out.contains("Refused: the game is not over yet\n"));
        assert!(!out.contains("plays a1"), "nothing after quit");
    }

    #[test]
    fn against_the_perfect_bot() {
        let out = run("A", "bot:perfect", "1\n2\n3\n4\n5\n6\n7\n8\n9\n");
        assert!(out.contains("Impossible (O) plays "));
        assert!(
            out.contains("Result: draw\n") || out.contains("Result: Impossible (O) wins with ")
        );
        assert!(!out.contains("Result: A (X) wins"));
    }

    #[test]
    fn refused_input_shows_control_characters_escaped() {
        let out = run("A", "B", "\u{1b}]0;pwned\u{7}\n");
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}'), "{out:?}");
        assert!(
            out.contains("Refused: '\\u{1b}]0;pwned\\u{7}' is not a cell"),
            "{out}"
        );
    }

    #[test]
    fn an_overlong_line_is_refused_and_the_session_goes_on() {
        let long = "x".repeat(50_000);
        let out = run("A", "B", &format!("{long}\nb2\n"));
        assert!(
            out.contains("Refused: a line longer than 1024 bytes (moves and commands are short)\n"),
            "{out}"
        );
        assert!(
            out.contains("A (X) plays b2\n"),
            "the next line is read: {out}"
        );
    }

    #[test]
    fn the_final_scores_are_printed_at_the_end_of_input_and_on_quit() {
        let out = run("A", "B", "a1\nb1\na2\nb2\na3\n");
        assert!(
            out.ends_with("Final scores: A (X) 1, B (O) 0, draws 0\n"),
            "{out}"
        );
        let out = run("A", "B", "quit\nb2\n");
        assert!(
            out.ends_with("Final scores: A (X) 0, B (O) 0, draws 0\n"),
            "{out}"
        );
    }

    #[test]
    fn bots_only_go_on_with_next_or_restart_and_refuse_a_cell() {
        let out = run("bot:perfect", "bot:perfect", "b2\nrestart\nzz\nnext\n");
        assert!(out.contains("Result: draw\nScores: Impossible (X) 0, Impossible (O) 0, draws 1\nType next for another round, or quit\nRefused: the game is over\nRound 2: "), "{out}");
        assert!(out.contains("Refused: 'zz' is not a cell"), "{out}");
        assert_eq!(out.matches("Result: draw\n").count(), 3, "{out}");
    }

    #[test]
    fn bots_only_say_what_to_type_after_each_game() {
        let out = run("bot:perfect", "bot:perfect", "next\n");
        assert_eq!(out.matches(NEXT_PROMPT).count(), 2, "{out}");
        assert!(
            out.contains("draws 1\nType next for another round, or quit\nRound 2: "),
            "{out}"
        );
        // People playing start the next round at once: no prompt.
        let out = run("A", "B", "a1\nb1\na2\nb2\na3\n");
        assert!(!out.contains(NEXT_PROMPT), "{out}");
    }

    #[test]
    fn bots_only_wait_for_next() {
        let out = run("bot:perfect", "bot:perfect", "next\n");
        assert_eq!(out.matches("Result: draw\n").count(), 2);
        assert!(out.contains("Scores: Impossible (X) 0, Impossible (O) 0, draws 2\n"));
    }
}
