// Earlier rounds stay in reach: once the next round starts, the game page
// links to the replay of each round it has seen end, for the players and
// for those who watch.

import { test, expect } from '../support/fixtures.js';
import { status, play, toastEl } from '../support/game.js';

test('players and spectators keep a replay link to each earlier round', async ({ page, player }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Start pass and play' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const carol = await player('Carol');
  await carol.goto(page.url());
  await expect(toastEl(carol)).toHaveText(/watching/i);

  for (const [sq, mark] of [['a1', 'X'], ['b1', 'O'], ['b2', 'X'], ['c1', 'O'], ['c3', 'X']]) {
    await play(page, sq, mark);
  }
  await expect(status(carol)).toHaveText(/X wins/);
  const round1 = await page.getByRole('link', { name: 'Open replay' }).getAttribute('href');
  expect(round1).toMatch(/^\/games\/[0-9a-f]+$/);

  await page.getByRole('button', { name: 'Rematch' }).click();
  await expect(carol.locator('.table-meta')).toContainText('Round 2');
  for (const who of [page, carol]) {
    const earlier = who.getByRole('navigation', { name: 'Earlier rounds' });
    await expect(earlier.getByRole('link', { name: 'Replay of round 1' })).toHaveAttribute('href', round1);
  }

  // It opens the replay of that round.
  await carol.getByRole('link', { name: 'Replay of round 1' }).click();
  await expect(carol).toHaveURL(new RegExp(`${round1}$`));
  await expect(carol.locator('#position')).toHaveText('Move 5 of 5');
});
