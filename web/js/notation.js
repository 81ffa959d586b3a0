// @ts-check
// The engine's vocabulary in the browser: squares "a1".."c3" (columns a-c
// left to right, rows 1-3 top to bottom), cell indexes 0..8 row by row from
// the top left, boards in position notation ("X.O.X...."), and outcomes.

/** @typedef {import('./protocol.js').Square} Square */
/** @typedef {import('./protocol.js').Player} Player */
/** @typedef {import('./protocol.js').Outcome} Outcome */
/** A cell's mark, or null when it is empty. @typedef {Player | null} Mark */

/** @type {Square[]} */
export const SQUARES = ['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3', 'b3', 'c3'];

export const LINES = [
  [0, 1, 2], [3, 4, 5], [6, 7, 8], // rows
  [0, 3, 6], [1, 4, 7], [2, 5, 8], // columns
  [0, 4, 8], [2, 4, 6], // diagonals
];

/**
 * "b2" -> 4 (-1 for anything else).
 * @param {string} square
 */
export function index(square) {
  return SQUARES.indexOf(/** @type {Square} */ (square));
}

/**
 * 4 -> "b2".
 * @param {number} i
 */
export function square(i) {
  return SQUARES[i];
}

/**
 * "X.O......" -> ['X', null, 'O', null, ...].
 * @param {string | null | undefined} board
 * @returns {Mark[]}
 */
export function parseBoard(board) {
  return Array.from({ length: 9 }, (_, i) => {
    const c = (board ?? '')[i];
    return c === 'X' || c === 'x' ? 'X' : c === 'O' || c === 'o' ? 'O' : null;
  });
}

/**
 * Cells -> "X.O......".
 * @param {Mark[]} cells
 */
export function formatBoard(cells) {
  return cells.map((c) => c ?? '.').join('');
}

/**
 * The other side.
 * @param {Player} player
 * @returns {Player}
 */
export function other(player) {
  return player === 'X' ? 'O' : 'X';
}

/**
 * Who moved first in a table state's round. The state names nobody before
 * its first round starts; that round has no moves yet, so X stands in.
 * @param {{ first?: Player | null }} table
 * @returns {Player}
 */
export function firstMover(table) {
  return table.first ?? 'X';
}

/**
 * `seat`'s value in a pair of values per player (`{ x, o }` on the wire).
 * @template T
 * @param {{ x?: T, o?: T } | null | undefined} pair
 * @param {Player} seat
 * @returns {T | undefined}
 */
export function bySeat(pair, seat) {
  return seat === 'X' ? pair?.x : pair?.o;
}

/**
 * The winner of an outcome, or null (a draw, no outcome yet).
 * @param {Outcome | null | undefined} outcome
 * @returns {Player | null}
 */
export function winnerOf(outcome) {
  return outcome?.result === 'win' ? outcome.winner : null;
}

/**
 * The complete lines within a set of winning cells (an outcome's `cells`
 * holds every square of every completed line: two lines when the last move
 * completed both).
 * @param {string[] | null | undefined} cells
 */
export function winningLines(cells) {
  const set = new Set((cells ?? []).map(index));
  return LINES.filter((line) => line.every((i) => set.has(i)));
}

/**
 * The cells of the board after the first `n` moves of a game that `first` started.
 * @param {string[]} moves
 * @param {Player} first
 * @param {number} [n]
 */
export function boardAfter(moves, first, n = moves.length) {
  /** @type {Mark[]} */
  const cells = Array(9).fill(null);
  let player = first;
  for (const sq of moves.slice(0, n)) {
    cells[index(sq)] = player;
    player = other(player);
  }
  return cells;
}

/**
 * The winning cells of a line-win outcome, else [].
 * @param {Outcome | null | undefined} outcome
 * @returns {Square[]}
 */
export function outcomeCells(outcome) {
  return outcome && outcome.result === 'win' && outcome.reason === 'line' ? outcome.cells ?? [] : [];
}

/** Each bot level's name for people. */
export const LEVEL_NAMES = {
  random: 'Random',
  easy: 'Easy',
  medium: 'Medium',
  perfect: 'Impossible',
};
