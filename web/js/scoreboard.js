// @ts-check
// The game page's scoreboard: a card per seat (its mark, the player's name,
// what they are doing, their score) with the draws between them, and the
// line at the head of the page that tells the round, pass and play, and how
// many watch.
//
// It draws the state it is handed and holds none: it sends nothing, and
// learns our seats from the view (status.js) the page gives it.

import { h } from './dom.js';
import { markSvg } from './board.js';
import { winnerOf } from './notation.js';

/** @typedef {import('./protocol.js').TableState} TableState */
/** @typedef {import('./protocol.js').Player} Player */
/** @typedef {import('./status.js').View} View */

/**
 * A seat's card in the scoreboard: its mark, name, what it is doing, score.
 * @param {Player} seat
 */
function playerCard(seat) {
  const name = h('span.player-name', {}, '—');
  const sub = h('span.player-sub', {}, '');
  const score = h('span.player-score', {}, '0');
  const el = h('div.player', { role: 'group', dataset: { seat } },
    h('span.player-mark', {}, markSvg(seat, 'badge')),
    h('span.player-info', {}, name, sub),
    score,
  );
  return { el, name, sub, score };
}

/**
 * Builds the scoreboard (`el`) and the table's meta line (`meta`, which the
 * page puts in its head); `render` draws a state.
 */
export function scoreboard() {
  const cards = { X: playerCard('X'), O: playerCard('O') };
  const draws = h('span.draws-n', {}, '0');
  const meta = h('p.table-meta', {});
  const el = h('div.scoreboard', { id: 'scoreboard', 'aria-label': 'Scoreboard', role: 'group' },
    cards.X.el,
    h('div.draws', {}, draws, h('span.draws-label', {}, 'draws')),
    cards.O.el,
  );

  /**
   * Draws `table`, seen through `v` (its view, for our seats).
   * @param {TableState} table
   * @param {View} v
   */
  function render(table, v) {
    const { seats, seatInfo, isPass } = v;
    for (const seat of /** @type {Player[]} */ (['X', 'O'])) {
      const card = cards[seat];
      const p = seatInfo(seat);
      card.name.textContent = !p ? 'Open seat' : isPass() ? `Player ${seat}` : p.name;
      const bits = [];
      if (seats.includes(seat) && !isPass()) bits.push('You');
      // The bot's name is its level ("Impossible"), as the player chose it.
      if (p?.bot) bits.push('computer');
      if (p && !p.bot && !p.connected) bits.push('away');
      // A bot always wants a rematch: saying so is noise.
      if (p?.wants_rematch && !p.bot && table.status === 'round_over') bits.push('wants a rematch');
      // A closed table has nobody waiting at its open seats.
      if (!p && table.status !== 'closed') bits.push('waiting');
      card.sub.textContent = bits.join(' · ');
      const score = seat === 'X' ? table.scores.x : table.scores.o;
      card.score.textContent = String(score);
      card.score.setAttribute('aria-label', `${score} ${score === 1 ? 'win' : 'wins'}`);
      card.el.classList.toggle('is-turn', table.status === 'in_progress' && table.turn === seat);
      card.el.classList.toggle('is-me', seats.includes(seat) && !isPass());
      card.el.classList.toggle('is-empty', !p);
      card.el.classList.toggle('is-offline', Boolean(p && !p.connected));
      card.el.classList.toggle('is-winner', table.status === 'round_over' && winnerOf(table.outcome) === seat);
      card.el.setAttribute('aria-label', `${seat}: ${p ? p.name : 'open seat'}${bits.length ? ` (${bits.join(', ')})` : ''}, ${score} ${score === 1 ? 'win' : 'wins'}`);
    }
    draws.textContent = String(table.scores.draws);
    const parts = [`Round ${table.round}`];
    if (isPass()) parts.push('Pass and play');
    if (table.spectators > 0) parts.push(`${table.spectators} watching`);
    meta.textContent = parts.join(' · ');
    meta.dataset.spectators = String(table.spectators);
  }

  return { el, meta, render };
}
