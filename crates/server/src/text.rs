//! What people write that others see, as the server takes it: display
//! names and chat lines.
//!
//! Names are refused when they hold characters that hide, fake or reorder
//! text, or are or look like a computer player's (the protocol's rules,
//! `oxo_protocol::check_online_name`, which the terminal game checks too:
//! a name is chosen once, and the refusal says what is wrong); chat lines
//! are cleaned instead (a line is typed in the moment, and losing it is
//! worse).

use std::sync::Arc;

use oxo_protocol::limits::MAX_CHAT_CHARS;
use oxo_protocol::{MAX_MARKS, check_online_name, is_hidden, is_mark, shows};

/// Checks a display name: the protocol's rules for a name others see
/// online ([`check_online_name`]: no hidden characters, not a computer
/// player's name nor one that looks like it).
///
/// # Errors
///
/// What is wrong with it, for an `invalid_name` refusal.
pub(crate) fn validate_name(name: &str) -> Result<Arc<str>, String> {
    check_online_name(name)
        .map(Arc::from)
        .map_err(|e| e.to_string())
}

/// A chat line cleaned: control characters become spaces, hidden ones go,
/// at most [`MAX_MARKS`] combining marks stay on a character; then
/// trimmed.
///
/// # Errors
///
/// A line with nothing left, or longer than [`MAX_CHAT_CHARS`]: what is
/// wrong, for a `chat_too_long` refusal.
pub(crate) fn clean_chat(text: &str) -> Result<String, String> {
    let mut cleaned = String::with_capacity(text.len());
    let mut marks = 0;
    for c in text.chars() {
        if is_mark(c) {
            marks += 1;
            if marks > MAX_MARKS {
                continue;
            }
        } else {
            marks = 0;
        }
        if c.is_control() {
            cleaned.push(' ');
        } else if !is_hidden(c) {
            cleaned.push(c);
        }
    }
    let cleaned = cleaned.trim();
    let chars = cleaned.chars().count();
    if chars == 0 {
        return Err("The chat message is empty".into());
    }
    if !cleaned.chars().any(shows) {
        return Err(
            "The chat message shows nothing: write at least one letter, digit or symbol".into(),
        );
    }
    if chars > MAX_CHAT_CHARS {
        return Err(format!(
            "The chat message has {chars} characters; at most {MAX_CHAT_CHARS} are allowed"
        ));
    }
    Ok(cleaned.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxo_protocol::limits::MAX_NAME_CHARS;

    #[test]
    fn names_are_checked() {
        let ok = |n: &str| validate_name(n).map(|n| n.to_string());
        assert_eq!(ok("  Ann "), Ok("Ann".to_owned()));
        assert_eq!(ok("Zoë 🎲"), Ok("Zoë 🎲".to_owned()));
        assert!(ok("   ").is_err());
        assert!(ok(&"x".repeat(MAX_NAME_CHARS + 1)).is_err());
        assert!(ok("a\u{7}b").is_err());
        assert!(ok("evil\u{202E}txt").is_err());
    }

    #[test]
    fn names_that_show_blank_or_hide_text_are_refused_and_joiners_stay() {
        for hidden in [
            "\u{3164}",
            "\u{115F}\u{1160}",
            "\u{2800}",
            "a\u{061C}b",
            "a\u{2028}b",
            "a\u{E0041}b",
            "a\u{180E}b",
            "a\u{FFF9}b",
            "a\u{E000}b",
        ] {
            let e = validate_name(hidden).expect_err(hidden);
            assert!(e.contains("unprintable character U+"), "{e}");
        }
        let e = validate_name("\u{200D}\u{0301}").expect_err("shows nothing");
        assert!(e.contains("shows nothing"), "{e}");
        // A family emoji and a Persian name need the joiners.
        for joined in ["👨\u{200D}👩\u{200D}👧", "می\u{200C}خواهم", "❤\u{FE0F}"] {
            assert!(validate_name(joined).is_ok(), "{joined:?}");
        }
    }

    #[test]
    fn a_name_stacks_at_most_three_marks_on_a_letter() {
        assert!(validate_name("Zoe\u{0308}\u{0301}\u{0323}").is_ok());
        let zalgo = format!("a{}", "\u{0301}".repeat(MAX_MARKS + 1));
        let e = validate_name(&zalgo).expect_err("a tower of marks");
        assert!(e.contains("marks"), "{e}");
    }

    /// The names of the computer players, in any letters, are refused as
    /// oxo-protocol's `check_online_name` says (its tests go through the
    /// look-alikes): here only that names are checked with it.
    #[test]
    fn nobody_takes_a_computer_players_name() {
        for name in ["Impossible", "Rand\u{043E}m"] {
            let e = validate_name(name).expect_err(name);
            assert!(e.contains("computer player"), "{name:?}: {e}");
        }
        assert!(validate_name("Impossible Ann").is_ok());
    }

    #[test]
    fn chat_is_cleaned_and_bounded() {
        assert_eq!(clean_chat(" hi\tthere\n").as_deref(), Ok("hi there"));
        assert!(clean_chat("\u{7}").is_err());
        // A line of marks or selectors alone shows nothing: refused, as
        // for names; a mark on a letter is fine.
        for blank in ["\u{FE0F}", " \u{0300}\u{200D} "] {
            assert_eq!(
                clean_chat(blank),
                Err(
                    "The chat message shows nothing: write at least one letter, digit or symbol"
                        .to_owned()
                ),
                "{blank:?}"
            );
        }
        assert!(clean_chat("e\u{0301}").is_ok());
        assert!(clean_chat(&"x".repeat(MAX_CHAT_CHARS + 1)).is_err());
        assert_eq!(
            clean_chat("gg \u{202E}olleh\u{200B}").as_deref(),
            Ok("gg olleh")
        );
        let zalgo = format!("a{}b", "\u{0301}".repeat(279));
        assert_eq!(
            clean_chat(&zalgo).as_deref(),
            Ok("a\u{0301}\u{0301}\u{0301}b")
        );
        assert_eq!(
            clean_chat("👨\u{200D}👩 ok").as_deref(),
            Ok("👨\u{200D}👩 ok")
        );
    }
}
