//! Perfect play: the game-theoretic value of every reachable position.
//!
//! The value of a position depends only on the marks of the side to move
//! ("mine") and of the other side ("theirs"), so one table covers games that X
//! starts and games that O starts. The table is indexed by the base-3 number
//! of the board (mine = 1, theirs = 2), 3^9 = 19,683 entries of one byte, and
//! filled on first use by a memoised negamax over the 5,478 reachable
//! positions; that takes well under a millisecond (see `benches/engine.rs`),
//! so there is no need to bake it in at compile time.
//!
//! Scores are stored as one signed byte: `10 - n` for a win in `n` plies,
//! `-(10 - n)` for a loss in `n`, and `0` for a draw (a drawn game always
//! fills the board, so its distance is the number of free squares).

use core::cmp::Ordering;
use core::fmt;
use std::sync::OnceLock;

use crate::{Bitboard, Player, Position, Square};

/// The value of a position for the side to move under perfect play, with the
/// distance in plies to the end of the game.
///
/// Ordered from worst to best for the side to move: a longer loss is better
/// than a shorter one, a shorter win better than a longer one. Draws of any
/// length are equally good, but the order still puts the shorter first, so
/// that it agrees with `==` (as [`Ord`] requires, and sets and sorting rely
/// on).
///
/// ```
/// use oxo_core::{solver, Position, Value};
///
/// assert_eq!(solver::value(&Position::new()), Value::Draw(9));
/// let pos = "XX.OO....".parse::<Position>()?; // X to move, wins at c1
/// assert_eq!(solver::value(&pos), Value::Win(1));
/// assert!(Value::Win(1) > Value::Win(3) && Value::Loss(4) > Value::Loss(2));
/// # Ok::<_, oxo_core::ParsePositionError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins in this many plies (counting its own next move).
    Win(u8),
    /// A draw; the board fills in this many plies.
    Draw(u8),
    /// The side to move loses in this many plies (0: it has already lost).
    Loss(u8),
}

impl Value {
    fn from_score(score: i8, empty: u32) -> Value {
        let dist = |s: i8| 10u8.saturating_sub(s.unsigned_abs());
        match score.cmp(&0) {
            Ordering::Greater => Value::Win(dist(score)),
            Ordering::Less => Value::Loss(dist(score)),
            Ordering::Equal => {
                Value::Draw(u8::try_from(empty).expect("a board has at most nine empty squares"))
            }
        }
    }

    /// The plies until the game ends under perfect play.
    #[must_use]
    pub const fn plies(self) -> u8 {
        match self {
            Value::Win(n) | Value::Draw(n) | Value::Loss(n) => n,
        }
    }

    /// `"win"`, `"draw"` or `"loss"`.
    #[must_use]
    pub const fn kind(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Draw(_) => "draw",
            Value::Loss(_) => "loss",
        }
    }

    fn rank(self) -> i16 {
        match self {
            Value::Win(n) => 100 - i16::from(n),
            Value::Draw(_) => 0,
            Value::Loss(n) => i16::from(n) - 100,
        }
    }

    /// Describes the value for `player`, the side to move, naming the
    /// winner either way: `X wins in 3`, `draw`, and for a loss the
    /// opponent's win (`X has won` once the game is over, `Loss(0)`).
    ///
    /// ```
    /// use oxo_core::{Player, Value};
    ///
    /// assert_eq!(Value::Win(3).describe(Player::X), "X wins in 3");
    /// assert_eq!(Value::Loss(2).describe(Player::O), "X wins in 2");
    /// assert_eq!(Value::Loss(0).describe(Player::O), "X has won");
    /// assert_eq!(Value::Draw(4).describe(Player::O), "draw");
    /// ```
    #[must_use]
    pub fn describe(self, player: Player) -> String {
        match self {
            Value::Win(n) => format!("{player} wins in {n}"),
            Value::Draw(_) => "draw".to_owned(),
            Value::Loss(0) => format!("{} has won", !player),
            Value::Loss(n) => format!("{} wins in {n}", !player),
        }
    }
}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Value) -> Ordering {
        // Equal ranks differ only for draws; their length breaks the tie.
        self.rank()
            .cmp(&other.rank())
            .then_with(|| self.plies().cmp(&other.plies()))
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Win(n) => write!(f, "win in {n}"),
            Value::Draw(_) => f.write_str("draw"),
            Value::Loss(0) => f.write_str("lost"),
            Value::Loss(n) => write!(f, "loss in {n}"),
        }
    }
}

/// A legal move and its value for the player making it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MoveValue {
    /// The move.
    pub square: Square,
    /// Its value for the mover, counting plies from before the move.
    pub value: Value,
}

const UNKNOWN: i8 = i8::MIN;
const TABLE_SIZE: usize = 19_683;

/// `BASE3[b]`: the bits of `b` read as base-3 digits.
const BASE3: [u16; 512] = {
    let mut t = [0u16; 512];
    let mut b = 0;
    while b < 512 {
        let mut acc = 0u16;
        let mut pow = 1u16;
        let mut i = 0;
        while i < 9 {
            if b & (1 << i) != 0 {
                acc += pow;
            }
            pow *= 3;
            i += 1;
        }
        t[b] = acc;
        b += 1;
    }
    t
};

fn index(mine: Bitboard, theirs: Bitboard) -> usize {
    BASE3[mine.bits() as usize] as usize + 2 * BASE3[theirs.bits() as usize] as usize
}

/// The score for the mover of a move whose resulting position scores `child`
/// for the opponent: negate, and move one ply further from the end.
fn back_up(child: i8) -> i8 {
    let v = -child;
    v - v.signum()
}

/// The solved table of every reachable position.
#[derive(Clone)]
pub struct Table {
    scores: Box<[i8; TABLE_SIZE]>,
}

impl fmt::Debug for Table {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Table")
            .field("positions", &self.len())
            .finish()
    }
}

impl Table {
    /// Solves every position reachable from the empty board.
    #[must_use]
    pub fn solve() -> Table {
        let mut scores = Box::new([UNKNOWN; TABLE_SIZE]);
        solve_rec(Bitboard::EMPTY, Bitboard::EMPTY, &mut scores);
        Table { scores }
    }

    /// The number of positions in the table (5,478).
    #[must_use]
    pub fn len(&self) -> usize {
        self.scores.iter().filter(|&&s| s != UNKNOWN).count()
    }

    /// Whether the table is empty (never, once solved).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn score(&self, mine: Bitboard, theirs: Bitboard) -> i8 {
        self.scores[index(mine, theirs)]
    }

    /// The value of `position` for the side to move.
    #[must_use]
    pub fn value(&self, position: &Position) -> Value {
        let (mine, theirs) = position.mine_theirs();
        Value::from_score(self.score(mine, theirs), position.board().empty().count())
    }

    /// Every legal move of `position` with its value for the mover, best first
    /// (ties in square order).
    #[must_use]
    pub fn analyze(&self, position: &Position) -> Vec<MoveValue> {
        let mut moves: Vec<MoveValue> = position
            .legal_moves()
            .into_iter()
            .map(|square| MoveValue {
                square,
                value: self.legal_move_value(position, square),
            })
            .collect();
        moves.sort_by(|a, b| b.value.cmp(&a.value).then(a.square.cmp(&b.square)));
        moves
    }

    /// The value for the mover of playing `square`, or `None` if it is not
    /// a legal move (the square is taken or the game is over).
    ///
    /// ```
    /// use oxo_core::{solver, Position, Square, Value};
    ///
    /// let pos: Position = "X.O.X....".parse()?; // O to move
    /// assert_eq!(solver::table().move_value(&pos, Square::C3), Some(Value::Draw(6)));
    /// assert_eq!(solver::table().move_value(&pos, Square::B1), Some(Value::Loss(2)));
    /// assert_eq!(solver::table().move_value(&pos, Square::B2), None, "taken");
    /// # Ok::<_, oxo_core::ParsePositionError>(())
    /// ```
    #[must_use]
    pub fn move_value(&self, position: &Position, square: Square) -> Option<Value> {
        position
            .legal_moves()
            .contains(square)
            .then(|| self.legal_move_value(position, square))
    }

    /// The value for the mover of playing `square`, which must be one of
    /// `position`'s legal moves (the table holds no other).
    fn legal_move_value(&self, position: &Position, square: Square) -> Value {
        let (mine, theirs) = position.mine_theirs();
        let score = back_up(self.score(theirs, mine.with(square)));
        Value::from_score(score, position.board().empty().count())
    }

    /// The best moves of `position` for the side to move: all the moves of
    /// equal best value.
    pub fn best_moves(&self, position: &Position) -> Bitboard {
        let (mine, theirs) = position.mine_theirs();
        let mut best = i8::MIN;
        let mut set = Bitboard::EMPTY;
        for sq in position.legal_moves() {
            let s = back_up(self.score(theirs, mine.with(sq)));
            if s > best {
                best = s;
                set = Bitboard::from(sq);
            } else if s == best {
                set = set.with(sq);
            }
        }
        set
    }
}

fn solve_rec(mine: Bitboard, theirs: Bitboard, scores: &mut [i8; TABLE_SIZE]) -> i8 {
    let i = index(mine, theirs);
    if scores[i] != UNKNOWN {
        return scores[i];
    }
    let empty = !(mine | theirs);
    let score = if theirs.has_line() {
        -10
    } else if empty.is_empty() {
        0
    } else {
        let mut best = i8::MIN;
        for sq in empty {
            best = best.max(back_up(solve_rec(theirs, mine.with(sq), scores)));
        }
        best
    };
    scores[i] = score;
    score
}

/// The table, solved on first use.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(Table::solve)
}

/// The value of `position` for the side to move.
#[must_use]
pub fn value(position: &Position) -> Value {
    table().value(position)
}

/// The best moves of `position` for the side to move: every move of the
/// best value (empty once the game is over). The perfect bot picks among
/// them.
///
/// ```
/// use oxo_core::{solver, Position, Square};
///
/// let pos: Position = "XX.OO....".parse()?; // X to move
/// assert_eq!(solver::best_moves(&pos).first(), Some(Square::C1), "the win");
/// assert_eq!(solver::best_moves(&Position::new()).count(), 9, "all draw");
/// # Ok::<_, oxo_core::ParsePositionError>(())
/// ```
pub fn best_moves(position: &Position) -> Bitboard {
    table().best_moves(position)
}

/// Every legal move of `position` with its value for the mover, best first.
///
/// ```
/// use oxo_core::{solver, Position, Square, Value};
///
/// let pos: Position = "X.O.X....".parse()?; // O to move, must block c3
/// let moves = solver::analyze(&pos);
/// assert_eq!(moves[0].square, Square::C3);
/// assert_eq!(moves[0].value, Value::Draw(6));
/// assert!(moves[1..].iter().all(|m| matches!(m.value, Value::Loss(_))));
/// # Ok::<_, oxo_core::ParsePositionError>(())
/// ```
#[must_use]
pub fn analyze(position: &Position) -> Vec<MoveValue> {
    table().analyze(position)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_holds_every_reachable_position() {
        assert_eq!(Table::solve().len(), 5_478);
    }

    #[test]
    fn values_follow_from_moves() {
        let pos: Position = "XX.OO....".parse().expect("legal");
        let moves = analyze(&pos);
        assert_eq!(
            moves[0],
            MoveValue {
                square: Square::C1,
                value: Value::Win(1)
            }
        );
        assert_eq!(value(&pos), moves[0].value);
        let lost: Position = "XXXOO....".parse().expect("legal");
        assert_eq!(value(&lost), Value::Loss(0));
        assert!(analyze(&lost).is_empty());
    }
}
