//! The intents of a game in progress: moving the cursor, playing a cell
//! (by cursor, number or name), taking moves back, restarting and going on
//! to the next round, and the messages that say what happened.
//!
//! A bot playing a person answers inside the person's move, so the screen
//! never shows a position where the bot is to move.

use oxo_core::Square;

use super::{App, Direction, Message, Tone};
use crate::refusal::Refusal;
use crate::session::Restart;

impl App {
    pub(super) fn info(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            tone: Tone::Info,
            text: text.into(),
        });
    }

    pub(super) fn warn(&mut self, text: impl Into<String>) {
        self.message = Some(Message {
            tone: Tone::Warn,
            text: text.into(),
        });
    }

    pub(super) fn announce_round(&mut self, restarted: bool) {
        if let Some(s) = &self.session {
            let starter = s.said(s.game().first());
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
    pub(super) fn answer(&mut self) {
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
            news = Some((s.said(played.player), played.square));
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
    pub(crate) fn move_cursor(&mut self, direction: Direction) {
        self.cursor = direction.step(self.cursor);
        self.column = None;
    }

    /// Plays the cell under the cursor, or starts the next round once the
    /// game is over (Enter and Space).
    pub(crate) fn confirm(&mut self) {
        let over = self.session.as_ref().is_some_and(|s| s.game().is_over());
        if over {
            self.next_round();
        } else {
            self.play(self.cursor);
        }
    }

    /// Plays `square` for the person to move, and lets the bot answer.
    /// A refused move changes nothing but the message.
    pub(crate) fn play(&mut self, square: Square) {
        self.column = None;
        let Some(s) = self.session.as_mut() else {
            return;
        };
        self.cursor = square;
        match s.play(square) {
            Ok(_) => {
                self.message = None;
                self.answer();
                self.cursor_off_played();
            }
            Err(Refusal::GameOver) => {
                self.warn("The game is over: Enter starts the next round");
            }
            Err(Refusal::BotToMove) => self.warn("Wait for the bot's move"),
            Err(refusal) => self.warn(refusal.to_string()),
        }
    }

    /// Moves the cursor off a played cell to the nearest free one (reading
    /// order breaks ties), so that Enter never lands on a taken cell.
    fn cursor_off_played(&mut self) {
        let Some(s) = &self.session else {
            return;
        };
        let board = s.game().position().board();
        if board.get(self.cursor).is_none() || s.game().is_over() {
            return;
        }
        let (col, row) = (self.cursor.column(), self.cursor.row());
        let distance = |sq: Square| sq.column().abs_diff(col) + sq.row().abs_diff(row);
        if let Some(free) = Square::ALL
            .into_iter()
            .filter(|&sq| board.get(sq).is_none())
            .min_by_key(|&sq| distance(sq))
        {
            self.cursor = free;
        }
    }

    /// A column letter typed (`0` for `a`): moves the cursor to that column
    /// and waits for the row digit.
    pub(crate) fn type_column(&mut self, column: u8) {
        if let Some(sq) = Square::from_coords(column, self.cursor.row()) {
            self.cursor = sq;
            self.column = Some(column);
        }
    }

    /// A digit typed: with a column letter before it, `1`..`3` is the row
    /// (`b` `2` plays b2); else `1`..`9` is the cell numbered row by row from
    /// the top left (`5` plays b2).
    pub(crate) fn type_digit(&mut self, digit: u8) {
        let square = match self.column.take() {
            Some(col) if (1..=3).contains(&digit) => Square::from_coords(col, digit - 1),
            _ => digit.checked_sub(1).and_then(Square::from_index),
        };
        if let Some(sq) = square {
            self.play(sq);
        }
    }

    /// Takes back the last move of the person to move (and the bot's answer).
    pub(crate) fn undo(&mut self) {
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
                self.warn(
                    "The game is over and its result counts: Enter or r starts the next round",
                );
            }
            Err(Refusal::NothingToUndo) => self.warn("There is no move to take back yet"),
            Err(refusal) => self.warn(refusal.to_string()),
        }
    }

    /// `r`: plays the round in play again with the same starter, or after a
    /// finished round starts the next one under the starter rule; the
    /// message says which.
    pub(crate) fn restart(&mut self) {
        self.column = None;
        let Some(s) = self.session.as_mut() else {
            return;
        };
        let restart = s.restart();
        self.cursor = Square::B2;
        self.announce_round(restart == Restart::Replayed);
        self.answer();
    }

    /// `q` on the game screen: quits at once when nothing would be lost;
    /// with moves or scores on the screen, asks once ("press q again").
    pub(crate) fn ask_quit(&mut self) {
        let at_stake = self
            .session
            .as_ref()
            .is_some_and(|s| s.scores().rounds() > 0 || !s.game().moves().is_empty());
        if !at_stake || self.quit_armed {
            self.quit();
        } else {
            self.quit_armed = true;
            self.warn("Press q again to quit: the scores are not kept");
        }
    }

    /// Any key but `q` takes back a first `q`, and its prompt with it
    /// (what the key does may say something else).
    pub(crate) fn disarm_quit(&mut self) {
        if std::mem::take(&mut self.quit_armed) {
            self.message = None;
        }
    }

    /// Starts the next round once the game is over.
    pub(crate) fn next_round(&mut self) {
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
    pub(crate) fn toggle_hints(&mut self) {
        self.hints = !self.hints;
        if self.hints {
            self.info(super::VALUES_NOTE);
        }
    }

    /// Forgets a typed column letter and the message (`Esc`).
    pub(crate) fn cancel(&mut self) {
        self.column = None;
        self.message = None;
    }
}

#[cfg(test)]
mod tests {
    use oxo_core::Square::*;

    use super::*;

    #[test]
    fn cursor_wraps_and_places() {
        let mut app = App::seated("A", "B");
        assert_eq!(app.cursor(), B2);
        app.move_cursor(Direction::Up);
        app.move_cursor(Direction::Up);
        assert_eq!(app.cursor(), B3);
        app.move_cursor(Direction::Right);
        app.move_cursor(Direction::Right);
        assert_eq!(app.cursor(), A3);
        app.confirm();
        assert_eq!(app.moves(), vec![A3]);
    }

    #[test]
    fn digits_and_names() {
        let mut app = App::seated("A", "B");
        app.type_digit(5);
        app.type_column(2);
        assert_eq!(app.pending_column(), Some(2));
        app.type_digit(1);
        app.type_digit(1);
        assert_eq!(app.moves(), vec![B2, C1, A1]);
        // A column letter then a digit past 3 plays the numbered cell.
        app.type_column(0);
        app.type_digit(9);
        assert_eq!(app.moves(), vec![B2, C1, A1, C3]);
    }

    #[test]
    fn refused_moves_change_nothing() {
        let mut app = App::seated("A", "B");
        app.play(B2);
        app.play(B2);
        assert_eq!(app.moves(), vec![B2]);
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
        assert_eq!(app.moves().len(), 9);
        assert_eq!(app.session().map(|s| s.scores().draws), Some(1));
    }

    #[test]
    fn bot_answers_at_once_and_undo_takes_both() {
        let mut app = App::seated("A", "bot:perfect");
        app.play(A1);
        assert_eq!(app.moves().len(), 2, "the bot answered");
        assert!(
            app.message()
                .is_some_and(|m| m.text.starts_with("Impossible (O) played "))
        );
        app.undo();
        assert!(app.moves().is_empty());
        assert!(
            app.message()
                .is_some_and(|m| m.text.starts_with("Took back a1 and "))
        );
    }
}
