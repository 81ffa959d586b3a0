// A player who goes back to the home page in the middle of a game keeps
// the seat, and the opponent is told they are away and how long they have
// to come back (`step_away`); coming back to the game puts them back.
// The same from a table still waiting for an opponent: whoever joins
// meanwhile is told. Against the computer there is nobody to tell, and
// nothing changes.

import { test, expect } from '../support/fixtures.js';
import { status, substatus, play, boardOf, startBotGame, aliceAndBob, armForfeit } from '../support/game.js';

test('the opponent sees a player who went home as away, then back', async ({ page, player }) => {
  const { bob } = await aliceAndBob(page, player);
  await play(page, 'b2', 'X');
  await expect(status(bob)).toHaveText('Your turn (O)');

  await bob.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(bob.locator('#my-tables')).toContainText('Alice');
  // The home page says the round runs on without him.
  await expect(bob.locator('#my-tables .row-urgent')).toHaveText('Still running: come back soon, or the round is lost');
  await expect(status(page)).toHaveText(/^Bob is away — \d+ s to come back$/);
  await expect(page.locator('.player[data-seat="O"]')).toContainText('away');

  // Bob goes back to the game from the home page: he is in his seat.
  await bob.locator('#my-tables').getByRole('link', { name: 'Continue' }).click();
  await expect(status(bob)).toHaveText('Your turn (O)');
  expect(await boardOf(bob)).toBe('....X....');
  await expect(status(page)).toHaveText('Waiting for Bob…');
  await expect(substatus(page)).toBeHidden();
  await play(bob, 'a1', 'O');
  await expect(status(page)).toHaveText('Your turn (X)');
});

test('going home from a game against the computer steps away from nothing', async ({ page }) => {
  /** @type {string[]} */
  const sent = [];
  page.on('websocket', (ws) => ws.on('framesent', (f) => sent.push(String(f.payload))));
  await startBotGame(page);
  await play(page, 'b2', 'X');
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(page.locator('#my-tables')).toContainText('Impossible');
  // Nothing runs on against the computer.
  await expect(page.locator('#my-tables .row-urgent')).toHaveCount(0);
  await expect.poll(() => sent.some((f) => f.includes('"watch_lobby"'))).toBe(true);
  expect(sent.filter((f) => f.includes('"step_away"'))).toEqual([]);
});

test('a player who went home from a waiting table is away once someone joins', async ({ page, player }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const link = page.url();
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(page.locator('#my-tables')).toContainText('Waiting');

  // Bob joins while Alice is on the home page: he is told she is away and
  // how long she has, instead of waiting for her with no end.
  const bob = await player('Bob');
  await bob.goto(link);
  await expect(status(bob)).toHaveText(/^Alice is away — \d+ s to come back$/);

  // Alice comes back with Continue: her turn, and Bob waits for her.
  await page.locator('#my-tables').getByRole('link', { name: 'Continue' }).click();
  await expect(status(page)).toHaveText('Your turn (X)');
  await expect(status(bob)).toHaveText('Waiting for Alice…');
});

test('a round that ends while its player is on the home page shows as over there', async ({ page, player }) => {
  const { bob } = await aliceAndBob(page, player);
  await play(page, 'b2', 'X');
  await expect(status(bob)).toHaveText('Your turn (O)');
  await bob.getByRole('link', { name: 'Home', exact: true }).click();
  const card = bob.locator('#my-tables li').filter({ hasText: 'Alice' });
  await expect(card.locator('.row-urgent')).toBeVisible();

  // Alice forfeits: Bob's connection hears nothing of the table any more,
  // but his card learns it from the game's record (asked every 2 s).
  await armForfeit(page);
  await page.locator('#forfeit').click();
  await expect(status(page)).toHaveText(/Bob wins/);
  await expect(card.locator('.row-turn')).toHaveText('Over: Bob won (forfeit)', { timeout: 20_000 });
  await expect(card.locator('.row-urgent')).toHaveCount(0);
});

test('a player who went home stays away after reloading the home page', async ({ page, player }) => {
  const { bob } = await aliceAndBob(page, player);
  await play(page, 'b2', 'X');
  await expect(status(bob)).toHaveText('Your turn (O)');
  await play(bob, 'a1', 'O');

  await page.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(status(bob)).toHaveText(/^Alice is away — \d+ s to come back$/);

  // A reload comes back as the same player, and the server seats her again
  // at every table in play: the home page shows none of them, so Bob must
  // still see her away, and her time to come back run on.
  await page.reload();
  const card = page.locator('#my-tables li').filter({ hasText: 'Bob' });
  await expect(card.locator('.row-turn')).toHaveText('Your turn');
  await expect(card.locator('.row-urgent')).toBeVisible();
  await expect(status(bob)).toHaveText(/^Alice is away — \d+ s to come back$/);

  // Her home page still follows the game: Bob forfeits, and it says so.
  await armForfeit(bob);
  await bob.locator('#forfeit').click();
  await expect(card.locator('.row-turn')).toHaveText('Over: Alice won (forfeit)', { timeout: 10_000 });
});
