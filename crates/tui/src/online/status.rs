//! The table screen's status line: whose turn it is and the clock, or
//! the result of the round and, for its players, the rematch key (or,
//! once asked, whom the rematch waits for).

use oxo_core::{Outcome, Player, WinReason};
use oxo_protocol::{TableState, TableStatus};

use super::state::Online;

/// How a finished round's result ends for me at seat `me` of `t`: with
/// the rematch key, or once I asked, whom it waits for; with nothing for
/// a watcher.
fn rematch(t: &TableState, me: Option<Player>) -> String {
    let Some(me) = me else {
        return String::new();
    };
    let asked = t.players[me].as_ref().is_some_and(|i| i.wants_rematch);
    match t.players[!me].as_ref() {
        Some(other) if asked => format!(" · Rematch asked — waiting for {}", other.name),
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

/// The table's state in a line: whose turn it is (with the time left),
/// or the result, for me at seat `me` (a watcher when `None`).
pub(super) fn status(o: &Online, t: &TableState, me: Option<Player>) -> String {
    let name = |p: Player| {
        t.players[p]
            .as_ref()
            .map_or("?", |i| i.name.as_str())
            .to_owned()
    };
    match (t.status, t.outcome) {
        (TableStatus::Waiting, _) => "Waiting for an opponent to join…".to_owned(),
        (TableStatus::Closed, _) => "The table is closed".to_owned(),
        // Only players are offered a rematch: a watcher's `r` is refused.
        (_, Some(Outcome::Draw)) => format!("Draw!{}", rematch(t, me)),
        (_, Some(Outcome::Win { winner, reason })) => {
            format!("{}{}", won(winner, reason, me, name), rematch(t, me))
        }
        (_, None) => {
            let Some(turn) = t.turn else {
                return String::new();
            };
            let left = t.time_left_ms.map_or_else(String::new, |ms| {
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
