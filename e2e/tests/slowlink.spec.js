// A slow link: the server's answer to a move takes a second. The cell shows
// the player's mark at once, dimmed and marked as being sent, and the board
// takes no other move meanwhile (nothing is sent, nothing is said); then
// the board shows the server's state, or, if the move was refused, the cell
// is empty again and the refusal is said as always.

import { test, expect } from '../support/fixtures.js';
import { status, cell, boardOf, toastEl, startBotGame, slowSocket } from '../support/game.js';

const FAILED = 'The server failed; please try again.';

/** How many replies and states the page has been given. */
const answers = (net) => net.delivered.filter((m) => ['table', 'ok', 'error'].includes(m?.type)).length;

test('on a slow link a move shows at once as pending, and a second click sends nothing', async ({ page }) => {
  const net = await slowSocket(page);
  await startBotGame(page, { level: 'Impossible', side: 'X' });
  await expect(status(page)).toHaveText('Your turn (X)');
  await expect(cell(page, 'b2')).toHaveAttribute('aria-disabled', 'false');
  net.lag(1500);
  const heard = answers(net);

  const b2 = cell(page, 'b2');
  await b2.click();
  await expect(b2).toHaveAttribute('data-pending', 'X', { timeout: 1_000 });
  await expect(b2).toHaveAttribute('aria-busy', 'true');
  await expect(b2).toHaveAttribute('aria-label', /^b2, X, sending/);
  await expect(b2.locator('svg.pending')).toBeVisible();
  // The status line says so too, until the answer.
  await expect(status(page)).toHaveText('Sending your move (b2)…');
  expect(Number(await b2.locator('svg.pending').evaluate((el) => getComputedStyle(el).opacity))).toBeLessThan(1);
  // Not the server's yet: nothing came back.
  expect(await boardOf(page)).toBe('.........');
  expect(answers(net)).toBe(heard);
  await expect(page.locator('.board')).toHaveAttribute('data-interactive', 'false');

  // Another click, and a digit, while the move is on its way: nothing is
  // sent, nothing is said.
  await cell(page, 'a1').click({ force: true });
  await page.keyboard.press('9');
  await page.waitForTimeout(300);
  expect(answers(net)).toBe(heard);
  expect(net.sent.filter((m) => m.type === 'move').map((m) => m.cell)).toEqual(['b2']);
  await expect(toastEl(page)).toBeHidden();

  // The answer: the server's state, the move and the computer's reply.
  await expect(b2).toHaveAttribute('data-mark', 'X');
  await expect(page.locator('#moves li.move')).toHaveCount(2, { timeout: 15_000 });
  await expect(status(page)).toHaveText('Your turn (X)');
  await expect(b2).not.toHaveAttribute('data-pending', 'X');
  await expect(b2).not.toHaveAttribute('aria-busy', 'true');
  await expect(page.locator('.board svg.pending')).toHaveCount(0);
  const board = await boardOf(page);
  expect(board[4]).toBe('X');
  expect(board.replace(/\./g, '').split('').sort().join('')).toBe('OX');
  await expect(toastEl(page)).toBeHidden();
  expect(net.sent.filter((m) => m.type === 'move')).toHaveLength(1);
});

test('a move refused on a slow link leaves its cell empty again and says why', async ({ page }) => {
  const net = await slowSocket(page);
  await startBotGame(page, { level: 'Impossible', side: 'X' });
  await expect(status(page)).toHaveText('Your turn (X)');
  await expect(cell(page, 'b2')).toHaveAttribute('aria-disabled', 'false');
  net.lag(1_000);
  net.refuse('move', 'internal', FAILED);

  const b2 = cell(page, 'b2');
  await b2.click();
  await expect(b2).toHaveAttribute('data-pending', 'X', { timeout: 1_000 });
  await expect(toastEl(page)).toHaveText(FAILED);
  await expect(b2).not.toHaveAttribute('data-pending', 'X');
  await expect(b2).not.toHaveAttribute('aria-busy', 'true');
  await expect(b2).toHaveAttribute('aria-label', 'b2, empty');
  await expect(page.locator('.board svg.pending')).toHaveCount(0);
  expect(await boardOf(page)).toBe('.........');
  // The move can be played again.
  await expect(page.locator('.board')).toHaveAttribute('data-interactive', 'true');
  await expect(status(page)).toHaveText('Your turn (X)');
});
