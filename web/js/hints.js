// @ts-check
// The game page's hints: the switch (remembered between visits) and, on
// our turn against the computer, the solver's result of every free cell for
// the side to move, fetched once per position (`api.analyze`).
//
// It draws no board: the page asks `forBoard` what hints to draw each time
// it draws one, and `onChange` asks the page to draw again when the switch
// flips or the results come.

import * as api from './api.js';
import * as store from './store.js';
import { toast } from './dom.js';
import { toggle } from './controls.js';
import { index } from './notation.js';

/** @typedef {import('./protocol.js').TableState} TableState */
/** @typedef {import('./protocol.js').Player} Player */
/** @typedef {import('./board.js').Hint} Hint */

/**
 * Builds the hints switch (`el`). `onChange()` draws the board again.
 * @param {() => void} onChange
 */
export function hintsSwitch(onChange) {
  let on = store.pref('hints', false);
  /** @type {(Hint | null)[] | null} per cell, the solver's result for the side to move */
  let hints = null;
  /** The position (board and turn) that `hints` are for, or are being fetched for. */
  let key = '';

  const el = toggle({
    label: 'Hints',
    id: 'hints',
    className: '.hints-switch',
    hidden: true,
    checked: on,
    onChange: (checked) => {
      on = checked;
      store.setPref('hints', on);
      onChange();
    },
  });

  /**
   * Shows the switch if `offered` (against the computer, seated), and
   * returns the hints to draw on `table` if they are `wanted` (against the
   * computer, our move) and the switch is on; fetches them when the
   * position is new (they are null until they come).
   * @param {TableState} table
   * @param {{ offered: boolean, wanted: boolean }} when
   * @returns {(Hint | null)[] | null}
   */
  function forBoard(table, { offered, wanted }) {
    el.hidden = !offered;
    const want = on && wanted;
    const position = `${table.board} ${table.turn}`;
    if (!want) {
      // Forgotten with the hints: wanted again, even in this same
      // position, they are fetched again.
      hints = null;
      key = '';
    } else if (key !== position) {
      hints = null;
      key = position;
      // Hints only on our turn: `turn` is set.
      api.analyze(table.board, /** @type {Player} */ (table.turn)).then((res) => {
        if (key !== position) return;
        const byCell = Array(9).fill(null);
        for (const m of res.moves) byCell[index(m.cell)] = m.result;
        hints = byCell;
        onChange();
      }).catch((err) => toast(`Hints unavailable: ${err.message}`));
    }
    return want ? hints : null;
  }

  return { el, forBoard };
}
