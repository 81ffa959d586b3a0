//! The table screen's status line: whose turn it is and the clock, or
//! the result of the round and, for its players, the rematch key.

use oxo_core::{Outcome, Player};
use oxo_protocol::{TableState, TableStatus};

use super::state::Online;

/// How a finished round's result ends: with the rematch key for a
/// player at the table (`me`), with nothing for a watcher.
fn rematch(me: Option<Player>) -> &'static str {
    if me.is_some() {
        " · r asks for a rematch"
    } else {
        ""
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
        (_, Some(Outcome::Draw)) => format!("Draw!{}", rematch(me)),
        (_, Some(Outcome::Win { winner, reason })) => format!(
            "{} ({winner}) wins ({}){}",
            name(winner),
            reason.as_str(),
            rematch(me)
        ),
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
