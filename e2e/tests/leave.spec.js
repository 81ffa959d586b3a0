// An opponent who leaves in the middle of a round, and a free seat: the
// player left behind and the spectators see who won and why, on the board as
// it was left, while the table waits for a new opponent; a spectator can take
// a free seat without reloading, and the new round starts on an empty board.

import { test, expect } from '../support/fixtures.js';
import { status, substatus, play, boardOf } from '../support/game.js';

test('when the opponent leaves mid-round, everyone sees the result on the board as left; a spectator takes the seat', async ({ page, player }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const link = page.url();
  const ann = await player('Ann');
  await ann.goto(link);
  const fay = await player('Fay');
  await fay.goto(`${link}?watch`);
  await expect(status(page)).toHaveText('Your turn (X)');
  await expect(status(fay)).toHaveText('Alice (X) to move');
  // No seat is free: nothing to take.
  await expect(fay.getByRole('button', { name: 'Take the seat' })).toBeHidden();
  await play(page, 'b2', 'X');
  await expect(status(ann)).toHaveText('Your turn (O)');

  // Ann leaves (it asks first, as it forfeits).
  await ann.locator('#leave').click();
  await ann.getByRole('button', { name: 'Leave and forfeit?' }).click();
  await expect(ann).toHaveURL(/\/$/);

  // Alice: the result, why, and the score that went up with it.
  await expect(status(page)).toHaveText('You win — Ann left the table');
  await expect(substatus(page)).toHaveText(/Waiting for a new opponent/);
  await expect(page.locator('.player[data-seat="X"] .player-score')).toHaveText('1');
  await expect(page.locator('.player[data-seat="O"] .player-name')).toHaveText('Open seat');
  // The board stays as it was left, over and not playable; the round just
  // ended stays in the move list, with its result.
  expect(await boardOf(page)).toBe('....X....');
  await expect(page.locator('.board')).toHaveAttribute('data-interactive', 'false');
  await expect(page.locator('.board-wrap')).toHaveClass(/is-over/);
  await expect(page.locator('#moves .move-end')).toHaveText(/Ann left the table/);
  await expect(page.locator('#share')).toBeVisible();

  // Fay, watching: the same, from outside.
  await expect(status(fay)).toHaveText('Alice wins — Ann left the table');
  await expect(substatus(fay)).toHaveText(/Alice is waiting for an opponent/);
  expect(await boardOf(fay)).toBe('....X....');

  // Fay takes the free seat, without a reload.
  const take = fay.getByRole('button', { name: 'Take the seat' });
  await expect(take).toBeVisible();
  await take.click();
  await expect(status(page)).toHaveText(/^(Your turn \(X\)|Waiting for Fay…)$/);
  await expect(status(fay)).toHaveText(/^(Your turn \(O\)|Waiting for Alice…)$/);
  await expect(fay.locator('.player[data-seat="O"]')).toContainText('You');
  await expect(take).toBeHidden();
  await expect(fay.locator('#leave')).toHaveText('Leave');
  // The new round starts on an empty board.
  await expect.poll(() => boardOf(fay)).toBe('.........');
  await expect.poll(() => boardOf(page)).toBe('.........');
});

test('a spectator of an open table from the lobby can take the seat', async ({ page, player }) => {
  // A name of its own: the lobby may list other tests' tables.
  const name = `Lou ${Math.floor(Math.random() * 1e6)}`;
  const bob = await player(name);
  await bob.goto('/');
  await bob.getByRole('switch', { name: 'List it in open tables' }).check();
  await bob.getByRole('button', { name: 'Create a table' }).click();
  await expect(bob).toHaveURL(/\/t\/[^/]+$/);

  await page.goto('/');
  const row = page.locator('#lobby .row').filter({ hasText: name });
  await row.getByRole('link', { name: /^Watch/ }).click();
  await expect(page).toHaveURL(/\?watch$/);
  await expect(status(page)).toHaveText(`${name} is waiting for an opponent`);
  await page.getByRole('button', { name: 'Take the seat' }).click();
  await expect(status(bob)).toHaveText(/^(Your turn \(.\)|Waiting for Alice…)$/);
  await expect(status(page)).toHaveText(new RegExp(`^(Your turn \\(.\\)|Waiting for ${name}…)$`));
  await expect(page.getByRole('button', { name: 'Take the seat' })).toBeHidden();
});

test('a spectator who takes the seat from the keyboard lands on the board', async ({ page, player }) => {
  const bob = await player('Bob');
  await bob.goto('/');
  await bob.getByRole('button', { name: 'Create a table' }).click();
  await expect(bob).toHaveURL(/\/t\/[^/]+$/);
  await page.goto(`${bob.url()}?watch`);
  await expect(status(page)).toHaveText('Bob is waiting for an opponent');
  const take = page.getByRole('button', { name: 'Take the seat' });
  await take.focus();
  await page.keyboard.press('Enter');
  await expect(take).toBeHidden();
  await expect(status(page)).toHaveText(/^(Your turn \(.\)|Waiting for Bob…)$/);
  // Not dropped on the page with the button that went: the board, where
  // the game now is, has the focus.
  await expect(page.locator('.board .cell:focus')).toHaveCount(1);
});
