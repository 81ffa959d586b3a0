//! The keys row(s) at the bottom of the online screens: the keys of the
//! lobby, of a seat or of a table watched, packed into as few rows as the
//! terminal allows. When they do not fit, they take their short forms
//! ("1-4 vs bot" for "1-4 vs bot (Random, Easy, Medium, Impossible)"), the
//! longest first, then the least needed go; `?` (the help that lists them all) and `q`
//! stay longest.

use oxo_protocol::TableStatus;

use super::state::{Online, has_free_seat};
use crate::text;

/// Between two keys on a row.
const SEPARATOR: &str = " · ";

/// One key of the row: what it says, in full and short, and how long it
/// stays (lower numbers stay longer).
struct Key {
    full: String,
    short: String,
    keep: u8,
}

fn key(keep: u8, full: impl Into<String>, short: impl Into<String>) -> Key {
    Key {
        full: full.into(),
        short: short.into(),
        keep,
    }
}

/// A key that has no short form.
fn same(keep: u8, text: &str) -> Key {
    key(keep, text, text)
}

/// Every key of `o`'s screen, in the order shown.
fn all(o: &Online) -> Vec<Key> {
    let mut keys = Vec::new();
    if o.typing.is_some() {
        keys.push(same(0, "Enter send"));
        keys.push(same(1, "Esc cancel"));
        return keys;
    }
    if !o.connected {
        // Nothing reaches the server until it is back ("Not sent"): only
        // the keys that act here.
        if o.table.is_none() {
            keys.push(same(5, "↑↓ select"));
            keys.push(lobby_starter(o));
            keys.push(lobby_clock(o));
        }
    } else {
        connected_keys(o, &mut keys);
    }
    keys.push(same(1, "? keys"));
    keys.push(same(0, "q quit"));
    keys
}

/// The starter key of the lobby, with the choice it has made.
fn lobby_starter(o: &Online) -> Key {
    key(
        8,
        format!("s starts: {}", o.starter.describe()),
        "s starter",
    )
}

/// The clock key of the lobby, with the choice it has made.
fn lobby_clock(o: &Online) -> Key {
    key(9, format!("t {}", o.clock_text()), "t clock")
}

/// The keys that send requests, and the local ones beside them, while
/// connected.
fn connected_keys(o: &Online, keys: &mut Vec<Key>) {
    match &o.table {
        None => {
            keys.push(same(5, "↑↓ select"));
            keys.push(same(2, "Enter join"));
            keys.push(same(6, "w watch"));
            keys.push(key(4, "c new public table", "c new table"));
            keys.push(key(7, "p new private", "p private"));
            // The server's bots by their names, as the browser shows them.
            keys.push(key(
                3,
                "1-4 vs bot (Random, Easy, Medium, Impossible)",
                "1-4 vs bot",
            ));
            keys.push(lobby_starter(o));
            keys.push(lobby_clock(o));
        }
        // Nothing more happens at a closed table: only going back.
        Some(t) if t.status == TableStatus::Closed => {
            keys.push(key(2, "Esc back to the lobby", "Esc lobby"));
        }
        Some(t) if o.my_seat().is_none() => {
            keys.push(same(3, "watching"));
            if has_free_seat(t) {
                keys.push(key(2, "Enter or 1-9 take the free seat", "Enter sit"));
            }
            keys.push(same(4, "m chat"));
            keys.push(same(2, "Esc leave"));
        }
        // At my seat: what the round allows now (no move once it is
        // over, no rematch while it runs), then chat and leave.
        Some(t) => {
            match t.status {
                TableStatus::InProgress => {
                    keys.push(key(2, "arrows/hjkl + Enter or 1-9 play", "1-9 play"));
                    keys.push(same(5, "f forfeit"));
                }
                TableStatus::RoundOver => keys.push(same(2, "r rematch")),
                TableStatus::Waiting | TableStatus::Closed => {}
            }
            keys.push(same(6, "m chat"));
            keys.push(same(4, "Esc leave"));
        }
    }
}

/// `items` packed into rows of at most `width` columns, joined by
/// [`SEPARATOR`] (an item wider than a row is cut).
fn pack(items: &[String], width: usize) -> Vec<String> {
    let mut rows: Vec<String> = Vec::new();
    for item in items {
        let item = text::truncate(item, width);
        match rows.last_mut() {
            Some(row)
                if text::width(row) + text::width(SEPARATOR) + text::width(&item) <= width =>
            {
                row.push_str(SEPARATOR);
                row.push_str(&item);
            }
            _ => rows.push(item),
        }
    }
    rows
}

/// The keys of `o`'s screen in at most `max_rows` rows of `width`
/// columns: all in full if they fit; else in short, one at a time, the one
/// that saves the most first; else without the least needed.
pub(super) fn key_rows(o: &Online, width: u16, max_rows: usize) -> Vec<String> {
    let width = usize::from(width.max(1));
    let max_rows = max_rows.max(1);
    let mut keys = all(o);
    let texts = |keys: &[Key]| -> Vec<String> { keys.iter().map(|k| k.full.clone()).collect() };
    loop {
        let rows = pack(&texts(&keys), width);
        if rows.len() <= max_rows || keys.len() <= 1 {
            return rows.into_iter().take(max_rows).collect();
        }
        let saving = |k: &Key| text::width(&k.full).saturating_sub(text::width(&k.short));
        let longest = (0..keys.len()).max_by_key(|&i| saving(&keys[i]));
        match longest {
            Some(i) if saving(&keys[i]) > 0 => keys[i].full = keys[i].short.clone(),
            // All short: the least needed goes; of equals, the last.
            _ => {
                if let Some(worst) = (0..keys.len()).max_by_key(|&i| keys[i].keep) {
                    keys.remove(worst);
                }
            }
        }
    }
}
