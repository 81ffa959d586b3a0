// One player, two tabs of one browser (one stored token): the player
// leaves a table in one tab. The server sends the player's other
// connections at the table its state without the player, and the tab that
// left tells the browser's other tabs too (tabs.js): the other tab says
// that the player left the table in another tab or window, with the way
// home, and no longer lists the table among the player's games. Tried at a
// table waiting for an opponent, at a round in play, at a finished round,
// leaving for a new game against the computer, and from another browser
// with the same token (the server's state alone). Going home in one tab
// keeps the seat: the other tab plays on.

import { test, expect } from '../support/fixtures.js';
import { status, substatus, play, aliceAndBob, startBotGame } from '../support/game.js';

/**
 * Alice's table in the state `when` names, opened in `page`; returns
 * its link.
 */
async function aliceAt(when, page, player) {
  if (when === 'waiting') {
    await page.goto('/');
    await page.getByRole('button', { name: 'Create a table' }).click();
    await expect(page).toHaveURL(/\/t\/[^/]+$/);
    await expect(status(page)).toHaveText('Waiting for an opponent…');
    return { link: page.url(), line: 'Waiting for an opponent…' };
  }
  const { bob, link } = await aliceAndBob(page, player);
  if (when === 'in play') return { link, line: 'Your turn (X)', bob };
  for (const [p, sq, mark] of [[page, 'a1', 'X'], [bob, 'b1', 'O'], [page, 'b2', 'X'], [bob, 'c1', 'O'], [page, 'c3', 'X']]) {
    await play(p, sq, mark);
  }
  await expect(status(page)).toHaveText('You win');
  return { link, line: 'You win', bob };
}

/** Says in the other tab that the player left, and goes home from there. */
async function toldLeft(other) {
  await expect(other.getByRole('heading', { level: 1 })).toHaveText('You left this table');
  await expect(other.getByText('You left this table in another tab or window.')).toBeVisible();
  await expect(other.locator('.board')).toHaveCount(0);
  await other.getByRole('link', { name: 'Go to the home page' }).click();
  await expect(other).toHaveURL(/\/$/);
  await expect(other.locator('#lobby')).not.toContainText('Loading');
  // Not among the player's games any more.
  await expect(other.locator('#my-tables a[href]')).toHaveCount(0);
}

const TABLES = { waiting: 'a table waiting for an opponent', 'in play': 'a round in play', finished: 'a finished round' };

for (const [when, what] of Object.entries(TABLES)) {
  test(`a player who leaves ${what} in one tab is told so in the other`, async ({ page, context, player }) => {
    const { link, line, bob } = await aliceAt(when, page, player);
    const other = await context.newPage();
    await other.goto(link);
    await expect(status(other)).toHaveText(line);

    await page.locator('#leave').click();
    if (when === 'in play') await page.getByRole('button', { name: 'Leave and forfeit?' }).click();
    await expect(page).toHaveURL(/\/$/);
    await toldLeft(other);
    if (!bob) return;
    // A finished round keeps its result; that Alice left is said under it.
    if (when === 'finished') {
      await expect(substatus(bob)).toHaveText(/^Alice left the table/);
      await expect(status(bob)).toHaveText('Alice wins');
    } else {
      await expect(status(bob)).toHaveText(/^(You win — Alice left the table|Alice left the table)$/);
    }
  });
}

test('a player who leaves for a new game in one tab is told so in the other', async ({ page, context }) => {
  await startBotGame(page, { level: 'Impossible', side: 'X' });
  await expect(status(page)).toHaveText('Your turn (X)');
  const link = page.url();
  const other = await context.newPage();
  await other.goto(link);
  await expect(status(other)).toHaveText('Your turn (X)');

  // In a round in play it asks to be sure.
  await page.locator('#new-game').click();
  await page.getByRole('button', { name: 'Forfeit and start a new game?' }).click();
  await expect(page).not.toHaveURL(link);
  await expect(status(page)).toHaveText('Your turn (X)');
  await toldLeft(other);
});

test('a player who goes home in one tab keeps the seat, and plays on in the other', async ({ page, context, player }) => {
  const { link, line, bob } = await aliceAt('in play', page, player);
  const other = await context.newPage();
  await other.goto(link);
  await expect(status(other)).toHaveText(line);

  await page.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(page).toHaveURL(/\/$/);
  await expect(page.locator('#my-tables a[href]')).toHaveCount(1);
  await play(other, 'b2', 'X');
  await expect(status(bob)).toHaveText('Your turn (O)');
  await expect(other.getByRole('heading', { level: 1 })).toHaveText('Game');
});

test('a player who leaves in another browser is told so too (by the server)', async ({ page, context, browser, baseURL, player }) => {
  const { link, line, bob } = await aliceAt('in play', page, player);
  // The same player (the same stored token) in a browser of its own: no
  // BroadcastChannel reaches it, only the server's state.
  const elsewhere = await browser.newContext({ baseURL, storageState: await context.storageState() });
  try {
    const other = await elsewhere.newPage();
    await other.goto(link);
    await expect(status(other)).toHaveText(line);

    await page.locator('#leave').click();
    await page.getByRole('button', { name: 'Leave and forfeit?' }).click();
    await expect(page).toHaveURL(/\/$/);
    await toldLeft(other);
    await expect(status(bob)).toHaveText(/^(You win — Alice left the table|Alice left the table)$/);
  } finally {
    await elsewhere.close();
  }
});
