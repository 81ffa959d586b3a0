//! The session's rules without a terminal: seats, moves, refusals, rounds,
//! starters, undo against a bot, restarts, hints and carried scores.

use oxo_core::Square::*;

use super::*;

fn config(x: &str, o: &str, first: Starter) -> Config {
    Config {
        first,
        ..Config::seated(x, o)
    }
}

fn two_people() -> Session {
    Session::new(&config("A", "B", Starter::Alternate))
}

fn play_all(session: &mut Session, squares: &[Square]) {
    for &sq in squares {
        session.play(sq).expect("legal move");
    }
}

#[test]
fn set_up_from_config() {
    let s = Session::new(&config("Alice", "bot:perfect", Starter::O));
    assert_eq!(s.name(Player::X), "Alice");
    assert_eq!(s.label(Player::O), "Impossible (O)");
    assert!(s.is_bot(Player::O) && !s.is_bot(Player::X));
    assert_eq!(s.round(), 1);
    assert_eq!(s.game().first(), Player::O);
    assert_eq!(s.bot_to_move(), Some(Player::O));
    assert_eq!(s.human_to_move(), None);
    assert_eq!(*s.scores(), Scores::default());
}

#[test]
fn moves_and_a_win() {
    let mut s = two_people();
    let played = s.play(A1).expect("free");
    assert_eq!(
        played,
        Played {
            player: Player::X,
            square: A1,
            outcome: None
        }
    );
    play_all(&mut s, &[B1, A2, B2]);
    let last = s.play(A3).expect("free");
    assert_eq!(last.outcome.and_then(|o| o.winner()), Some(Player::X));
    assert_eq!(
        last.outcome.map(|o| o.cells().to_string()).as_deref(),
        Some("a1 a2 a3")
    );
    assert_eq!(
        *s.scores(),
        Scores {
            x: 1,
            o: 0,
            draws: 0
        }
    );
    assert_eq!(s.round(), 1);
}

#[test]
fn refusals_change_nothing() {
    let mut s = two_people();
    s.play(B2).expect("free");
    let before = s.game().clone();
    assert_eq!(
        s.play(B2),
        Err(Refusal::Occupied {
            square: B2,
            by: Player::X
        })
    );
    assert_eq!(s.next_round(), Err(Refusal::NotOver));
    assert_eq!(s.game(), &before);
    play_all(&mut s, &[A1, C1, A3, A2, C2, B1, B3, C3]);
    assert_eq!(s.game().outcome(), Some(Outcome::Draw));
    let over = s.game().clone();
    assert_eq!(s.play(A1), Err(Refusal::GameOver));
    assert_eq!(s.undo(), Err(Refusal::GameOver));
    assert_eq!(s.game(), &over);
    assert_eq!(s.scores().draws, 1);
}

#[test]
fn rounds_alternate_and_scores_add_up() {
    let mut s = two_people();
    play_all(&mut s, &[A1, B1, A2, B2, A3]);
    s.next_round().expect("over");
    assert_eq!(s.round(), 2);
    assert_eq!(s.game().first(), Player::O);
    assert!(s.game().moves().is_empty());
    // O starts and wins along the middle row.
    play_all(&mut s, &[A2, A1, B2, B1, C2]);
    assert_eq!(s.game().outcome().and_then(|o| o.winner()), Some(Player::O));
    assert_eq!(
        *s.scores(),
        Scores {
            x: 1,
            o: 1,
            draws: 0
        }
    );
    s.next_round().expect("over");
    assert_eq!(s.game().first(), Player::X);
    assert_eq!(s.round(), 3);
}

#[test]
fn fixed_and_tossed_starters() {
    let mut s = Session::new(&config("A", "B", Starter::X));
    play_all(&mut s, &[A1, B1, A2, B2, A3]);
    s.next_round().expect("over");
    assert_eq!(s.game().first(), Player::X);
    assert!(!s.tossed());

    let mut starters = Vec::new();
    for seed in 0..32 {
        let s = Session::new(&Config {
            seed: Some(seed),
            ..config("A", "B", Starter::Toss)
        });
        assert!(s.tossed());
        starters.push(s.game().first());
    }
    assert!(starters.contains(&Player::X) && starters.contains(&Player::O));
}

#[test]
fn undo_between_people_takes_one_move() {
    let mut s = two_people();
    assert_eq!(s.undo(), Err(Refusal::NothingToUndo));
    play_all(&mut s, &[A1, B2]);
    assert_eq!(s.undo(), Ok(vec![(Player::O, B2)]));
    assert_eq!(s.game().moves(), &[A1]);
    assert_eq!(s.human_to_move(), Some(Player::O));
}

#[test]
fn undo_against_a_bot_takes_the_bot_move_too() {
    let mut s = Session::new(&config("A", "bot:perfect", Starter::O));
    // The bot starts: nothing of ours to undo.
    let opening = s.bot_move().expect("bot starts");
    assert_eq!(opening.player, Player::O);
    assert_eq!(s.undo(), Err(Refusal::NothingToUndo));
    let mine = s
        .game()
        .position()
        .legal_moves()
        .first()
        .expect("free cell");
    s.play(mine).expect("free");
    let reply = s.bot_move().expect("bot replies");
    assert_eq!(
        s.undo(),
        Ok(vec![(Player::O, reply.square), (Player::X, mine)])
    );
    assert_eq!(s.game().moves(), &[opening.square]);
    assert_eq!(s.human_to_move(), Some(Player::X));
}

#[test]
fn people_cannot_move_for_the_bot() {
    let mut s = Session::new(&config("bot:random", "B", Starter::X));
    assert_eq!(s.play(B2), Err(Refusal::BotToMove));
    assert!(s.bot_move().is_some());
    assert_eq!(s.bot_move(), None);
}

#[test]
fn restart_replays_a_round_in_play_and_starts_the_next_after_one_is_over() {
    let mut s = two_people();
    play_all(&mut s, &[A1, B1, A2, B2, A3]);
    s.next_round().expect("over");
    s.play(C3).expect("free");
    // During a round: the same round again, with the same starter.
    assert_eq!(s.restart(), Restart::Replayed);
    assert!(s.game().moves().is_empty());
    assert_eq!(s.game().first(), Player::O);
    assert_eq!(s.round(), 2);
    assert_eq!(s.scores().x, 1);
    // After a finished round: the next round, under the starter rule
    // (alternate: X after O), and the result stays counted.
    play_all(&mut s, &[A2, A1, B2, B1, C2]);
    assert_eq!(s.restart(), Restart::NextRound);
    assert_eq!(s.round(), 3);
    assert_eq!(
        *s.scores(),
        Scores {
            x: 1,
            o: 1,
            draws: 0
        }
    );
    assert_eq!(s.game().first(), Player::X);
}

#[test]
fn restart_after_a_round_tosses_a_new_coin() {
    let mut s = Session::new(&config("A", "B", Starter::Toss));
    let mut firsts = std::collections::HashSet::new();
    for _ in 0..20 {
        s.play(B2).expect("free");
        s.restart();
        assert!(
            s.game().moves().is_empty(),
            "a restart mid-round replays it"
        );
        play_all(&mut s, &[A1, B1, A2, B2, A3]);
        assert_eq!(s.restart(), Restart::NextRound);
        assert!(s.tossed());
        firsts.insert(s.game().first());
    }
    assert_eq!(firsts.len(), 2, "both sides start some rounds");
}

#[test]
fn perfect_bots_draw_every_round() {
    let mut s = Session::new(&config("bot:perfect", "bot:perfect", Starter::Toss));
    assert!(s.bots_only());
    for _ in 0..10 {
        while s.bot_move().is_some() {}
        assert_eq!(s.game().outcome(), Some(Outcome::Draw));
        s.next_round().expect("over");
    }
    assert_eq!(s.scores().draws, 10);
}

#[test]
fn hints_rank_the_free_cells() {
    let mut s = two_people();
    play_all(&mut s, &[A1, B2, C3]);
    let hints = s.hints();
    assert_eq!(hints.len(), 6);
    assert!(hints.windows(2).all(|w| w[0].value >= w[1].value));
    // O must not take a corner: that loses.
    assert!(
        hints
            .iter()
            .any(|h| h.square == A3 && h.value.kind() == "loss")
    );
    assert!(
        hints
            .iter()
            .any(|h| h.square == B1 && h.value.kind() == "draw")
    );
}

#[test]
fn scores_carry_over_for_the_same_players() {
    let mut s = two_people();
    play_all(&mut s, &[A1, B1, A2, B2, A3]);
    let mut same = two_people();
    same.carry_scores_from(&s);
    assert_eq!(same.scores().x, 1);
    let mut other = Session::new(&config("A", "bot:easy", Starter::X));
    other.carry_scores_from(&s);
    assert_eq!(other.scores().rounds(), 0);
}
