// @ts-check
// What this browser's player is doing right now: the tables where they hold
// a seat (from `welcome`, kept up to date from `table` events, and from the
// browser's other tabs when the player leaves one there), so the home page
// can offer to go back to a game in progress; and which of them this
// connection stepped away from (`step_away`), so that the opponent sees the
// player away while no page here shows the game, after a reconnect too.

import { conn } from './net.js';
import { Emitter } from './emitter.js';
import { onLeftElsewhere } from './tabs.js';
import { bySeat } from './notation.js';

/** @typedef {import('./protocol.js').TableState} TableState */
/** @typedef {import('./protocol.js').Player} Player */

/**
 * table id -> latest TableState, for tables where we hold a seat (null
 * until its first state comes).
 * @type {Map<string, TableState | null>}
 */
export const myTables = new Map();

/**
 * The tables of `myTables` this connection stepped away from (`step_away`:
 * back to the home page from a game against a person): it hears nothing
 * more from them, so their states here stop where the player left them
 * until the page goes back (a request about the table) or reconnects
 * (`hello` attaches every seat in play again).
 * @type {Set<string>}
 */
export const steppedAway = new Set();

/**
 * The tables of `myTables` the page left while they waited for an
 * opponent, without stepping away yet: this connection still hears them,
 * so "Your games" learns at once that someone joined (nothing else would
 * tell it: a private table has no lobby entry, and a round not started no
 * game record), and the table stays open for the friend the link went to.
 * The round's start steps away from them then, so the opponent sees the
 * player away and their time to come back runs, as for a round left.
 * @type {Set<string>}
 */
const awayOnStart = new Set();

/** The table a page of this tab shows (the game page's), if any. */
const shown = new Set();

/**
 * The tables `hello` seated this connection at again (a reload, a
 * reconnect) whose state has not come yet: the first one says whether to
 * step away from the table, for a page that does not show it.
 * @type {Set<string>}
 */
const reseated = new Set();

/** @type {Emitter<{ change: undefined }>} */
const events = new Emitter();

/**
 * Calls `fn()` whenever `myTables` changes; returns a function that stops.
 * @param {() => void} fn
 */
export function onTablesChange(fn) {
  return events.on('change', fn);
}

function changed() {
  events.emit('change', undefined);
}

/**
 * The seats ("X", "O") that our player holds in `table`.
 * @param {TableState | null | undefined} table
 * @returns {import('./protocol.js').Player[]}
 */
export function mySeats(table) {
  /** @type {import('./protocol.js').Player[]} */
  const seats = [];
  if (table?.players?.x?.id && table.players.x.id === conn.playerId) seats.push('X');
  if (table?.players?.o?.id && table.players.o.id === conn.playerId) seats.push('O');
  return seats;
}

conn.on('welcome', (msg) => {
  steppedAway.clear();
  reseated.clear();
  for (const id of msg.tables) reseated.add(id);
  for (const id of [...myTables.keys()]) {
    if (!msg.tables.includes(id)) myTables.delete(id);
  }
  for (const id of [...awayOnStart]) {
    if (!msg.tables.includes(id)) awayOnStart.delete(id);
  }
  for (const id of msg.tables) {
    if (!myTables.has(id)) myTables.set(id, null);
  }
  changed();
});

conn.on('table', ({ table }) => {
  // Games that can still be played on: waiting or in progress. A finished
  // round is not a game to resume (the server lets its seat go too).
  const inPlay = table.status === 'waiting' || table.status === 'in_progress';
  const seated = mySeats(table).length > 0 && inPlay;
  if (seated) myTables.set(table.id, table);
  else myTables.delete(table.id);
  if (awayOnStart.has(table.id) && table.status !== 'waiting') {
    awayOnStart.delete(table.id);
    if (seated) stepAway(table.id);
  }
  // Seated again by `hello` at a table no page here shows (the player
  // reloaded the home page, or came back online there): it is away from
  // it again, as when it went, or the opponent would wait for them with
  // no end.
  if (reseated.delete(table.id) && !shown.has(table.id) && !steppedAway.has(table.id)) {
    const away = awayWhenGone(table);
    if (away === 'now') stepAway(table.id);
    else if (away === 'on_start') awayOnStart.add(table.id);
  }
  changed();
});

/**
 * When a page that no longer shows table `t` tells the other person we
 * stepped away, so that they see us away and our time to come back runs:
 * `now` when a person holds the seat across from ours; `on_start` when a
 * person may still take it (a table waiting), once their joining starts
 * the round; `never` for a bot, a pass-and-play partner (nobody to tell),
 * or a table closed.
 * @param {TableState | null} t
 * @returns {'now' | 'on_start' | 'never'}
 */
export function awayWhenGone(t) {
  if (!t || t.options?.pass_and_play || t.status === 'closed') return 'never';
  const mine = mySeats(t);
  if (mine.length === 0) return 'never';
  if (t.status === 'waiting') return t.options?.bot ? 'never' : 'on_start';
  const person = /** @type {Player[]} */ (['X', 'O']).some((s) => {
    const p = bySeat(t.players, s);
    return !mine.includes(s) && Boolean(p) && !p?.bot;
  });
  return person ? 'now' : 'never';
}

/**
 * A page shows table `tableId` (the game page) until the function
 * returned is called: a reconnect does not step away from it.
 * @param {string} tableId
 * @returns {() => void}
 */
export function show(tableId) {
  shown.add(tableId);
  return () => {
    shown.delete(tableId);
  };
}

/**
 * Tells the server this connection no longer shows `tableId` but keeps
 * its seat (`step_away`): it hears nothing more from it.
 * @param {string} tableId
 */
export function stepAway(tableId) {
  steppedAway.add(tableId);
  conn.request({ type: 'step_away', table_id: tableId }).catch(() => {});
}

/**
 * The page leaves `tableId`, waiting for an opponent: it steps away from
 * it once its round starts (see `awayOnStart`).
 * @param {string} tableId
 */
export function stepAwayOnStart(tableId) {
  awayOnStart.add(tableId);
}

/**
 * Forgets a table we left.
 * @param {string} tableId
 */
export function forget(tableId) {
  steppedAway.delete(tableId);
  awayOnStart.delete(tableId);
  if (myTables.delete(tableId)) changed();
}

/**
 * Notes whether this connection stepped away from `tableId` (true) or is
 * back at it (false).
 * @param {string} tableId
 * @param {boolean} away
 */
export function setSteppedAway(tableId, away) {
  awayOnStart.delete(tableId);
  if (away) steppedAway.add(tableId);
  else steppedAway.delete(tableId);
}

// Left in another tab: forgotten here too, whichever page is open (tabs.js).
onLeftElsewhere(forget);
