//! The lobby's keys: select a table (one held, or an open one), join,
//! watch, create one (public, private, or against a server bot), and pick
//! who starts and the time per move for new tables.

use crossterm::event::KeyCode;
use oxo_core::{BotLevel, Starter};
use oxo_protocol::{BotSeat, ClientMsg, TableId, TableOptions};

use super::{CLOCKS, Online};
use crate::form::step;

impl Online {
    pub(super) fn lobby_key(&mut self, code: KeyCode) {
        match code {
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => {
                self.selected = (self.selected + 1).min(self.lobby_rows().saturating_sub(1));
            }
            // A table held is joined again (its seat re-attached), even
            // with `w`: there is nothing to watch at one's own seat.
            KeyCode::Enter | KeyCode::Char('w') => {
                if let Some(table_id) = self.selected_table() {
                    self.want(&table_id);
                    let held = self.selected < self.held.len();
                    self.ask(if code == KeyCode::Enter || held {
                        ClientMsg::JoinTable {
                            table_id,
                            seat: None,
                        }
                    } else {
                        ClientMsg::WatchTable { table_id }
                    });
                }
            }
            KeyCode::Char('c') => self.create(true, None),
            KeyCode::Char('p') => self.create(false, None),
            KeyCode::Char(c @ '1'..='4') => {
                let level = BotLevel::ALL[usize::from(c as u8 - b'1')];
                self.create(false, Some(level));
            }
            KeyCode::Char('s') => {
                self.starter = step(&Starter::ALL, self.starter, true);
                self.say_new_table_options();
            }
            KeyCode::Char('t') => {
                self.clock = (self.clock + 1) % CLOCKS.len();
                self.say_new_table_options();
            }
            KeyCode::Char('q') => self.running = false,
            // Esc goes back everywhere else; the lobby is the first
            // screen, so it does not quit unasked.
            KeyCode::Esc => self.message = "The lobby is the first screen: q quits".to_owned(),
            _ => {}
        }
    }

    /// `table` is asked for from the lobby: its states open it (even if
    /// it was left before), and no other table's do meanwhile.
    fn want(&mut self, table: &TableId) {
        self.left.retain(|t| t != table);
        self.wanted = Some(table.clone());
    }

    fn create(&mut self, public: bool, bot: Option<BotLevel>) {
        if self.creating {
            self.message = "Your new table is being created…".to_owned();
            return;
        }
        // The new table's id comes after its first state: any table
        // (not left) opens.
        self.wanted = None;
        let secs = CLOCKS[self.clock];
        let options = TableOptions {
            public,
            starter: self.starter,
            move_time_ms: (secs > 0).then_some(secs * 1000),
            bot: bot.map(|level| BotSeat {
                level,
                think_ms: 400,
            }),
            ..TableOptions::default()
        };
        self.ask(ClientMsg::CreateTable { options });
        // Not sent while disconnected: nothing to wait for.
        self.creating = self.connected;
    }

    /// Says what `s` and `t` chose: the keys row shows it too, but not in
    /// a narrow terminal.
    fn say_new_table_options(&mut self) {
        self.message = format!(
            "New tables — starts: {} · {}",
            self.starter.describe(),
            self.clock_text()
        );
    }

    /// The time per move offered for new tables, for people.
    pub(crate) fn clock_text(&self) -> String {
        match CLOCKS[self.clock] {
            0 => "no clock".to_owned(),
            s => format!("{s} s a move"),
        }
    }
}
