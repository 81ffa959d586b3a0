//! What people write that others see: the characters that would let them
//! hide, fake or reorder text, and the rules a display name follows
//! wherever it is typed (the server's `hello` and `set_name`, the
//! terminal game's seats), so that one name means one thing everywhere.
//!
//! Joiners (U+200C, U+200D) and variation selectors are fine: emoji
//! sequences and many scripts need them.

use std::fmt;

use crate::limits::MAX_NAME_CHARS;

/// Combining marks kept on one character in chat, and allowed on one in
/// a name; more are dropped from chat and refused in a name (a "zalgo"
/// tower of marks covers the lines around it).
pub const MAX_MARKS: usize = 3;

/// Characters that show nothing, or change how the text around them
/// shows: bidi controls and marks, zero-width spaces, fillers that render
/// blank, tags, interlinear annotations, private use.
pub fn is_hidden(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}'
        | '\u{17B4}' | '\u{17B5}' | '\u{180B}'..='\u{180F}'
        | '\u{200B}' | '\u{200E}' | '\u{200F}' | '\u{2028}'..='\u{202E}'
        | '\u{2060}'..='\u{206F}' | '\u{2800}' | '\u{3164}' | '\u{FEFF}'
        | '\u{FFA0}' | '\u{FFF9}'..='\u{FFFB}' | '\u{E000}'..='\u{F8FF}'
        | '\u{E0000}'..='\u{E0FFF}' | '\u{F0000}'..='\u{10FFFF}')
}

/// Whether `c` is a combining mark (the common blocks).
pub fn is_mark(c: char) -> bool {
    matches!(c,
        '\u{0300}'..='\u{036F}' | '\u{1AB0}'..='\u{1AFF}' | '\u{1DC0}'..='\u{1DFF}'
        | '\u{20D0}'..='\u{20FF}' | '\u{FE20}'..='\u{FE2F}')
}

/// Why a display name is refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NameError {
    /// Nothing left once trimmed.
    Empty,
    /// More than [`MAX_NAME_CHARS`] characters once trimmed.
    TooLong {
        /// How many it has.
        chars: usize,
    },
    /// A control character, or one that hides or reorders text.
    Unprintable(char),
    /// More than [`MAX_MARKS`] combining marks on one letter.
    TooManyMarks,
    /// Only spaces, marks and joiners: nothing that shows.
    ShowsNothing,
    /// A computer player's or a pass and play seat's name, or one that
    /// looks like it: refused online (see [`crate::check_online_name`]).
    Reserved(String),
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NameError::Empty => f.write_str("The name is empty"),
            NameError::TooLong { chars } => write!(
                f,
                "The name has {chars} characters; at most {MAX_NAME_CHARS} are allowed"
            ),
            NameError::Unprintable(c) => write!(
                f,
                "The name contains the unprintable character U+{:04X}",
                u32::from(*c)
            ),
            NameError::TooManyMarks => write!(
                f,
                "The name stacks more than {MAX_MARKS} combining marks on one letter"
            ),
            NameError::ShowsNothing => {
                f.write_str("The name shows nothing: use at least one letter, digit or symbol")
            }
            NameError::Reserved(name) => write!(
                f,
                "\"{name}\" is the name of a computer player or a pass-and-play seat; pick another"
            ),
        }
    }
}

impl std::error::Error for NameError {}

/// Whether `c` shows something by itself: not a space, a combining mark,
/// a joiner or a variation selector (which only change what is next to
/// them). A name or a chat line needs at least one such character.
///
/// ```
/// use oxo_protocol::shows;
/// assert!(shows('a') && shows('🎲'));
/// assert!(!shows(' ') && !shows('\u{0301}') && !shows('\u{FE0F}'));
/// ```
#[must_use]
pub fn shows(c: char) -> bool {
    !(c.is_whitespace()
        || is_mark(c)
        || matches!(c, '\u{200C}' | '\u{200D}' | '\u{FE00}'..='\u{FE0F}'))
}

/// Checks a display name and returns it trimmed: 1 to [`MAX_NAME_CHARS`]
/// characters, no control or hidden characters, at most [`MAX_MARKS`]
/// combining marks on a letter, and something that shows.
///
/// ```
/// use oxo_protocol::{NameError, check_name};
///
/// assert_eq!(check_name("  Zoë 🎲 "), Ok("Zoë 🎲"));
/// assert_eq!(check_name("evil\u{202E}txt"), Err(NameError::Unprintable('\u{202E}')));
/// ```
///
/// # Errors
///
/// What is wrong with it.
pub fn check_name(name: &str) -> Result<&str, NameError> {
    let name = name.trim();
    let chars = name.chars().count();
    if chars == 0 {
        return Err(NameError::Empty);
    }
    if chars > MAX_NAME_CHARS {
        return Err(NameError::TooLong { chars });
    }
    if let Some(c) = name.chars().find(|&c| c.is_control() || is_hidden(c)) {
        return Err(NameError::Unprintable(c));
    }
    let mut marks = 0;
    for c in name.chars() {
        marks = if is_mark(c) { marks + 1 } else { 0 };
        if marks > MAX_MARKS {
            return Err(NameError::TooManyMarks);
        }
    }
    if !name.chars().any(shows) {
        return Err(NameError::ShowsNothing);
    }
    Ok(name)
}
