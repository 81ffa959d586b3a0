// Lists that scroll inside their box show what matters without moving the
// page: a finished round's moves end with the result in view, and a replay
// opened on a phone starts at the top of the page.

import { test, expect } from '../support/fixtures.js';
import { play, openReplay } from '../support/game.js';

/** A pass-and-play draw of all nine moves. */
const DRAW = [['a1', 'X'], ['b2', 'O'], ['c3', 'X'], ['b1', 'O'], ['b3', 'X'], ['a3', 'O'], ['c1', 'X'], ['c2', 'O'], ['a2', 'X']];

async function playDraw(page) {
  await page.goto('/');
  await page.getByRole('button', { name: 'Start pass and play' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  for (const [sq, mark] of DRAW) await play(page, sq, mark);
  await expect(page.locator('#status')).toHaveText('Draw');
}

test('a finished round shows its last moves and the result, verdicts and all', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await playDraw(page);
  const list = page.locator('.movelist').first();
  await expect(list.locator('.verdict')).not.toHaveCount(0);
  await expect(list.locator('.move-end')).toHaveText(/Draw/);
  // Scrolled to its end: the result line is inside the list's box.
  await expect.poll(() => list.evaluate((el) => el.scrollHeight - el.clientHeight - el.scrollTop)).toBeLessThan(2);
});

test('a replay opened on a phone starts at the top of the page', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 740 });
  await playDraw(page);
  await openReplay(page);
  const url = page.url();
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  await page.goto(url);
  await expect(page.locator('#position')).toHaveText('Move 9 of 9');
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
});
