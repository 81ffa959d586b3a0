// @ts-check
// A game explained by the solver: the verdict on every move (kept the win,
// kept the draw, threw the win, blunder, lost anyway), the better moves of a
// ply, and one summary of where the game was decided.
//
// The values come from `GET /api/analyze/game` in ONE request for the whole
// game (see api.analyzeGame), so stepping through a replay never touches the
// network. Everything else here is pure wording and DOM building, shared by
// the replay page and, once a round is over, the game page's move list
// (`annotateMoves`). Verdicts are told by words and a symbol ("??", "?!"),
// with a colour on top: colour is never the only cue.

import * as api from './api.js';
import { h } from './dom.js';
import { index, other } from './notation.js';
import { loserVerb } from './outcome.js';

/** @typedef {import('./protocol.js').PlyExplanation} PlyExplanation */
/** @typedef {import('./protocol.js').GameExplanation} GameExplanation */
/** @typedef {import('./protocol.js').FinalPosition} FinalPosition */
/** @typedef {import('./protocol.js').Outcome} Outcome */
/** @typedef {import('./protocol.js').Player} Player */
/** @typedef {{ symbol: string, words: string, className: string }} VerdictLook */

/**
 * Per verdict: the symbol, the short words for a log line, the CSS class.
 * @type {Record<string, VerdictLook | undefined>}
 */
export const VERDICTS = {
  kept_win: { symbol: '✓', words: 'kept the win', className: 'verdict-kept' },
  kept_draw: { symbol: '✓', words: 'kept the draw', className: 'verdict-kept' },
  threw_win: { symbol: '?!', words: 'threw the win', className: 'verdict-threw' },
  blunder: { symbol: '??', words: 'blunder', className: 'verdict-blunder' },
  lost_anyway: { symbol: '–', words: 'lost anyway', className: 'verdict-lost' },
};

/**
 * The solver's explanation (`GameExplanation`) of a game: one request.
 * @param {Player} first
 * @param {string[]} moves
 */
export function explainGame(first, moves) {
  return api.analyzeGame(first, moves);
}

/**
 * Whether a ply made its mover's value worse.
 * @param {PlyExplanation} ply
 */
export function isMistake(ply) {
  return ply.verdict === 'threw_win' || ply.verdict === 'blunder';
}

/**
 * "b3", "b2 or a1", "b2, a1 or c3".
 * @param {string[]} cells
 * @param {string} [conjunction]
 */
export function cellList(cells, conjunction = 'or') {
  if (cells.length <= 1) return cells.join('');
  return `${cells.slice(0, -1).join(', ')} ${conjunction} ${cells[cells.length - 1]}`;
}

/**
 * The verdict of a ply for people: `{ verdict, symbol, words, className,
 * long }`; `long` is the full phrase for screen readers and tooltips.
 * @param {PlyExplanation} ply
 */
export function verdictOf(ply) {
  const v = VERDICTS[ply.verdict] ?? { symbol: '', words: ply.verdict, className: '' };
  // A blunder reads differently from a won and from a drawn position.
  /** @type {Record<string, string | undefined>} */
  const longs = {
    kept_win: 'kept the win',
    kept_draw: 'kept the draw',
    threw_win: 'threw away the win: a draw now',
    blunder: ply.before.result === 'win' ? 'blunder: a win turned into a loss' : 'blunder: a draw turned into a loss',
    lost_anyway: 'lost anyway: every move loses',
  };
  const long = longs[ply.verdict] ?? ply.verdict;
  return { verdict: ply.verdict, ...v, long };
}

/**
 * The squares to mark on the board for a ply: the better moves of a mistake.
 * @param {PlyExplanation | null} ply
 */
export function betterCells(ply) {
  return ply && isMistake(ply) ? ply.best : [];
}

/**
 * The same squares as board indexes (for Board.render's `better`).
 * @param {PlyExplanation | null} ply
 */
export function betterIndexes(ply) {
  return betterCells(ply).map(index);
}

/**
 * The line under the board for a ply: the better moves of a mistake, or
 * what else would have done as well.
 * @param {PlyExplanation | null} ply
 */
export function betterText(ply) {
  if (!ply) return '';
  if (isMistake(ply)) return `Better: ${ply.best.join(', ')}`;
  if (ply.verdict === 'lost_anyway') return 'Every move lost here';
  const result = ply.before.result;
  const others = ply.best.filter((c) => c !== ply.cell);
  return others.length ? `Also kept the ${result}: ${others.join(', ')}` : `Only ${ply.cell} kept the ${result}`;
}

/**
 * One mistake as a clause: "O lost it on move 4: c1 instead of b3".
 * @param {PlyExplanation} ply
 */
function mistakeClause(ply) {
  const what = ply.verdict === 'threw_win'
    ? 'threw away the win'
    : ply.before.result === 'win' ? 'turned a win into a loss' : 'lost it';
  return `${ply.player} ${what} on move ${ply.ply}: ${ply.cell} instead of ${cellList(ply.best)}`;
}

/**
 * Who the value of `final` favours, e.g. "X was winning", "the position was a draw".
 * @param {FinalPosition} final
 * @param {'past' | 'present'} tense
 */
function valueClause(final, tense) {
  const verb = tense === 'past' ? 'was' : 'is';
  const { result } = final.value;
  if (result === 'draw') return `the position ${verb} a draw`;
  const leader = result === 'win' ? final.turn : other(final.turn);
  return `${leader} ${verb} winning`;
}

/**
 * A game that ended without a line or a full board (forfeit, timeout, a
 * player who left) gets the value of the position it stopped in; an
 * unfinished one the value now.
 * @param {GameExplanation} explanation
 * @param {Outcome | null} outcome
 */
function endClause(explanation, outcome) {
  if (!outcome) return explanation.moves.length ? `Now ${valueClause(explanation.final, 'present')}.` : '';
  const verb = loserVerb(outcome);
  if (outcome.result !== 'win' || !verb) return '';
  return `When ${other(outcome.winner)} ${verb}, ${valueClause(explanation.final, 'past')}.`;
}

/**
 * Where the game was decided, in one or a few sentences: the first move that
 * made its mover's value worse ("O lost it on move 4: c1 instead of b3."),
 * any later turn of the tide, and for a game that ended off the board the
 * value it ended in. `outcome` is the record's (null while in progress).
 * @param {GameExplanation} explanation
 * @param {Outcome | null} outcome
 */
export function summarySentence(explanation, outcome) {
  const mistakes = explanation.moves.filter(isMistake);
  const parts = [];
  if (mistakes.length) {
    const [first, ...later] = mistakes;
    parts.push(`${mistakeClause(first)}.`);
    // Later mistakes can hand the game back (a win thrown away), so the
    // first one alone would not say how it ended.
    if (later.length) parts.push(`Then ${later.map(mistakeClause).join('; then ')}.`);
  } else if (!explanation.moves.length) {
    parts.push('No moves were played.');
  } else if (!outcome) {
    parts.push('No mistakes so far: a draw all the way.');
  } else if (outcome.result === 'draw') {
    parts.push('Perfect game: a draw all the way.');
  } else {
    parts.push('No mistakes: a draw all the way.');
  }
  const end = endClause(explanation, outcome);
  if (end) parts.push(end);
  return parts.join(' ');
}

/**
 * A log line's verdict: symbol and words, coloured by its class.
 * @param {PlyExplanation} ply
 */
export function verdictBadge(ply) {
  const v = verdictOf(ply);
  return h(`span.verdict.${v.className}`, { dataset: { verdict: v.verdict }, title: v.long },
    h('span.verdict-sym', { 'aria-hidden': 'true' }, v.symbol),
    h('span.verdict-words', {}, v.words));
}

/**
 * Adds the verdicts to a rendered move list: its `li.move` items other than
 * `.move-start` and `.move-end`, in ply order, get a badge (inside their
 * `.move-btn` if they have one) and their accessible name gains the verdict.
 * Safe to call again on the same list. For the game page once a round is
 * over: `explainGame(first, moves).then((e) => annotateMoves(listEl, e))`
 * after each re-render (the request is cached, so that costs nothing).
 * @param {HTMLElement} listEl
 * @param {GameExplanation} explanation
 */
export function annotateMoves(listEl, explanation) {
  /** @type {NodeListOf<HTMLLIElement>} */
  const items = listEl.querySelectorAll('li.move:not(.move-start):not(.move-end)');
  items.forEach((li, i) => {
    const ply = explanation.moves[i];
    if (!ply) return;
    const target = /** @type {HTMLElement} */ (li.querySelector('.move-btn') ?? li);
    target.querySelector('.verdict')?.remove();
    target.querySelector('.verdict-better')?.remove();
    target.append(verdictBadge(ply));
    li.dataset.verdict = ply.verdict;
    if (target !== li && !target.hasAttribute('aria-label')) {
      // A button named by its content: the badge's words are in the name
      // already; the better moves are added for screen readers.
      if (isMistake(ply)) target.append(h('span.visually-hidden.verdict-better', {}, `; better: ${cellList(ply.best)}`));
      return;
    }
    // The name carries the verdict in words; keep the original to stay idempotent.
    const named = target.hasAttribute('aria-label') ? target : li;
    const base = named.dataset.baseLabel ?? named.getAttribute('aria-label') ?? '';
    named.dataset.baseLabel = base;
    const better = isMistake(ply) ? `; better: ${cellList(ply.best)}` : '';
    named.setAttribute('aria-label', `${base} — ${verdictOf(ply).long}${better}`);
  });
}
