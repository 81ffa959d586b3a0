//! Every refusal and every phase change of a table, without a server.

use std::time::Duration;

use oxo_core::{BotLevel, Game, Outcome, Player, Rng, Scores, Square, WinReason};
use oxo_protocol::{BotSeat, ErrorCode, GameId, PlayerId, TableOptions, TableStatus};
use tokio::time::Instant;

use super::{Cmd, Ctx, Due, Event, GameKey, MoveReq, Reply, Rules};
use crate::error::ClientError;

const GRACE: Duration = Duration::from_secs(30);

/// A table and a clock; rounds get ids g1, g2, ...
struct Bench {
    rules: Rules,
    now: Instant,
    games: i64,
}

fn alice() -> PlayerId {
    PlayerId::from("alice")
}

fn bob() -> PlayerId {
    PlayerId::from("bob")
}

fn carol() -> PlayerId {
    PlayerId::from("carol")
}

impl Bench {
    fn new(options: TableOptions) -> Bench {
        Bench {
            rules: Rules::new(options, GRACE, Rng::new(1)),
            now: Instant::now(),
            games: 0,
        }
    }

    /// X: alice, O: bob, first round under way (X starts).
    fn playing() -> Bench {
        let mut b = Bench::new(TableOptions {
            seat: Some(Player::X),
            ..TableOptions::default()
        });
        b.ok(Cmd::Create { creator: &alice() });
        b.ok(Cmd::Join {
            player: &bob(),
            seat: None,
        });
        b
    }

    /// Plans and adopts `cmd`.
    fn apply(&mut self, cmd: Cmd<'_>) -> Result<(Vec<Event>, Reply), ClientError> {
        let games = &mut self.games;
        let mut new_game = || {
            *games += 1;
            GameKey {
                id: GameId::from(format!("g{games}")),
                seq: *games,
            }
        };
        let mut ctx = Ctx {
            now: self.now,
            new_game: &mut new_game,
        };
        let plan = self.rules.apply(cmd, &mut ctx)?;
        Ok(self.rules.adopt(plan))
    }

    fn ok(&mut self, cmd: Cmd<'_>) -> Vec<Event> {
        match self.apply(cmd) {
            Ok((events, _)) => events,
            Err(e) => panic!("{cmd:?} refused: {e:?}"),
        }
    }

    /// `cmd` is refused with `code`, and nothing changed.
    fn refused(&mut self, cmd: Cmd<'_>, code: ErrorCode) -> String {
        let before = format!("{:?}", self.rules.state());
        let e = self.apply(cmd).expect_err("refused");
        assert_eq!(e.code, code, "{cmd:?}: {e:?}");
        assert_eq!(
            before,
            format!("{:?}", self.rules.state()),
            "a refusal changes nothing"
        );
        e.message.into_owned()
    }

    fn play(&mut self, player: &PlayerId, cell: Square) -> Vec<Event> {
        self.ok(Cmd::Move(mv(player, cell, None)))
    }

    fn status(&self) -> TableStatus {
        self.rules.state().status()
    }

    fn game(&self) -> &Game {
        &self.rules.state().phase().round().expect("a round").game
    }

    fn pass(&mut self, d: Duration) {
        self.now += d;
    }

    /// Fires what is due now (not a bot).
    fn fire(&mut self) -> Vec<Event> {
        match self.rules.due(self.now) {
            Some(Due::Timer(t)) => self.ok(Cmd::Timer(t)),
            other => panic!("expected a timer, got {other:?}"),
        }
    }
}

fn mv(player: &PlayerId, cell: Square, req: Option<u64>) -> MoveReq<'_> {
    MoveReq {
        player,
        cell,
        req,
        conn: 1,
        game: None,
    }
}

/// The reply to an accepted move.
fn moved(game: &str, ply: u32) -> Reply {
    Reply::Moved {
        game_id: GameId::from(game),
        ply,
    }
}

/// A round won by `winner` for `reason`, as [`ended`] finds it.
fn won(winner: Player, reason: WinReason) -> Option<Outcome> {
    Some(Outcome::Win { winner, reason })
}

fn ended(events: &[Event]) -> Option<Outcome> {
    events.iter().find_map(|e| match e {
        Event::RoundEnded { outcome, .. } => Some(*outcome),
        _ => None,
    })
}

// ----- creating and joining ---------------------------------------------

#[test]
fn a_table_waits_for_an_opponent_then_the_second_seat_starts_the_round() {
    let mut b = Bench::new(TableOptions::default());
    let events = b.ok(Cmd::Create { creator: &alice() });
    assert!(
        events.is_empty(),
        "the creator's seat is not an event: {events:?}"
    );
    assert_eq!(b.status(), TableStatus::Waiting);
    let events = b.ok(Cmd::Join {
        player: &bob(),
        seat: None,
    });
    assert!(matches!(events[0], Event::Seated { ref player, .. } if *player == bob()));
    assert!(matches!(
        events[1],
        Event::RoundStarted {
            round: 1,
            first: Player::X,
            ..
        }
    ));
    assert_eq!(b.status(), TableStatus::InProgress);
}

#[test]
fn a_bot_table_and_pass_and_play_start_at_once() {
    let bot = BotSeat {
        level: BotLevel::Perfect,
        think_ms: 0,
    };
    let mut b = Bench::new(TableOptions {
        bot: Some(bot),
        seat: Some(Player::O),
        ..TableOptions::default()
    });
    let events = b.ok(Cmd::Create { creator: &alice() });
    assert!(matches!(events[..], [Event::RoundStarted { .. }]));
    assert_eq!(
        b.rules.due(b.now),
        Some(Due::Bot(Player::X)),
        "the bot in X moves first"
    );
    let mut b = Bench::new(TableOptions {
        pass_and_play: true,
        ..TableOptions::default()
    });
    b.ok(Cmd::Create { creator: &alice() });
    assert_eq!(b.status(), TableStatus::InProgress);
    assert!(b.rules.state().same_player_both_seats());
}

#[test]
fn joining_refuses_a_taken_seat_a_full_table_and_a_second_seat() {
    let mut b = Bench::new(TableOptions {
        seat: Some(Player::X),
        ..TableOptions::default()
    });
    b.ok(Cmd::Create { creator: &alice() });
    let taken = b.refused(
        Cmd::Join {
            player: &bob(),
            seat: Some(Player::X),
        },
        ErrorCode::TableFull,
    );
    assert_eq!(taken, "The X seat is taken");
    let other = b.refused(
        Cmd::Join {
            player: &alice(),
            seat: Some(Player::O),
        },
        ErrorCode::AlreadySeated,
    );
    assert_eq!(other, "You already sit in the X seat here");
    let again = b.ok(Cmd::Join {
        player: &alice(),
        seat: Some(Player::X),
    });
    assert!(
        again.is_empty(),
        "a seated player joining again changes nothing"
    );
    b.ok(Cmd::Join {
        player: &bob(),
        seat: Some(Player::O),
    });
    assert_eq!(
        b.refused(
            Cmd::Join {
                player: &carol(),
                seat: None,
            },
            ErrorCode::TableFull,
        ),
        "Both seats are taken"
    );
    b.refused(
        Cmd::Join {
            player: &carol(),
            seat: Some(Player::O),
        },
        ErrorCode::TableFull,
    );
}

// ----- moves ---------------------------------------------------------------

#[test]
fn moves_are_refused_out_of_turn_on_taken_cells_and_from_strangers() {
    let mut b = Bench::playing();
    assert_eq!(
        b.refused(
            Cmd::Move(mv(&bob(), Square::A1, None)),
            ErrorCode::NotYourTurn
        ),
        "Not your turn"
    );
    b.refused(
        Cmd::Move(mv(&carol(), Square::A1, None)),
        ErrorCode::NotSeated,
    );
    b.play(&alice(), Square::A1);
    assert_eq!(
        b.refused(
            Cmd::Move(mv(&bob(), Square::A1, None)),
            ErrorCode::CellTaken
        ),
        "a1 is already taken"
    );
    let before = Bench::new(TableOptions::default());
    let mut waiting = before;
    waiting.ok(Cmd::Create { creator: &alice() });
    waiting.refused(
        Cmd::Move(mv(&alice(), Square::A1, None)),
        ErrorCode::NotStarted,
    );
}

#[test]
fn a_line_wins_the_round_and_counts_in_the_scores() {
    let mut b = Bench::playing();
    for (p, c) in [
        (alice(), Square::A1),
        (bob(), Square::B1),
        (alice(), Square::A2),
        (bob(), Square::B2),
    ] {
        b.play(&p, c);
    }
    let events = b.play(&alice(), Square::A3);
    assert!(matches!(
        events[..],
        [
            Event::Moved { ply: 5, .. },
            Event::RoundEnded { moves: 5, .. }
        ]
    ));
    assert_eq!(b.status(), TableStatus::RoundOver);
    assert_eq!(
        b.rules.state().scores(),
        Scores {
            x: 1,
            o: 0,
            draws: 0
        }
    );
    b.refused(Cmd::Move(mv(&bob(), Square::C3, None)), ErrorCode::GameOver);
}

#[test]
fn a_full_board_is_a_draw() {
    let mut b = Bench::playing();
    use Square::*;
    let mut events = Vec::new();
    for (i, c) in [A1, B2, C1, B1, B3, A2, C2, C3, A3].into_iter().enumerate() {
        let p = if i % 2 == 0 { alice() } else { bob() };
        events = b.play(&p, c);
    }
    assert_eq!(ended(&events), Some(Outcome::Draw));
    assert_eq!(b.rules.state().scores().draws, 1);
}

#[test]
fn a_retried_move_is_answered_again_and_never_applied_twice() {
    let mut b = Bench::playing();
    let (_, first) = b
        .apply(Cmd::Move(mv(&alice(), Square::B2, Some(7))))
        .expect("move");
    let (events, again) = b
        .apply(Cmd::Move(mv(&alice(), Square::B2, Some(7))))
        .expect("retry");
    assert_eq!(first, again);
    assert_eq!(first, moved("g1", 1));
    assert!(events.is_empty(), "a retry changes nothing: {events:?}");
    assert_eq!(b.game().moves().len(), 1);
}

#[test]
fn a_move_meant_for_an_earlier_round_is_refused() {
    let mut b = Bench::playing();
    let a = alice();
    let mut m = mv(&a, Square::A1, None);
    m.game = Some("g0");
    let message = b.refused(Cmd::Move(m), ErrorCode::GameOver);
    // The id may be an earlier round's, or another table's, or mangled:
    // the message says what it is not, not that it is over.
    assert_eq!(
        message,
        "The move was meant for game g0, which is not the round in play at this table \
         (an earlier round, over, or another table's); it was not applied"
    );
    m.game = Some("g1");
    b.ok(Cmd::Move(m));
}

#[test]
fn a_move_at_a_waiting_table_is_not_started_whatever_game_it_names() {
    let mut b = Bench::new(TableOptions::default());
    b.ok(Cmd::Create { creator: &alice() });
    let a = alice();
    let mut m = mv(&a, Square::A1, None);
    m.game = Some("x");
    b.refused(Cmd::Move(m), ErrorCode::NotStarted);
}

#[test]
fn a_late_retry_from_another_connection_counts_only_if_it_names_its_round() {
    let mut b = Bench::playing();
    b.ok(Cmd::Move(mv(&alice(), Square::A1, Some(1))));
    b.ok(Cmd::Forfeit { player: &bob() });
    b.ok(Cmd::Rematch { player: &alice() });
    b.ok(Cmd::Rematch { player: &bob() });
    // Round 2: X starts again (starter "x"). Same id and cell, new
    // connection, no game id: a new move.
    let a = alice();
    let mut other = mv(&a, Square::A1, Some(1));
    other.conn = 2;
    let (_, reply) = b.apply(Cmd::Move(other)).expect("new move");
    assert_eq!(reply, moved("g2", 1));
    // Naming round 1: the retry of round 1's move.
    let mut named = mv(&a, Square::A1, Some(1));
    named.conn = 3;
    named.game = Some("g1");
    let (events, reply) = b.apply(Cmd::Move(named)).expect("retry");
    assert!(events.is_empty());
    assert_eq!(reply, moved("g1", 1));
}

#[test]
fn a_bot_moves_only_on_its_turn() {
    let mut b = Bench::new(TableOptions {
        bot: Some(BotSeat {
            level: BotLevel::Random,
            think_ms: 500,
        }),
        seat: Some(Player::X),
        ..TableOptions::default()
    });
    b.ok(Cmd::Create { creator: &alice() });
    b.refused(Cmd::BotMove { cell: Square::A1 }, ErrorCode::NotYourTurn);
    b.play(&alice(), Square::A1);
    assert_eq!(b.rules.due(b.now), None, "the bot thinks first");
    b.pass(Duration::from_millis(500));
    assert_eq!(b.rules.due(b.now), Some(Due::Bot(Player::O)));
    b.ok(Cmd::BotMove { cell: Square::B2 });
    assert_eq!(b.game().moves(), [Square::A1, Square::B2]);
}

mod closing;
mod rounds;
