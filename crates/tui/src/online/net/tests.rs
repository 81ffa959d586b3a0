//! How the connection task retries, reconnects and starts afresh.

use super::retry::*;
use super::*;

fn connect_error(reason: &str) -> Error {
    Error::Connect {
        url: "ws://127.0.0.1:8080/ws".into(),
        reason: reason.into(),
    }
}

#[test]
fn a_failed_reconnect_is_said_in_a_players_words_with_a_short_detail() {
    let two = Duration::from_secs(2);
    assert_eq!(
        retrying(&connect_error("Connection refused (os error 111)"), two),
        "Server not reachable — retrying in 2 s (connection refused)"
    );
    assert_eq!(
        retrying(
            &connect_error("failed to lookup address information: Name or service not known"),
            Duration::from_millis(500),
        ),
        "Server not reachable — retrying in 1 s (unknown host)"
    );
    assert_eq!(
        retrying(&Error::Timeout(Duration::from_secs(10)), two),
        "Server not reachable — retrying in 2 s (no answer)"
    );
    // Whatever the detail, it stays short and without OS error numbers.
    let long = connect_error(&format!("{} (os error 99)", "x".repeat(200)));
    let said = retrying(&long, two);
    assert!(!said.contains("os error"), "{said}");
    assert!(said.chars().count() <= 80, "{said}");
}

#[test]
fn a_restarted_server_is_tried_again_soon_enough_to_make_a_clocked_move() {
    // docs/protocol.md: after a restart, a player to move has at least
    // 5 s from the server's start. The game tries again often enough
    // to be back with most of them left to play.
    let mut delay = FIRST_RETRY;
    for _ in 0..20 {
        assert!(delay <= Duration::from_secs(2), "{delay:?}");
        delay = next_retry(delay);
    }
    assert!(delay >= Duration::from_secs(1), "not hammering: {delay:?}");
}

#[test]
fn a_full_server_is_busy_and_tried_again_even_at_first() {
    let full = Error::Closed(Some((1013, "server full".into())));
    assert!(try_again_later(&full), "1013 is: try again later");
    assert_eq!(
        retrying(&full, Duration::from_secs(1)),
        "Server busy — retrying in 1 s (server full)"
    );
    let unavailable = Error::Unavailable {
        url: "ws://h:1/ws".into(),
        reason: "The server is shutting down".into(),
    };
    assert!(try_again_later(&unavailable));
    assert!(!try_again_later(&Error::Closed(None)));
    assert!(!try_again_later(&connect_error("Connection refused")));
}

#[test]
fn only_an_unknown_token_makes_a_returning_player_start_afresh() {
    let refused = |code| Error::Refused {
        code,
        message: String::new(),
    };
    assert!(starts_afresh(&refused(ErrorCode::InvalidToken)));
    // The player keeps their token, and so their seats, through a
    // server's passing trouble or a name it refuses.
    for code in [
        ErrorCode::Internal,
        ErrorCode::RateLimited,
        ErrorCode::ShuttingDown,
        ErrorCode::InvalidName,
    ] {
        assert!(!starts_afresh(&refused(code)), "{code:?}");
    }
    assert!(!starts_afresh(&Error::Closed(None)));
}

#[test]
fn a_dropped_connection_is_said_in_a_players_words() {
    assert_eq!(dropped(None), "Connection lost — reconnecting…");
    assert_eq!(
        dropped(Some((1012, "server restarting".into()))),
        "The server closed the connection (server restarting) — reconnecting…"
    );
}

#[test]
fn the_pauses_between_tries_are_spread_over_the_second_half_of_the_wait() {
    let mut rng = Rng::new(7);
    let pauses: Vec<Duration> = (0..200).map(|_| spread(LAST_RETRY, &mut rng)).collect();
    assert!(
        pauses
            .iter()
            .all(|p| (LAST_RETRY / 2..=LAST_RETRY).contains(p))
    );
    let (least, most) = (pauses.iter().min(), pauses.iter().max());
    assert!(
        most.zip(least)
            .is_some_and(|(m, l)| *m - *l >= LAST_RETRY / 4),
        "spread, not all alike: {least:?}..{most:?}"
    );
}
