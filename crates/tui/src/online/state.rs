//! The online screen's state: the lobby, the table shown, the cursor, the
//! chat, and what each key asks of the server.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use oxo_client::Address;
use oxo_core::{BotLevel, Player, Square, Starter};
use oxo_protocol::{
    BotSeat, ClientMsg, LobbyTable, PlayerId, ServerMsg, TableId, TableOptions, TableState,
    TableStatus,
};
use ratatui::layout::Rect;
use tokio::sync::mpsc::UnboundedSender;

use oxo_protocol::limits::MAX_CHAT_CHARS;

use super::net::{Ask, News};
use super::view;
use crate::form::step;
use crate::input;
use crate::theme::Theme;

/// Per-move time limits on offer for new tables, in seconds (0: none).
const CLOCKS: [u32; 4] = [0, 15, 30, 60];

/// Chat lines kept on screen.
const CHAT_LINES: usize = 4;

/// The online screen.
#[derive(Debug)]
pub(crate) struct Online {
    pub(crate) address: Address,
    pub(crate) name: String,
    pub(crate) me: Option<PlayerId>,
    pub(crate) connected: bool,
    pub(crate) lobby: Vec<LobbyTable>,
    pub(crate) selected: usize,
    pub(crate) table: Option<TableState>,
    /// When the table state arrived (its clocks count from then).
    pub(crate) table_at: Instant,
    pub(crate) cursor: Square,
    pub(crate) chat: Vec<String>,
    /// A chat line being typed.
    pub(crate) typing: Option<String>,
    pub(crate) message: String,
    /// For new tables: who starts, and the time per move.
    pub(crate) starter: Starter,
    pub(crate) clock: usize,
    pub(crate) running: bool,
    /// A first `q` during a round in play, waiting for a second.
    quit_armed: bool,
    /// Why the game ended without the player quitting.
    pub(crate) failed: Option<String>,
    /// Colours (or none, with `NO_COLOR`).
    pub(crate) theme: Theme,
    asks: UnboundedSender<Ask>,
}

impl Online {
    pub(crate) fn new(address: Address, asks: UnboundedSender<Ask>) -> Online {
        Online {
            address,
            name: String::new(),
            me: None,
            connected: false,
            lobby: Vec::new(),
            selected: 0,
            table: None,
            table_at: Instant::now(),
            cursor: Square::B2,
            chat: Vec::new(),
            typing: None,
            message: "Connecting…".to_owned(),
            starter: Starter::Alternate,
            clock: 0,
            running: true,
            quit_armed: false,
            failed: None,
            theme: Theme::from_env(),
            asks,
        }
    }

    fn ask(&mut self, msg: ClientMsg) {
        let _ = self.asks.send(Ask::Send(msg));
    }

    fn show(&mut self, table: Option<TableId>) {
        let _ = self.asks.send(Ask::Showing(table));
    }

    /// My seat at the table shown, if I hold one.
    pub(crate) fn my_seat(&self) -> Option<Player> {
        self.seat_at(self.table.as_ref()?)
    }

    /// My seat at `table`, if I hold one.
    fn seat_at(&self, table: &TableState) -> Option<Player> {
        let me = self.me.as_ref()?;
        Player::ALL
            .into_iter()
            .find(|&p| table.players[p].as_ref().is_some_and(|i| i.id == *me))
    }

    /// Takes in what the network task reports.
    pub(crate) fn news(&mut self, news: News) {
        match news {
            News::Welcome { name, player_id } => {
                self.connected = true;
                self.message = format!("Connected to {} as {name}", self.address.http_url());
                self.name = name;
                self.me = Some(player_id);
            }
            News::Reconnecting(why) => {
                self.connected = false;
                self.message = format!("{why}; reconnecting…");
            }
            News::Failed(why) => {
                self.failed = Some(why);
                self.running = false;
            }
            News::Refused(why) => self.message = why,
            News::Message(msg) => self.server(*msg),
            News::Created(id) => {
                self.message = format!(
                    "Table created: give a friend {}",
                    self.address.table_link(&id)
                );
            }
        }
    }

    fn server(&mut self, msg: ServerMsg) {
        match msg {
            ServerMsg::Lobby { tables } => {
                self.lobby = tables;
                self.selected = self.selected.min(self.lobby.len().saturating_sub(1));
            }
            ServerMsg::Table { table } => {
                let shown = self.table.as_ref().map(|t| &t.id);
                if shown.is_none() || shown == Some(&table.id) {
                    if self.table.is_none() {
                        self.show(Some(table.id.clone()));
                    }
                    self.note_arrival(&table);
                    self.table = Some(table);
                    self.table_at = Instant::now();
                }
            }
            ServerMsg::Chat {
                table_id,
                from_name,
                text,
                ..
            } if self.table.as_ref().is_some_and(|t| t.id == table_id) => {
                self.chat.push(format!("{from_name}: {text}"));
                let extra = self.chat.len().saturating_sub(CHAT_LINES);
                self.chat.drain(..extra);
            }
            ServerMsg::Closing { reason } => self.message = reason,
            _ => {}
        }
    }

    /// An opponent took the free seat of the table I wait at: says so, in
    /// place of what was said before (the link to give, typically).
    fn note_arrival(&mut self, new: &TableState) {
        let was_waiting = self
            .table
            .as_ref()
            .is_some_and(|t| t.id == new.id && t.status == TableStatus::Waiting);
        if !was_waiting || new.status != TableStatus::InProgress {
            return;
        }
        let Some(mine) = self.seat_at(new) else {
            return;
        };
        if let Some(other) = &new.players[!mine] {
            self.message = format!("{} joined: the round starts", other.name);
        }
    }

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
        if let Some(line) = &mut self.typing {
            match key.code {
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
        match self.table {
            Some(_) => self.table_key(key.code),
            None => self.lobby_key(key.code),
        }
    }

    fn lobby_key(&mut self, code: KeyCode) {
        match code {
            KeyCode::Up | KeyCode::Char('k') => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => {
                self.selected = (self.selected + 1).min(self.lobby.len().saturating_sub(1));
            }
            KeyCode::Enter => {
                if let Some(t) = self.lobby.get(self.selected) {
                    let table_id = t.id.clone();
                    self.ask(ClientMsg::JoinTable {
                        table_id,
                        seat: None,
                    });
                }
            }
            KeyCode::Char('w') => {
                if let Some(t) = self.lobby.get(self.selected) {
                    let table_id = t.id.clone();
                    self.ask(ClientMsg::WatchTable { table_id });
                }
            }
            KeyCode::Char('c') => self.create(true, None),
            KeyCode::Char('p') => self.create(false, None),
            KeyCode::Char(c @ '1'..='4') => {
                let level = BotLevel::ALL[usize::from(c as u8 - b'1')];
                self.create(false, Some(level));
            }
            KeyCode::Char('s') => self.starter = step(&Starter::ALL, self.starter, true),
            KeyCode::Char('t') => self.clock = (self.clock + 1) % CLOCKS.len(),
            KeyCode::Char('q') | KeyCode::Esc => self.running = false,
            _ => {}
        }
    }

    fn create(&mut self, public: bool, bot: Option<BotLevel>) {
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
    }

    /// The time per move offered for new tables, for people.
    pub(crate) fn clock_text(&self) -> String {
        match CLOCKS[self.clock] {
            0 => "no clock".to_owned(),
            s => format!("{s} s a move"),
        }
    }

    /// Handles a mouse click at column `x`, row `y` of the screen `area`:
    /// a click on a cell of the board plays it, as the cursor and Enter
    /// would.
    pub(crate) fn click(&mut self, area: Rect, x: u16, y: u16) {
        if self.typing.is_some() {
            return;
        }
        let Some(table) = &self.table else {
            return;
        };
        let id = table.id.clone();
        if let Some(sq) = view::square_at(self, area, x, y) {
            self.cursor = sq;
            self.play(id, sq);
        }
    }

    fn table_key(&mut self, code: KeyCode) {
        let Some(table) = &self.table else {
            return;
        };
        let id = table.id.clone();
        if code != KeyCode::Char('q') {
            self.quit_armed = false;
        }
        if let Some(d) = input::direction(code) {
            self.cursor = d.step(self.cursor);
            return;
        }
        match code {
            KeyCode::Enter | KeyCode::Char(' ') => self.play(id, self.cursor),
            KeyCode::Char(c @ '1'..='9') => {
                if let Ok(sq) = Square::try_from(c as u8 - b'1') {
                    self.cursor = sq;
                    self.play(id, sq);
                }
            }
            KeyCode::Char('r') => self.ask(ClientMsg::Rematch { table_id: id }),
            KeyCode::Char('f') => self.ask(ClientMsg::Forfeit { table_id: id }),
            KeyCode::Char('m') | KeyCode::Char('/') => self.typing = Some(String::new()),
            KeyCode::Esc | KeyCode::Char('L') => {
                self.ask(ClientMsg::LeaveTable { table_id: id });
                self.table = None;
                self.chat.clear();
                self.show(None);
                self.message = "Back in the lobby".to_owned();
            }
            KeyCode::Char('q') => self.ask_quit(),
            _ => {}
        }
    }

    /// Quits, but during a round in play at a seat of mine asks first
    /// (once): the seat waits a while for me, then the round is lost.
    fn ask_quit(&mut self) {
        let at_stake = self.my_seat().is_some()
            && self
                .table
                .as_ref()
                .is_some_and(|t| t.status == TableStatus::InProgress);
        if !at_stake || self.quit_armed {
            self.running = false;
        } else {
            self.quit_armed = true;
            self.message = "Press q again to quit: your seat waits a while for you to come \
                            back, then the round is lost"
                .to_owned();
        }
    }

    fn play(&mut self, table_id: TableId, cell: Square) {
        let Some(table) = &self.table else {
            return;
        };
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

/// Whether a seat at `table` is free for someone to take.
pub(crate) fn has_free_seat(table: &TableState) -> bool {
    Player::ALL.into_iter().any(|p| table.players[p].is_none())
}
