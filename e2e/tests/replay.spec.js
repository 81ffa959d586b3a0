// The replay page steps through a finished game: buttons, arrow keys, the
// log, and a link anyone can open.

import { test, expect } from '../support/fixtures.js';
import { cell, boardOf, play, winCellsOf } from '../support/game.js';

test('the replay page steps through a finished game', async ({ page, player }) => {
  await replayOfAWin(page);
  await expect(page).toHaveURL(/\/games\/[^/?]+/);

  const position = page.locator('#position');
  const outcome = page.locator('#outcome');
  await expect(outcome).toHaveText('Player X (X) wins — three in a row: a1 b2 c3');
  await expect(position).toHaveText('Move 5 of 5');
  expect(await boardOf(page)).toBe('XOO.X...X');
  expect((await winCellsOf(page)).sort()).toEqual(['a1', 'b2', 'c3']);
  await expect(page.locator('.winline line.winstroke')).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Forward', exact: true })).toBeDisabled();
  await expect(page.locator('#log li')).toHaveCount(7);

  // Home / End and the arrow keys.
  await page.keyboard.press('Home');
  await expect(position).toHaveText('Start — 5 moves');
  expect(await boardOf(page)).toBe('.........');
  await expect(page.getByRole('button', { name: 'Back', exact: true })).toBeDisabled();
  await page.keyboard.press('ArrowRight');
  await expect(position).toHaveText('Move 1 of 5');
  expect(await boardOf(page)).toBe('X........');
  await expect(cell(page, 'a1')).toHaveClass(/is-last/);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(position).toHaveText('Move 3 of 5');
  expect(await boardOf(page)).toBe('XO..X....');
  await page.keyboard.press('ArrowLeft');
  await expect(position).toHaveText('Move 2 of 5');
  await expect(page).toHaveURL(/\?ply=2$/);
  expect(await winCellsOf(page)).toEqual([]);

  // The buttons, and the log in sync.
  await page.getByRole('button', { name: 'Forward', exact: true }).click();
  await expect(position).toHaveText('Move 3 of 5');
  await expect(page.locator('#log li.is-current')).toHaveAttribute('data-ply', '3');
  await page.getByRole('button', { name: 'First', exact: true }).click();
  await expect(position).toHaveText('Start — 5 moves');
  await expect(page.locator('#log li.is-current')).toHaveAttribute('data-ply', '0');
  await page.getByRole('button', { name: 'Last', exact: true }).click();
  await expect(position).toHaveText('Move 5 of 5');
  await page.getByRole('button', { name: /^O: 4\. c1\b/ }).click();
  await expect(position).toHaveText('Move 4 of 5');
  expect(await boardOf(page)).toBe('XOO.X....');
  await page.keyboard.press('End');
  await expect(position).toHaveText('Move 5 of 5');
  await expect(page.locator('#announcer')).toContainText('Player X (X) wins');

  // Anyone can open the link, at a given move too.
  const gameUrl = page.url().replace(/\?.*$/, '');
  const stranger = await player('Stranger');
  await stranger.goto(`${gameUrl}?ply=1`);
  await expect(stranger.locator('#position')).toHaveText('Move 1 of 5');
  await expect(stranger.locator('#outcome')).toHaveText('Player X (X) wins — three in a row: a1 b2 c3');
  await stranger.getByRole('button', { name: 'Last', exact: true }).click();
  expect(await boardOf(stranger)).toBe('XOO.X...X');
});

test('a replay link whose move is not a whole number opens the game at its end', async ({ page, player }) => {
  await replayOfAWin(page);
  await expect(page).toHaveURL(/\/games\/[^/?]+/);
  const gameUrl = page.url().replace(/\?.*$/, '');

  // A hand-edited or cut link: the game shows, at its end, and stepping
  // works from there.
  const stranger = await player('Stranger');
  for (const ply of ['2.5', 'abc', '', '1e1']) {
    await stranger.goto(`${gameUrl}?ply=${ply}`);
    await expect(stranger.locator('#position'), `?ply=${ply}`).toHaveText('Move 5 of 5');
    await expect(stranger.locator('#outcome')).toHaveText('Player X (X) wins — three in a row: a1 b2 c3');
  }
  await stranger.getByRole('button', { name: 'Back', exact: true }).click();
  await expect(stranger.locator('#position')).toHaveText('Move 4 of 5');
  expect(await boardOf(stranger)).toBe('XOO.X....');
  // A whole number past either end goes to that end.
  await stranger.goto(`${gameUrl}?ply=-3`);
  await expect(stranger.locator('#position')).toHaveText('Start — 5 moves');
  await stranger.goto(`${gameUrl}?ply=99`);
  await expect(stranger.locator('#position')).toHaveText('Move 5 of 5');
});

test('stepping to either end with the buttons keeps the focus on the button pressed', async ({ page }) => {
  await replayOfAWin(page);
  const position = page.locator('#position');
  await expect(position).toHaveText('Move 5 of 5');

  // A keyboard user presses First: the replay is at its start, and the
  // focus stays where it was (not dropped on the page, where a screen
  // reader starts over from the top).
  const first = page.getByRole('button', { name: 'First', exact: true });
  await first.focus();
  await page.keyboard.press('Enter');
  await expect(position).toHaveText('Start — 5 moves');
  await expect(first).toBeFocused();
  await expect(first).toBeDisabled();
  // Pressed again at the start it does nothing.
  await page.keyboard.press('Enter');
  await expect(position).toHaveText('Start — 5 moves');

  // Forward, pressed to the end.
  const forward = page.getByRole('button', { name: 'Forward', exact: true });
  await forward.focus();
  for (let i = 1; i <= 5; i += 1) {
    await page.keyboard.press('Enter');
    await expect(position).toHaveText(`Move ${i} of 5`);
  }
  await expect(forward).toBeFocused();
  await expect(forward).toBeDisabled();
  await page.keyboard.press('Enter');
  await expect(position).toHaveText('Move 5 of 5');
  // Tab goes on from there, to Last.
  await page.keyboard.press('Tab');
  await expect(page.getByRole('button', { name: 'Last', exact: true })).toBeFocused();
});

/** Plays X to a win on the diagonal in pass and play, then opens its replay. */
async function replayOfAWin(page) {
  await page.goto('/');
  await page.getByRole('button', { name: 'Start pass and play' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  for (const [sq, mark] of [['a1', 'X'], ['b1', 'O'], ['b2', 'X'], ['c1', 'O'], ['c3', 'X']]) {
    await play(page, sq, mark);
  }
  await page.getByRole('link', { name: 'Open replay' }).click();
}

test('a replay opened while the server cannot send it loads by itself once it can', async ({ page, player, problems }) => {
  await replayOfAWin(page);
  const gameUrl = page.url().replace(/\?.*$/, '');
  const gameId = gameUrl.split('/games/')[1];

  // The server is restarting: its API answers 503 for a while.
  const stranger = await player('Stranger');
  let down = true;
  await stranger.route(`**/api/games/${gameId}`, (route) => (down
    ? route.fulfill({ status: 503, contentType: 'application/json', body: '{"error":"The server is starting"}' })
    : route.continue()));
  await stranger.goto(gameUrl);
  await expect(stranger.getByRole('heading', { level: 1 })).toHaveText('Could not load the game');
  await expect(stranger.locator('main')).toContainText('tries again by itself');

  down = false;
  await expect(stranger.locator('#position')).toHaveText('Move 5 of 5', { timeout: 15_000 });
  await expect(stranger.locator('#outcome')).toHaveText('Player X (X) wins — three in a row: a1 b2 c3');
  for (let i = problems.length - 1; i >= 0; i -= 1) {
    if (/HTTP 503|status of 503/.test(problems[i])) problems.splice(i, 1);
  }
});

test('the replay share link points at the move shown', async ({ page, player }) => {
  await replayOfAWin(page);
  const share = page.getByRole('textbox', { name: 'Link to this replay' });
  await expect(share).toHaveValue(/\/games\/[^/?]+\?ply=5$/);
  await page.keyboard.press('Home');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(page.locator('#position')).toHaveText('Move 2 of 5');
  await expect(share).toHaveValue(/\?ply=2$/);
  expect(await share.inputValue()).toBe(page.url());

  // Whoever opens it sees that move.
  const friend = await player('Friend');
  await friend.goto(await share.inputValue());
  await expect(friend.locator('#position')).toHaveText('Move 2 of 5');
  expect(await boardOf(friend)).toBe('XO.......');
});
