// @ts-check
// The home page's "Your games": the games the player can go back to, each
// saying first whose move it is (yours, the opponent's, waiting for an
// opponent, or over), the player's own moves first.
//
// The states come from session.js: `table` events keep them current for
// every table this connection still hears, a table left waiting for an
// opponent included (until its round starts). A table the page stepped away
// from (back home from a game against a person) is heard no more, so its
// game record is asked for every couple of seconds instead: the moves say
// whose turn it is and the outcome that the round is over. A table still
// waiting has no record yet; the recent games (given by the home page)
// also tell of a round over.

import * as api from './api.js';
import { conn } from './net.js';
import { h, replaceKeepingFocus, announce } from './dom.js';
import { myTables, mySeats, steppedAway, onTablesChange } from './session.js';
import { listedOutcome } from './outcome.js';
import { other, bySeat } from './notation.js';

/** @typedef {import('./protocol.js').TableState} TableState */
/** @typedef {import('./protocol.js').GameRecord} GameRecord */
/** @typedef {import('./protocol.js').GameSummary} GameSummary */
/** @typedef {import('./protocol.js').Player} Player */

/**
 * Whose move a game is on, as an entry says it; `kind` also orders the
 * entries (the player's own moves first).
 * @typedef {{ kind: 'yours' | 'theirs' | 'waiting' | 'over', text: string }} Turn
 */

/** @type {Turn['kind'][]} */
const ORDER = ['yours', 'theirs', 'waiting', 'over'];

/** How often a game stepped away from is asked after, in ms. */
const POLL_MS = 2000;

/**
 * Whose move `table` is on for the holder of `seats`; `record` is its
 * latest game record (fresher than a state no longer heard), `summary` the
 * round among the recent finished games.
 * @param {TableState} table
 * @param {Player[]} seats
 * @param {GameRecord | undefined} record
 * @param {GameSummary | undefined} summary
 * @returns {Turn}
 */
export function turnOf(table, seats, record, summary) {
  if (table.status === 'waiting') return { kind: 'waiting', text: 'Waiting for an opponent' };
  const outcome = record?.outcome ?? summary?.outcome;
  if (outcome) {
    const names = record
      ? { x: record.players.x.name, o: record.players.o.name }
      : /** @type {GameSummary} */ (summary).players;
    return { kind: 'over', text: `Over: ${listedOutcome(outcome, names)}` };
  }
  if (table.status !== 'in_progress') return { kind: 'over', text: 'Over' };
  const turn = record
    ? (record.moves.length % 2 === 0 ? record.first : other(record.first))
    : table.turn;
  if (!turn) return { kind: 'over', text: 'Over' };
  if (seats.length === 2) return { kind: 'yours', text: `${turn} to move` };
  return seats.includes(turn) ? { kind: 'yours', text: 'Your turn' } : { kind: 'theirs', text: 'Their turn' };
}

/**
 * The "Your games" card, kept up to date until `stop()`; `setFinished`
 * gives it the recent finished games, by id. The page's title is `title`,
 * led by how many games against a person are on the player's move
 * ("(1) Your turn · …"): a home page in a background tab shows that
 * someone waits for them, and their time to come back runs. A game
 * against the computer or in pass and play waits without end and does
 * not count.
 * @param {{ title: string }} options
 * @returns {{ card: HTMLElement, setFinished: (games: Map<string, GameSummary>) => void, stop: () => void }}
 */
export function yourGames({ title: pageTitle }) {
  const list = h('ul.list', { id: 'my-tables' });
  const card = h('section.card.card-resume', { 'aria-labelledby': 'h-resume', hidden: true },
    h('h2', { id: 'h-resume' }, 'Your games'),
    list,
  );
  /** @type {Map<string, GameSummary>} */
  let finished = new Map();
  /**
   * The latest record of each game stepped away from, by game id.
   * @type {Map<string, GameRecord>}
   */
  const records = new Map();
  /**
   * What each entry said last, by table id: a game that becomes the
   * player's move is said aloud.
   * @type {Map<string, Turn['kind']>}
   */
  const said = new Map();

  function render() {
    const entries = [];
    for (const [id, table] of myTables) {
      if (!table || table.status === 'closed') continue;
      const seats = mySeats(table);
      const record = table.game_id ? records.get(table.game_id) : undefined;
      const summary = table.game_id ? finished.get(table.game_id) : undefined;
      const turn = turnOf(table, seats, record, summary);
      const opponent = seats.length === 1 ? bySeat(table.players, other(seats[0])) : null;
      const title = seats.length === 2
        ? 'Pass and play'
        : opponent ? `vs ${opponent.name}` : 'No opponent yet';
      const moveNumber = (record ? record.moves.length : table.move_number) + 1;
      const sub = turn.kind === 'yours' || turn.kind === 'theirs'
        ? `Round ${table.round} · move ${moveNumber}`
        : `Round ${table.round}`;
      // A round against a person runs on while the player is here: staying
      // away past the reconnect time loses it (docs/protocol.md, step_away).
      const urgent = (turn.kind === 'yours' || turn.kind === 'theirs') && Boolean(opponent && !opponent.bot);
      const before = said.get(id);
      if ((before === 'theirs' || before === 'waiting') && turn.kind === 'yours') announce(`Your turn ${title}`);
      else if (before === 'waiting' && turn.kind === 'theirs') announce(`Their turn ${title}`);
      said.set(id, turn.kind);
      const mainId = `resume-${id}`;
      entries.push({
        kind: turn.kind,
        urgent,
        row: h('li.row', {},
          h('span.row-main', { id: mainId },
            h('span.row-title', {}, title),
            h(`span.row-turn.is-${turn.kind}`, {}, turn.text),
            h('span.row-sub', {}, sub),
            urgent ? h('span.row-sub.row-urgent', {}, 'Still running: come back soon, or the round is lost') : null,
          ),
          h('a.btn.btn-small.btn-primary', {
            href: `/t/${encodeURIComponent(id)}`,
            'data-link': true,
            'aria-describedby': mainId,
            dataset: { focusKey: `continue:${id}` },
          }, 'Continue'),
        ),
      });
    }
    // Stable: within a kind, the order the games came in.
    entries.sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind));
    replaceKeepingFocus(list, entries.map((e) => e.row));
    card.hidden = entries.length === 0;
    const waitedFor = entries.filter((e) => e.kind === 'yours' && e.urgent).length;
    document.title = waitedFor ? `(${waitedFor}) Your turn · ${pageTitle}` : pageTitle;
  }

  /** The game ids of the rounds stepped away from whose end is not known. */
  function unheard() {
    /** @type {string[]} */
    const ids = [];
    for (const [id, table] of myTables) {
      if (!steppedAway.has(id) || table?.status !== 'in_progress' || !table.game_id) continue;
      if (records.get(table.game_id)?.outcome || finished.get(table.game_id)) continue;
      ids.push(table.game_id);
    }
    return ids;
  }

  let stopped = false;
  /** Whether records are being asked for (one round of asking at a time). */
  let busy = false;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  async function poll() {
    timer = undefined;
    busy = true;
    const ids = conn.status === 'online' ? unheard() : [];
    const got = await Promise.all(ids.map((id) => api.game(id).catch(() => null)));
    busy = false;
    if (stopped) return;
    for (const record of got) if (record) records.set(record.id, record);
    if (ids.length) render();
    schedule();
  }
  function schedule() {
    if (!stopped && !busy && timer === undefined && unheard().length) timer = setTimeout(poll, POLL_MS);
  }

  render();
  // At once: the state of a game stepped away from stops where it was left.
  poll();
  const offTables = onTablesChange(() => {
    render();
    schedule();
  });

  return {
    card,
    setFinished(games) {
      finished = games;
      render();
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      offTables();
    },
  };
}
