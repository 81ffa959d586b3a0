//! When and how the connection task tries again after the server went
//! away, and what the player is told meanwhile.

use std::time::Duration;

use oxo_client::Error;
use oxo_core::Rng;

/// How long after a failed connection the first try again waits.
pub(super) const FIRST_RETRY: Duration = Duration::from_millis(250);

/// The longest wait between two tries: well under the 5 s a player to
/// move keeps after a server's restart (docs/protocol.md), so that a
/// restart does not lose a clocked game before the game is back. A
/// refused connection costs the server nothing.
pub(super) const LAST_RETRY: Duration = Duration::from_secs(2);

/// The wait before the next try, after one of `delay` failed: twice as
/// long, up to [`LAST_RETRY`].
pub(super) fn next_retry(delay: Duration) -> Duration {
    (delay * 2).min(LAST_RETRY)
}

/// The pause actually taken for a wait of `delay`: somewhere in its second
/// half, so that the players of a server that restarts do not all come
/// back in the same instant.
pub(super) fn spread(delay: Duration, rng: &mut Rng) -> Duration {
    let half = u32::try_from(delay.as_millis() / 2).unwrap_or(u32::MAX);
    delay / 2 + Duration::from_millis(u64::from(rng.below(half.saturating_add(1))))
}

/// What a player is told when the connection drops: that it is lost,
/// or the server's reason for closing it (a restart, say), and that it
/// comes back by itself.
pub(super) fn dropped(why: Option<(u16, String)>) -> String {
    match why {
        Some((_, reason)) if !reason.is_empty() => {
            format!("The server closed the connection ({reason}) — reconnecting…")
        }
        _ => "Connection lost — reconnecting…".to_owned(),
    }
}

/// Whether `e` is a server saying it cannot take the player right now:
/// `503` (shutting down, a cluster between leaders), or a connection
/// closed with 1013, "try again later" (the server is full, or this
/// address holds too many connections).
pub(super) fn try_again_later(e: &Error) -> bool {
    matches!(
        e,
        Error::Unavailable { .. } | Error::Closed(Some((TRY_AGAIN_LATER, _)))
    )
}

/// The WebSocket close code of a server that cannot take a connection now.
pub(super) const TRY_AGAIN_LATER: u16 = 1013;

/// What a player is told when connecting again failed and the next try
/// is `delay` away: "Server not reachable — retrying in 2 s (connection
/// refused)", with a short detail rather than the OS's message; a server
/// that answered but cannot take players now is "busy", in its words.
pub(super) fn retrying(e: &Error, delay: Duration) -> String {
    let secs = delay.as_millis().div_ceil(1000).max(1);
    let (state, detail) = match e {
        Error::Unavailable { reason, .. } => ("busy", short_reason(reason)),
        Error::Connect { reason, .. } => ("not reachable", short_reason(reason)),
        Error::Timeout(_) => ("not reachable", "no answer".to_owned()),
        Error::Refused { message, .. } => ("not reachable", short_reason(message)),
        Error::Closed(Some((TRY_AGAIN_LATER, reason))) => ("busy", short_reason(reason)),
        Error::Closed(_) => ("not reachable", "connection closed".to_owned()),
        Error::BadMessage(_) | Error::Unexpected(_) => {
            ("not reachable", "not an oxo server?".to_owned())
        }
    };
    format!("Server {state} — retrying in {secs} s ({detail})")
}

/// The gist of a network error's text, for people: no "(os error 111)",
/// lower case, a failed name lookup as "unknown host", and at most
/// [`DETAIL_CHARS`] characters.
pub(super) fn short_reason(reason: &str) -> String {
    const DETAIL_CHARS: usize = 32;
    let lower = reason.to_lowercase();
    if lower.contains("lookup address") || lower.contains("name or service not known") {
        return "unknown host".to_owned();
    }
    let text = match lower.find(" (os error") {
        Some(at) => &lower[..at],
        None => lower.as_str(),
    };
    let text = text.strip_prefix("io error: ").unwrap_or(text).trim();
    crate::text::truncate(text, DETAIL_CHARS)
}
