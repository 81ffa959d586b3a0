//! A waiting table's link under the board, for its player to give a
//! friend: which label goes with it and how many rows it takes. The link
//! is never cut while it fits whole: the label gives way first. Where it
//! is drawn is the table layout's job (`view`).

use crate::text;

/// What a waiting table's link is shown with.
const LINK_LABEL: &str = "Link for a friend:";
/// The link's label when the plain one would leave no row for the status
/// under the board: it says that the table waits too.
const WAITING_LINK_LABEL: &str = "Waiting… link for a friend:";
/// At most this many rows for a waiting table's link.
const LINK_ROWS: u16 = 3;

/// The link `link` drawn in rows of `columns`: the text (label and link)
/// and how many rows it takes (cut short only when not even the link
/// alone fits in `room` rows).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct LinkRows {
    /// The label and the link, to wrap at the rows' width.
    pub(super) text: String,
    /// How many rows it takes, at most [`LINK_ROWS`].
    pub(super) rows: u16,
}

/// How `link` goes in at most `room` rows of `columns` under the board;
/// `status_under`: the status goes under the board too, in the same rows,
/// so the plain label must leave it one (else the label says that the
/// table waits).
pub(super) fn link_rows(link: &str, columns: u16, room: u16, status_under: bool) -> LinkRows {
    let columns = usize::from(columns.max(1));
    let url = text::width(link);
    // On one row with its label, else the label's row and the rest.
    let needed = |label: &str| {
        let rows = if label.is_empty() {
            url.div_ceil(columns)
        } else if text::width(label) + 1 + url <= columns {
            1
        } else {
            1 + url.div_ceil(columns)
        };
        u16::try_from(rows).unwrap_or(u16::MAX)
    };
    let room = room.min(LINK_ROWS);
    let label = if status_under {
        [LINK_LABEL, WAITING_LINK_LABEL, ""]
            .into_iter()
            .find(|&l| needed(l) < room || (l != LINK_LABEL && needed(l) <= room))
            .unwrap_or(WAITING_LINK_LABEL)
    } else {
        [LINK_LABEL, ""]
            .into_iter()
            .find(|&l| needed(l) <= room)
            .unwrap_or(LINK_LABEL)
    };
    let text = if label.is_empty() {
        link.to_owned()
    } else {
        format!("{label} {link}")
    };
    LinkRows {
        text,
        rows: needed(label).min(room),
    }
}
