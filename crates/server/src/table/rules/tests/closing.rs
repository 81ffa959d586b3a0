//! Leaving, closing, and resuming after a restart.

use std::time::Duration;

use oxo_core::{BotLevel, ByPlayer, Game, Player, Rng, Scores, Square, WinReason};
use oxo_protocol::{BotSeat, ErrorCode, GameId, TableOptions, TableStatus};
use tokio::time::Instant;

use super::{Bench, GRACE, alice, bob, carol, ended, moved, mv, won};
use crate::table::rules::recover::{Saved, SavedRound};
use crate::table::rules::{Cmd, Event, GameKey, MoveReq, Rules, Timer};

// ----- leaving and closing -------------------------------------------------

#[test]
fn leaving_mid_round_forfeits_and_the_table_waits_for_a_new_opponent() {
    let mut b = Bench::playing();
    b.refused(Cmd::Leave { player: &carol() }, ErrorCode::NotSeated);
    let events = b.ok(Cmd::Leave { player: &bob() });
    assert_eq!(ended(&events).and_then(|o| o.winner()), Some(Player::X));
    assert!(events.contains(&Event::Vacated { player: bob() }));
    assert_eq!(b.status(), TableStatus::Waiting);
    assert_eq!(b.game().moves().len(), 0, "the last round stays on show");
    let events = b.ok(Cmd::Join {
        player: &carol(),
        seat: None,
    });
    assert!(matches!(
        events[..],
        [
            Event::Seated {
                seat: Player::O,
                ..
            },
            Event::RoundStarted { round: 2, .. }
        ]
    ));
}

#[test]
fn the_last_person_leaving_closes_the_table_and_then_everything_is_refused() {
    let mut b = Bench::playing();
    b.ok(Cmd::Leave { player: &bob() });
    let events = b.ok(Cmd::Leave { player: &alice() });
    assert!(events.contains(&Event::Closed));
    assert_eq!(b.status(), TableStatus::Closed);
    b.refused(
        Cmd::Join {
            player: &carol(),
            seat: None,
        },
        ErrorCode::NoSuchTable,
    );
    b.refused(Cmd::Timer(Timer::Close), ErrorCode::NoSuchTable);
    assert_eq!(b.rules.next_deadline(), None);
}

#[test]
fn walking_away_from_a_finished_round_gives_up_the_seat() {
    let mut b = Bench::playing();
    b.ok(Cmd::Forfeit { player: &bob() });
    b.ok(Cmd::Absent { player: &bob() });
    b.pass(GRACE);
    let events = b.fire();
    assert!(events.contains(&Event::Vacated { player: bob() }));
    assert_eq!(b.status(), TableStatus::Waiting);
    assert_eq!(b.rules.state().scores().x, 1, "scores stay with the table");
}

#[test]
fn leaving_a_finished_round_the_other_player_walked_away_from_closes_the_table() {
    let mut b = Bench::playing();
    b.ok(Cmd::Forfeit { player: &bob() });
    // Alice went elsewhere after the round; Bob leaves before her grace
    // period ends. She held the seat only for a rematch with Bob: it goes
    // too, so that nobody new starts a round with her while she is away.
    b.ok(Cmd::Absent { player: &alice() });
    let events = b.ok(Cmd::Leave { player: &bob() });
    assert!(events.contains(&Event::Vacated { player: alice() }));
    assert_eq!(events.last(), Some(&Event::Closed));
    assert_eq!(b.status(), TableStatus::Closed);
}

#[test]
fn leaving_keeps_the_seat_of_a_player_still_at_the_table_or_dropped_mid_round() {
    // Still looking at the finished round: she waits for someone new.
    let mut b = Bench::playing();
    b.ok(Cmd::Forfeit { player: &bob() });
    let events = b.ok(Cmd::Leave { player: &bob() });
    assert!(!events.contains(&Event::Vacated { player: alice() }));
    assert_eq!(b.status(), TableStatus::Waiting);
    assert!(b.rules.state().is_seated("alice"));
    // Dropped mid-round: she wins by forfeit and keeps her seat for her
    // grace period, to come back to.
    let mut b = Bench::playing();
    b.ok(Cmd::Absent { player: &alice() });
    let events = b.ok(Cmd::Leave { player: &bob() });
    assert!(!events.contains(&Event::Vacated { player: alice() }));
    assert_eq!(b.status(), TableStatus::Waiting);
    assert!(b.rules.state().is_seated("alice"));
}

#[test]
fn a_table_nobody_comes_back_to_closes_and_drops_the_side_to_move() {
    let mut b = Bench::playing();
    b.ok(Cmd::Absent { player: &alice() });
    b.pass(Duration::from_secs(1));
    b.ok(Cmd::Absent { player: &bob() });
    b.ok(Cmd::Present { player: &bob() });
    b.ok(Cmd::Absent { player: &bob() });
    // Alice's grace ends first: she drops the round.
    b.pass(GRACE - Duration::from_secs(1));
    let events = b.fire();
    assert_eq!(ended(&events).and_then(|o| o.winner()), Some(Player::O));
    assert_eq!(b.rules.due(b.now), None, "Bob's grace ends a second later");
    // Nobody has been connected for a whole grace period: it closes.
    b.pass(Duration::from_secs(1));
    assert_eq!(b.fire(), [Event::Closed]);
    assert_eq!(b.status(), TableStatus::Closed);
}

#[test]
fn a_player_dropped_from_a_round_keeps_the_seat_for_a_grace_period_more() {
    let mut b = Bench::playing();
    b.ok(Cmd::Absent { player: &bob() });
    b.pass(GRACE);
    let events = b.fire();
    assert_eq!(ended(&events), won(Player::X, WinReason::Dropped));
    assert_eq!(b.status(), TableStatus::RoundOver);
    assert!(b.rules.state().is_seated("bob"), "Bob keeps the seat");
    // Back within it, he may ask for a rematch.
    assert_eq!(b.rules.next_deadline(), Some(b.now + GRACE));
    b.pass(GRACE);
    let events = b.fire();
    assert!(events.contains(&Event::Vacated { player: bob() }));
    assert_eq!(
        b.status(),
        TableStatus::Waiting,
        "Alice waits for someone new"
    );
}

#[test]
fn a_finished_round_both_walked_away_from_closes_a_grace_period_after_the_last() {
    let mut b = Bench::playing();
    b.ok(Cmd::Forfeit { player: &bob() });
    b.ok(Cmd::Absent { player: &alice() });
    b.pass(Duration::from_secs(1));
    b.ok(Cmd::Absent { player: &bob() });
    b.pass(GRACE - Duration::from_secs(1));
    assert!(b.fire().contains(&Event::Vacated { player: alice() }));
    b.pass(Duration::from_secs(1));
    assert_eq!(b.fire(), [Event::Closed]);
}

#[test]
fn closing_mid_round_drops_the_side_to_move() {
    let mut b = Bench::playing();
    let events = b.ok(Cmd::Timer(Timer::Close));
    assert_eq!(ended(&events), won(Player::O, WinReason::Dropped));
    assert_eq!(events.last(), Some(&Event::Closed));
}

// ----- recovery ------------------------------------------------------------------

fn saved(status: TableStatus, moves: &[Square]) -> Saved {
    Saved {
        options: TableOptions::default(),
        status,
        players: ByPlayer {
            x: Some(alice()),
            o: Some(bob()),
        },
        bot_seat: None,
        round: 1,
        scores: Scores::default(),
        game: Some(SavedRound {
            key: GameKey {
                id: GameId::from("g1"),
                seq: 1,
            },
            game: Game::from_moves(Player::X, moves).expect("legal"),
            accepted: vec![(Player::X, 9, Square::A1)],
            idle: Duration::ZERO,
        }),
        away_left: ByPlayer::default(),
        rematch: ByPlayer::default(),
        earlier: Vec::new(),
    }
}

#[test]
fn a_recovered_table_resumes_its_round_with_everyone_away() {
    let now = Instant::now();
    let rules = Rules::recover(
        saved(TableStatus::InProgress, &[Square::A1]),
        GRACE,
        Rng::new(1),
        now,
    )
    .expect("resumes");
    assert_eq!(rules.state().status(), TableStatus::InProgress);
    assert!(rules.state().human(Player::X).is_some_and(|h| !h.connected));
    assert_eq!(rules.next_deadline(), Some(now + GRACE));
    let mut b = Bench {
        rules,
        now,
        games: 1,
    };
    let (events, reply) = b
        .apply(Cmd::Move(MoveReq {
            conn: 5,
            ..mv(&alice(), Square::A1, Some(9))
        }))
        .expect("a retry of the saved move");
    assert!(events.is_empty());
    assert_eq!(reply, moved("g1", 1));
}

#[test]
fn recovery_turns_a_finished_game_into_a_finished_round_and_refuses_the_impossible() {
    use Square::*;
    let won = [A1, B1, A2, B2, A3];
    let rules = Rules::recover(
        saved(TableStatus::InProgress, &won),
        GRACE,
        Rng::new(1),
        Instant::now(),
    )
    .expect("resumes");
    assert_eq!(rules.state().status(), TableStatus::RoundOver);
    let mut no_game = saved(TableStatus::InProgress, &[]);
    no_game.game = None;
    assert_eq!(
        Rules::recover(no_game, GRACE, Rng::new(1), Instant::now()).err(),
        Some("a round without its game")
    );
    let mut free_seat = saved(TableStatus::RoundOver, &[]);
    free_seat.players.o = None;
    assert_eq!(
        Rules::recover(free_seat, GRACE, Rng::new(1), Instant::now()).err(),
        Some("a round with a free seat")
    );
}

#[test]
fn leaving_a_bot_after_a_round_closes_the_table_and_the_bot_cannot_move_then() {
    let mut b = Bench::new(TableOptions {
        bot: Some(BotSeat {
            level: BotLevel::Easy,
            think_ms: 0,
        }),
        seat: Some(Player::O),
        ..TableOptions::default()
    });
    b.ok(Cmd::Create { creator: &alice() });
    b.ok(Cmd::Forfeit { player: &alice() });
    b.refused(Cmd::BotMove { cell: Square::A1 }, ErrorCode::GameOver);
    let events = b.ok(Cmd::Leave { player: &alice() });
    assert_eq!(events, [Event::Vacated { player: alice() }, Event::Closed]);
    assert_eq!(b.status(), TableStatus::Closed);
}

#[test]
fn a_per_move_clock_keeps_running_through_an_outage_but_leaves_some_time() {
    use crate::table::rules::recover::LEAST_TIME_ON_RESUME;
    use crate::table::rules::{Phase, Turn};
    let limit = Duration::from_secs(30);
    let deadline_after = |idle: Duration| {
        let now = Instant::now();
        let mut s = saved(TableStatus::InProgress, &[Square::A1]);
        s.options.move_time_ms = Some(30_000);
        if let Some(g) = s.game.as_mut() {
            g.idle = idle;
        }
        let rules = Rules::recover(s, GRACE, Rng::new(1), now).expect("resumes");
        match rules.state().phase {
            Phase::Playing {
                turn: Turn::Human { deadline: Some(at) },
                ..
            } => at - now,
            ref other => panic!("{other:?}"),
        }
    };
    assert_eq!(deadline_after(Duration::ZERO), limit);
    assert_eq!(
        deadline_after(Duration::from_secs(12)),
        Duration::from_secs(18),
        "the time gone before the outage is gone"
    );
    assert_eq!(
        deadline_after(Duration::from_secs(29)),
        LEAST_TIME_ON_RESUME
    );
    assert_eq!(
        deadline_after(Duration::from_secs(600)),
        LEAST_TIME_ON_RESUME
    );
}

#[test]
fn a_stored_grace_period_keeps_its_end_through_an_outage_but_leaves_some_time() {
    use crate::table::rules::recover::LEAST_TIME_ON_RESUME;
    // Bob went away before the outage with `left` of his grace period
    // left; Alice's going away was never stored (she was cut off by it).
    let graces_after = |left: Duration| {
        let now = Instant::now();
        let mut s = saved(TableStatus::InProgress, &[Square::A1]);
        s.away_left.o = Some(left);
        let rules = Rules::recover(s, GRACE, Rng::new(1), now).expect("resumes");
        let until = |p| {
            rules
                .state()
                .human(p)
                .and_then(|h| h.grace_until)
                .map(|t| t - now)
        };
        (
            until(Player::X),
            until(Player::O),
            rules.state().close_at.map(|t| t - now),
        )
    };
    let (alice, bob, close) = graces_after(Duration::from_secs(12));
    assert_eq!(
        alice,
        Some(GRACE),
        "a going away never stored: a fresh period"
    );
    assert_eq!(bob, Some(Duration::from_secs(12)), "the stored end stays");
    assert_eq!(
        close,
        Some(GRACE),
        "the table closes when the last one ends"
    );
    assert_eq!(graces_after(Duration::ZERO).1, Some(LEAST_TIME_ON_RESUME));
    assert_eq!(
        graces_after(Duration::from_secs(3_600)).1,
        Some(GRACE),
        "never more than a whole period"
    );
}
