// @ts-check
// Games against the computer: the levels and sides people choose from, the
// remembered choice, and starting a game. Shared by the home page and the
// game page's "New game" controls, so both offer the same choices with the
// same names (the bot is named by its level everywhere: "Impossible").

import * as store from './store.js';
import { conn } from './net.js';

/** The pause before the computer's moves, so that they can be followed. */
export const BOT_THINK_MS = 450;

/** @typedef {import('./protocol.js').TableOptions} TableOptions */
/** @typedef {import('./protocol.js').BotLevel} BotLevel */
/** @typedef {import('./controls.js').Choice} Choice */
/**
 * A game against the computer as chosen: its `level`, and our `side`
 * ("X", "O" or "random").
 * @typedef {{ level: string, side: string }} BotChoice
 */

/** @type {Choice[]} */
export const LEVELS = [
  { value: 'easy', label: 'Easy', note: 'Takes a win when it sees one' },
  { value: 'medium', label: 'Medium', note: 'Blocks you, sometimes slips' },
  { value: 'perfect', label: 'Impossible', note: 'Never loses' },
];

/** @type {Choice[]} */
export const SIDES = [
  { value: 'X', label: 'X', note: 'Moves first' },
  { value: 'O', label: 'O', note: 'Moves second' },
  { value: 'random', label: 'Random', note: 'Toss a coin' },
];

/**
 * The level and side last chosen. A first visit gets Medium: a level a
 * newcomer can sometimes beat (Impossible never loses, which is no welcome).
 * @returns {BotChoice}
 */
export function botChoice() {
  return {
    level: store.pref('botLevel', 'medium'),
    side: store.pref('botSide', 'X'),
  };
}

/**
 * Remembers a choice of level or side.
 * @param {'level' | 'side'} key
 * @param {string} value
 */
export function rememberBot(key, value) {
  store.setPref(key === 'level' ? 'botLevel' : 'botSide', value);
}

/**
 * The options of a new table against the computer.
 * @param {BotChoice} choice
 * @returns {TableOptions}
 */
export function botOptions({ level, side }) {
  /** @type {TableOptions} */
  const options = { public: false, starter: 'x', bot: { level: /** @type {BotLevel} */ (level), think_ms: BOT_THINK_MS } };
  if (side !== 'random') options.seat = /** @type {import('./protocol.js').Player} */ (side);
  return options;
}

/**
 * Creates a table against the computer; resolves with its id.
 * @param {BotChoice} choice
 * @returns {Promise<string>}
 */
export async function createBotTable(choice) {
  return conn.createTable(botOptions(choice));
}
