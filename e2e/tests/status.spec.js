// The status wording (web/js/status.js) for states that are slow or awkward
// to reach in a browser: timeouts, drops, countdowns, spectators. Plain
// functions: no browser, no server.

import { test, expect } from '@playwright/test';
import { view, describe, outcomeText } from '../../web/js/status.js';
import { listedOutcome } from '../../web/js/outcome.js';

const alice = { id: 'a', name: 'Alice', connected: true, wants_rematch: false };
const bob = { id: 'b', name: 'Bob', connected: true, wants_rematch: false };

function table(extra) {
  return {
    id: 't', status: 'in_progress', options: { public: false }, players: { x: alice, o: bob },
    spectators: 0, round: 1, first: 'X', board: '.........', moves: [], move_number: 0, turn: 'X',
    scores: { x: 0, o: 0, draws: 0 }, ...extra,
  };
}

test('turns, for players and spectators', () => {
  expect(describe(view(table(), ['X']))).toEqual(['Your turn (X)', '']);
  expect(describe(view(table(), ['O']))).toEqual(['Waiting for Alice…', '']);
  expect(describe(view(table(), []))).toEqual(['Alice (X) to move', '']);
  expect(describe(view(table({ options: { pass_and_play: true }, players: { x: alice, o: alice } }), ['X', 'O'])))
    .toEqual(['X to move', '']);
  expect(describe(view(null, []))).toEqual(['Connecting…', '']);
});

test('an opponent away and the countdowns', () => {
  const away = { ...bob, connected: false, grace_left_ms: 45_000 };
  expect(describe(view(table({ turn: 'O', players: { x: alice, o: away } }), ['X'])))
    .toEqual(['Bob is away — 45 s to come back', '']);
  expect(describe(view(table({ players: { x: alice, o: away } }), ['X'], 2_500)))
    .toEqual(['Your turn (X)', 'Bob is away — 43 s to come back']);
  expect(describe(view(table({ time_left_ms: 10_000 }), ['X'], 1_000)))
    .toEqual(['Your turn (X)', '9 s left for this move']);
});

test('an opponent away on their move with a clock has the shorter of the two times to come back', () => {
  // Their move clock runs out first: they lose on time in 14 s, whatever
  // their time to come back says.
  const away = { ...bob, connected: false, grace_left_ms: 59_000 };
  expect(describe(view(table({ turn: 'O', time_left_ms: 14_000, players: { x: alice, o: away } }), ['X'])))
    .toEqual(['Bob is away — 14 s to come back', '14 s left for this move']);
  expect(describe(view(table({ turn: 'O', time_left_ms: 14_000, players: { x: alice, o: away } }), [])))
    .toEqual(['Bob is away — 14 s to come back', '14 s left for this move']);
  // The time to come back is the shorter: it stays.
  const soon = { ...bob, connected: false, grace_left_ms: 8_000 };
  expect(describe(view(table({ turn: 'O', time_left_ms: 14_000, players: { x: alice, o: soon } }), ['X'])))
    .toEqual(['Bob is away — 8 s to come back', '14 s left for this move']);
  // Away on our move: our clock is not theirs.
  expect(describe(view(table({ time_left_ms: 14_000, players: { x: alice, o: away } }), ['X'])))
    .toEqual(['Your turn (X)', '14 s left for this move · Bob is away — 59 s to come back']);
});

test('outcomes with their reasons', () => {
  const over = (outcome) => table({ status: 'round_over', turn: undefined, outcome });
  const win = (winner, reason) => ({ result: 'win', winner, reason });
  expect(outcomeText(view(over(), ['X']), win('X', 'line'))).toBe('You win');
  expect(outcomeText(view(over(), ['O']), win('X', 'line'))).toBe('Alice wins');
  expect(outcomeText(view(over(), ['X']), win('O', 'timeout'))).toBe('Bob wins — you ran out of time');
  // A drop is a lost connection that did not come back, not a choice to leave.
  expect(outcomeText(view(over(), []), win('X', 'dropped'))).toBe('Alice wins — Bob did not come back in time');
  expect(outcomeText(view(over(), ['X']), win('X', 'dropped'))).toBe('You win — Bob did not come back in time');
  expect(outcomeText(view(over(), ['X']), win('O', 'dropped'))).toBe('Bob wins — you did not come back in time');
  expect(outcomeText(view(over(), ['O']), { result: 'draw' })).toBe('Draw');
  const t = over(win('O', 'forfeit'));
  expect(describe(view(t, ['O']))).toEqual(['You win — Alice forfeited', '']);
});

test('rematch requests', () => {
  const over = (x, o) => table({ status: 'round_over', turn: undefined, outcome: { result: 'draw' }, players: { x, o } });
  const wants = (p) => ({ ...p, wants_rematch: true });
  expect(describe(view(over(wants(alice), bob), ['X']))).toEqual(['Draw', 'Waiting for Bob to accept the rematch…']);
  expect(describe(view(over(wants(alice), bob), ['O']))).toEqual(['Draw', 'Alice wants a rematch']);
  expect(describe(view(over(wants(alice), wants(bob)), []))).toEqual(['Draw', 'Alice and Bob want a rematch']);
  expect(describe(view(over(alice, { ...bob, connected: false }), ['X']))).toEqual(['Draw', 'Bob is away']);
});

test('a bot never says it wants a rematch', () => {
  const bot = { id: 'bot-perfect', name: 'Impossible', bot: 'perfect', connected: true, wants_rematch: true };
  const over = table({ status: 'round_over', turn: undefined, outcome: { result: 'draw' }, players: { x: alice, o: bot } });
  expect(describe(view(over, ['X']))).toEqual(['Draw', '']);
  expect(describe(view(over, []))).toEqual(['Draw', '']);
});

test('the lists say who did not come back after a drop', () => {
  const names = { x: 'Tess', o: 'Uma' };
  expect(listedOutcome({ result: 'win', winner: 'X', reason: 'dropped' }, names)).toBe('Tess won (Uma did not come back)');
  expect(listedOutcome({ result: 'win', winner: 'O', reason: 'forfeit' }, names)).toBe('Uma won (forfeit)');
});

test('a table waiting with one seat taken', () => {
  const waiting = (x, o) => table({ status: 'waiting', turn: undefined, players: { x, o } });
  expect(describe(view(waiting(alice, null), ['X']))).toEqual(['Waiting for an opponent…', '']);
  expect(describe(view(waiting(alice, null), []))).toEqual(['Alice is waiting for an opponent', '']);
  expect(describe(view(waiting(null, bob), []))).toEqual(['Bob is waiting for an opponent', '']);
  expect(describe(view(waiting(null, null), []))).toEqual(['Waiting for players…', '']);
});
