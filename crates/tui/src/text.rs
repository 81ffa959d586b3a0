//! Text helpers both front ends share. Widths are display columns (a
//! wide character such as `太` or most emoji takes two), never characters.

use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

/// The fewest columns a cut name keeps (a wide letter and `…`): past
/// that, a row wraps instead.
pub(crate) const NAME_MIN: usize = 3;

/// The most columns a name takes in news ("Bob joined: the round
/// starts", "Round 2: Bob (O) starts"): two of them and the words around
/// fit the two rows news has in the smallest terminal.
pub(crate) const NAME_SAID: usize = 12;

/// The most columns each name in a line may keep: the largest from
/// `longest` (the widest name) down to [`NAME_MIN`] for which the line
/// `fits`, else [`NAME_MIN`]. So a line naming players fits its row(s) by
/// cutting the names, never the words around them.
pub(crate) fn name_room(longest: usize, fits: impl Fn(usize) -> bool) -> usize {
    (NAME_MIN..=longest.max(NAME_MIN))
        .rev()
        .find(|&room| fits(room))
        .unwrap_or(NAME_MIN)
}

/// The columns `text` takes on a terminal.
pub(crate) fn width(text: &str) -> usize {
    text.width()
}

/// `text`, cut to at most `max` columns, with `…` marking a cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    if text.width() <= max {
        return text.to_owned();
    }
    let mut cut = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > max {
            break;
        }
        cut.push(c);
        used += w;
    }
    // The `…` goes right after the last word kept; a cut right after an
    // earlier one's `…` needs no second.
    cut.truncate(cut.trim_end().len());
    if max > 0 && !cut.ends_with('…') {
        cut.push('…');
    }
    cut
}

/// The end of `text` in at most `max` columns, with `…` marking a cut
/// at its start: where a line being typed goes on.
pub(crate) fn truncate_start(text: &str, max: usize) -> String {
    if text.width() <= max {
        return text.to_owned();
    }
    let mut tail: Vec<char> = Vec::new();
    let mut used = 0;
    for c in text.chars().rev() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > max {
            break;
        }
        tail.push(c);
        used += w;
    }
    let mut cut = String::new();
    if max > 0 {
        cut.push('…');
    }
    cut.extend(tail.into_iter().rev());
    cut
}

/// `text` broken into rows of at most `max` columns, between words (a
/// word wider than a row is cut, with `…`).
pub(crate) fn wrap(text: &str, max: usize) -> Vec<String> {
    let mut rows: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        let word = truncate(word, max);
        match rows.last_mut() {
            Some(row) if row.width() + 1 + word.width() <= max => {
                row.push(' ');
                row.push_str(&word);
            }
            _ => rows.push(word),
        }
    }
    rows
}

/// `text` broken into rows of at most `max` columns, between words, and
/// a word wider than a row across rows (a link stays whole to copy); one
/// empty row for an empty `text`.
pub(crate) fn wrap_whole(text: &str, max: usize) -> Vec<String> {
    let max = max.max(2);
    if text.width() <= max {
        return vec![text.to_owned()];
    }
    let mut rows: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match rows.last_mut() {
            Some(row) if row.width() + 1 + word.width() <= max => {
                row.push(' ');
                row.push_str(word);
                continue;
            }
            _ => {}
        }
        let mut row = String::new();
        for c in word.chars() {
            if row.width() + c.width().unwrap_or(0) > max {
                rows.push(std::mem::take(&mut row));
            }
            row.push(c);
        }
        rows.push(row);
    }
    if rows.is_empty() {
        rows.push(String::new());
    }
    rows
}

/// `text` with every control character written as an escape (`\u{1b}`,
/// `\t`, ...), so that echoing what someone typed cannot drive the terminal
/// (change its title, move the cursor, ...).
pub(crate) fn escape_controls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_count_columns() {
        assert_eq!(truncate("Alice", 5), "Alice");
        assert_eq!(truncate("Alice", 4), "Ali…");
        assert_eq!(truncate("太郎太郎", 8), "太郎太郎");
        assert_eq!(truncate("太郎太郎", 6), "太郎…");
        assert_eq!(truncate("太郎太郎", 5), "太郎…");
        assert_eq!(width(&truncate("🎉🎉🎉", 4)), 3);
        assert_eq!(truncate_start("Alice", 5), "Alice");
        assert_eq!(truncate_start("Alice", 4), "…ice");
        assert_eq!(truncate_start("太郎太郎", 5), "…太郎");
    }

    #[test]
    fn a_cut_of_a_cut_shows_one_ellipsis() {
        // A lobby row whose long name was cut, cut again at its end.
        let row = format!("vs {}  waiting", truncate("太郎太郎太郎", 9));
        assert_eq!(row, "vs 太郎太郎…  waiting");
        assert_eq!(truncate(&row, 14), "vs 太郎太郎…");
        assert_eq!(truncate("Ann… and", 5), "Ann…");
    }

    #[test]
    fn wrapping_whole_keeps_every_character() {
        assert_eq!(wrap_whole("", 10), [""]);
        assert_eq!(wrap_whole("give a friend", 8), ["give a", "friend"]);
        assert_eq!(
            wrap_whole("link: http://h/t/0123456789", 10),
            ["link:", "http://h/t", "/012345678", "9"]
        );
        assert_eq!(wrap_whole("太郎太郎太", 4), ["太郎", "太郎", "太"]);
    }
}
