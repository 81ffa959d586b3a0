// @ts-check
// What the game page says: the status line ("Your turn (X)", "Waiting for
// Alice…", "Alice wins", "Bob is away — 45 s to come back") and the line
// under it, computed from a table state and the seats we hold. Pure
// functions, so that every wording lives in one place.

import { seatedOutcome } from './outcome.js';
import { bySeat } from './notation.js';

/** @typedef {import('./protocol.js').TableState} TableState */
/** @typedef {import('./protocol.js').PlayerInfo} PlayerInfo */
/** @typedef {import('./protocol.js').Player} Player */
/** @typedef {import('./protocol.js').Outcome} Outcome */
/** @typedef {ReturnType<typeof view>} View */

/**
 * A view of one table state for wording: `table`, our `seats` ("X", "O"),
 * and how long ago (ms) the state arrived, for the countdowns.
 * @param {TableState | null} table
 * @param {Player[]} seats
 * @param {number} [elapsedMs]
 */
export function view(table, seats, elapsedMs = 0) {
  /** @param {Player} seat */
  const seatInfo = (seat) => bySeat(table?.players, seat) ?? null;
  /** @param {Player} seat */
  const who = (seat) => seatInfo(seat)?.name ?? seat;
  /** @param {number | null | undefined} ms */
  const secondsLeft = (ms) => (ms === undefined || ms === null ? null : Math.max(0, Math.ceil((ms - elapsedMs) / 1000)));
  const isPass = () => Boolean(table?.options?.pass_and_play);
  return { table, seats, seatInfo, who, secondsLeft, isPass };
}

/**
 * A player away during a round, and their time to come back: the one
 * wording of the status line and of the line under it.
 * @param {string} name
 * @param {number | null} left seconds
 */
const awayLine = (name, left) => `${name} is away — ${left} s to come back`;

/**
 * The main status line, and the line under it, for a `view`.
 * @param {View} v
 * @returns {[string, string]}
 */
export function describe(v) {
  const { table, seats, seatInfo, who, secondsLeft, isPass } = v;
  if (!table) return ['Connecting…', ''];
  const seated = seats.length > 0;
  /**
   * The seconds `seat`'s player, away, has to come back: their grace, or,
   * on their move, their move clock if it runs out first (they lose on
   * time then, back or not).
   * @param {Player} seat
   */
  const comeBackIn = (seat) => {
    const grace = secondsLeft(seatInfo(seat)?.grace_left_ms);
    const clock = table.status === 'in_progress' && table.turn === seat ? secondsLeft(table.time_left_ms) : null;
    return grace === null || clock === null ? grace : Math.min(grace, clock);
  };
  const subs = [];
  for (const seat of /** @type {Player[]} */ (['X', 'O'])) {
    const p = seatInfo(seat);
    if (!p || p.connected || seats.includes(seat)) continue;
    const left = comeBackIn(seat);
    if (table.status === 'in_progress' && left !== null) subs.push(awayLine(p.name, left));
    else subs.push(`${p.name} is away`);
  }
  switch (table.status) {
    case 'closed':
      return ['This table is closed.', ''];
    case 'waiting': {
      const host = seatInfo('X') ?? seatInfo('O');
      const line = seated ? 'Waiting for an opponent…' : host ? `${host.name} is waiting for an opponent` : 'Waiting for players…';
      return [line, subs.join(' · ')];
    }
    case 'in_progress': {
      const turn = /** @type {Player} */ (table.turn);
      const mover = seatInfo(turn);
      let line;
      if (isPass() && seats.length === 2) line = `${turn} to move`;
      else if (seats.includes(turn)) line = `Your turn (${turn})`;
      else if (mover && !mover.connected && comeBackIn(turn) !== null) {
        line = awayLine(mover.name, comeBackIn(turn));
        const dup = subs.indexOf(line);
        if (dup >= 0) subs.splice(dup, 1);
      } else if (seated) line = `Waiting for ${who(turn)}…`;
      else line = `${who(turn)} (${turn}) to move`;
      const clock = moveClock(v);
      if (clock) subs.unshift(clock.text);
      return [line, subs.join(' · ')];
    }
    case 'round_over': {
      const line = outcomeText(v, table.outcome);
      const rem = rematchText(v);
      return [line, [rem, ...subs].filter(Boolean).join(' · ')];
    }
    default:
      return ['', ''];
  }
}

/** At this many seconds left, and fewer, the move clock is urgent. */
export const URGENT_SECONDS = 5;

/**
 * The move clock of a round in play with a time per move: the `seconds`
 * left, whether that is `urgent`, and its words ("11 s left for this
 * move", "3 s left!"); null without a clock.
 * @param {View} v
 * @returns {{ seconds: number, urgent: boolean, text: string } | null}
 */
export function moveClock(v) {
  if (v.table?.status !== 'in_progress') return null;
  const seconds = v.secondsLeft(v.table.time_left_ms);
  if (seconds === null) return null;
  const urgent = seconds <= URGENT_SECONDS;
  return { seconds, urgent, text: urgent ? `${seconds} s left!` : `${seconds} s left for this move` };
}

/**
 * "You win", "Alice wins — Bob forfeited", "Draw"… (see outcome.js).
 * @param {View} v
 * @param {Outcome | null | undefined} outcome
 */
export function outcomeText(v, outcome) {
  const { seats, who, isPass } = v;
  return seatedOutcome(outcome, { seats, who, pass: isPass() && seats.length === 2 });
}

/**
 * Who wants a rematch, from our side of the table.
 * @param {View} v
 */
export function rematchText(v) {
  const { seats, seatInfo, isPass } = v;
  if (isPass()) return 'Rematch to play again';
  const mine = seats.map((s) => seatInfo(s)).filter((p) => p !== null);
  const theirs = /** @type {Player[]} */ (['X', 'O']).filter((s) => !seats.includes(s)).map((s) => seatInfo(s)).filter((p) => p !== null);
  const iWant = mine.some((p) => p.wants_rematch);
  // A bot always wants a rematch (and gives it at once): saying so is noise.
  const theyWant = theirs.filter((p) => p.wants_rematch && !p.bot);
  if (!seats.length) {
    return theyWant.length ? `${theyWant.map((p) => p.name).join(' and ')} want${theyWant.length > 1 ? '' : 's'} a rematch` : '';
  }
  if (iWant) return `Waiting for ${theirs.map((p) => p.name).join(' and ') || 'an opponent'} to accept the rematch…`;
  if (theyWant.length) return `${theyWant.map((p) => p.name).join(' and ')} wants a rematch`;
  return '';
}

/**
 * An opponent who left a table that now waits for a new one: their `name`
 * and `seat`, `won` the seat that won by their leaving a round in play
 * (null if the round was over already) and `winnerName` its player's name;
 * the round they left: who moved `first`, its `moves`, `gameId`, final
 * `board`, and its `outcome` if it was over before they left.
 * @typedef {{ name: string, seat: Player, won: Player | null, winnerName: string | null, first: Player, moves: string[],
 *   gameId: string | null | undefined, board: string, outcome: Outcome | null }} Departure
 */

/**
 * The status lines after an opponent left, and the move list's: the
 * result (`line`: the one their leaving gave, "You win — Ann left the
 * table", or that of the round they left once it was over, "Ann wins"),
 * what the status line adds under it (`sub`: that they left, if the result
 * does not say so, and who waits for whom next), and the move list's line
 * after the result (`note`), if it does not say so.
 * @param {View} v
 * @param {Departure} d
 * @returns {{ line: string, sub: string, note: string | null }}
 */
export function departureText(v, d) {
  const { seats, seatInfo, who } = v;
  const gone = `${d.name} left the table`;
  const host = seatInfo('X') ?? seatInfo('O');
  const next = seats.length ? 'Waiting for a new opponent…' : host ? `${host.name} is waiting for an opponent` : '';
  if (d.outcome) {
    const result = seatedOutcome(d.outcome, { seats, who: (s) => (s === d.seat ? d.name : who(s)), pass: false });
    return { line: result, sub: [gone, next].filter(Boolean).join(' · '), note: gone };
  }
  const line = d.won ? `${seats.includes(d.won) ? 'You win' : `${d.winnerName} wins`} — ${gone}` : gone;
  return { line, sub: next, note: null };
}
