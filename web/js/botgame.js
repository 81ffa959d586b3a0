// Games against the computer: the levels and sides people choose from, the
// remembered choice, and starting a game. Shared by the home page and the
// game page's "New game" controls, so both offer the same choices with the
// same names (the bot is named by its level everywhere: "Impossible").

import { h } from './dom.js';
import * as store from './store.js';
import { conn } from './net.js';

/** The pause before the computer's moves, so that they can be followed. */
export const BOT_THINK_MS = 450;

export const LEVELS = [
  { value: 'easy', label: 'Easy', note: 'Takes a win when it sees one' },
  { value: 'medium', label: 'Medium', note: 'Blocks you, sometimes slips' },
  { value: 'perfect', label: 'Impossible', note: 'Never loses' },
];

export const SIDES = [
  { value: 'X', label: 'X', note: 'Moves first' },
  { value: 'O', label: 'O', note: 'Moves second' },
  { value: 'random', label: 'Random', note: 'Toss a coin' },
];

/**
 * The level and side last chosen. A first visit gets Medium: a level a
 * newcomer can sometimes beat (Impossible never loses, which is no welcome).
 */
export function botChoice() {
  return {
    level: store.pref('botLevel', 'medium'),
    side: store.pref('botSide', 'X'),
  };
}

/** Remembers a choice of level or side. */
export function rememberBot(key, value) {
  store.setPref(key === 'level' ? 'botLevel' : 'botSide', value);
}

/** The options of a new table against the computer. */
export function botOptions({ level, side }) {
  const options = { public: false, starter: 'x', bot: { level, think_ms: BOT_THINK_MS } };
  if (side !== 'random') options.seat = side;
  return options;
}

/** Creates a table against the computer; resolves with its id. */
export async function createBotTable(choice) {
  const ok = await conn.request({ type: 'create_table', options: botOptions(choice) });
  return ok.table_id;
}

/** A group of radio buttons shown as one segmented control. */
export function segmented(name, legend, options, selected, onChange) {
  return h('fieldset.choice', {},
    h('legend', {}, legend),
    h('div.segmented', {},
      options.map((opt) =>
        h('label.segment', {},
          h('input', {
            type: 'radio',
            name,
            value: opt.value,
            checked: opt.value === selected,
            onchange: () => onChange(opt.value),
          }),
          h('span.segment-face', {},
            h('span.segment-label', {}, opt.label),
            opt.note ? h('span.segment-note', {}, opt.note) : null,
          ),
        ),
      ),
    ),
  );
}
