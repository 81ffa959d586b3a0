//! The whole game tree, walked move by move with the engine's own rules
//! (`Position::play`, `Position::outcome`, `Game::play` and `Game::undo`) and
//! checked against published facts about tic-tac-toe (`tests/ttt.perft`).
//!
//! The optimised `perft` module counts the same tree in bulk; here it is
//! checked against that plain walk from every reachable position.

use std::collections::{HashMap, HashSet};
use std::sync::OnceLock;

use oxo_core::{
    Bitboard, Board, ByPlayer, Game, MoveError, Player, Position, Square, Symmetry, canonical_key,
    perft::{self, TreeStats},
};

/// Published facts: rows of ten numbers (one per depth) and single numbers.
struct Facts(HashMap<String, Vec<u64>>);

impl Facts {
    fn load() -> Facts {
        let mut map = HashMap::new();
        for line in include_str!("ttt.perft").lines() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut words = line.split_whitespace();
            let name = words.next().expect("a name").to_owned();
            let numbers: Vec<u64> = words
                .map(|w| w.parse().unwrap_or_else(|_| panic!("bad number {w:?}")))
                .collect();
            assert!(
                numbers.len() == 1 || numbers.len() == 10,
                "{name}: {numbers:?}"
            );
            assert!(map.insert(name.clone(), numbers).is_none(), "{name} twice");
        }
        Facts(map)
    }

    fn row(&self, name: &str) -> [u64; 10] {
        self.0[name].as_slice().try_into().expect("a row of ten")
    }

    fn fact(&self, name: &str) -> u64 {
        match self.0[name].as_slice() {
            [n] => *n,
            other => panic!("{name} is a row: {other:?}"),
        }
    }

    /// The tree from the empty board with `first` to move, as the facts say.
    fn tree(&self, first: Player) -> TreeStats {
        let (first_wins, second_wins) = (self.row("first-wins"), self.row("second-wins"));
        TreeStats {
            nodes: self.row("nodes"),
            wins: ByPlayer::new_with(|p| if p == first { first_wins } else { second_wins }),
            draws: self.row("draws"),
        }
    }
}

/// Records a finished game of `depth` plies.
fn record_leaf(stats: &mut TreeStats, winner: Option<Player>, depth: usize) {
    match winner {
        Some(p) => stats.wins[p][depth] += 1,
        None => stats.draws[depth] += 1,
    }
}

/// Walks every game from `pos`, trying all nine squares with
/// `Position::play` at every node.
fn walk(pos: Position, depth: usize, stats: &mut TreeStats) {
    stats.nodes[depth] += 1;
    if let Some(outcome) = pos.outcome() {
        record_leaf(stats, outcome.winner(), depth);
        for sq in Square::ALL {
            assert_eq!(pos.play(sq), Err(MoveError::GameOver), "{pos} {sq}");
        }
        return;
    }
    for sq in Square::ALL {
        match pos.play(sq) {
            Ok(child) => walk(child, depth + 1, stats),
            Err(MoveError::Occupied { square, by }) => {
                assert_eq!(square, sq);
                assert_eq!(pos.board().get(sq), Some(by), "{pos} {sq}");
            }
            Err(e) => panic!("{pos}: {sq} refused with {e}"),
        }
    }
}

/// The plain walk from the empty board with `first` to move, done once per
/// test binary.
fn walked(first: Player) -> TreeStats {
    static WALKS: OnceLock<ByPlayer<TreeStats>> = OnceLock::new();
    let walks = WALKS.get_or_init(|| {
        ByPlayer::new_with(|first| {
            let mut stats = TreeStats::default();
            walk(Position::empty(first), 0, &mut stats);
            stats
        })
    });
    walks[first]
}

/// Walks every game with `Game::play`, taking each move back with
/// `Game::undo` and checking that the game is exactly as before.
fn walk_game(game: &mut Game, stats: &mut TreeStats) {
    let depth = game.moves().len();
    stats.nodes[depth] += 1;
    if let Some(outcome) = game.outcome() {
        record_leaf(stats, outcome.winner(), depth);
        return;
    }
    let before = game.clone();
    for sq in Square::ALL {
        match game.play(sq) {
            Ok(outcome) => {
                assert_eq!(outcome, game.position().outcome());
                walk_game(game, stats);
                assert_eq!(game.undo(), Ok(sq));
            }
            Err(e) => assert_eq!(Err(e), before.position().play(sq)),
        }
        assert_eq!(*game, before);
    }
}

/// The tree below every reachable position, computed from the children with
/// `Position::play`; the keys are exactly the reachable positions.
fn subtree(pos: Position, memo: &mut HashMap<Position, TreeStats>) -> TreeStats {
    if let Some(stats) = memo.get(&pos) {
        return *stats;
    }
    let mut stats = TreeStats::default();
    stats.nodes[0] = 1;
    match pos.outcome() {
        Some(outcome) => record_leaf(&mut stats, outcome.winner(), 0),
        None => {
            for child in Square::ALL.into_iter().filter_map(|sq| pos.play(sq).ok()) {
                let below = subtree(child, memo);
                for d in 0..9 {
                    stats.nodes[d + 1] += below.nodes[d];
                    stats.draws[d + 1] += below.draws[d];
                    for p in Player::ALL {
                        stats.wins[p][d + 1] += below.wins[p][d];
                    }
                }
            }
        }
    }
    memo.insert(pos, stats);
    stats
}

/// Every position reachable from the empty board with `first` to move, with
/// its tree, computed once per test binary.
fn reachable(first: Player) -> &'static HashMap<Position, TreeStats> {
    static REACHABLE: OnceLock<ByPlayer<HashMap<Position, TreeStats>>> = OnceLock::new();
    let all = REACHABLE.get_or_init(|| {
        ByPlayer::new_with(|first| {
            let mut memo = HashMap::new();
            subtree(Position::empty(first), &mut memo);
            memo
        })
    });
    &all[first]
}

#[test]
fn facts_add_up() {
    let facts = Facts::load();
    let tree = facts.tree(Player::X);
    assert_eq!(tree.total_nodes(), facts.fact("tree-nodes"));
    assert_eq!(tree.total_games(), facts.fact("games"));
    assert_eq!(tree.total_wins(Player::X), facts.fact("first-wins-total"));
    assert_eq!(tree.total_wins(Player::O), facts.fact("second-wins-total"));
    assert_eq!(tree.total_draws(), facts.fact("draws-total"));
    // Every unfinished node at depth d has 9 - d children.
    for d in 0..9 {
        let finished = tree.wins.x[d] + tree.wins.o[d] + tree.draws[d];
        assert_eq!(
            tree.nodes[d + 1],
            (tree.nodes[d] - finished) * (9 - d as u64)
        );
    }
}

#[test]
fn every_game_from_the_empty_board() {
    let facts = Facts::load();
    let stats = walked(Player::X);
    assert_eq!(stats, facts.tree(Player::X));
    assert_eq!(
        stats.nodes,
        [1, 9, 72, 504, 3024, 15120, 54720, 148176, 200448, 127872]
    );
    assert_eq!(stats.total_nodes(), 549_946);
    assert_eq!(stats.total_games(), 255_168);
    assert_eq!(stats.total_wins(Player::X), 131_184);
    assert_eq!(stats.total_wins(Player::O), 77_904);
    assert_eq!(stats.total_draws(), 46_080);
    assert_eq!(stats.wins.x[5], 1_440);
    assert_eq!(stats.wins.o[6], 5_328);
    assert_eq!(stats.wins.x[7], 47_952);
    assert_eq!(stats.wins.o[8], 72_576);
    assert_eq!(stats.wins.x[9], 81_792);
    assert_eq!(stats.draws[9], 46_080);
}

#[test]
fn every_game_with_o_first_mirrors_x_first() {
    let facts = Facts::load();
    assert_eq!(walked(Player::O), facts.tree(Player::O));
}

#[test]
fn game_play_and_undo_walk_the_same_tree() {
    let facts = Facts::load();
    for first in Player::ALL {
        let mut stats = TreeStats::default();
        let mut game = Game::with_first(first);
        walk_game(&mut game, &mut stats);
        assert_eq!(stats, facts.tree(first), "{first} first");
        assert_eq!(game, Game::with_first(first));
    }
}

#[test]
fn perft_agrees_with_the_walk_from_the_empty_board() {
    for first in Player::ALL {
        let start = Position::empty(first);
        let walked = walked(first);
        assert_eq!(perft::enumerate(&start), walked, "{first} first");
        assert_eq!(perft::count_nodes(&start), walked.total_nodes());
    }
}

#[test]
fn perft_agrees_with_the_walk_from_every_reachable_position() {
    for first in Player::ALL {
        for (pos, stats) in reachable(first) {
            let stats = *stats;
            assert_eq!(perft::enumerate(pos), stats, "{pos}");
            assert_eq!(perft::count_nodes(pos), stats.total_nodes(), "{pos}");
        }
    }
}

#[test]
fn reachable_positions() {
    let facts = Facts::load();
    for first in Player::ALL {
        let positions = reachable(first);
        assert_eq!(positions.len() as u64, facts.fact("positions"));
        assert_eq!(positions.len(), 5_478);
        let terminal: Vec<Position> = positions
            .keys()
            .filter(|p| p.outcome().is_some())
            .copied()
            .collect();
        assert_eq!(terminal.len() as u64, facts.fact("terminal-positions"));
        assert_eq!(terminal.len(), 958);
        let count = |winner: Option<Player>| {
            terminal
                .iter()
                .filter(|p| p.outcome().and_then(|o| o.winner()) == winner)
                .count() as u64
        };
        assert_eq!(count(Some(first)), facts.fact("terminal-first-wins"));
        assert_eq!(count(Some(!first)), facts.fact("terminal-second-wins"));
        assert_eq!(count(None), facts.fact("terminal-draws"));
    }
}

#[test]
fn positions_agree_with_the_rules_on_moves() {
    for first in Player::ALL {
        for pos in reachable(first).keys().copied() {
            let playable: Bitboard = Square::ALL
                .into_iter()
                .filter(|&sq| pos.play(sq).is_ok())
                .collect();
            assert_eq!(pos.legal_moves(), playable, "{pos}");
            assert_eq!(pos.is_over(), pos.outcome().is_some(), "{pos}");
            assert_eq!(pos.ply(), pos.board().occupied().count());
            let marks = |p: Player| pos.board().marks(p).count();
            let expected_turn = if marks(first) == marks(!first) {
                first
            } else {
                !first
            };
            assert_eq!(pos.turn(), expected_turn, "{pos}");
        }
    }
}

/// The eight symmetries permute the squares, map lines to lines, are all
/// different, and compose within the set: the symmetry group of the square.
#[test]
fn symmetries_are_the_eight_symmetries_of_the_square() {
    let perm = |s: Symmetry| Square::ALL.map(|sq| s.apply(sq));
    let perms: HashSet<[Square; 9]> = Symmetry::ALL.into_iter().map(perm).collect();
    assert_eq!(perms.len(), 8);
    for s in Symmetry::ALL {
        let image: HashSet<Square> = perm(s).into_iter().collect();
        assert_eq!(image.len(), 9, "{s:?} is not a permutation");
        assert_eq!(s.apply(Square::B2), Square::B2);
        for line in Bitboard::LINES {
            let mapped = s.apply_bitboard(line);
            assert!(Bitboard::LINES.contains(&mapped), "{s:?} {line}");
        }
        for t in Symmetry::ALL {
            let composed = Square::ALL.map(|sq| t.apply(s.apply(sq)));
            assert!(perms.contains(&composed), "{s:?} then {t:?}");
        }
    }
    assert_eq!(perm(Symmetry::Identity), Square::ALL);
}

#[test]
fn reachable_positions_up_to_symmetry() {
    let facts = Facts::load();
    for first in Player::ALL {
        let positions: HashSet<Position> = reachable(first).keys().copied().collect();
        let boards: HashSet<Board> = positions.iter().map(|p| *p.board()).collect();
        let mut classes: HashMap<(u16, u16), HashSet<Board>> = HashMap::new();
        for pos in &positions {
            let images: HashSet<Board> = Symmetry::ALL
                .into_iter()
                .map(|s| s.apply_board(pos.board()))
                .collect();
            for image in &images {
                assert!(boards.contains(image), "{pos}: image not reachable");
                assert_eq!(canonical_key(image), canonical_key(pos.board()));
            }
            let class = classes.entry(canonical_key(pos.board())).or_default();
            class.insert(*pos.board());
            assert!(images.is_subset(class) || class.is_subset(&images));
        }
        // The classes are the orbits: they partition the positions.
        let total: usize = classes.values().map(HashSet::len).sum();
        assert_eq!(total, positions.len());
        assert_eq!(classes.len() as u64, facts.fact("positions-up-to-symmetry"));
        assert_eq!(classes.len(), 765);

        let terminal: HashMap<(u16, u16), Option<Player>> = positions
            .iter()
            .filter_map(|p| p.outcome().map(|o| (canonical_key(p.board()), o.winner())))
            .collect();
        assert_eq!(terminal.len() as u64, facts.fact("terminal-up-to-symmetry"));
        assert_eq!(terminal.len(), 138);
        let count = |w: Option<Player>| terminal.values().filter(|&&x| x == w).count() as u64;
        assert_eq!(
            count(Some(first)),
            facts.fact("terminal-first-wins-up-to-symmetry")
        );
        assert_eq!(
            count(Some(!first)),
            facts.fact("terminal-second-wins-up-to-symmetry")
        );
        assert_eq!(count(None), facts.fact("terminal-draws-up-to-symmetry"));
    }
}

/// Games that O starts reach the same positions as games that X starts,
/// with the marks swapped.
#[test]
fn o_first_positions_are_x_first_positions_swapped() {
    let x_first: HashSet<Position> = reachable(Player::X).keys().copied().collect();
    let o_first: HashSet<Position> = reachable(Player::O).keys().copied().collect();
    assert!(x_first.is_disjoint(&o_first));
    for pos in &o_first {
        let swapped = Position::from_board(pos.board().swapped(), Some(!pos.turn()))
            .expect("a swapped reachable position is reachable");
        assert!(x_first.contains(&swapped), "{pos}");
    }
}

#[test]
fn notation_round_trips_every_reachable_position() {
    for first in Player::ALL {
        for pos in reachable(first).keys().copied() {
            let text = pos.to_string();
            assert_eq!(text.parse::<Position>(), Ok(pos), "{text}");
            if first == Player::X {
                assert_eq!(text.len(), 9, "X-first positions need no suffix: {text}");
            }
        }
    }
}

/// Parsing accepts a board and side to move exactly when some game (X or O
/// first) reaches it: all 3^9 boards, with no suffix, ` x` and ` o`.
#[test]
fn notation_accepts_exactly_the_reachable_positions() {
    let mut turns: HashMap<Board, Vec<Player>> = HashMap::new();
    for first in Player::ALL {
        for pos in reachable(first).keys() {
            turns.entry(*pos.board()).or_default().push(pos.turn());
        }
    }
    let mut accepted = 0;
    for code in 0..3u32.pow(9) {
        let cells: String = (0..9)
            .map(|i| ['.', 'X', 'O'][(code / 3u32.pow(i) % 3) as usize])
            .collect();
        let board = board_of(&cells);
        let reachable_turns = turns.get(&board).map_or(&[][..], Vec::as_slice);
        match cells.parse::<Position>() {
            Ok(pos) => {
                accepted += 1;
                assert_eq!(*pos.board(), board, "{cells}");
                assert!(reachable_turns.contains(&pos.turn()), "{cells}");
                assert_eq!(pos.to_string(), cells, "no suffix for the implied turn");
            }
            Err(e) => assert!(reachable_turns.is_empty(), "{cells} refused: {e}"),
        }
        for (suffix, turn) in [(" x", Player::X), (" o", Player::O)] {
            let text = format!("{cells}{suffix}");
            match text.parse::<Position>() {
                Ok(pos) => {
                    assert!(reachable_turns.contains(&turn), "{text} accepted");
                    assert_eq!((*pos.board(), pos.turn()), (board, turn), "{text}");
                }
                Err(e) => assert!(!reachable_turns.contains(&turn), "{text} refused: {e}"),
            }
        }
    }
    assert_eq!(accepted, turns.len());
}

/// The board written in `cells` (nine of `.`, `X`, `O`).
fn board_of(cells: &str) -> Board {
    let mut board = Board::new();
    for (sq, ch) in Square::ALL.into_iter().zip(cells.chars()) {
        let mark = match ch {
            'X' => Some(Player::X),
            'O' => Some(Player::O),
            _ => None,
        };
        board.set(sq, mark);
    }
    board
}
