//! A table's chat: messages are stored, then go to everyone at the table,
//! and the latest are kept (see `table::chat_log`).

use std::sync::Arc;

use oxo_protocol::{ChatLine, ErrorCode, PlayerId, ServerMsg};

use super::Table;
use crate::conn::{Conn, encode};
use crate::error::ClientError;
use crate::ids::now_ms;
use crate::store::{ChatRow, Write};
use crate::table::rules::Reply;

impl Table {
    /// Stores a chat line from `conn`, then sends it to everyone at the
    /// table and keeps it.
    ///
    /// # Errors
    ///
    /// `not_seated` if `conn` is not at the table; `table_moved` or
    /// `internal` if the line could not be stored (nobody saw it).
    pub(super) async fn chat(&mut self, conn: &Conn, text: String) -> Result<Reply, ClientError> {
        if !self.is_member(conn.id()) {
            return Err(ClientError::new(
                ErrorCode::NotSeated,
                "Join or watch the table to chat",
            ));
        }
        let line = ChatLine {
            from_id: PlayerId::from(Arc::clone(&conn.account.id)),
            from_name: conn.account.name().to_string(),
            text,
            watching: !self.rules.state().is_seated(&conn.account.id),
        };
        let n = self.chat_log.next();
        let row = ChatRow {
            table: self.seq,
            n,
            line: line.clone(),
            at_ms: now_ms(),
        };
        if let Err(e) = self.commit(vec![Write::Chat(Box::new(row))]).await {
            return Err(self.refusal(&e, "a chat message"));
        }
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
        self.chat_log.push(n, line);
        Ok(Reply::Done)
    }

    /// Sends the messages kept to `conn` alone.
    pub(super) fn send_chat_history(&self, conn: &Conn) {
        conn.outbox.send_msg(&ServerMsg::ChatHistory {
            table_id: self.id.clone(),
            messages: self.chat_log.lines(),
        });
    }
}
