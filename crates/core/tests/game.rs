//! Games: moves, refusals, undo, forfeits, scores, the log, and games that O
//! starts.

use oxo_core::{
    Bitboard, Concession, Event, Game, MoveError, Outcome, Player, Position, Square::*, UndoError,
    WinReason,
};

/// X wins on the last square with two lines at once.
const DOUBLE_LINE: [oxo_core::Square; 9] = [A1, A2, C1, C2, B2, A3, B3, C3, B1];

fn refused_unchanged(
    game: &mut Game,
    attempt: impl FnOnce(&mut Game) -> Result<(), MoveError>,
    expected: MoveError,
) {
    let before = game.clone();
    assert_eq!(attempt(game), Err(expected));
    assert_eq!(*game, before, "a refused call changed the game");
}

#[test]
fn a_new_game() {
    let game = Game::new();
    assert_eq!(game.first(), Player::X);
    assert_eq!(game.to_move(), Some(Player::X));
    assert_eq!(*game.position(), Position::new());
    assert!(game.moves().is_empty());
    assert_eq!(game.outcome(), None);
    assert!(!game.is_over());
    assert_eq!(game.log().events(), &[Event::Start { first: Player::X }]);
    assert_eq!(Game::default(), game);
}

#[test]
fn moves_alternate_and_the_last_one_ends_the_game() {
    let mut game = Game::new();
    for (ply, &sq) in DOUBLE_LINE.iter().enumerate() {
        assert_eq!(game.to_move(), Some(game.player_of_ply(ply)));
        let result = game.play(sq).expect("legal");
        assert_eq!(result.is_some(), ply == 8, "ply {ply}");
    }
    let outcome = game.outcome().expect("over");
    // A full board with a line is a win, not a draw; both lines count.
    assert_eq!(outcome.winner(), Some(Player::X));
    let cells: Bitboard = [A1, B1, C1, B2, B3].into_iter().collect();
    assert_eq!(
        outcome,
        Outcome::Win {
            winner: Player::X,
            reason: WinReason::Line { cells }
        }
    );
    assert_eq!(outcome.to_string(), "X wins (line a1 b1 c1 b2 b3)");
    assert_eq!(game.to_move(), None);
    assert_eq!(game.moves(), DOUBLE_LINE);
    assert_eq!(Game::from_moves(Player::X, &DOUBLE_LINE), Ok(game));
}

#[test]
fn refused_moves_leave_the_game_unchanged() {
    let mut game = Game::from_moves(Player::X, &[B2, A1]).expect("legal");
    refused_unchanged(
        &mut game,
        |g| g.play(B2).map(drop),
        MoveError::Occupied {
            square: B2,
            by: Player::X,
        },
    );
    refused_unchanged(
        &mut game,
        |g| g.play(A1).map(drop),
        MoveError::Occupied {
            square: A1,
            by: Player::O,
        },
    );
    assert_eq!(game.play(C3), Ok(None));
    assert_eq!(game.moves(), &[B2, A1, C3]);

    let mut won = Game::from_moves(Player::X, &[A1, A2, B1, B2, C1]).expect("legal");
    for sq in [C3, A1] {
        refused_unchanged(&mut won, |g| g.play(sq).map(drop), MoveError::GameOver);
    }
    assert_eq!(
        Game::from_moves(Player::X, &[A1, A1]),
        Err(MoveError::Occupied {
            square: A1,
            by: Player::X
        })
    );
    assert_eq!(
        Game::from_moves(Player::X, &[A1, A2, B1, B2, C1, C3]),
        Err(MoveError::GameOver)
    );
}

#[test]
fn undo_restores_the_exact_previous_state() {
    let mut game = Game::new();
    let mut history = vec![game.clone()];
    for &sq in &DOUBLE_LINE {
        let before = game.clone();
        game.play(sq).expect("legal");
        assert_eq!(game.undo(), Ok(sq));
        assert_eq!(game, before);
        game.play(sq).expect("legal");
        history.push(game.clone());
    }
    // Undo all the way back, reopening the finished game first.
    history.pop();
    while let Some(previous) = history.pop() {
        game.undo().expect("a move to undo");
        assert_eq!(game, previous);
    }
    assert_eq!(game, Game::new());
    let before = game.clone();
    assert_eq!(game.undo(), Err(UndoError::NoMoves));
    assert_eq!(game, before);
}

#[test]
fn forfeit_drop_and_timeout_award_the_other_player() {
    type Ender = fn(&mut Game, Player) -> Result<Outcome, MoveError>;
    let enders: [(Ender, WinReason, &str); 3] = [
        (Game::forfeit, WinReason::Forfeit, "forfeit"),
        (Game::drop_player, WinReason::Dropped, "dropped"),
        (Game::time_out, WinReason::Timeout, "timeout"),
    ];
    for (end, reason, name) in enders {
        for loser in Player::ALL {
            for moves in [&[][..], &[B2, A1, C3][..]] {
                let mut game = Game::from_moves(Player::X, moves).expect("legal");
                let winner = !loser;
                let expected = Outcome::Win { winner, reason };
                assert_eq!(end(&mut game, loser), Ok(expected));
                assert_eq!(game.outcome(), Some(expected));
                assert_eq!(game.to_move(), None);
                assert_eq!(game.moves(), moves, "the board stays as it was");
                assert_eq!(expected.cells(), Bitboard::EMPTY);
                assert_eq!(reason.as_str(), name);
                assert_eq!(expected.to_string(), format!("{winner} wins ({name})"));
                assert_eq!(
                    game.log().events().last(),
                    Some(&Event::End { outcome: expected })
                );

                let before = game.clone();
                assert_eq!(game.undo(), Err(UndoError::Decided));
                assert_eq!(game, before);
                refused_unchanged(&mut game, |g| g.play(C1).map(drop), MoveError::GameOver);
                refused_unchanged(
                    &mut game,
                    |g| g.forfeit(winner).map(drop),
                    MoveError::GameOver,
                );
                refused_unchanged(
                    &mut game,
                    |g| g.time_out(loser).map(drop),
                    MoveError::GameOver,
                );
            }
        }
    }
    // A finished game cannot be forfeited either.
    let mut won = Game::from_moves(Player::X, &[A1, A2, B1, B2, C1]).expect("legal");
    refused_unchanged(
        &mut won,
        |g| g.drop_player(Player::X).map(drop),
        MoveError::GameOver,
    );
}

#[test]
fn a_concession_decides_as_its_own_method_and_is_the_reason_it_gives() {
    type Ender = fn(&mut Game, Player) -> Result<Outcome, MoveError>;
    let cases: [(Concession, Ender); 3] = [
        (Concession::Forfeit, Game::forfeit),
        (Concession::Dropped, Game::drop_player),
        (Concession::Timeout, Game::time_out),
    ];
    for (concession, own) in cases {
        let reason = WinReason::from(concession);
        assert_eq!(reason.concession(), Some(concession));
        for loser in Player::ALL {
            let (mut a, mut b) = (Game::new(), Game::new());
            assert_eq!(a.concede(loser, concession), own(&mut b, loser));
            assert_eq!(a, b);
            assert_eq!(a.concede(loser, concession), Err(MoveError::GameOver));
        }
    }
    let line = WinReason::Line {
        cells: Bitboard::EMPTY,
    };
    assert_eq!(line.concession(), None, "only the moves make a line");
}

#[test]
fn outcomes_name_the_winner() {
    let x_wins = Game::from_moves(Player::X, &[A1, A2, B1, B2, C1]).expect("legal");
    assert_eq!(x_wins.outcome().and_then(|o| o.winner()), Some(Player::X));
    let o_wins = Game::from_moves(Player::X, &[A1, A2, B1, B2, C3, C2]).expect("legal");
    assert_eq!(o_wins.outcome().and_then(|o| o.winner()), Some(Player::O));
    let draw = Game::from_moves(Player::X, &[A1, B2, C3, B1, B3, A3, C1, C2, A2]).expect("legal");
    assert_eq!(draw.outcome(), Some(Outcome::Draw));
    assert_eq!(Outcome::Draw.to_string(), "draw");
    assert_eq!(Outcome::Draw.winner(), None);
    assert_eq!(Outcome::Draw.cells(), Bitboard::EMPTY);
    let unfinished = Game::from_moves(Player::X, &[A1]).expect("legal");
    assert_eq!(unfinished.outcome(), None);
}

#[test]
fn the_log_lists_start_moves_and_end() {
    let mut game = Game::with_first(Player::O);
    for sq in [A1, A2, B1, B2, C1] {
        game.play(sq).expect("legal");
    }
    let outcome = game.outcome().expect("O completed the top row");
    assert_eq!(outcome.winner(), Some(Player::O));
    let log = game.log();
    let expected = [
        Event::Start { first: Player::O },
        Event::Move {
            player: Player::O,
            square: A1,
        },
        Event::Move {
            player: Player::X,
            square: A2,
        },
        Event::Move {
            player: Player::O,
            square: B1,
        },
        Event::Move {
            player: Player::X,
            square: B2,
        },
        Event::Move {
            player: Player::O,
            square: C1,
        },
        Event::End { outcome },
    ];
    assert_eq!(log.events(), expected);
    assert_eq!(log.len(), 7);
    assert!(!log.is_empty());

    // Slices are clamped to the log, never a panic.
    assert_eq!(log.slice(0..7), expected);
    assert_eq!(log.slice(0..100), expected);
    assert_eq!(log.slice(5..100), &expected[5..]);
    assert_eq!(log.slice(6..7), &[Event::End { outcome }]);
    assert!(log.slice(7..100).is_empty());
    assert!(log.slice(100..200).is_empty());
    assert!(log.slice(3..3).is_empty());
    #[allow(clippy::reversed_empty_ranges)]
    let backwards = log.slice(5..2);
    assert!(backwards.is_empty());
    assert!(oxo_core::GameLog::default().is_empty());
}

#[test]
fn games_that_o_starts() {
    let mut game = Game::with_first(Player::O);
    assert_eq!(game.first(), Player::O);
    assert_eq!(game.to_move(), Some(Player::O));
    assert_eq!(game.player_of_ply(0), Player::O);
    assert_eq!(game.player_of_ply(1), Player::X);
    assert_eq!(*game.position(), Position::empty(Player::O));

    // The suffix names the side to move when the counts do not.
    let steps = [
        (B2, "....O...."),
        (A1, "X...O.... o"),
        (C3, "X...O...O"),
        (C1, "X.X.O...O o"),
    ];
    assert_eq!(game.position().to_string(), "......... o");
    for (sq, text) in steps {
        game.play(sq).expect("legal");
        assert_eq!(game.position().to_string(), text);
        assert_eq!(text.parse::<Position>(), Ok(*game.position()), "{text}");
    }
    assert_eq!(game.to_move(), Some(Player::O));
    assert_eq!(game.play(B1), Ok(None));
    assert_eq!(
        game.play(B1),
        Err(MoveError::Occupied {
            square: B1,
            by: Player::O
        })
    );
    assert_eq!(game.play(A3), Ok(None));
    let outcome = game.play(B3).expect("legal").expect("O completes column b");
    assert_eq!(outcome.winner(), Some(Player::O));
    assert_eq!(outcome.cells(), [B1, B2, B3].into_iter().collect());
    assert_eq!(game.position().to_string(), "XOX.O.XOO");

    // X completes the top row with as many marks as O: only O-first games
    // reach that, and the notation says so without a suffix.
    let x_wins = Game::from_moves(Player::O, &[A2, A1, B2, B1, A3, C1]).expect("legal");
    assert_eq!(x_wins.outcome().and_then(|o| o.winner()), Some(Player::X));
    assert_eq!(x_wins.position().to_string(), "XXXOO.O..");
    assert_eq!("XXXOO.O..".parse::<Position>(), Ok(*x_wins.position()));

    game.reset();
    assert_eq!(game, Game::with_first(Player::O));
}

#[test]
fn errors_explain_themselves() {
    assert_eq!(
        MoveError::Occupied {
            square: B2,
            by: Player::O
        }
        .to_string(),
        "b2 is already taken (by O)"
    );
    assert_eq!(MoveError::GameOver.to_string(), "the game is over");
    assert_eq!(UndoError::NoMoves.to_string(), "there is no move to undo");
}

#[test]
fn scores_from_outside_never_overflow() {
    // Scores have public fields and travel on the wire: any u32 may arrive.
    let mut scores = oxo_core::Scores {
        x: u32::MAX,
        o: u32::MAX,
        draws: u32::MAX,
    };
    assert_eq!(scores.rounds(), u32::MAX);
    scores.record(Outcome::Draw);
    scores.record(Outcome::Win {
        winner: Player::X,
        reason: WinReason::Forfeit,
    });
    assert_eq!(
        (scores.x, scores.o, scores.draws),
        (u32::MAX, u32::MAX, u32::MAX)
    );
}
