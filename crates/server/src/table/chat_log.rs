//! A table's chat history: its latest messages, for `chat_history` (a
//! client opening the table after a reload or a reconnect shows them).
//!
//! It lives with the table's actor; every message is stored before anyone
//! sees it ([`Write::Chat`]), numbered in order at its table, so the
//! history comes back with the table after a restart or when another node
//! of a cluster takes it over. It goes when the table closes.
//!
//! [`Write::Chat`]: crate::store::Write::Chat

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
    /// The number of the latest message taken (0 before the first).
    last: i64,
}

impl ChatLog {
    /// The log of a table read back from the store: its messages with their
    /// numbers, oldest first.
    pub(super) fn restored(lines: Vec<(i64, ChatLine)>) -> ChatLog {
        let mut log = ChatLog::default();
        for (n, line) in lines {
            log.push(n, line);
        }
        log
    }

    /// The number the next message gets.
    pub(super) fn next(&self) -> i64 {
        self.last + 1
    }

    /// Keeps `line`, message number `n`, letting the oldest go past either
    /// bound.
    pub(super) fn push(&mut self, n: i64, line: ChatLine) {
        self.last = n;
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
            log.push(log.next(), line(&i.to_string()));
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
    fn a_restored_log_numbers_on_from_its_latest_message() {
        assert_eq!(ChatLog::default().next(), 1);
        let log = ChatLog::restored(vec![(7, line("hi")), (8, line("gg"))]);
        assert_eq!(log.next(), 9);
        let texts: Vec<String> = log.lines().into_iter().map(|l| l.text).collect();
        assert_eq!(texts, ["hi", "gg"]);
    }

    #[test]
    fn the_oldest_messages_go_past_the_characters_counted_as_characters() {
        let mut log = ChatLog::default();
        // 200 characters, 800 bytes each: bytes would keep 5.
        let long = "😀".repeat(200);
        for _ in 0..CHAT_HISTORY_CHARS / 200 {
            log.push(log.next(), line(&long));
        }
        assert_eq!(log.lines().len(), CHAT_HISTORY_CHARS / 200);
        log.push(log.next(), line("gg"));
        let lines = log.lines();
        assert_eq!(lines.len(), CHAT_HISTORY_CHARS / 200);
        assert_eq!(lines.last().map(|l| l.text.as_str()), Some("gg"));
        assert_eq!(log.chars, CHAT_HISTORY_CHARS - 200 + 2);
    }
}
