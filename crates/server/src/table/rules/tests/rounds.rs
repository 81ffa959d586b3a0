//! Rounds that end otherwise than on the board, and rematches.

use std::time::Duration;

use oxo_core::{BotLevel, ByPlayer, Player, Square, Starter, WinReason};
use oxo_protocol::{BotSeat, ErrorCode, TableOptions, TableStatus};

use super::{Bench, GRACE, alice, bob, carol, ended, won};
use crate::table::rules::{Cmd, Due, Event, Phase, Timer};

// ----- ending a round otherwise ------------------------------------------

#[test]
fn forfeiting_loses_the_round_and_needs_a_round_in_play() {
    let mut b = Bench::playing();
    b.refused(Cmd::Forfeit { player: &carol() }, ErrorCode::NotSeated);
    let events = b.ok(Cmd::Forfeit { player: &bob() });
    assert_eq!(ended(&events), won(Player::X, WinReason::Forfeit));
    b.refused(Cmd::Forfeit { player: &alice() }, ErrorCode::GameOver);
    let mut waiting = Bench::new(TableOptions::default());
    waiting.ok(Cmd::Create { creator: &alice() });
    waiting.refused(Cmd::Forfeit { player: &alice() }, ErrorCode::NotStarted);
}

#[test]
fn the_clock_running_out_loses_the_round() {
    let mut b = Bench::new(TableOptions {
        seat: Some(Player::X),
        move_time_ms: Some(10_000),
        ..TableOptions::default()
    });
    b.ok(Cmd::Create { creator: &alice() });
    b.ok(Cmd::Join {
        player: &bob(),
        seat: None,
    });
    b.pass(Duration::from_secs(6));
    b.play(&alice(), Square::A1);
    b.pass(Duration::from_secs(6));
    assert_eq!(b.rules.due(b.now), None, "a move restarts the clock");
    b.pass(Duration::from_secs(4));
    assert_eq!(b.rules.due(b.now), Some(Due::Timer(Timer::Clock)));
    let events = b.fire();
    assert_eq!(ended(&events), won(Player::X, WinReason::Timeout));
    assert_eq!(b.status(), TableStatus::RoundOver);
}

#[test]
fn a_player_away_past_the_grace_period_loses_the_round() {
    let mut b = Bench::playing();
    b.ok(Cmd::Absent { player: &bob() });
    b.pass(GRACE - Duration::from_secs(1));
    b.ok(Cmd::Present { player: &bob() });
    b.pass(GRACE);
    assert_eq!(
        b.rules.due(b.now),
        None,
        "coming back stops the grace period"
    );
    b.ok(Cmd::Absent { player: &bob() });
    b.pass(GRACE);
    assert_eq!(
        b.rules.due(b.now),
        Some(Due::Timer(Timer::Grace(Player::O)))
    );
    let events = b.fire();
    assert_eq!(ended(&events), won(Player::X, WinReason::Dropped));
}

#[test]
fn in_pass_and_play_the_side_to_move_is_dropped() {
    let mut b = Bench::new(TableOptions {
        pass_and_play: true,
        ..TableOptions::default()
    });
    b.ok(Cmd::Create { creator: &alice() });
    b.play(&alice(), Square::A1);
    b.ok(Cmd::Absent { player: &alice() });
    b.pass(GRACE);
    let events = b.fire();
    assert_eq!(
        ended(&events),
        won(Player::X, WinReason::Dropped),
        "O was to move"
    );
    let mut b = Bench::new(TableOptions {
        pass_and_play: true,
        ..TableOptions::default()
    });
    b.ok(Cmd::Create { creator: &alice() });
    b.play(&alice(), Square::A1);
    let events = b.ok(Cmd::Forfeit { player: &alice() });
    assert_eq!(ended(&events).and_then(|o| o.winner()), Some(Player::X));
}

// ----- rematches -------------------------------------------------------------

#[test]
fn a_rematch_starts_when_both_want_it_and_only_after_a_round() {
    let mut b = Bench::new(TableOptions {
        seat: Some(Player::X),
        starter: Starter::Alternate,
        ..TableOptions::default()
    });
    b.ok(Cmd::Create { creator: &alice() });
    b.refused(Cmd::Rematch { player: &alice() }, ErrorCode::NotStarted);
    b.ok(Cmd::Join {
        player: &bob(),
        seat: None,
    });
    assert_eq!(
        b.refused(Cmd::Rematch { player: &alice() }, ErrorCode::GameInProgress),
        "The round is still being played"
    );
    b.ok(Cmd::Forfeit { player: &alice() });
    b.refused(Cmd::Rematch { player: &carol() }, ErrorCode::NotSeated);
    assert!(b.ok(Cmd::Rematch { player: &alice() }).is_empty());
    assert!(
        matches!(b.rules.state().phase(), Phase::Over { rematch, .. } if *rematch == ByPlayer { x: true, o: false })
    );
    let events = b.ok(Cmd::Rematch { player: &bob() });
    assert!(
        matches!(
            events[..],
            [Event::RoundStarted {
                round: 2,
                first: Player::O,
                ..
            }]
        ),
        "alternate: O starts round 2: {events:?}"
    );
    assert_eq!(b.status(), TableStatus::InProgress);
}

/// The player who went away loses, even when the bot was to move: a bot
/// thinking longer than the grace period (a server run with a grace
/// under 5 s) must not hand the absent player a win.
#[test]
fn a_player_who_leaves_a_bot_mid_round_is_the_one_dropped() {
    let mut b = Bench::new(TableOptions {
        bot: Some(BotSeat {
            level: BotLevel::Easy,
            think_ms: 60_000,
        }),
        seat: Some(Player::X),
        ..TableOptions::default()
    });
    b.ok(Cmd::Create { creator: &alice() });
    b.play(&alice(), Square::A1);
    assert_eq!(b.game().to_move(), Some(Player::O), "the bot is thinking");
    b.ok(Cmd::Absent { player: &alice() });
    b.pass(GRACE);
    let events = b.fire();
    assert_eq!(
        ended(&events),
        won(Player::O, WinReason::Dropped),
        "alice went away: {events:?}"
    );
    assert_eq!(b.status(), TableStatus::Closed);
}

#[test]
fn a_bot_always_wants_a_rematch() {
    let mut b = Bench::new(TableOptions {
        bot: Some(BotSeat {
            level: BotLevel::Easy,
            think_ms: 0,
        }),
        seat: Some(Player::X),
        ..TableOptions::default()
    });
    b.ok(Cmd::Create { creator: &alice() });
    b.ok(Cmd::Forfeit { player: &alice() });
    let events = b.ok(Cmd::Rematch { player: &alice() });
    assert!(matches!(events[..], [Event::RoundStarted { round: 2, .. }]));
}

#[test]
fn a_toss_starter_asks_the_coin_every_round() {
    let mut firsts = std::collections::HashSet::new();
    let mut b = Bench::new(TableOptions {
        pass_and_play: true,
        starter: Starter::Toss,
        ..TableOptions::default()
    });
    b.ok(Cmd::Create { creator: &alice() });
    for _ in 0..20 {
        firsts.insert(b.game().first());
        b.ok(Cmd::Forfeit { player: &alice() });
        b.ok(Cmd::Rematch { player: &alice() });
    }
    assert_eq!(firsts.len(), 2, "both sides start some rounds");
}
