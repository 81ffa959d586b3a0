// Pass and play: two people on one screen, one table where the same player
// holds both seats.

import { test, expect } from '../support/fixtures.js';
import { status, winCellsOf, play } from '../support/game.js';

test('a pass-and-play game and its rematch', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Start pass and play' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  await expect(status(page)).toHaveText('X to move');
  await expect(page.locator('.table-meta')).toContainText('Pass and play');
  await expect(page.locator('#share')).toBeHidden();

  const script = [['a1', 'X'], ['b1', 'O'], ['b2', 'X'], ['c1', 'O'], ['c3', 'X']];
  for (const [sq, mark] of script) {
    await expect(status(page)).toHaveText(`${mark} to move`);
    await play(page, sq, mark);
  }
  await expect(status(page)).toHaveText('X wins');
  expect((await winCellsOf(page)).sort()).toEqual(['a1', 'b2', 'c3']);
  await expect(page.locator('.player[data-seat="X"] .player-score')).toHaveText('1');

  // One click on Rematch: O starts round 2 (the starter alternates).
  await page.getByRole('button', { name: 'Rematch' }).click();
  await expect(page.locator('.table-meta')).toContainText('Round 2');
  await expect(status(page)).toHaveText('O to move');
  await play(page, 'b2', 'O');
  await expect(status(page)).toHaveText('X to move');
  await expect(page.locator('.player[data-seat="X"] .player-score')).toHaveText('1');
});
