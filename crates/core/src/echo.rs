//! Quoting what a user typed inside an error message.
//!
//! Parse errors keep the whole input for programs ([`ParseSquareError::input`]
//! and the like), but their messages go to terminals, logs and HTTP replies,
//! where a megabyte of text or a terminal escape sequence does harm. So a
//! message quotes at most [`BUDGET`] characters of the input, with anything
//! unprintable escaped as Rust writes it (`\u{1b}`), and marks a cut with `…`.
//!
//! [`ParseSquareError::input`]: crate::ParseSquareError::input

use core::fmt::{self, Write};

/// The most characters a quote may take in a message, escapes included.
const BUDGET: usize = 40;

/// `input`, clipped and escaped for an error message (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Echo<'a>(pub(crate) &'a str);

impl fmt::Display for Echo<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut left = BUDGET;
        for ch in self.0.chars() {
            // Quotes and backslashes are printable: keep them as typed.
            let escaped = ch.escape_debug();
            let width = if matches!(ch, '\'' | '"' | '\\') {
                1
            } else {
                escaped.len()
            };
            if width > left {
                return f.write_char('…');
            }
            left -= width;
            if width == 1 {
                f.write_char(ch)?;
            } else {
                write!(f, "{escaped}")?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_printable_input_is_quoted_as_typed() {
        for s in ["", "b2", "it's \"x\" \\ é ☃"] {
            assert_eq!(Echo(s).to_string(), s);
        }
    }

    #[test]
    fn long_input_is_clipped_and_controls_escaped() {
        let long = "x".repeat(1_000);
        assert_eq!(Echo(&long).to_string(), format!("{}…", &long[..BUDGET]));
        assert_eq!(Echo("\u{1b}[2J\n").to_string(), "\\u{1b}[2J\\n");
        // Text that reorders or hides what follows is escaped too.
        assert_eq!(Echo("a\u{202e}\u{200b}").to_string(), "a\\u{202e}\\u{200b}");
        let escapes = "\u{7}".repeat(100);
        let echoed = Echo(&escapes).to_string();
        assert!(echoed.chars().count() <= BUDGET + 1, "{echoed}");
        assert!(echoed.ends_with("\\u{7}…"), "{echoed}");
    }
}
