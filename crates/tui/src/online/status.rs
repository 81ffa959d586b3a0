//! The table screen's status line: whose turn it is and the clock, or
//! the result of the round and, for its players, the rematch key (or,
//! once asked, whom the rematch waits for).
//!
//! The names in it are cut (with `…`) so that the line takes no more rows
//! than it would with the shortest names: a long name, or a wide one (24
//! CJK letters take 48 columns), never pushes the other lines out.

use oxo_core::{Outcome, Player, WinReason};
use oxo_protocol::{TableState, TableStatus};

use super::state::Online;
use crate::text::{self, truncate, wrap_whole};

/// How a finished round's result ends for me at seat `me` of `t`: with
/// the rematch key, or once I asked, whom it waits for; with nothing for
/// a watcher.
fn rematch(t: &TableState, me: Option<Player>, name: impl Fn(Player) -> String) -> String {
    let Some(me) = me else {
        return String::new();
    };
    let asked = t.players[me].as_ref().is_some_and(|i| i.wants_rematch);
    match t.players[!me].as_ref() {
        Some(_) if asked => format!(" · Rematch asked — waiting for {}", name(!me)),
        _ => " · r asks for a rematch".to_owned(),
    }
}

/// What the loser of a round did, in the browser's words
/// (`web/js/outcome.js`, `REASONS`): "forfeited" (leaving mid-round is a
/// forfeit too), "did not come back in time", "ran out of time"; `None`
/// for a line.
fn loser_verb(reason: WinReason) -> Option<&'static str> {
    match reason {
        WinReason::Line { .. } => None,
        WinReason::Forfeit => Some("forfeited"),
        WinReason::Dropped => Some("did not come back in time"),
        WinReason::Timeout => Some("ran out of time"),
    }
}

/// A won round in words, as the browser's game page says it from where
/// the reader sits (`seatedOutcome`), with the marks: "You win (X) —
/// three in a row", "Bob (O) wins — you ran out of time", and for a
/// watcher "Ann (X) wins — Bob forfeited".
fn won(
    winner: Player,
    reason: WinReason,
    me: Option<Player>,
    name: impl Fn(Player) -> String,
) -> String {
    let who = |p: Player| {
        if me == Some(p) {
            "you".to_owned()
        } else {
            name(p)
        }
    };
    let said = if me == Some(winner) {
        format!("You win ({winner})")
    } else {
        format!("{} ({winner}) wins", name(winner))
    };
    match loser_verb(reason) {
        Some(verb) => format!("{said} — {} {verb}", who(!winner)),
        None => format!("{said} — three in a row"),
    }
}

/// The table's state in a line for `width` columns: whose turn it is
/// (with the time left), or the result, for me at seat `me` (a watcher
/// when `None`). Its names are cut so that it takes as few rows as it can.
pub(super) fn status(o: &Online, t: &TableState, me: Option<Player>, width: usize) -> String {
    let rows = |line: &str| wrap_whole(line, width).len();
    let fewest = rows(&said(o, t, me, text::NAME_MIN));
    let room = text::name_room(longest_name(t), |room| {
        rows(&said(o, t, me, room)) <= fewest
    });
    said(o, t, me, room)
}

/// The width of the longest name seated at `t` (0 with nobody seated):
/// what cutting names to fit a line starts from.
pub(super) fn longest_name(t: &TableState) -> usize {
    Player::ALL
        .into_iter()
        .filter_map(|p| t.players[p].as_ref())
        .map(|i| text::width(&i.name))
        .max()
        .unwrap_or(0)
}

/// The status line with each name cut to at most `room` columns.
fn said(o: &Online, t: &TableState, me: Option<Player>, room: usize) -> String {
    let name = |p: Player| {
        t.players[p]
            .as_ref()
            .map_or_else(|| "?".to_owned(), |i| truncate(&i.name, room))
    };
    match (t.status, t.outcome) {
        (TableStatus::Waiting, _) => "Waiting for an opponent to join…".to_owned(),
        (TableStatus::Closed, _) => "The table is closed".to_owned(),
        // Only players are offered a rematch: a watcher's `r` is refused.
        (_, Some(Outcome::Draw)) => format!("Draw!{}", rematch(t, me, name)),
        (_, Some(Outcome::Win { winner, reason })) => {
            format!("{}{}", won(winner, reason, me, name), rematch(t, me, name))
        }
        (_, None) => {
            let Some(turn) = t.turn else {
                return String::new();
            };
            // Offline the server's clock goes on unseen (or, after a
            // restart, starts again): no figure is better than a wrong one.
            let left = t.time_left_ms.map_or_else(String::new, |ms| {
                if !o.connected {
                    return " · clock unknown (offline)".to_owned();
                }
                let elapsed = u64::try_from(o.table_at.elapsed().as_millis()).unwrap_or(u64::MAX);
                format!(" · {} s left", ms.saturating_sub(elapsed).div_ceil(1000))
            });
            if me == Some(turn) {
                format!("Your move ({turn}){left}")
            } else {
                format!("{} ({turn}) to move{left}", name(turn))
            }
        }
    }
}
