//! What people write that others see: display names and chat lines, and
//! the characters that would let them hide, fake or reorder text.
//!
//! Names are refused when they hold such characters (a name is chosen
//! once, and the refusal says which character); chat lines are cleaned
//! instead (a line is typed in the moment, and losing it is worse).
//! Joiners (U+200C, U+200D) and variation selectors stay: emoji sequences
//! and many scripts need them.

use std::sync::{Arc, OnceLock};

use oxo_protocol::limits::{MAX_CHAT_CHARS, MAX_NAME_CHARS};
use unicode_normalization::UnicodeNormalization;
use unicode_security::confusable_detection::skeleton;

/// Combining marks kept on one character in chat, and allowed on one in
/// a name; more are dropped from chat and refused in a name (a "zalgo"
/// tower of marks covers the lines around it).
const MAX_MARKS: usize = 3;

/// Names of the computer players and of pass and play's seats, which
/// nobody may take (compared without case).
const RESERVED: [&str; 6] = [
    "Random",
    "Easy",
    "Medium",
    "Impossible",
    "Player X",
    "Player O",
];

/// Characters that show nothing, or change how the text around them
/// shows: bidi controls and marks, zero-width spaces, fillers that render
/// blank, tags, interlinear annotations, private use.
fn is_hidden(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}'
        | '\u{17B4}' | '\u{17B5}' | '\u{180B}'..='\u{180F}'
        | '\u{200B}' | '\u{200E}' | '\u{200F}' | '\u{2028}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{2800}' | '\u{3164}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}' | '\u{E000}'..='\u{F8FF}'
        | '\u{E0000}'..='\u{E0FFF}' | '\u{F0000}'..='\u{10FFFF}')
}

/// Whether `c` is a combining mark (the common blocks).
fn is_mark(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}')
}

/// What a name looks like, for comparing names that must not be
/// imitated: compatibility forms folded (fullwidth and mathematical
/// letters), letters that look the same made the same (Unicode's
/// confusable skeleton: a Cyrillic о is an o, a capital I an l), case
/// ignored, and every run of spaces of any kind one space. Two ways,
/// since case and look-alikes cross: with case ignored before the
/// skeleton (`impossible` is `Impossible`) and after it (a Cyrillic `І`
/// is an `l` only while it is a capital). Two names look alike when
/// either way gives the same.
fn looks_like(name: &str) -> [String; 2] {
    let name: String = name.nfkc().collect();
    let fold = |s: &str| {
        let s: String = skeleton(s).collect::<String>().to_lowercase();
        s.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    [fold(&name.to_lowercase()), fold(&name)]
}

/// What the [`RESERVED`] names look like (see [`looks_like`]), worked out
/// once.
fn reserved_looks() -> &'static [[String; 2]] {
    static LOOKS: OnceLock<Vec<[String; 2]>> = OnceLock::new();
    LOOKS.get_or_init(|| RESERVED.iter().map(|r| looks_like(r)).collect())
}

/// Checks a display name: trimmed, 1 to [`MAX_NAME_CHARS`] characters, no
/// control or hidden characters, at most [`MAX_MARKS`] combining marks on
/// a letter, something visible, and not a computer
/// player's name, nor one that looks like it (see [`looks_like`]).
///
/// # Errors
///
/// What is wrong with it, for an `invalid_name` refusal.
pub(crate) fn validate_name(name: &str) -> Result<Arc<str>, String> {
    let name = name.trim();
    let chars = name.chars().count();
    if chars == 0 {
        return Err("The name is empty".into());
    }
    if chars > MAX_NAME_CHARS {
        return Err(format!(
            "The name has {chars} characters; at most {MAX_NAME_CHARS} are allowed"
        ));
    }
    if let Some(c) = name.chars().find(|&c| c.is_control() || is_hidden(c)) {
        return Err(format!(
            "The name contains the unprintable character U+{:04X}",
            u32::from(c)
        ));
    }
    let shows = |c: char| {
        !(c.is_whitespace()
            || is_mark(c)
            || matches!(c, '\u{200C}' | '\u{200D}' | '\u{FE00}'..='\u{FE0F}'))
    };
    let mut marks = 0;
    for c in name.chars() {
        marks = if is_mark(c) { marks + 1 } else { 0 };
        if marks > MAX_MARKS {
            return Err(format!(
                "The name stacks more than {MAX_MARKS} combining marks on one letter"
            ));
        }
    }
    if !name.chars().any(shows) {
        return Err("The name shows nothing: use at least one letter, digit or symbol".into());
    }
    let looks = looks_like(name);
    if reserved_looks()
        .iter()
        .any(|r| r.iter().zip(&looks).any(|(a, b)| a == b))
    {
        return Err(format!(
            "\"{name}\" is the name of a computer player or a pass-and-play seat; pick another"
        ));
    }
    Ok(Arc::from(name))
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

    #[test]
    fn nobody_takes_a_computer_players_name() {
        for name in ["Impossible", "impossible", "Player X", "player o", "Easy"] {
            let e = validate_name(name).expect_err(name);
            assert!(e.contains("computer player"), "{e}");
        }
        assert!(validate_name("Player").is_ok(), "the default name");
        assert!(validate_name("Impossible Ann").is_ok());
    }

    #[test]
    fn nobody_takes_a_computer_players_name_in_look_alike_letters() {
        for name in [
            "\u{FF29}mpossible", // a fullwidth I
            "Rand\u{043E}m",     // a Cyrillic o
            "Player\u{00A0}X",   // a non-breaking space
            "Player  X",         // two spaces
            "P\u{0406}ayer O",   // a Cyrillic I for the l
            "\u{1D404}asy",      // a mathematical bold E
        ] {
            let e = validate_name(name).expect_err(name);
            assert!(e.contains("computer player"), "{name:?}: {e}");
        }
        for fine in ["Rändom", "Easy Rider", "Medi", "Player XO"] {
            assert!(validate_name(fine).is_ok(), "{fine:?}");
        }
    }

    #[test]
    fn chat_is_cleaned_and_bounded() {
        assert_eq!(clean_chat(" hi\tthere\n").as_deref(), Ok("hi there"));
        assert!(clean_chat("\u{7}").is_err());
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
