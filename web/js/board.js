// @ts-check
// The board: a CSS grid of nine real buttons with SVG marks, shared by the
// game page and the replay page.
//
// Keyboard: the board is one tab stop (roving tabindex); the arrow keys move
// focus between cells and Enter or Space plays the focused cell (they are
// buttons). The pages add the 1-9 shortcuts. Every cell has a label such as
// "b2, empty" or "a1, X, last move"; the pages announce moves and results.
//
// Marks draw themselves in with a short stroke animation when they appear;
// the winning line is one SVG stroke across the whole board, over the cells.
// A move on its way to the server is drawn pending: its mark dimmed in its
// cell, which is busy (`aria-busy`, "b2, X, sending") until the page draws
// the server's answer.

import { h, s } from './dom.js';
import { SQUARES, winningLines } from './notation.js';

/** @typedef {import('./protocol.js').Player} Player */
/** @typedef {import('./notation.js').Mark} Mark */
/** A hint's result for the side to move: "win", "draw" or "loss". @typedef {string} Hint */

/** @type {Record<string, string>} */
const HINT_TEXT = { win: 'win', draw: 'draw', loss: 'loss' };

/**
 * An SVG drawing of `mark` ("X" or "O") in a 100×100 box.
 * @param {Player} mark
 * @param {string} [className] "mark", "pending", "ghost", "better", "badge", "mini"
 */
export function markSvg(mark, className = 'mark') {
  const svg = s(`svg.${className}`, {
    viewBox: '0 0 100 100',
    'aria-hidden': 'true',
    focusable: 'false',
    'data-mark': mark,
  });
  if (mark === 'X') {
    svg.append(
      s('path.stroke', { d: 'M28 28 L72 72', pathLength: 1 }),
      s('path.stroke.stroke-2', { d: 'M72 28 L28 72', pathLength: 1 }),
    );
  } else {
    svg.append(s('circle.stroke', { cx: 50, cy: 50, r: 24, pathLength: 1 }));
  }
  return svg;
}

export class Board {
  /**
   * `onPlay(i)` is called when a cell is activated (click, Enter, Space);
   * `label` names the board for screen readers.
   * @param {{ onPlay?: ((i: number) => void) | null, label?: string, focusable?: boolean }} [options]
   */
  constructor({ onPlay = null, label = 'Board', focusable = true } = {}) {
    this.onPlay = onPlay;
    this.focusable = focusable;
    /** @type {Mark[]} */
    this.cells = Array(9).fill(null);
    this.focusIndex = 4;
    this.previewMark = null;
    this.buttons = SQUARES.map((sq, i) =>
      h('button.cell', {
        type: 'button',
        dataset: { square: sq, index: String(i) },
        tabindex: focusable && i === this.focusIndex ? '0' : '-1',
        'aria-label': `${sq}, empty`,
        onclick: () => this.activate(i),
        onfocus: () => this.setFocusIndex(i),
      }),
    );
    this.grid = h('div.board', { role: 'group', 'aria-label': label }, this.buttons);
    this.grid.addEventListener('keydown', (ev) => this.onKey(ev));
    this.overlay = s('svg.winline', { viewBox: '0 0 300 300', 'aria-hidden': 'true', focusable: 'false' });
    this.el = h('div.board-wrap', {}, this.grid, this.overlay);
    this.state = { winKey: '', hintsKey: '', lastIndex: -1, playable: false };
    /** @type {{ index: number, mark: Player } | null} the move drawn pending */
    this.pending = null;
  }

  /** @param {number} i */
  activate(i) {
    this.setFocusIndex(i);
    if (this.onPlay && this.grid.dataset.interactive === 'true') this.onPlay(i);
  }

  /** @param {number} i */
  setFocusIndex(i) {
    if (this.focusIndex === i || !this.focusable) return;
    this.buttons[this.focusIndex].tabIndex = -1;
    this.focusIndex = i;
    this.buttons[i].tabIndex = 0;
  }

  focus(i = this.focusIndex) {
    this.setFocusIndex(i);
    this.buttons[i].focus();
  }

  /** @param {KeyboardEvent} ev */
  onKey(ev) {
    /** @type {Record<string, [number, number]>} */
    const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
    const d = moves[ev.key];
    if (!d || !this.focusable || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    ev.preventDefault();
    ev.stopPropagation();
    const row = Math.min(2, Math.max(0, Math.floor(this.focusIndex / 3) + d[0]));
    const col = Math.min(2, Math.max(0, (this.focusIndex % 3) + d[1]));
    this.focus(row * 3 + col);
  }

  /**
   * Draws a position.
   * - `cells`: 9 × "X" | "O" | null
   * - `last`: index of the last move, or -1
   * - `winCells`: the squares of the winning line(s), e.g. ["a1","b1","c1"]
   * - `winner`: "X" | "O" | null (colours the line)
   * - `preview`: the mark shown on hover/focus of free cells (null: none)
   * - `pending`: a move on its way to the server, drawn dimmed in its cell
   *   while that is free (null: none)
   * - `interactive`: whether activating a cell calls `onPlay`
   * - `hints`: index -> "win" | "draw" | "loss" for free cells, or null
   * - `better`: indexes of free cells marked as better moves (the replay's
   *   explanation), drawn as a faint `betterMark` ("X" | "O") in a dashed ring
   * - `animate`: animate marks that appear (false when jumping, e.g. on load)
   * @param {{ cells: Mark[], last?: number, winCells?: string[], winner?: Player | null, preview?: Player | null,
   *   pending?: { index: number, mark: Player } | null, interactive?: boolean, hints?: (Hint | null)[] | null, better?: number[], betterMark?: Player | null,
   *   animate?: boolean }} position
   */
  render({ cells, last = -1, winCells = [], winner = null, preview = null, pending = null, interactive = false, hints = null, better = [], betterMark = null, animate = true }) {
    this.grid.dataset.interactive = interactive ? 'true' : 'false';
    this.grid.classList.toggle('is-playable', Boolean(preview) && interactive);
    this.grid.dataset.turn = preview ?? '';
    const winSet = new Set(winCells);
    const betterSet = new Set(better);
    for (let i = 0; i < 9; i++) {
      const btn = this.buttons[i];
      const sq = SQUARES[i];
      const mark = cells[i] ?? null;
      if (mark !== this.cells[i]) {
        btn.querySelector('svg.mark')?.remove();
        if (mark) {
          const svg = markSvg(mark);
          // A move drawn pending is drawn in already.
          const wasPending = this.pending?.index === i && this.pending.mark === mark;
          if (animate && !wasPending) svg.classList.add('draw-in');
          btn.prepend(svg);
        }
      }
      const sending = !mark && pending?.index === i ? pending.mark : null;
      this.renderPending(btn, sending);
      const ghost = /** @type {SVGElement | null} */ (btn.querySelector('svg.ghost'));
      if (!mark && preview && interactive) {
        if (!ghost || ghost.dataset.mark !== preview) {
          ghost?.remove();
          btn.append(markSvg(preview, 'ghost'));
        }
      } else {
        ghost?.remove();
      }
      btn.dataset.mark = mark ?? '';
      btn.classList.toggle('is-last', i === last);
      btn.classList.toggle('is-win', winSet.has(sq));
      btn.setAttribute('aria-disabled', interactive ? 'false' : 'true');
      const hint = !mark && hints ? hints[i] : null;
      let badge = /** @type {HTMLElement | null} */ (btn.querySelector('.hint'));
      if (hint) {
        if (!badge) {
          badge = h('span.hint', { 'aria-hidden': 'true' });
          btn.append(badge);
        }
        badge.textContent = HINT_TEXT[hint] ?? hint;
        badge.dataset.result = hint;
      } else {
        badge?.remove();
      }
      const isBetter = !mark && betterSet.has(i);
      this.renderBetter(btn, isBetter ? betterMark ?? '' : null);
      const parts = sending ? [sq, sending, 'sending'] : [sq, mark ?? 'empty'];
      if (hint) parts.push(`hint: ${HINT_TEXT[hint] ?? hint}`);
      if (isBetter) parts.push(betterMark ? `better move for ${betterMark}` : 'better move');
      if (i === last) parts.push('last move');
      if (winSet.has(sq)) parts.push('winning line');
      btn.setAttribute('aria-label', parts.join(', '));
    }
    this.cells = cells.slice();
    this.pending = pending;
    this.renderWinLine(winCells, winner, animate);
  }

  /**
   * Draws `mark` pending in `btn` (a move on its way), or nothing (null).
   * @param {HTMLElement} btn
   * @param {Player | null} mark
   */
  renderPending(btn, mark) {
    btn.classList.toggle('is-pending', mark !== null);
    const old = /** @type {SVGElement | null} */ (btn.querySelector('svg.pending'));
    if (mark) {
      btn.dataset.pending = mark;
      btn.setAttribute('aria-busy', 'true');
    } else {
      delete btn.dataset.pending;
      btn.removeAttribute('aria-busy');
    }
    if (old && old.dataset.mark === (mark ?? '')) return;
    old?.remove();
    if (mark) {
      const svg = markSvg(mark, 'pending');
      svg.classList.add('draw-in');
      btn.prepend(svg);
    }
  }

  /**
   * A faint `mark` in a dashed ring on a better move; null removes it.
   * @param {HTMLElement} btn
   * @param {Player | '' | null} mark
   */
  renderBetter(btn, mark) {
    btn.classList.toggle('is-better', mark !== null);
    const old = /** @type {SVGElement | null} */ (btn.querySelector('svg.better'));
    if (old && old.dataset.mark === (mark ?? '')) return;
    old?.remove();
    if (mark) btn.append(markSvg(mark, 'better'));
  }

  /**
   * @param {string[]} winCells
   * @param {Player | null} winner
   * @param {boolean} animate
   */
  renderWinLine(winCells, winner, animate) {
    const key = `${winner}:${winCells.join(',')}`;
    if (key === this.state.winKey) return;
    this.state.winKey = key;
    this.overlay.replaceChildren();
    this.overlay.dataset.winner = winner ?? '';
    /** @param {number} i */
    const center = (i) => [50 + (i % 3) * 100, 50 + Math.floor(i / 3) * 100];
    for (const line of winningLines(winCells)) {
      const [x1, y1] = center(line[0]);
      const [x2, y2] = center(line[2]);
      // Reach a little past the outer cells' centres.
      const dx = Math.sign(x2 - x1) * 32;
      const dy = Math.sign(y2 - y1) * 32;
      const ends = { x1: x1 - dx, y1: y1 - dy, x2: x2 + dx, y2: y2 + dy, pathLength: 1 };
      // A halo in the board's colour under the stroke sets it apart from
      // the marks it crosses.
      this.overlay.append(
        s(`line.winhalo${animate ? '.draw-in' : ''}`, ends),
        s(`line.winstroke${animate ? '.draw-in' : ''}`, ends),
      );
    }
  }
}
