//! The online screen's state: the lobby, the table shown, the cursor, the
//! chat, and what the server's news change. What each key asks of the
//! server is in `actions` (at a table) and `lobby`.

use std::time::Instant;

use oxo_client::Address;
use oxo_core::{Player, Square, Starter};
use oxo_protocol::{ClientMsg, LobbyTable, PlayerId, ServerMsg, TableId, TableState, TableStatus};
use tokio::sync::mpsc::UnboundedSender;

use super::net::{Ask, NOT_SENT, News, WAITING};
use crate::app::{MIN_HEIGHT, MIN_WIDTH};
use crate::theme::Theme;

/// Per-move time limits on offer for new tables, in seconds (0: none).
const CLOCKS: [u32; 4] = [0, 15, 30, 60];

/// Chat lines kept for the screen, which shows the newest that fit.
const CHAT_LINES: usize = 12;

/// Tables left remembered, to ignore their late states (the oldest goes
/// first).
const LEFT_KEPT: usize = 8;

/// What the player is told when the table shown closed while they were
/// away (their seat given up after the reconnect grace, say).
const TABLE_GONE: &str = "That table closed while you were away";

mod actions;
mod confirm;
mod held;
mod lobby;
mod seats;
use confirm::Armed;
pub(crate) use held::Held;

/// What the player is told when the table selected in the lobby is no
/// longer listed (it filled, or closed).
const SELECTED_GONE: &str = "The table you selected is no longer open";

/// What `m` (or Enter on a chat line) says while the connection is down,
/// as the browser's chat box does: the keys row leaves chat out then.
pub(crate) const OFFLINE_CHAT: &str = "Offline — chat comes back when you are connected";

/// How long a stop waits for the connection to close first.
const PAUSE_WAIT: std::time::Duration = std::time::Duration::from_millis(1500);

/// The online screen.
#[derive(Debug)]
pub(crate) struct Online {
    pub(crate) address: Address,
    pub(crate) name: String,
    pub(crate) me: Option<PlayerId>,
    pub(crate) connected: bool,
    pub(crate) lobby: Vec<LobbyTable>,
    /// The tables where I hold a seat in play, listed above the open ones.
    pub(crate) held: Vec<Held>,
    /// The lobby's row selected: a table held, then an open one.
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
    /// A first `q`, `f` or `Esc` during a round in play, waiting for a
    /// second.
    armed: Option<Armed>,
    /// The table asked for (a link's, or one joined or watched from the
    /// lobby) until it shows: meanwhile no other table's state opens (the
    /// server sends the states of seats held elsewhere too, first).
    wanted: Option<TableId>,
    /// A table asked for with `c`, `p` or `1`-`4` has not shown yet:
    /// those keys create no other meanwhile (a second press would make a
    /// table never shown, its seat held).
    creating: bool,
    /// Tables left: their late states (the server's last `table` event
    /// comes after the leave) do not open them again, until asked for
    /// again from the lobby. At most [`LEFT_KEPT`].
    left: Vec<TableId>,
    /// The terminal's size, as last told (`None` until then).
    size: Option<(u16, u16)>,
    /// The help window (`?`) is open: the next key closes it.
    pub(crate) help: bool,
    /// Ctrl-Z was pressed: the loop suspends the game.
    suspend: bool,
    /// Why the game ended without the player quitting.
    pub(crate) failed: Option<String>,
    /// Colours (or none, with `NO_COLOR`).
    pub(crate) theme: Theme,
    asks: UnboundedSender<Ask>,
}

impl Online {
    pub(crate) fn new(address: Address, asks: UnboundedSender<Ask>) -> Online {
        Online {
            wanted: address.table().cloned(),
            address,
            name: String::new(),
            me: None,
            connected: false,
            lobby: Vec::new(),
            held: Vec::new(),
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
            armed: None,
            creating: false,
            left: Vec::new(),
            size: None,
            help: false,
            suspend: false,
            failed: None,
            theme: Theme::from_env(),
            asks,
        }
    }

    /// Sends `msg`, unless the connection is down: then it is dropped,
    /// and the message says so (nothing is sent late, unseen).
    fn ask(&mut self, msg: ClientMsg) {
        if !self.connected {
            self.message = NOT_SENT.to_owned();
            return;
        }
        let _ = self.asks.send(Ask::Send(msg));
    }

    /// The terminal is now `width`×`height`.
    pub(crate) fn resize(&mut self, width: u16, height: u16) {
        self.size = Some((width, height));
    }

    /// Whether the terminal is too small to draw the screen: then only
    /// quitting acts, so that nothing happens unseen.
    pub(crate) fn too_small(&self) -> bool {
        self.size
            .is_some_and(|(w, h)| w < MIN_WIDTH || h < MIN_HEIGHT)
    }

    /// Whether Ctrl-Z asked to suspend the game since the last call.
    pub(crate) fn take_suspend(&mut self) -> bool {
        std::mem::take(&mut self.suspend)
    }

    /// Before a stop (Ctrl-Z): the network closes its connection, so that
    /// the table sees the player away now rather than after the server's
    /// idle timeout; waits (a little) until it has.
    pub(crate) fn pause_network(&self) {
        let (done, closed) = std::sync::mpsc::channel();
        if self.asks.send(Ask::Pause(done)).is_ok() {
            let _ = closed.recv_timeout(PAUSE_WAIT);
        }
    }

    /// After a stop: the network connects again (nothing, if it was not
    /// paused).
    pub(crate) fn resume_network(&self) {
        let _ = self.asks.send(Ask::Resume);
    }

    fn show(&mut self, table: Option<TableId>) {
        let _ = self.asks.send(Ask::Showing(table));
    }

    /// My seat at the table shown, if I hold one.
    pub(crate) fn my_seat(&self) -> Option<Player> {
        self.seat_at(self.table.as_ref()?)
    }

    /// My seat at `table`, if I hold one.
    pub(super) fn seat_at(&self, table: &TableState) -> Option<Player> {
        let me = self.me.as_ref()?;
        Player::ALL
            .into_iter()
            .find(|&p| table.players[p].as_ref().is_some_and(|i| i.id == *me))
    }

    /// Takes in what the network task reports.
    pub(crate) fn news(&mut self, news: News) {
        match news {
            News::Welcome {
                name,
                player_id,
                tables,
            } => {
                self.connected = true;
                self.creating = false;
                // Back at a table after a reconnect, a short word: in a
                // small terminal a long one would hide the players' rows
                // (the title says where and as whom when it shows).
                self.message = if self.table.is_some() {
                    "Connected again".to_owned()
                } else {
                    format!("Connected to {} as {name}", self.address.http_url())
                };
                self.name = name;
                self.me = Some(player_id);
                self.hold(tables);
            }
            News::Reconnecting(said) => {
                self.connected = false;
                self.creating = false;
                self.message = said;
            }
            News::Failed(why) => {
                self.failed = Some(why);
                self.running = false;
            }
            News::Refused(why) => {
                self.creating = false;
                self.message = why;
            }
            // From the lobby, `w` watches the table instead; a watcher
            // at it is watching already.
            News::Full(why) => {
                self.creating = false;
                self.message = if self.table.is_none() {
                    format!("{why}: w watches the table")
                } else {
                    why
                };
            }
            News::Slow(true) => self.message = WAITING.to_owned(),
            News::Slow(false) => {
                if self.message == WAITING {
                    self.message.clear();
                }
            }
            News::Message(msg) => self.server(*msg),
            News::Gone(id) => {
                if self.table.as_ref().is_some_and(|t| t.id == id) {
                    self.back_to_lobby(id);
                    self.message = TABLE_GONE.to_owned();
                } else {
                    self.let_go(&id);
                }
            }
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
                let before = self.selected_table();
                self.lobby = tables;
                // Enter must not join a table that took the selected one's
                // row unseen. A table I left going is no news (the
                // message says why I left it).
                let mine = before.as_ref().is_some_and(|id| self.left.contains(id));
                if !self.follow_selection(before.as_ref()) && self.table.is_none() && !mine {
                    self.message = SELECTED_GONE.to_owned();
                }
            }
            ServerMsg::Table { table } => {
                match &self.table {
                    Some(shown) if shown.id == table.id => {
                        if self.seat_gone(shown, &table) {
                            self.back_to_lobby(table.id);
                            self.message = held::LEFT_ELSEWHERE.to_owned();
                            return;
                        }
                    }
                    Some(_) => {
                        self.held_state(&table);
                        return;
                    }
                    None => {
                        // The row of a table held is kept up to date
                        // whether it opens or not.
                        let held = self.held_state(&table);
                        match self.wanted.as_ref().map(|w| *w == table.id) {
                            Some(true) => {}
                            // Another table is asked for.
                            Some(false) => return,
                            // Nothing asked for by name: a table created
                            // opens; not one left, nor one held (a
                            // reconnect re-attaches those).
                            None if held || self.left.contains(&table.id) => return,
                            None => {}
                        }
                        self.wanted = None;
                        self.creating = false;
                        self.show(Some(table.id.clone()));
                    }
                }
                self.refresh_message(&table);
                self.table = Some(table);
                self.table_at = Instant::now();
            }
            ServerMsg::Chat {
                table_id,
                from_name,
                text,
                watching,
                ..
            } if self.table.as_ref().is_some_and(|t| t.id == table_id) => {
                self.chat.push(chat_line(&from_name, &text, watching));
                let extra = self.chat.len().saturating_sub(CHAT_LINES);
                self.chat.drain(..extra);
            }
            ServerMsg::ChatHistory { table_id, messages }
                if self.table.as_ref().is_some_and(|t| t.id == table_id) =>
            {
                let lines: Vec<String> = messages
                    .iter()
                    .map(|m| chat_line(&m.from_name, &m.text, m.watching))
                    .collect();
                self.chat = merged_chat(std::mem::take(&mut self.chat), &lines);
            }
            ServerMsg::Closing { reason } => self.message = reason,
            _ => {}
        }
    }

    /// A table state arrives: when it changes what the message was about
    /// (a table opened; a move, a round's start or end, a seat taken or
    /// left), the message goes, and so does a first `q`, `f` or `Esc`
    /// that asked about the old state. A round starting because someone
    /// took the free seat is said instead.
    fn refresh_message(&mut self, new: &TableState) {
        let old = self.table.as_ref().filter(|t| t.id == new.id);
        let seats =
            |t: &TableState| Player::ALL.map(|p| t.players[p].as_ref().map(|i| i.id.clone()));
        let changed = old.is_none_or(|t| {
            t.status != new.status
                || t.round != new.round
                || t.move_number != new.move_number
                || seats(t) != seats(new)
        });
        if !changed {
            return;
        }
        self.armed = None;
        self.message = old
            .and_then(|old| self.arrival(old, new).or_else(|| self.departure(old, new)))
            .unwrap_or_default();
    }

    /// Leaves table `id` for the lobby: the server is told, and the
    /// table's later states are ignored.
    /// A closed table is not told: it takes no more requests. While the
    /// connection is down nothing is sent, and the table stays shown.
    fn leave(&mut self, id: TableId) {
        let closed = self
            .table
            .as_ref()
            .is_some_and(|t| t.id == id && t.status == TableStatus::Closed);
        if !closed && !self.connected {
            // The seat stays held until the server hears of it: the
            // table stays shown, as after any request not sent.
            self.message = NOT_SENT.to_owned();
            return;
        }
        if !closed {
            self.ask(ClientMsg::LeaveTable {
                table_id: id.clone(),
            });
        }
        self.back_to_lobby(id);
    }

    /// Back to the lobby from table `id`, which I am no longer at: its
    /// later states are ignored, and a seat there is no longer listed.
    fn back_to_lobby(&mut self, id: TableId) {
        self.let_go(&id);
        if self.left.len() >= LEFT_KEPT {
            self.left.remove(0);
        }
        self.left.push(id);
        self.wanted = None;
        self.table = None;
        self.chat.clear();
        self.show(None);
        self.message = "Back in the lobby".to_owned();
    }
}

/// The chat lines shown with a table's history (oldest first) taken in,
/// as the browser does: the history picks up where the longest tail of
/// what is shown ends (after a reconnect, what was said meanwhile follows
/// it); with nothing in common it is all new, below what is shown (the
/// server forgot its history in a restart, or more was said meanwhile
/// than it keeps). The latest [`CHAT_LINES`] are kept.
fn merged_chat(mut shown: Vec<String>, history: &[String]) -> Vec<String> {
    let mut common = shown.len().min(history.len());
    while common > 0 && shown[shown.len() - common..] != history[..common] {
        common -= 1;
    }
    shown.extend_from_slice(&history[common..]);
    let extra = shown.len().saturating_sub(CHAT_LINES);
    shown.drain(..extra);
    shown
}

/// A chat message as the screen shows it.
fn chat_line(from_name: &str, text: &str, watching: bool) -> String {
    if watching {
        // A spectator's line, as the browser marks it.
        format!("{from_name} (watching): {text}")
    } else {
        format!("{from_name}: {text}")
    }
}

/// Whether a seat at `table` is free for someone to take.
pub(crate) fn has_free_seat(table: &TableState) -> bool {
    Player::ALL.into_iter().any(|p| table.players[p].is_none())
}
