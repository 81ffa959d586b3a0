//! Text helpers both front ends share.

/// `text`, cut to at most `max` characters, with `…` marking a cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_owned()
    } else {
        let mut t: String = text.chars().take(max.saturating_sub(1)).collect();
        t.push('…');
        t
    }
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
