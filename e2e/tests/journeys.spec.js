// Whole journeys of people through the web UI, as a player sees them:
// what each page says at each step, after leaving, going back and
// forward, and tables that close under a spectator.

import { test, expect } from '../support/fixtures.js';
import { status, play, aliceAndBob } from '../support/game.js';

test("the browser's Back button after leaving a table shows it to watch, and does not seat the player again", async ({ page, player }) => {
  const { bob } = await aliceAndBob(page, player);
  await play(page, 'a1', 'X');
  await bob.getByRole('button', { name: 'Leave' }).click();
  await bob.getByRole('button', { name: 'Leave and forfeit?' }).click();
  await expect(bob).toHaveURL(/\/$/);
  await expect(status(page)).toHaveText('You win — Bob left the table');

  await bob.goBack();
  await expect(bob).toHaveURL(/\/t\/[^/]+$/);
  // Bob watches the table he left: Alice still waits for a new opponent,
  // and Bob may take the seat again if he means to.
  await expect(status(bob)).toHaveText('Alice is waiting for an opponent');
  await expect(bob.getByRole('button', { name: 'Take the seat' })).toBeVisible();
  await expect(page.locator('.table-meta')).toHaveText(/1 watching/);
  await expect(status(page)).toHaveText('You win — Bob left the table');

  // Forward to the home page and back again: still watching.
  await bob.goForward();
  await expect(bob.getByRole('button', { name: 'Play the computer' })).toBeVisible();
  await bob.goBack();
  await expect(status(bob)).toHaveText('Alice is waiting for an opponent');

  // Taking the seat on purpose starts the next round.
  await bob.getByRole('button', { name: 'Take the seat' }).click();
  await expect(status(bob)).toHaveText('Your turn (O)');
  await expect(status(page)).toHaveText('Waiting for Bob…');
});

test("the browser's Back button after a spectator stopped watching does not seat them at a seat freed since", async ({ page, player }) => {
  const { bob, link } = await aliceAndBob(page, player);
  const cy = await player('Cy');
  await cy.goto(link);
  await expect(status(cy)).toHaveText('Alice (X) to move');
  await cy.getByRole('button', { name: 'Stop watching' }).click();
  await expect(cy).toHaveURL(/\/$/);
  await bob.getByRole('button', { name: 'Leave' }).click();
  await bob.getByRole('button', { name: 'Leave and forfeit?' }).click();
  await expect(status(page)).toHaveText('You win — Bob left the table');

  await cy.goBack();
  await expect(status(cy)).toHaveText('Alice is waiting for an opponent');
  await expect(cy.getByRole('button', { name: 'Take the seat' })).toBeVisible();
  await expect(status(page)).toHaveText('You win — Bob left the table');
});

test('a spectator of a table that closes sees it closed: nobody waits at its seats, and the chat takes no more lines', async ({ page, player }) => {
  const { bob, link } = await aliceAndBob(page, player);
  const cy = await player('Cy');
  await cy.goto(link);
  await expect(status(cy)).toHaveText('Alice (X) to move');
  await page.getByRole('button', { name: 'Leave' }).click();
  await page.getByRole('button', { name: 'Leave and forfeit?' }).click();
  await expect(status(bob)).toHaveText('You win — Alice left the table');
  await bob.getByRole('button', { name: 'Leave' }).click();
  await expect(bob).toHaveURL(/\/$/);

  await expect(status(cy)).toHaveText('This table is closed.');
  await expect(cy.locator('.scoreboard .player-sub')).toHaveText(['', '']);
  const box = cy.getByRole('textbox', { name: 'Chat message' });
  await expect(box).toBeDisabled();
  await expect(cy.locator('#chat-closed')).toHaveText('This table has closed: its chat is over.');
  await expect(cy.getByRole('button', { name: 'Take the seat' })).toBeHidden();
});
