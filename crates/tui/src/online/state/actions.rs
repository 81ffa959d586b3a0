//! What a key or a click does on the online screen: a chat line being
//! typed, the help window, and the keys at a table (the lobby's are in
//! `lobby`; the keys pressed twice in `confirm`).

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use oxo_core::Square;
use oxo_protocol::limits::MAX_CHAT_CHARS;
use oxo_protocol::{ClientMsg, TableId, TableStatus};
use ratatui::layout::Rect;

use super::super::view;
use super::confirm::Armed;
use super::{OFFLINE_CHAT, Online, has_free_seat};
use crate::input;

/// What a key that would ask something of a closed table says instead.
const CLOSED: &str = "The table is closed: Esc goes back to the lobby";

impl Online {
    /// Handles a key.
    pub(crate) fn key(&mut self, key: KeyEvent) {
        if key.kind == KeyEventKind::Release {
            return;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL)
            && matches!(key.code, KeyCode::Char('c' | 'd'))
        {
            self.running = false;
            return;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL)
            && matches!(key.code, KeyCode::Char('z' | 'Z'))
        {
            self.suspend = true;
            return;
        }
        if self.too_small() {
            // Only "enlarge it, or press q": nothing may happen unseen.
            if key.code == KeyCode::Char('q') {
                self.running = false;
            }
            return;
        }
        if std::mem::take(&mut self.help) {
            return;
        }
        if let Some(line) = &mut self.typing {
            match key.code {
                // Offline the line is kept until it can go.
                KeyCode::Enter if !self.connected => self.message = OFFLINE_CHAT.to_owned(),
                KeyCode::Enter => {
                    let text = std::mem::take(line);
                    self.typing = None;
                    if let (false, Some(table)) = (text.trim().is_empty(), &self.table) {
                        let table_id = table.id.clone();
                        self.ask(ClientMsg::Chat { table_id, text });
                    }
                }
                KeyCode::Esc => self.typing = None,
                KeyCode::Backspace => {
                    line.pop();
                }
                KeyCode::Char(c) if !c.is_control() && line.chars().count() < MAX_CHAT_CHARS => {
                    line.push(c);
                }
                _ => {}
            }
            return;
        }
        if key.code == KeyCode::Char('?') {
            self.armed = None;
            self.help = true;
            return;
        }
        match self.table {
            Some(_) => self.table_key(key.code),
            None => self.lobby_key(key.code),
        }
    }

    /// Handles a mouse click at column `x`, row `y` of the screen `area`:
    /// a click on a cell of the board plays it, as the cursor and Enter
    /// would; not while a chat line is typed or the help window covers
    /// the board (as offline).
    pub(crate) fn click(&mut self, area: Rect, x: u16, y: u16) {
        if self.typing.is_some() || self.help || self.too_small() {
            return;
        }
        let Some(table) = &self.table else {
            return;
        };
        let id = table.id.clone();
        if let Some(sq) = view::square_at(self, area, x, y) {
            // Like a key, a click between two presses of q, f or Esc
            // takes the first back.
            self.armed = None;
            self.cursor = sq;
            self.play(id, sq);
        }
    }

    fn table_key(&mut self, code: KeyCode) {
        let Some(table) = &self.table else {
            return;
        };
        let id = table.id.clone();
        let armed = self.armed.take();
        if let Some(d) = input::direction(code) {
            self.cursor = d.step(self.cursor);
            return;
        }
        let closed = table.status == TableStatus::Closed;
        match code {
            // A closed table takes no more requests (`no_such_table`).
            KeyCode::Char('r' | 'm' | '/' | 'f') if closed => self.message = CLOSED.to_owned(),
            KeyCode::Enter | KeyCode::Char(' ') => self.play(id, self.cursor),
            KeyCode::Char(c @ '1'..='9') => {
                if let Ok(sq) = Square::try_from(c as u8 - b'1') {
                    self.cursor = sq;
                    self.play(id, sq);
                }
            }
            KeyCode::Char('r') => self.ask(ClientMsg::Rematch { table_id: id }),
            KeyCode::Char('m' | '/') if !self.connected => self.message = OFFLINE_CHAT.to_owned(),
            KeyCode::Char('m' | '/') => self.typing = Some(String::new()),
            KeyCode::Char('f') => self.confirm_then(Armed::Forfeit, armed, id),
            KeyCode::Esc | KeyCode::Char('L') => self.confirm_then(Armed::Leave, armed, id),
            KeyCode::Char('q') => self.confirm_then(Armed::Quit, armed, id),
            _ => {}
        }
    }

    fn play(&mut self, table_id: TableId, cell: Square) {
        let Some(table) = &self.table else {
            return;
        };
        if table.status == TableStatus::Closed {
            self.message = CLOSED.to_owned();
            return;
        }
        if self.my_seat().is_none() {
            // Watching: a free seat is taken (the move is not made: the
            // round starts once both seats are filled).
            if has_free_seat(table) {
                self.message = "Taking the free seat…".to_owned();
                self.ask(ClientMsg::JoinTable {
                    table_id,
                    seat: None,
                });
            } else {
                self.message = "You are watching this table: both seats are taken".to_owned();
            }
            return;
        }
        match table.status {
            TableStatus::InProgress => {}
            TableStatus::Waiting => {
                self.message = "Waiting for an opponent to join: give a friend this table's \
                                link"
                    .to_owned();
                return;
            }
            TableStatus::RoundOver | TableStatus::Closed => {
                self.message = "The round is over: r asks for a rematch".to_owned();
                return;
            }
        }
        let game_id = table.game_id.clone();
        self.ask(ClientMsg::Move {
            table_id,
            cell,
            game_id,
        });
    }
}
