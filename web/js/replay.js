// @ts-check
// The replay page (`/games/{id}`): step through a recorded game with the
// board and the log in sync. First / Back / Forward / Last buttons, the arrow
// keys (Home and End too), or a click on a line of the log. The position
// shown is kept in the address (`?ply=3`), so a link can point at a move.
//
// Once the record is in, one request fetches the solver's explanation of the
// whole game (explain.js): each log line gets its verdict, the board marks
// the better moves of a mistake, and a summary says where the game was
// decided. The replay works without it (say, if that request fails).
//
// A record the server could not send (it is restarting, say) is asked for
// again by itself, more slowly each time and at once when the connection
// comes back, as the game page recovers its table: a link opened during a
// deploy shows the game once the server is back. A game that does not
// exist is not asked for again.

import * as api from './api.js';
import { conn } from './net.js';
import { h, s, replace, announce, plural, revealIn } from './dom.js';
import { shareLink } from './controls.js';
import { recordOutcome } from './outcome.js';
import { Board, markSvg } from './board.js';
import { boardAfter, index, outcomeCells, winnerOf } from './notation.js';
import { explainGame, annotateMoves, summarySentence, verdictOf, betterText, betterIndexes, isMistake } from './explain.js';

/** @typedef {import('./protocol.js').GameRecord} GameRecord */
/** @typedef {import('./protocol.js').GameExplanation} GameExplanation */
/** @typedef {import('./protocol.js').PlyExplanation} PlyExplanation */

/** The first wait before asking again for a record that did not come, in ms; it doubles. */
const RETRY_FIRST_MS = 2000;
/** The longest wait between two tries, in ms. */
const RETRY_MAX_MS = 30000;

/**
 * A player's name in the title; a bot is said to be the computer.
 * @param {import('./protocol.js').RecordPlayer | null | undefined} p
 */
function playerLabel(p) {
  if (!p) return '?';
  return p.bot ? `${p.name} (computer)` : p.name;
}

/**
 * Mounts the replay of game `gameId` in `main`, at `ply` (the end if null);
 * returns its unmount function.
 * @param {HTMLElement} main
 * @param {{ gameId: string, ply: number | null }} route
 * @returns {() => void}
 */
export function mountReplay(main, { gameId, ply: startPly }) {
  document.title = 'Replay · oxo';
  /** @type {GameRecord | null} */
  let record = null;
  /** @type {GameExplanation | null} */
  let explanation = null;
  let ply = 0;
  let alive = true;

  const board = new Board({ label: 'Replay board', focusable: false });
  const titleEl = h('h1.replay-title', {}, 'Replay');
  const subEl = h('p.replay-sub.muted', {}, 'Loading…');
  const outcomeEl = h('p.status.replay-outcome', { id: 'outcome' });
  const summaryEl = h('p.replay-summary', { id: 'summary', hidden: true });
  const positionEl = h('p.replay-position', { id: 'position', 'aria-live': 'polite' });
  // The legend of the board's marks and what else the mover could have done.
  const betterEl = h('p.replay-better', { id: 'better' });
  const logEl = h('ol.movelist.replay-log', { id: 'log', 'aria-label': 'Game log' });

  // Icons drawn as SVG paths: no font has to carry ⏮ and ⏭.
  /** @type {Record<string, string>} */
  const ICONS = {
    first: 'M7 6v12 M18 6l-8 6 8 6z',
    back: 'M16 6l-8 6 8 6z',
    forward: 'M8 6l8 6-8 6z',
    last: 'M17 6v12 M6 6l8 6-8 6z',
  };
  /**
   * @param {string} label
   * @param {string} icon
   * @param {() => void} fn
   */
  const nav = (label, icon, fn) => /** @type {HTMLButtonElement} */ (
    h('button.btn.btn-icon', { type: 'button', id: icon, 'aria-label': label, title: label, onclick: fn },
      s('svg.icon', { viewBox: '0 0 24 24', 'aria-hidden': 'true', focusable: 'false' }, s('path', { d: ICONS[icon] }))));
  const firstBtn = nav('First', 'first', () => go(0));
  const backBtn = nav('Back', 'back', () => go(ply - 1));
  const fwdBtn = nav('Forward', 'forward', () => go(ply + 1));
  const lastBtn = nav('Last', 'last', () => go(total()));

  // The link follows the move shown (`?ply=`, set by `render`).
  const gamePath = `/games/${encodeURIComponent(gameId)}`;
  const share = shareLink({ path: gamePath, label: 'Link to this replay', copy: 'Copy link', kind: 'btn-secondary' });
  const shareInput = share.querySelector('textarea');
  const view = h('div.game.replay', {},
      h('section.game-main', { 'aria-labelledby': 'replay-title' },
        h('div.game-head', {},
          h('a.back', { href: '/', 'data-link': true }, h('span', { 'aria-hidden': 'true' }, '← '), 'Home'),
          h('p.table-meta', {}, 'Replay'),
        ),
        h('div.replay-head', { id: 'replay-title' }, titleEl, subEl),
        h('div.status-box', {}, outcomeEl, summaryEl, positionEl),
        board.el,
        betterEl,
        h('div.controls.replay-controls', { role: 'group', 'aria-label': 'Step through the game' },
          firstBtn, backBtn, fwdBtn, lastBtn),
        h('p.keys-help', {}, 'Keyboard: ← and → step, Home and End jump.'),
      ),
      h('aside.game-side', { 'aria-label': 'Game log' },
        h('section.panel', { 'aria-labelledby': 'h-log' },
          h('h2', { id: 'h-log' }, 'Log'),
          logEl,
        ),
        h('section.panel', { 'aria-labelledby': 'h-share' },
          h('h2', { id: 'h-share' }, 'Share'),
          share,
        ),
      ),
  );
  main.append(view);

  /** The record, once loaded: what the functions below draw. */
  function loaded() {
    if (!record) throw new Error('the replay has no record yet');
    return record;
  }

  function total() {
    return record ? record.moves.length : 0;
  }

  /**
   * Shows the position after `n` moves (kept within the game).
   * @param {number} n
   * @param {{ say?: boolean }} [options] `say`: announce it
   */
  function go(n, { say = true } = {}) {
    if (!record) return;
    const next = Math.max(0, Math.min(total(), n));
    const changed = next !== ply;
    ply = next;
    render(changed);
    const url = new URL(window.location.href);
    url.searchParams.set('ply', String(ply));
    window.history.replaceState(null, '', url.pathname + url.search);
    if (say && changed) announce(positionText());
  }

  function positionText() {
    const record = loaded();
    if (ply === 0) return `Start: ${record.first} moves first`;
    const m = record.moves[ply - 1];
    let text = `Move ${ply} of ${total()}: ${m.player} ${m.cell}`;
    const p = plyExplained();
    if (p) text += ` — ${verdictOf(p).long}. ${betterText(p)}`;
    if (ply === total() && record.outcome) text += `. ${recordOutcome(record.outcome, record.players)}`;
    return text;
  }

  /** The explanation of the ply shown, once it has come (none at the start). */
  function plyExplained() {
    return explanation && ply > 0 ? explanation.moves[ply - 1] ?? null : null;
  }

  /** @param {boolean} animate */
  function render(animate) {
    const record = loaded();
    const cells = boardAfter(record.moves.map((m) => m.cell), record.first, ply);
    const atEnd = ply === total() && Boolean(record.outcome);
    const p = plyExplained();
    if (shareInput) shareInput.value = `${window.location.origin}${gamePath}?ply=${ply}`;
    board.render({
      cells,
      last: ply > 0 ? index(record.moves[ply - 1].cell) : -1,
      winCells: atEnd ? outcomeCells(record.outcome) : [],
      winner: atEnd ? winnerOf(record.outcome) : null,
      interactive: false,
      better: betterIndexes(p),
      betterMark: p?.player ?? null,
      animate,
    });
    renderBetter(p);
    board.el.classList.toggle('is-over', atEnd);
    positionEl.textContent = ply === 0 ? `Start — ${plural(total(), 'move')}` : `Move ${ply} of ${total()}`;
    // Not `disabled`: a button that turns disabled drops the focus of the
    // keyboard user who just pressed it to the page. `go` keeps within the
    // game, so pressing one at its end does nothing.
    for (const btn of [firstBtn, backBtn]) btn.setAttribute('aria-disabled', String(ply === 0));
    for (const btn of [fwdBtn, lastBtn]) btn.setAttribute('aria-disabled', String(ply === total()));
    for (const li of /** @type {NodeListOf<HTMLElement>} */ (logEl.querySelectorAll('[data-ply]'))) {
      const on = Number(li.dataset.ply) === ply;
      li.classList.toggle('is-current', on);
      const btn = li.querySelector('button');
      if (on) btn?.setAttribute('aria-current', 'step');
      else btn?.removeAttribute('aria-current');
    }
    const current = logEl.querySelector('.is-current');
    if (current) revealIn(logEl, current);
  }

  /**
   * The line under the board: a swatch as the legend of the marks when there are any.
   * @param {PlyExplanation | null} p
   */
  function renderBetter(p) {
    if (!p) {
      replace(betterEl, explanation && ply === 0 ? 'Step forward to see each move judged by the solver' : '');
      betterEl.dataset.verdict = '';
      return;
    }
    const v = verdictOf(p);
    replace(betterEl,
      h(`span.verdict.${v.className}`, {},
        h('span.verdict-sym', { 'aria-hidden': 'true' }, v.symbol),
        h('span.verdict-words', {}, `${p.player} ${p.cell}: ${v.words}`)),
      ' ',
      isMistake(p) ? h('span.better-swatch', { 'aria-hidden': 'true' }) : null,
      h('span.better-text', {}, betterText(p)),
    );
    betterEl.dataset.verdict = p.verdict;
  }

  function renderLog() {
    const record = loaded();
    const items = [
      h('li.move.move-start', { dataset: { ply: '0' } },
        h('button.move-btn', { type: 'button', onclick: () => go(0) },
          h('span.move-n', {}, '0.'), `Start — ${record.first} moves first`)),
    ];
    record.moves.forEach((m, i) => {
      items.push(
        h('li.move', { dataset: { ply: String(i + 1), player: m.player } },
          // Named by what it shows ("4. c1"), with the player first for
          // screen readers: a name that differs from the visible text
          // cannot be spoken to voice control (WCAG 2.5.3).
          h('button.move-btn', { type: 'button', onclick: () => go(i + 1) },
            h('span.visually-hidden', {}, `${m.player}:`),
            h('span.move-n', {}, `${i + 1}.`), ' ',
            markSvg(m.player, 'mini'), ' ',
            h('span.move-sq', {}, m.cell)),
        ),
      );
    });
    if (record.outcome) {
      items.push(h('li.move.move-end', {}, recordOutcome(record.outcome, record.players)));
    }
    replace(logEl, items);
    if (explanation) annotateMoves(logEl, explanation);
  }

  /**
   * Fetches the explanation (one request), then shows it where it belongs.
   * @param {GameRecord} rec
   */
  function loadExplanation(rec) {
    explainGame(rec.first, rec.moves.map((m) => m.cell)).then((e) => {
      if (!alive || record !== rec) return;
      explanation = e;
      annotateMoves(logEl, e);
      summaryEl.textContent = summarySentence(e, rec.outcome ?? null);
      summaryEl.hidden = false;
      render(false);
    }).catch(() => {
      // The replay stands on its own; say so quietly.
      if (!alive) return;
      summaryEl.textContent = 'The solver’s explanation could not be loaded.';
      summaryEl.hidden = false;
    });
  }

  /** @param {KeyboardEvent} ev */
  function onKey(ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey || !record) return;
    const target = ev.target;
    if (target instanceof HTMLElement && ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName)) return;
    if (document.querySelector('dialog[open]')) return;
    /** @type {Record<string, number | undefined>} */
    const targets = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: total() };
    const to = targets[ev.key];
    if (to === undefined) return;
    ev.preventDefault();
    go(to);
  }
  document.addEventListener('keydown', onKey);

  /** The wait before the next try, once one has failed. */
  let retryMs = RETRY_FIRST_MS;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let retryTimer;
  /** Whether a request for the record is on its way. */
  let loading = false;

  /** Asks for the record, and shows it (or why not). */
  function load() {
    clearTimeout(retryTimer);
    retryTimer = undefined;
    if (!alive || record || loading) return;
    loading = true;
    api.game(gameId).then((rec) => {
      loading = false;
      if (!alive) return;
      show(rec);
    }).catch((err) => {
      loading = false;
      if (!alive) return;
      const missing = err.status === 404 || err.status === 400;
      replace(main,
        h('section.card.narrow', {},
          h('h1', {}, missing ? 'Game not found' : 'Could not load the game'),
          h('p', {}, missing
            ? 'There is no game at this address. Check the link, or find your recent games on the home page.'
            : 'The server could not send this game just now. This page tries again by itself.'),
          h('a.btn.btn-primary', { href: '/', 'data-link': true }, 'Go to the home page'),
        ),
      );
      if (missing) return;
      retryTimer = setTimeout(load, retryMs);
      retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
    });
  }

  /** @param {GameRecord} rec */
  function show(rec) {
    record = rec;
    if (!view.isConnected) replace(main, view);
    const x = playerLabel(rec.players.x);
    const o = playerLabel(rec.players.o);
    replace(titleEl, h('span.vs-x', {}, x), ' vs ', h('span.vs-o', {}, o));
    const when = new Date(rec.ended_at_ms ?? rec.started_at_ms);
    subEl.textContent = `Round ${rec.round} · ${when.toLocaleString()} · ${plural(rec.moves.length, 'move')}`;
    outcomeEl.textContent = recordOutcome(rec.outcome, rec.players);
    outcomeEl.dataset.state = rec.outcome ? 'round_over' : 'in_progress';
    document.title = `${rec.players.x.name} vs ${rec.players.o.name} · Replay · oxo`;
    renderLog();
    ply = startPly === null ? total() : Math.max(0, Math.min(total(), startPly));
    render(false);
    loadExplanation(rec);
  }

  load();
  // Back online after a failure: try at once, not at the end of the wait.
  const offWelcome = conn.on('welcome', () => {
    if (retryTimer !== undefined) load();
  });

  return () => {
    alive = false;
    clearTimeout(retryTimer);
    offWelcome();
    document.removeEventListener('keydown', onKey);
  };
}
