//! A seat's row(s) beside the board: its mark, the player's name, "(you)",
//! whether away (with the time left to come back) or asking for a
//! rematch, and the seat's wins. The name is cut to let the row fit; when
//! even a cut name leaves no room, what follows the name goes on a row of
//! its own, its words whole. The layout (`view`) wraps nothing more.

use oxo_core::Player;
use oxo_protocol::{PlayerInfo, TableState};

use super::state::Online;
use crate::text::{self, truncate, wrap_whole};

/// With fewer columns than this left for the name, "away" takes its short
/// form ("(away 19 s)").
const NAME_ROOMY: usize = 8;

/// The row(s) of seat `p` of `t` in `width` columns: its mark, [`info`]
/// and its wins, on one row when the name cut (with `…`) lets it fit;
/// else the mark, the name and the wins on the first row and the rest
/// ("(away 19 s)", "wants a rematch") on the next, its words whole.
pub(super) fn player_rows(o: &Online, t: &TableState, p: Player, width: usize) -> Vec<String> {
    let elapsed = u64::try_from(o.table_at.elapsed().as_millis()).unwrap_or(u64::MAX);
    let wins = t.scores.wins(p);
    let fixed = text::width(&format!("{p}   {wins}"));
    let mine = o.my_seat() == Some(p);
    let mut info = info(t.players[p].as_ref(), mine, elapsed, false);
    if width.saturating_sub(fixed + text::width(&info.rest))
        < NAME_ROOMY.min(text::width(&info.name))
    {
        info = self::info(t.players[p].as_ref(), mine, elapsed, true);
    }
    let room = width.saturating_sub(fixed + text::width(&info.rest));
    if room >= text::NAME_MIN.min(text::width(&info.name)) || info.rest.is_empty() {
        let name = truncate(&info.name, room.max(text::NAME_MIN));
        return wrap_whole(&format!("{p} {name}{}  {wins}", info.rest), width);
    }
    // No room on one row: the rest goes under, in its long form if it
    // fits there.
    let long = self::info(t.players[p].as_ref(), mine, elapsed, false);
    let rest = if text::width(long.rest.trim()) <= width {
        long.rest
    } else {
        info.rest
    };
    let name = truncate(&info.name, width.saturating_sub(fixed).max(text::NAME_MIN));
    let mut rows = wrap_whole(&format!("{p} {name}  {wins}"), width);
    rows.extend(wrap_whole(rest.trim(), width));
    rows
}

/// A seat's words: the name, and what follows it.
struct SeatInfo {
    name: String,
    rest: String,
}

/// A seat's line: the player's name (and "(you)" for mine), whether away
/// (with the time left to come back, counted down from the state's
/// arrival `elapsed` ms ago; `short`: "(away 19 s)") and whether asking
/// for a rematch.
fn info(p: Option<&PlayerInfo>, mine: bool, elapsed: u64, short: bool) -> SeatInfo {
    let Some(i) = p else {
        return SeatInfo {
            name: "(free seat)".to_owned(),
            rest: String::new(),
        };
    };
    let mut rest = String::new();
    if mine {
        rest.push_str(" (you)");
    }
    if !i.connected {
        match i.grace_left_ms {
            Some(ms) => {
                let secs = ms.saturating_sub(elapsed).div_ceil(1000);
                rest.push_str(&if short {
                    format!(" (away {secs} s)")
                } else {
                    format!(" (away: {secs} s to come back)")
                });
            }
            None => rest.push_str(" (away)"),
        }
    }
    if i.wants_rematch {
        rest.push_str(" wants a rematch");
    }
    SeatInfo {
        name: truncate(&i.name, 24),
        rest,
    }
}
