//! A table's chat history: its latest messages, for `chat_history` (a
//! client opening the table after a reload or a reconnect shows them).
//!
//! It lives with the table's actor, in memory: it goes when the table
//! closes, and does not outlive a restart of the server or the table moving
//! to another node of a cluster.

use std::collections::VecDeque;

use oxo_protocol::ChatLine;
use oxo_protocol::limits::{CHAT_HISTORY_CHARS, CHAT_HISTORY_MESSAGES};

/// The latest messages of a table, oldest first, within
/// [`CHAT_HISTORY_MESSAGES`] and [`CHAT_HISTORY_CHARS`] characters of text.
#[derive(Debug, Default)]
pub(super) struct ChatLog {
    lines: VecDeque<ChatLine>,
    /// The characters of text in `lines`.
    chars: usize,
}

impl ChatLog {
    /// Keeps `line`, letting the oldest go past either bound.
    pub(super) fn push(&mut self, line: ChatLine) {
        self.chars += line.text.chars().count();
        self.lines.push_back(line);
        while self.lines.len() > CHAT_HISTORY_MESSAGES || self.chars > CHAT_HISTORY_CHARS {
            let Some(old) = self.lines.pop_front() else {
                break;
            };
            self.chars -= old.text.chars().count();
        }
    }

    /// The messages kept, oldest first.
    pub(super) fn lines(&self) -> Vec<ChatLine> {
        self.lines.iter().cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use oxo_protocol::PlayerId;

    use super::*;

    fn line(text: &str) -> ChatLine {
        ChatLine {
            from_id: PlayerId::from("p_a"),
            from_name: "Alice".into(),
            text: text.into(),
            watching: false,
        }
    }

    #[test]
    fn the_oldest_messages_go_past_the_count() {
        let mut log = ChatLog::default();
        for i in 0..CHAT_HISTORY_MESSAGES + 3 {
            log.push(line(&i.to_string()));
        }
        let lines = log.lines();
        assert_eq!(lines.len(), CHAT_HISTORY_MESSAGES);
        assert_eq!(lines[0].text, "3");
        assert_eq!(
            lines[CHAT_HISTORY_MESSAGES - 1].text,
            (CHAT_HISTORY_MESSAGES + 2).to_string()
        );
    }

    #[test]
    fn the_oldest_messages_go_past_the_characters_counted_as_characters() {
        let mut log = ChatLog::default();
        // 200 characters, 800 bytes each: bytes would keep 5.
        let long = "😀".repeat(200);
        for _ in 0..CHAT_HISTORY_CHARS / 200 {
            log.push(line(&long));
        }
        assert_eq!(log.lines().len(), CHAT_HISTORY_CHARS / 200);
        log.push(line("gg"));
        let lines = log.lines();
        assert_eq!(lines.len(), CHAT_HISTORY_CHARS / 200);
        assert_eq!(lines.last().map(|l| l.text.as_str()), Some("gg"));
        assert_eq!(log.chars, CHAT_HISTORY_CHARS - 200 + 2);
    }
}
