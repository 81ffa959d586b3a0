// The replay explains the game with the solver's values: a verdict on every
// log line (words and a symbol, not only a colour), the better moves of a
// mistake on the board, and a summary of where the game was decided. Then
// the wording for endings that are awkward to reach in a browser.

import { test, expect } from '../support/fixtures.js';
import { boardOf, cell, play } from '../support/game.js';
import { summarySentence, betterText, cellList } from '../../web/js/explain.js';

/** The log's verdicts as "symbol words", in ply order. */
async function verdictsOf(page) {
  return page.locator('#log li.move[data-ply]:not([data-ply="0"])').evaluateAll((lis) =>
    lis.map((li) => {
      const v = li.querySelector('.verdict');
      return v ? `${v.querySelector('.verdict-sym').textContent} ${v.querySelector('.verdict-words').textContent}` : '';
    }));
}

/** The squares marked as better moves on the board. */
async function betterOf(page) {
  return page.locator('.board .cell.is-better').evaluateAll((cells) => cells.map((c) => c.dataset.square));
}

test('the replay judges every move and says where the game was decided', async ({ page }) => {
  // X b2, O a1, X b1, O c1?? (only b3 held the draw), X a2 (a win kept:
  // b3 won at once), O c2 (lost anyway), X a3?? (b3 won), O b3?! (c3 won),
  // X c3: a draw.
  const line = ['b2', 'a1', 'b1', 'c1', 'a2', 'c2', 'a3', 'b3', 'c3'];
  await page.goto('/');
  await page.getByRole('button', { name: 'Start pass and play' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  for (const [i, sq] of line.entries()) await play(page, sq, i % 2 ? 'O' : 'X');

  const explainRequests = [];
  page.on('request', (req) => {
    if (req.url().includes('/api/analyze')) explainRequests.push(req.url());
  });
  await page.getByRole('link', { name: 'Open replay' }).click();
  await expect(page).toHaveURL(/\/games\/[^/?]+/);
  await expect(page.locator('#outcome')).toHaveText('Draw');
  await expect(page.locator('#summary')).toHaveText(
    'O lost it on move 4: c1 instead of b3. '
    + 'Then X turned a win into a loss on move 7: a3 instead of b3; '
    + 'then O threw away the win on move 8: b3 instead of c3.',
  );
  await expect(page.locator('#log li.move[data-verdict]')).toHaveCount(9);
  expect(await verdictsOf(page)).toEqual([
    '✓ kept the draw',
    '✓ kept the draw',
    '✓ kept the draw',
    '?? blunder',
    '✓ kept the win',
    '– lost anyway',
    '?? blunder',
    '?! threw the win',
    '✓ kept the draw',
  ]);
  await expect(page.locator('#log li[data-ply="4"] .verdict')).toHaveClass(/verdict-blunder/);
  await expect(page.getByRole('button', { name: /^O: 4\. c1 .*blunder.*better: b3$/ })).toBeVisible();

  // The blunder's ply: the board shows b3, the move that kept the draw.
  await page.getByRole('button', { name: /^O: 4\. c1\b/ }).click();
  await expect(page.locator('#position')).toHaveText('Move 4 of 9');
  expect(await boardOf(page)).toBe('OXO.X....');
  await expect.poll(() => betterOf(page)).toEqual(['b3']);
  await expect(cell(page, 'b3')).toHaveAttribute('aria-label', 'b3, empty, better move for O');
  await expect(page.locator('#better')).toContainText('O c1: blunder');
  await expect(page.locator('#better .better-text')).toHaveText('Better: b3');
  await expect(page.locator('#better .better-swatch')).toBeVisible();
  await expect(page.locator('#announcer')).toContainText('Move 4 of 9: O c1 — blunder');

  // A kept move marks nothing and names the alternatives.
  await page.keyboard.press('ArrowRight');
  await expect(page.locator('#position')).toHaveText('Move 5 of 9');
  await expect.poll(() => betterOf(page)).toEqual([]);
  await expect(page.locator('#better .better-text')).toHaveText('Also kept the win: c2, b3');
  await page.keyboard.press('ArrowRight');
  await expect(page.locator('#better .better-text')).toHaveText('Every move lost here');
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => betterOf(page)).toEqual(['b3']);
  await expect(page.locator('#better')).toContainText('X a3: blunder');
  await page.keyboard.press('ArrowRight');
  await expect.poll(() => betterOf(page)).toEqual(['c3']);
  await expect(page.locator('#better .better-text')).toHaveText('Better: c3');
  await expect(page.locator('#better .verdict')).toHaveClass(/verdict-threw/);
  await page.keyboard.press('Home');
  await expect.poll(() => betterOf(page)).toEqual([]);

  // One request explained the whole game; stepping asked for nothing more.
  // One request for the whole game, at most: the game page already asked
  // for it when the round ended, and the answer is kept.
  expect(explainRequests.length).toBeLessThanOrEqual(1);
  for (const url of explainRequests) expect(url).toContain('/api/analyze/game?first=X&moves=b2,a1,b1,c1,a2,c2,a3,b3,c3');
});

// The wording, as plain functions: endings off the board, perfect games.
const ply = (n, player, cell, verdict, before, best) => ({
  ply: n, player, cell, verdict, before: { result: before, plies: 1 }, after: { result: before, plies: 1 }, best,
});
const draws = [ply(1, 'X', 'b2', 'kept_draw', 'draw', ['b2']), ply(2, 'O', 'a1', 'kept_draw', 'draw', ['a1', 'c1', 'a3', 'c3'])];
const explained = (moves, final) => ({ first: 'X', moves, decided: null, final });
const drawNow = { position: 'O...X....', turn: 'X', value: { result: 'draw', plies: 7 } };

test('summaries of perfect, unfinished and abandoned games', () => {
  expect(summarySentence(explained(draws, { ...drawNow, value: { result: 'draw', plies: 0 } }), { result: 'draw' }))
    .toBe('Perfect game: a draw all the way.');
  expect(summarySentence(explained(draws, drawNow), null))
    .toBe('No mistakes so far: a draw all the way. Now the position is a draw.');
  expect(summarySentence(explained(draws, drawNow), { result: 'win', winner: 'O', reason: 'timeout' }))
    .toBe('No mistakes: a draw all the way. When X ran out of time, the position was a draw.');
  expect(summarySentence(explained([], { position: '.........', turn: 'X', value: { result: 'draw', plies: 9 } }),
    { result: 'win', winner: 'O', reason: 'forfeit' }))
    .toBe('No moves were played. When X forfeited, the position was a draw.');

  // O blunders, then X (winning) leaves: the value at the end says so.
  const blunder = [...draws.slice(0, 1), ply(2, 'O', 'b1', 'blunder', 'draw', ['a1', 'c1', 'a3', 'c3'])];
  const xWins = { position: '.O..X....', turn: 'X', value: { result: 'win', plies: 5 } };
  expect(summarySentence(explained(blunder, xWins), { result: 'win', winner: 'O', reason: 'dropped' }))
    .toBe('O lost it on move 2: b1 instead of a1, c1, a3 or c3. When X did not come back in time, X was winning.');
  expect(summarySentence(explained(blunder, { ...xWins, turn: 'O', value: { result: 'loss', plies: 4 } }),
    { result: 'win', winner: 'X', reason: 'forfeit' }))
    .toBe('O lost it on move 2: b1 instead of a1, c1, a3 or c3. When O forfeited, X was winning.');
});

test('better-move lines and lists', () => {
  expect(cellList(['b2'])).toBe('b2');
  expect(cellList(['b2', 'a1'])).toBe('b2 or a1');
  expect(betterText(ply(2, 'O', 'b1', 'blunder', 'draw', ['b2', 'a1']))).toBe('Better: b2, a1');
  expect(betterText(ply(3, 'X', 'c3', 'kept_draw', 'draw', ['c3']))).toBe('Only c3 kept the draw');
  expect(betterText(ply(5, 'X', 'a2', 'threw_win', 'win', ['b3']))).toBe('Better: b3');
});
