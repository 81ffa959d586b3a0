//! Enumerating the whole game tree: node counts per depth and game counts by
//! result and length.
//!
//! This walks every move order without memoisation (549,946 nodes from the
//! empty board). It counts the children of a node in bulk: moves that win at
//! once are leaves found with one table lookup, and the last free square of a
//! board is a leaf as well, so only inner nodes are visited. The last three
//! plies, most of the tree, are counted with loops rather than recursive
//! calls.

use crate::{Bitboard, ByPlayer, Player, Position};

/// Counts from enumerating every game from a position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TreeStats {
    /// `nodes[d]`: positions at depth `d` below the start (the start is depth 0).
    pub nodes: [u64; 10],
    /// `wins[p][d]`: finished games won by `p` at depth `d`.
    pub wins: ByPlayer<[u64; 10]>,
    /// `draws[d]`: finished drawn games at depth `d`.
    pub draws: [u64; 10],
}

impl TreeStats {
    /// All nodes, the start included.
    #[must_use]
    pub fn total_nodes(&self) -> u64 {
        self.nodes.iter().sum()
    }

    /// Finished games won by `player`.
    #[must_use]
    pub fn total_wins(&self, player: Player) -> u64 {
        self.wins[player].iter().sum()
    }

    /// Finished drawn games.
    #[must_use]
    pub fn total_draws(&self) -> u64 {
        self.draws.iter().sum()
    }

    /// All finished games (the leaves of the tree).
    #[must_use]
    pub fn total_games(&self) -> u64 {
        self.total_wins(Player::X) + self.total_wins(Player::O) + self.total_draws()
    }
}

/// Enumerates every game from `position`.
///
/// ```
/// use oxo_core::{perft, Player, Position};
///
/// let stats = perft::enumerate(&Position::new());
/// assert_eq!(stats.total_nodes(), 549_946);
/// assert_eq!(stats.total_games(), 255_168);
/// assert_eq!(stats.wins[Player::X][5], 1_440);
/// ```
#[must_use]
pub fn enumerate(position: &Position) -> TreeStats {
    let mut stats = TreeStats::default();
    stats.nodes[0] = 1;
    match position.outcome() {
        Some(o) => match o.winner() {
            Some(p) => stats.wins[p][0] = 1,
            None => stats.draws[0] = 1,
        },
        None => {
            let (mine, theirs) = position.mine_theirs();
            walk(mine, theirs, position.turn(), 0, &mut stats);
        }
    }
    stats
}

/// Visits an unfinished node at `depth` where `mover` has `mine` and the
/// other side `theirs`, counting its subtree.
fn walk(mine: Bitboard, theirs: Bitboard, mover: Player, depth: usize, s: &mut TreeStats) {
    let free = (!(mine | theirs)).count();
    for sq in count_children(mine, theirs, mover, depth, s) {
        if free > 4 {
            walk(theirs, mine.with(sq), !mover, depth + 1, s);
        } else {
            finish(theirs, mine.with(sq), !mover, depth + 1, s);
        }
    }
}

/// Counts the subtree of an unfinished node with at most three free squares
/// with nested loops: a call per node would cost more than its counting.
#[inline]
fn finish(mine: Bitboard, theirs: Bitboard, mover: Player, depth: usize, s: &mut TreeStats) {
    for sq in count_children(mine, theirs, mover, depth, s) {
        let (mine, theirs) = (theirs, mine.with(sq));
        for sq in count_children(mine, theirs, !mover, depth + 1, s) {
            // One free square left: its child is a leaf.
            count_children(theirs, mine.with(sq), mover, depth + 2, s).discard();
        }
    }
}

/// Counts the children of an unfinished node at `depth` where `mover` has
/// `mine` and the other side `theirs`, and returns the moves that lead to
/// unfinished children.
#[inline]
fn count_children(
    mine: Bitboard,
    theirs: Bitboard,
    mover: Player,
    depth: usize,
    s: &mut TreeStats,
) -> Bitboard {
    let empty = !(mine | theirs);
    let wins = mine.winning_moves(empty);
    let child = depth + 1;
    s.nodes[child] += u64::from(empty.count());
    s.wins[mover][child] += u64::from(wins.count());
    let rest = empty & !wins;
    if empty.count() == 1 {
        s.draws[child] += u64::from(rest.count());
        return Bitboard::EMPTY;
    }
    rest
}

/// Counts only the nodes of the tree below `position` (the start included),
/// the fastest enumeration; [`enumerate`] gives the details.
#[must_use]
pub fn count_nodes(position: &Position) -> u64 {
    if position.is_over() {
        return 1;
    }
    let (mine, theirs) = position.mine_theirs();
    1 + count_rec(mine, theirs)
}

fn count_rec(mine: Bitboard, theirs: Bitboard) -> u64 {
    let empty = !(mine | theirs);
    let rest = empty & !mine.winning_moves(empty);
    match empty.count() {
        // The last free square is a leaf.
        1 => 1,
        // Each move that does not win leaves one square, a leaf below it.
        2 => 2 + u64::from(rest.count()),
        n => rest.into_iter().fold(u64::from(n), |acc, sq| {
            acc + count_rec(theirs, mine.with(sq))
        }),
    }
}
