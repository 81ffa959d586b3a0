// @ts-check
// How a round ended, in words: the one home of that wording. The game page
// says it from where the reader sits ("You win — Bob forfeited"), the
// replay for anyone ("Alice (X) wins — three in a row: a1 b1 c1"), the home
// page's lists in brief ("Alice won (forfeit)"), and the solver's summary
// borrows the loser's verb ("When O forfeited, …"). Pure functions (the e2e
// tests run them in Node).

import { other } from './notation.js';

/** @typedef {import('./protocol.js').Outcome} Outcome */
/** @typedef {import('./protocol.js').Player} Player */

/**
 * Per way to win: what the loser did, and the tag of a list entry. A line
 * says neither.
 * @type {Record<string, { verb: string, tag: string } | undefined>}
 */
const REASONS = {
  forfeit: { verb: 'forfeited', tag: 'forfeit' },
  // A drop is a player away (connection lost, or back to the home page) and
  // not back within the grace period; leaving on purpose is a forfeit.
  dropped: { verb: 'did not come back in time', tag: 'did not come back' },
  timeout: { verb: 'ran out of time', tag: 'time' },
};

/**
 * What the loser of a round did: "forfeited", "did not come back in time",
 * "ran out of time";
 * null for a line, a draw or no outcome.
 * @param {Outcome | null | undefined} outcome
 * @returns {string | null}
 */
export function loserVerb(outcome) {
  return outcome?.result === 'win' ? REASONS[outcome.reason]?.verb ?? null : null;
}

/**
 * "Draw", or the winner's words with what the loser did after a dash.
 * @param {Outcome} outcome
 * @param {(winner: Player) => string} wins the winner's words ("You win")
 * @param {(loser: Player) => string} loser how the loser is named
 * @param {(cells: string[]) => string} [line] what a line win adds, if anything
 */
function sentence(outcome, wins, loser, line = () => '') {
  if (outcome.result === 'draw') return 'Draw';
  const verb = loserVerb(outcome);
  const reason = verb ? `${loser(other(outcome.winner))} ${verb}` : outcome.reason === 'line' ? line(outcome.cells) : '';
  const said = wins(outcome.winner);
  return reason ? `${said} — ${reason}` : said;
}

/**
 * The game page's words, for a reader who holds `seats`: "You win", "Alice
 * wins — you ran out of time", "X wins" in pass and play, "Draw".
 * @param {Outcome | null | undefined} outcome
 * @param {{ seats: string[], who: (seat: Player) => string, pass: boolean }} reader
 *   `who` names a seat's player; `pass`: one screen, both seats
 */
export function seatedOutcome(outcome, { seats, who, pass }) {
  if (!outcome) return 'Round over';
  return sentence(
    outcome,
    (winner) => (pass ? `${winner} wins` : seats.includes(winner) ? 'You win' : `${who(winner)} wins`),
    (loser) => (pass ? loser : seats.includes(loser) ? 'you' : who(loser)),
  );
}

/**
 * A recorded game's outcome for anyone: "Alice (X) wins — three in a row:
 * a1 b1 c1", "Bob (O) wins — Alice did not come back in time", "Draw",
 * "Not finished yet".
 * @param {Outcome | null | undefined} outcome
 * @param {{ x?: { name: string } | null, o?: { name: string } | null }} players
 */
export function recordOutcome(outcome, players) {
  if (!outcome) return 'Not finished yet';
  /** @param {Player} seat */
  const name = (seat) => (seat === 'X' ? players.x : players.o)?.name ?? seat;
  return sentence(
    outcome,
    (winner) => `${name(winner)} (${winner}) wins`,
    name,
    (cells) => `three in a row: ${(cells ?? []).join(' ')}`,
  );
}

/**
 * A list entry's outcome, in brief: "Alice won", "Bob won (time)", "Alice
 * won (Bob did not come back)", "Draw", "In progress".
 * @param {Outcome | null | undefined} outcome
 * @param {{ x: string, o: string }} names the players' names
 */
export function listedOutcome(outcome, names) {
  if (!outcome) return 'In progress';
  if (outcome.result === 'draw') return 'Draw';
  const winner = outcome.winner === 'X' ? names.x : names.o;
  const loser = outcome.winner === 'X' ? names.o : names.x;
  let tag = REASONS[outcome.reason]?.tag;
  // "did not come back" alone would read as the winner's: it names the loser.
  if (outcome.reason === 'dropped') tag = `${loser} ${tag}`;
  return `${winner} won${tag ? ` (${tag})` : ''}`;
}
