//! The set-up screen's form: who plays (two people, or a person and a bot
//! of some level), their names, and who starts each round.
//!
//! It owns the choices only; the app turns them into a [`Config`] when the
//! game starts, and the drawing lives in `ui::setup`.

use oxo_core::{BotLevel, ByPlayer, Player, Starter};
use oxo_protocol::limits::MAX_NAME_CHARS;
use oxo_protocol::{MAX_MARKS, is_hidden, is_mark};

use crate::config::{Config, DEFAULT_NAMES, Seat, check_name};

/// Who the person at the keyboard plays against, on the set-up screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Opponent {
    /// Another person at the same keyboard.
    Person,
    /// A bot.
    Bot,
    /// Two bots, to watch.
    Bots,
}

/// A field of the set-up form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Field {
    /// Two people or against a bot.
    Mode,
    /// The strength of the bot playing this mark.
    Level(Player),
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
pub(crate) struct SetupForm {
    /// Two people or against a bot.
    pub(crate) opponent: Opponent,
    /// The bots' strengths (the one in [`SetupForm::bot_side`] against a
    /// person, both for bots only).
    pub(crate) levels: ByPlayer<BotLevel>,
    /// The mark the bot plays.
    pub(crate) bot_side: Player,
    /// The names typed so far for each mark (the bot's is not used).
    pub(crate) names: ByPlayer<String>,
    /// Who starts each round.
    pub(crate) first: Starter,
    /// The field with the focus.
    pub(crate) focus: Field,
}

impl SetupForm {
    /// The form showing `config`'s choices.
    #[must_use]
    pub(crate) fn from_config(config: &Config) -> SetupForm {
        // A default name is shown as the field's placeholder, not typed in
        // it: typing replaces it.
        let human_name = |seat: &Seat, p: Player| match seat {
            Seat::Human(name) if name != DEFAULT_NAMES[p] => name.clone(),
            Seat::Human(_) | Seat::Bot(_) => String::new(),
        };
        let names = ByPlayer::new_with(|p| human_name(&config.players[p], p));
        let levels = ByPlayer::new_with(|p| match config.players[p] {
            Seat::Bot(level) => level,
            Seat::Human(_) => BotLevel::Perfect,
        });
        let (opponent, bot_side) = match (&config.players.x, &config.players.o) {
            (Seat::Human(_), Seat::Human(_)) => (Opponent::Person, Player::O),
            (Seat::Bot(_), Seat::Human(_)) => (Opponent::Bot, Player::X),
            (Seat::Human(_), Seat::Bot(_)) => (Opponent::Bot, Player::O),
            (Seat::Bot(_), Seat::Bot(_)) => (Opponent::Bots, Player::O),
        };
        SetupForm {
            opponent,
            levels,
            bot_side,
            names,
            first: config.first,
            focus: Field::Mode,
        }
    }

    /// The fields shown for the chosen mode, top to bottom.
    #[must_use]
    pub(crate) fn fields(&self) -> Vec<Field> {
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
                Field::Level(self.bot_side),
                Field::BotSide,
                Field::Name(!self.bot_side),
                Field::First,
                Field::Start,
            ],
            Opponent::Bots => vec![
                Field::Mode,
                Field::Level(Player::X),
                Field::Level(Player::O),
                Field::First,
                Field::Start,
            ],
        }
    }

    /// Moves the focus to the next field (`forward`) or the previous one,
    /// wrapping around.
    pub(crate) fn focus_next(&mut self, forward: bool) {
        self.focus = step(&self.fields(), self.focus, forward);
    }

    /// Changes the focused choice to the next (`forward`) or previous option;
    /// does nothing on a name or the start button.
    pub(crate) fn cycle(&mut self, forward: bool) {
        match self.focus {
            Field::Mode => {
                let modes = [Opponent::Person, Opponent::Bot, Opponent::Bots];
                self.opponent = step(&modes, self.opponent, forward);
            }
            Field::Level(p) => self.levels[p] = step(&BotLevel::ALL, self.levels[p], forward),
            Field::BotSide => {
                // The bot keeps its level when it changes sides.
                let level = self.levels[self.bot_side];
                self.bot_side = !self.bot_side;
                self.levels[self.bot_side] = level;
            }
            Field::First => self.first = step(&Starter::ALL, self.first, forward),
            Field::Name(_) | Field::Start => {}
        }
    }

    /// Types `c` into the focused name (up to [`MAX_NAME_CHARS`] characters),
    /// unless a name cannot hold it (see [`oxo_protocol::check_name`]): a
    /// control character, one that hides or reorders text, a combining mark
    /// past [`MAX_MARKS`] on one letter. What the form shows is then the
    /// name the game starts with. Returns whether a name took the key.
    pub(crate) fn type_char(&mut self, c: char) -> bool {
        let Field::Name(p) = self.focus else {
            return false;
        };
        let name = &mut self.names[p];
        let marks = name.chars().rev().take_while(|&m| is_mark(m)).count();
        let fits = !(c.is_control() || is_hidden(c) || (is_mark(c) && marks >= MAX_MARKS));
        if fits && name.chars().count() < MAX_NAME_CHARS {
            name.push(c);
        }
        true
    }

    /// Clears the focused name (Ctrl-U).
    pub(crate) fn clear(&mut self) {
        if let Field::Name(p) = self.focus {
            self.names[p].clear();
        }
    }

    /// Deletes the last character of the focused name.
    pub(crate) fn backspace(&mut self) {
        if let Field::Name(p) = self.focus {
            self.names[p].pop();
        }
    }

    /// The seats chosen: empty names become `Player 1` / `Player 2`.
    #[must_use]
    pub(crate) fn seats(&self) -> ByPlayer<Seat> {
        ByPlayer::new_with(|p| {
            let bot = match self.opponent {
                Opponent::Person => false,
                Opponent::Bot => p == self.bot_side,
                Opponent::Bots => true,
            };
            if bot {
                Seat::Bot(self.levels[p])
            } else {
                Seat::Human(
                    check_name(&self.names[p]).unwrap_or_else(|_| DEFAULT_NAMES[p].to_owned()),
                )
            }
        })
    }
}

/// The option after `now` in `all` (`forward`) or before it, wrapping
/// around; the first one if `now` is not among them.
pub(crate) fn step<T: Copy + PartialEq>(all: &[T], now: T, forward: bool) -> T {
    let n = all.len();
    let at = all.iter().position(|&x| x == now).unwrap_or(0);
    all[if forward {
        (at + 1) % n
    } else {
        (at + n - 1) % n
    }]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_start_empty_and_ctrl_u_clears_them() {
        let mut form = SetupForm::from_config(&Config::default());
        assert_eq!(
            form.names,
            ByPlayer {
                x: String::new(),
                o: String::new()
            }
        );
        form.focus = Field::Name(Player::X);
        for c in "Ann".chars() {
            form.type_char(c);
        }
        assert_eq!(
            form.names.x, "Ann",
            "typing does not append to a default name"
        );
        form.clear();
        assert_eq!(form.names.x, "");
        let seats = form.seats();
        assert_eq!(
            seats.x,
            Seat::Human("Player 1".into()),
            "an empty name plays as the default"
        );
        // A name given on the command line is kept.
        let form = SetupForm::from_config(&Config::seated("Zoe", "Bob"));
        assert_eq!(form.names.x, "Zoe");
    }

    #[test]
    fn a_name_plays_as_typed_without_the_characters_a_name_cannot_hold() {
        let mut form = SetupForm::from_config(&Config::default());
        form.focus = Field::Name(Player::X);
        // Pasted with a right-to-left override and a zero-width space, and
        // a tower of combining marks.
        for c in "ab\u{202e}evil\u{200b}e\u{301}\u{301}\u{301}\u{301}".chars() {
            assert!(form.type_char(c), "a name takes the key {c:?}");
        }
        assert_eq!(form.names.x, "abevile\u{301}\u{301}\u{301}");
        assert_eq!(
            form.seats().x,
            Seat::Human("abevile\u{301}\u{301}\u{301}".into()),
            "the game starts with the name shown, not a default"
        );
    }

    #[test]
    fn the_set_up_can_choose_bot_against_bot() {
        let mut form = SetupForm::from_config(&Config::default());
        form.cycle(true);
        form.cycle(true);
        assert_eq!(form.opponent, Opponent::Bots);
        assert_eq!(
            form.fields(),
            vec![
                Field::Mode,
                Field::Level(Player::X),
                Field::Level(Player::O),
                Field::First,
                Field::Start
            ]
        );
        form.focus = Field::Level(Player::X);
        form.cycle(false);
        let seats = form.seats();
        assert_eq!(seats.x, Seat::Bot(BotLevel::Medium));
        assert_eq!(seats.o, Seat::Bot(BotLevel::Perfect));
        form.focus = Field::Mode;
        form.cycle(true);
        assert_eq!(form.opponent, Opponent::Person, "the modes go round");
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
                Field::Level(Player::O),
                Field::BotSide,
                Field::Name(Player::X),
                Field::First,
                Field::Start
            ]
        );
        form.focus = Field::Level(Player::O);
        form.cycle(false);
        assert_eq!(form.levels.o, BotLevel::Medium);
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
}
