//! A table's chat: messages go to everyone at the table, and the latest
//! are kept (see `table::chat_log`).

use std::sync::Arc;

use oxo_protocol::{ChatLine, PlayerId, ServerMsg};

use super::Table;
use crate::conn::{Conn, encode};

impl Table {
    /// Sends a chat line to everyone at the table and keeps it; `false`
    /// if `conn` is not at the table.
    pub(super) fn chat(&mut self, conn: &Conn, text: String) -> bool {
        if !self.is_member(conn.id()) {
            return false;
        }
        let line = ChatLine {
            from_id: PlayerId::from(Arc::clone(&conn.account.id)),
            from_name: conn.account.name().to_string(),
            text,
            watching: !self.rules.state().is_seated(&conn.account.id),
        };
        let frame = encode(&ServerMsg::Chat {
            table_id: self.id.clone(),
            from_id: line.from_id.clone(),
            from_name: line.from_name.clone(),
            text: line.text.clone(),
            watching: line.watching,
        });
        for m in &self.members {
            m.outbox.send(frame.clone());
        }
        self.chat_log.push(line);
        true
    }

    /// Sends the messages kept to `conn` alone.
    pub(super) fn send_chat_history(&self, conn: &Conn) {
        conn.outbox.send_msg(&ServerMsg::ChatHistory {
            table_id: self.id.clone(),
            messages: self.chat_log.lines(),
        });
    }
}
