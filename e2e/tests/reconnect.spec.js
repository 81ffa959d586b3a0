// Reloads and dropped connections: the stored token brings the player back
// to the exact game, an indicator shows while offline, and the opponent sees
// the countdown to come back.

import { test, expect } from '../support/fixtures.js';
import {
  status, substatus, cell, boardOf, movesOf, play, playOutVsBot, startBotGame, chooseMove, toastEl, cuttableSocket,
} from '../support/game.js';

test('a reload in the middle of a game restores it exactly', async ({ page, server }) => {
  await startBotGame(page, { level: 'Impossible', side: 'X' });
  await expect(status(page)).toHaveText('Your turn (X)');
  await play(page, 'a1', 'X');
  await expect(page.locator('#moves li.move')).toHaveCount(2, { timeout: 15_000 });
  await expect(status(page)).toHaveText('Your turn (X)');
  const url = page.url();
  const board = await boardOf(page);
  const moves = await movesOf(page);

  await page.reload();
  await expect(page).toHaveURL(url);
  await expect(status(page)).toHaveText('Your turn (X)');
  expect(await boardOf(page)).toBe(board);
  expect(await movesOf(page)).toEqual(moves);
  await expect(page.locator('.player[data-seat="X"]')).toContainText('You');

  // The server refuses a taken cell; its message shows and nothing changes.
  await cell(page, 'a1').click();
  await expect(toastEl(page)).toHaveText(/a1.*taken|taken/i);
  expect(await boardOf(page)).toBe(board);
  await expect(status(page)).toHaveText('Your turn (X)');
  await expect(toastEl(page)).toBeHidden({ timeout: 6000 });

  // The game goes on to the end after the reload.
  const result = await playOutVsBot(page, server, 'X', 'best');
  expect(result).toBe('Draw');
});

test('a dropped connection reconnects by itself, with an offline indicator', async ({ page, server }) => {
  // Route the page's WebSocket through the test so the test can cut it.
  const net = await cuttableSocket(page);
  await startBotGame(page, { level: 'Impossible', side: 'O' });
  await expect(page.locator('#moves li.move')).toHaveCount(1, { timeout: 15_000 });
  await expect(status(page)).toHaveText('Your turn (O)');
  await expect(page.locator('#conn')).toBeHidden();

  await net.cut();
  await expect(page.locator('#conn')).toBeVisible();
  await expect(page.locator('#conn')).toHaveText(/Offline — reconnecting/);
  const board = await boardOf(page);

  net.restore();
  await expect(page.locator('#conn')).toBeHidden({ timeout: 15_000 });
  expect(await boardOf(page)).toBe(board);
  await expect(status(page)).toHaveText('Your turn (O)');
  const sq = await chooseMove(server, board, 'O', 'best');
  await play(page, sq, 'O');
  const result = await playOutVsBot(page, server, 'O', 'best');
  expect(result).toBe('Draw');
});

test('the opponent sees the countdown while a player is away', async ({ page, player }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const link = page.url();
  const bob = await player('Bob');
  await bob.goto(link);
  await expect(status(page)).toHaveText('Your turn (X)');
  await play(page, 'b2', 'X');
  await expect(status(bob)).toHaveText('Your turn (O)');

  // Bob's tab closes: Alice is told how long he has to come back.
  const bobContext = bob.context();
  await bob.close();
  await expect(status(page)).toHaveText(/^Bob is away — \d+ s to come back$/);
  await expect(page.locator('.player[data-seat="O"]')).toContainText('away');

  // Bob opens the link again in the same browser: he is back in his seat.
  const again = await bobContext.newPage();
  await again.goto(link);
  await expect(status(again)).toHaveText('Your turn (O)');
  expect(await boardOf(again)).toBe('....X....');
  await expect(status(page)).toHaveText('Waiting for Bob…');
  await expect(substatus(page)).toBeHidden();
  await play(again, 'a1', 'O');
  await expect(status(page)).toHaveText('Your turn (X)');
});

test('reconnecting tries again at least every 2 s, the pauses spread so that pages do not all come back at once', async ({ page }) => {
  await page.goto('/');
  const pauses = await page.evaluate(async () => {
    const { reconnectDelay } = await import('/js/net.js');
    const longest = Math.max(...[0, 1, 2, 3, 4, 10, 100].map((a) => reconnectDelay(a, () => 0.999999)));
    return { longest, shortest: reconnectDelay(100, () => 0), first: reconnectDelay(0, () => 0) };
  });
  // A player to move keeps 5 s after a server restarts (docs/protocol.md).
  expect(pauses.longest).toBeLessThanOrEqual(2000);
  expect(pauses.shortest).toBe(1000);
  expect(pauses.first).toBeLessThan(250);
});
