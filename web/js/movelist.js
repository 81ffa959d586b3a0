// @ts-check
// The game page's move list: the moves of the round on the board (or, while
// the table waits for a new opponent, of the round the last one left), how
// the round ended, the solver's verdict on every move once it is over (the
// same words as the replay page: explain.js), and the link to its replay;
// below it, links to the replays of the earlier rounds this page saw end, so
// that they stay in reach (a spectator has no other way to them).
//
// It draws the state it is handed. The state it keeps is the last one it
// drew, so that verdicts that come late never land on a newer round, and the
// game id of each round it saw (the newest EARLIER_SHOWN).

import { h, replace, replaceKeepingFocus } from './dom.js';
import { markSvg } from './board.js';
import { other, firstMover } from './notation.js';
import { outcomeText, departureText } from './status.js';
import { explainGame, annotateMoves } from './explain.js';

/** @typedef {import('./protocol.js').TableState} TableState */
/** @typedef {import('./status.js').View} View */
/** @typedef {import('./status.js').Departure} Departure */

/** How many earlier rounds get a replay link: the newest ones. */
const EARLIER_SHOWN = 8;

/** Builds the panel of the moves (`el`); `render` draws a state. */
export function moveList() {
  /** @type {TableState | null} the state drawn last */
  let drawn = null;
  /** @type {Map<number, string>} round → its game id, for the rounds seen */
  const rounds = new Map();
  const earlier = h('nav.earlier-rounds', { 'aria-label': 'Earlier rounds', hidden: true });
  /** The rounds `earlier` links, so that it is redrawn only when they change. */
  let earlierKey = '';

  // Focusable: with the verdicts of a finished round it may scroll, and a
  // keyboard must reach what it scrolls.
  const list = h('ol.movelist', { id: 'moves', 'aria-label': 'Moves', tabindex: '0' });
  const replayLink = /** @type {HTMLAnchorElement} */ (h('a.btn.btn-small.btn-ghost', { 'data-link': true, hidden: true, id: 'replay-link' }, 'Open replay'));
  const el = h('section.panel.moves-panel', { 'aria-labelledby': 'h-moves' },
    h('div.panel-head', {}, h('h2', { id: 'h-moves' }, 'Moves'), replayLink),
    list,
    earlier,
  );

  /**
   * Notes the game of `table`'s round, and links the replays of the rounds
   * before it.
   * @param {TableState} table
   */
  function renderEarlier(table) {
    if (table.game_id) rounds.set(table.round, table.game_id);
    for (const r of [...rounds.keys()].sort((a, b) => a - b).slice(0, -EARLIER_SHOWN - 1)) rounds.delete(r);
    const before = [...rounds].filter(([r]) => r < table.round).sort(([a], [b]) => a - b).slice(-EARLIER_SHOWN);
    const key = before.map(([r, id]) => `${r}:${id}`).join(' ');
    if (key === earlierKey) return;
    earlierKey = key;
    earlier.hidden = before.length === 0;
    replaceKeepingFocus(earlier, before.length ? [
      h('span.earlier-label', {}, 'Earlier rounds:'),
      ...before.map(([r, id]) => h('a', {
        href: `/games/${encodeURIComponent(id)}`,
        'data-link': true,
        'aria-label': `Replay of round ${r}`,
        dataset: { focusKey: `round:${r}` },
      }, `Round ${r}`)),
    ] : []);
  }

  /**
   * Draws `table`, seen through `v` (its view); `departure`: the opponent
   * who last left, while the table waits for a new one.
   * @param {TableState} table
   * @param {View} v
   * @param {Departure | null} departure
   */
  function render(table, v, departure) {
    drawn = table;
    renderEarlier(table);
    // Waiting after an opponent left: the round they left, and how it ended.
    const left = table.status === 'waiting' && departure?.moves.length ? departure : null;
    let player = left ? left.first : firstMover(table);
    const items = (left ? left.moves : table.status === 'waiting' ? [] : table.moves).map((sq, i, moves) => {
      const li = h('li.move', { dataset: { player } },
        h('span.move-n', {}, `${i + 1}.`),
        markSvg(player, 'mini'),
        h('span.move-sq', {}, sq),
      );
      li.setAttribute('aria-label', `${i + 1}. ${player} ${sq}`);
      if (i === moves.length - 1) li.classList.add('is-last');
      player = other(player);
      return li;
    });
    if (table.status === 'round_over' && table.outcome) {
      items.push(h('li.move.move-end', {}, outcomeText(v, table.outcome)));
    } else if (left) {
      const { line, note } = departureText(v, left);
      items.push(h('li.move.move-end', {}, line));
      if (note) items.push(h('li.move.move-end.move-note', {}, note));
    }
    if (!items.length) items.push(h('li.empty', {}, table.status === 'waiting' ? 'The game starts when both seats are taken.' : 'No moves yet.'));
    replace(list, items);
    list.scrollTop = list.scrollHeight;
    // Once the round is over, the solver's verdict on every move (one
    // request per game, cached; the same words as the replay page); also
    // of a finished round that the opponent left.
    const over = table.status === 'round_over' ? table : left?.outcome ? left : null;
    if (over && over.moves.length) {
      const shown = table;
      explainGame(firstMover(over), over.moves).then((e) => {
        if (drawn !== shown) return;
        annotateMoves(list, e);
        // The verdicts make the list taller: keep its end (the result) in view.
        list.scrollTop = list.scrollHeight;
      }).catch(() => {});
    }
    const replayOf = table.status === 'round_over' ? table.game_id : left?.gameId;
    if (replayOf) {
      replayLink.href = `/games/${encodeURIComponent(replayOf)}`;
      replayLink.hidden = false;
    } else {
      replayLink.hidden = true;
    }
  }

  return { el, render };
}
