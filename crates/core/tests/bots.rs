//! Bots: perfect play never loses, each level does what it promises, every
//! bot is deterministic for its seed and only plays legal moves; random
//! playouts and the random number generator are fair.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use oxo_core::{
    Bitboard, Bot, BotLevel, ByPlayer, Player, Position, Rng, Square, bot::random_playout,
};

/// Every position reachable from the empty board with X or with O to move,
/// walked with `Position::play`, in notation order.
fn reachable() -> &'static [Position] {
    static ALL: OnceLock<Vec<Position>> = OnceLock::new();
    ALL.get_or_init(|| {
        fn visit(pos: Position, seen: &mut HashSet<Position>) {
            if seen.insert(pos) {
                for child in Square::ALL.into_iter().filter_map(|sq| pos.play(sq).ok()) {
                    visit(child, seen);
                }
            }
        }
        let mut seen = HashSet::new();
        for first in Player::ALL {
            visit(Position::empty(first), &mut seen);
        }
        let mut all: Vec<Position> = seen.into_iter().collect();
        all.sort_by_key(|p| p.to_string());
        all
    })
}

/// The squares where the side to move completes a line, found by playing
/// each square and looking at the result.
fn immediate_wins(pos: &Position) -> Bitboard {
    Square::ALL
        .into_iter()
        .filter(|&sq| {
            pos.play(sq)
                .is_ok_and(|next| next.outcome().and_then(|o| o.winner()) == Some(pos.turn()))
        })
        .collect()
}

/// The free squares where the opponent would complete a line if it were
/// their move.
fn threats(pos: &Position) -> Bitboard {
    let theirs = pos.board().marks(!pos.turn());
    pos.board()
        .empty()
        .into_iter()
        .filter(|&sq| {
            Bitboard::LINES
                .iter()
                .any(|&line| line.contains(sq) && (line & !theirs.with(sq)).is_empty())
        })
        .collect()
}

/// Plays one game from the empty board with `first` to move and returns the
/// winner and the moves.
fn play_game(bots: &mut ByPlayer<Box<dyn Bot>>, first: Player) -> (Option<Player>, Vec<Square>) {
    let mut pos = Position::empty(first);
    let mut moves = Vec::with_capacity(9);
    while pos.outcome().is_none() {
        let sq = bots[pos.turn()]
            .choose(&pos)
            .expect("a move in an unfinished game");
        pos = pos.play(sq).expect("bots play legal moves");
        moves.push(sq);
    }
    (pos.outcome().and_then(|o| o.winner()), moves)
}

/// How often each side won (`None`: drew) in `games` games between `x` and
/// `o`, each started by `first`.
fn results(
    x: Box<dyn Bot>,
    o: Box<dyn Bot>,
    games: u32,
    first: Player,
) -> HashMap<Option<Player>, u32> {
    let mut bots = ByPlayer { x, o };
    let mut counts = HashMap::new();
    for _ in 0..games {
        *counts.entry(play_game(&mut bots, first).0).or_default() += 1;
    }
    counts
}

#[test]
fn perfect_against_perfect_always_draws() {
    let mut games = HashSet::new();
    for seed in 0..1_000u64 {
        let first = if seed % 2 == 0 { Player::X } else { Player::O };
        let mut bots = ByPlayer {
            x: BotLevel::Perfect.bot(2 * seed),
            o: BotLevel::Perfect.bot(2 * seed + 1),
        };
        let (winner, moves) = play_game(&mut bots, first);
        assert_eq!(winner, None, "seed {seed}: {moves:?}");
        assert_eq!(moves.len(), 9);
        games.insert(moves);
    }
    // Perfect play varies among equally good moves.
    assert!(games.len() > 100, "only {} different games", games.len());
}

#[test]
fn perfect_never_loses_to_random() {
    const GAMES: u32 = 100_000;
    for perfect in Player::ALL {
        let (x, o) = if perfect == Player::X {
            (BotLevel::Perfect.bot(1), BotLevel::Random.bot(2))
        } else {
            (BotLevel::Random.bot(3), BotLevel::Perfect.bot(4))
        };
        let counts = results(x, o, GAMES, Player::X);
        let wins = counts.get(&Some(perfect)).copied().unwrap_or(0);
        let losses = counts.get(&Some(!perfect)).copied().unwrap_or(0);
        let draws = counts.get(&None).copied().unwrap_or(0);
        eprintln!("perfect as {perfect}: {wins} wins, {draws} draws, {losses} losses");
        assert_eq!(losses, 0, "perfect as {perfect}");
        assert_eq!(wins + draws, GAMES);
        // Measured with these seeds: 96.7% as X (first), 77.5% as O.
        let threshold = if perfect == Player::X { 0.95 } else { 0.75 };
        assert!(
            f64::from(wins) > threshold * f64::from(GAMES),
            "perfect as {perfect} won only {wins} of {GAMES}"
        );
    }
}

#[test]
fn stronger_levels_score_better_against_random() {
    const GAMES: u32 = 20_000;
    let mut rates = Vec::new();
    for level in BotLevel::ALL {
        let counts = results(level.bot(10), BotLevel::Random.bot(11), GAMES, Player::X);
        let wins = counts.get(&Some(Player::X)).copied().unwrap_or(0);
        let losses = counts.get(&Some(Player::O)).copied().unwrap_or(0);
        eprintln!("{level} as X against random: {wins} wins, {losses} losses");
        rates.push((level, wins, losses));
    }
    for pair in rates.windows(2) {
        let ((weak, weak_wins, weak_losses), (strong, strong_wins, strong_losses)) =
            (pair[0], pair[1]);
        assert!(strong_wins > weak_wins, "{strong} wins less than {weak}");
        assert!(
            strong_losses < weak_losses,
            "{strong} loses more than {weak}"
        );
    }
}

#[test]
fn easy_always_takes_an_immediate_win() {
    let mut checked = 0;
    for seed in 0..8 {
        let mut bot = BotLevel::Easy.bot(seed);
        for pos in reachable() {
            let wins = immediate_wins(pos);
            let choice = bot.choose(pos);
            if !wins.is_empty() {
                let sq = choice.expect("a move");
                assert!(wins.contains(sq), "{pos}: easy played {sq}, wins at {wins}");
                checked += 1;
            }
        }
    }
    assert!(checked > 1_000);
}

#[test]
fn medium_wins_or_blocks_when_it_must() {
    let (mut wins_checked, mut blocks_checked) = (0, 0);
    for seed in 0..8 {
        let mut bot = BotLevel::Medium.bot(seed);
        for pos in reachable() {
            let Some(sq) = bot.choose(pos) else { continue };
            let wins = immediate_wins(pos);
            let threats = threats(pos);
            if !wins.is_empty() {
                assert!(
                    wins.contains(sq),
                    "{pos}: medium played {sq}, wins at {wins}"
                );
                wins_checked += 1;
            } else if !threats.is_empty() {
                assert!(
                    threats.contains(sq),
                    "{pos}: medium played {sq}, must block {threats}"
                );
                blocks_checked += 1;
            }
        }
    }
    assert!(wins_checked > 1_000 && blocks_checked > 1_000);
}

#[test]
fn easy_and_medium_differ_from_perfect() {
    // Easy does not always block; medium sometimes misses the best move.
    let mut easy = BotLevel::Easy.bot(5);
    let easy_misses_a_block = reachable().iter().any(|pos| {
        let threats = threats(pos);
        immediate_wins(pos).is_empty()
            && !threats.is_empty()
            && easy.choose(pos).is_some_and(|sq| !threats.contains(sq))
    });
    assert!(easy_misses_a_block);
    let mut medium = BotLevel::Medium.bot(5);
    let medium_errs = reachable().iter().any(|pos| {
        medium
            .choose(pos)
            .is_some_and(|sq| !oxo_core::solver::table().best_moves(pos).contains(sq))
    });
    assert!(medium_errs);
}

#[test]
fn bots_play_legal_moves_and_stop_when_the_game_is_over() {
    for level in BotLevel::ALL {
        let mut bot = level.bot(99);
        assert_eq!(bot.level(), Some(level));
        for pos in reachable() {
            match bot.choose(pos) {
                Some(sq) => assert!(pos.play(sq).is_ok(), "{level} played {sq} in {pos}"),
                None => assert!(pos.outcome().is_some(), "{level} passed in {pos}"),
            }
            if pos.outcome().is_some() {
                assert_eq!(bot.choose(pos), None, "{level} moved in finished {pos}");
            }
        }
    }
}

#[test]
fn bots_are_deterministic_for_a_seed() {
    let choices = |level: BotLevel, seed: u64| -> Vec<Option<Square>> {
        let mut bot = level.bot(seed);
        reachable().iter().map(|pos| bot.choose(pos)).collect()
    };
    for level in BotLevel::ALL {
        assert_eq!(choices(level, 7), choices(level, 7), "{level}");
        assert_ne!(
            choices(level, 7),
            choices(level, 8),
            "{level} ignores its seed"
        );
    }
}

#[test]
fn bot_levels_parse_and_print() {
    for level in BotLevel::ALL {
        assert_eq!(level.to_string().parse::<BotLevel>(), Ok(level));
        assert_eq!(level.as_str(), level.to_string());
    }
    assert_eq!(" Impossible ".parse::<BotLevel>(), Ok(BotLevel::Perfect));
    assert_eq!("HARD".parse::<BotLevel>(), Ok(BotLevel::Perfect));
    let err = "expert".parse::<BotLevel>().unwrap_err();
    assert!(err.to_string().contains("'expert'"), "{err}");
    // Every name it takes is named when one is refused.
    for name in ["random", "easy", "medium", "perfect", "impossible", "hard"] {
        assert!(err.to_string().contains(name), "{name}: {err}");
    }
}

/// Exact chances of each result when both sides play uniformly at random
/// from the empty board, in units of 1/9!: a game of `n` plies has chance
/// (9 - n)!/9!. Computed from the tree, walked with the rules.
fn random_play_chances() -> (u64, u64, u64) {
    fn walk(pos: Position, weight: u64, acc: &mut (u64, u64, u64)) {
        match pos.outcome() {
            Some(o) => match o.winner() {
                Some(Player::X) => acc.0 += weight,
                Some(Player::O) => acc.1 += weight,
                None => acc.2 += weight,
            },
            None => {
                let moves = u64::from(pos.legal_moves().count());
                for child in Square::ALL.into_iter().filter_map(|sq| pos.play(sq).ok()) {
                    walk(child, weight / moves, acc);
                }
            }
        }
    }
    let mut acc = (0, 0, 0);
    walk(Position::new(), 362_880, &mut acc);
    acc
}

#[test]
fn random_playouts_follow_the_exact_chances() {
    let (x, o, draw) = random_play_chances();
    // The published chances: X 737/1260, O 121/420, draw 8/63.
    assert_eq!((x, o, draw), (212_256, 104_544, 46_080));
    assert_eq!(x * 1260, 737 * 362_880);
    assert_eq!(o * 420, 121 * 362_880);
    assert_eq!(draw * 63, 8 * 362_880);

    const PLAYOUTS: u32 = 200_000;
    let mut rng = Rng::new(2024);
    let mut counts: HashMap<Option<Player>, u32> = HashMap::new();
    for _ in 0..PLAYOUTS {
        *counts
            .entry(random_playout(&Position::new(), &mut rng))
            .or_default() += 1;
    }
    for (result, exact) in [(Some(Player::X), x), (Some(Player::O), o), (None, draw)] {
        let seen = f64::from(counts.get(&result).copied().unwrap_or(0)) / f64::from(PLAYOUTS);
        let expected = exact as f64 / 362_880.0;
        // About five standard deviations.
        assert!(
            (seen - expected).abs() < 0.006,
            "{result:?}: {seen} vs {expected}"
        );
    }
}

#[test]
fn random_playouts_respect_finished_and_forced_positions() {
    let mut forced = 0;
    for (seed, pos) in (0u64..).zip(reachable()) {
        let winner = random_playout(pos, &mut Rng::new(seed));
        assert_eq!(winner, random_playout(pos, &mut Rng::new(seed)), "{pos}");
        if let Some(o) = pos.outcome() {
            // Already over: the result as it stands.
            assert_eq!(winner, o.winner(), "{pos}");
        } else if pos.legal_moves().count() == 1 {
            // One square left: the result of filling it.
            let last = pos.legal_moves().first().expect("one move");
            let end = pos
                .play(last)
                .expect("legal")
                .outcome()
                .expect("full board");
            assert_eq!(winner, end.winner(), "{pos}");
            forced += 1;
        } else if immediate_wins(pos).count() == pos.legal_moves().count() {
            // Every move wins.
            assert_eq!(winner, Some(pos.turn()), "{pos}");
        }
    }
    assert!(forced > 100);
}

#[test]
fn rng_is_seeded_and_uniform() {
    let (mut a, mut b) = (Rng::new(42), Rng::new(42));
    for _ in 0..100 {
        assert_eq!(a.next_u64(), b.next_u64());
    }
    assert_ne!(Rng::new(1).next_u64(), Rng::new(2).next_u64());

    let mut rng = Rng::new(5);
    assert_eq!(rng.pick(Bitboard::EMPTY), None);
    assert_eq!(rng.below(0), 0);
    for _ in 0..1_000 {
        assert!(!rng.chance(0, 4));
        assert!(rng.chance(4, 4));
    }
    // Each square of a set is picked about equally often.
    for set in [
        Bitboard::FULL,
        Bitboard::CORNERS,
        Bitboard::from_bits_truncate(0b100_010_011),
    ] {
        let mut counts = [0u32; 9];
        let draws = 9_000 * set.count();
        for _ in 0..draws {
            let sq = rng.pick(set).expect("a square");
            assert!(set.contains(sq), "{sq} not in {set}");
            counts[sq.index() as usize] += 1;
        }
        for sq in set {
            let share = f64::from(counts[sq.index() as usize]) / f64::from(draws);
            let expected = 1.0 / f64::from(set.count());
            assert!((share - expected).abs() < 0.015, "{sq} of {set}: {share}");
        }
    }
}
