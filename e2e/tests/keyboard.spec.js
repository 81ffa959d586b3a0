// A whole game without the mouse: Tab to start it, then the digits 1-9,
// the arrow keys with Enter, and Space.

import { test, expect } from '../support/fixtures.js';
import { status, cell, boardOf, chooseMove, SQUARES } from '../support/game.js';

test('a keyboard-only game against the computer', async ({ page, server }) => {
  await page.goto('/');
  // A newcomer starts at Medium; this game is against Impossible.
  await expect(page.getByRole('radio', { name: /^Medium/ })).toBeChecked();
  await page.getByRole('radio', { name: /^Impossible/ }).check();
  await expect(page.getByRole('radio', { name: /^X\b/ })).toBeChecked();

  // Tab to the start button and press Enter.
  for (let i = 0; i < 40; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.id === 'play-bot')) break;
  }
  await expect(page.getByRole('button', { name: 'Play the computer' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  await expect(status(page)).toHaveText('Your turn (X)');

  // Every cell has a label a screen reader can read.
  for (const sq of SQUARES) await expect(cell(page, sq)).toHaveAttribute('aria-label', `${sq}, empty`);

  // "5" plays b2, the centre, and puts focus there.
  await page.keyboard.press('5');
  await expect(cell(page, 'b2')).toHaveAttribute('data-mark', 'X');
  await expect(cell(page, 'b2')).toBeFocused();
  await expect(cell(page, 'b2')).toHaveAttribute('aria-label', /^b2, X/);
  await expect(page.locator('#announcer')).toContainText(/O played [a-c][1-3]\. Your turn \(X\)/, { timeout: 15_000 });

  // The arrow keys move focus around the board (and stop at its edges).
  await page.keyboard.press('ArrowUp');
  await expect(cell(page, 'b1')).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await expect(cell(page, 'b1')).toBeFocused();
  await page.keyboard.press('ArrowLeft');
  await expect(cell(page, 'a1')).toBeFocused();

  // The rest of the game: arrows + Enter, arrows + Space, digits in turn.
  const keys = ['Enter', 'Space', 'digit'];
  for (let turn = 0; turn < 5; turn += 1) {
    await expect(status(page)).toHaveText(/^(Your turn \(X\)|.* wins|Draw)$/, { timeout: 15_000 });
    if ((await status(page).textContent()) !== 'Your turn (X)') break;
    const board = await boardOf(page);
    const sq = await chooseMove(server, board, 'X', 'best');
    const target = SQUARES.indexOf(sq);
    const how = keys[turn % keys.length];
    if (how === 'digit') {
      await page.keyboard.press(String(target + 1));
    } else {
      const from = await page.evaluate(() => Number(document.activeElement?.dataset?.index ?? 4));
      const dr = Math.floor(target / 3) - Math.floor(from / 3);
      const dc = (target % 3) - (from % 3);
      for (let i = 0; i < Math.abs(dr); i += 1) await page.keyboard.press(dr > 0 ? 'ArrowDown' : 'ArrowUp');
      for (let i = 0; i < Math.abs(dc); i += 1) await page.keyboard.press(dc > 0 ? 'ArrowRight' : 'ArrowLeft');
      await expect(cell(page, sq)).toBeFocused();
      await page.keyboard.press(how);
    }
    await expect(cell(page, sq)).toHaveAttribute('data-mark', 'X');
  }
  await expect(status(page)).toHaveText('Draw', { timeout: 15_000 });
  await expect(page.locator('#announcer')).toContainText('Draw');

  // The focused cell shows a visible focus ring.
  const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
  expect(outline).toBe('solid');

  // Tab to Rematch and press Enter: the next round starts and the button
  // goes, and the focus goes to the board, not back to the top of the page.
  for (let i = 0; i < 40; i += 1) {
    await page.keyboard.press('Tab');
    if (await page.evaluate(() => document.activeElement?.id === 'rematch')) break;
  }
  await expect(page.getByRole('button', { name: 'Rematch' })).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(page.locator('.table-meta')).toContainText('Round 2');
  await expect(page.locator('.board .cell:focus')).toHaveCount(1);
});

/** Presses Tab until `locator` has the focus (at most 40 times). */
async function tabTo(page, locator) {
  for (let i = 0; i < 40; i += 1) {
    if (await locator.evaluate((el) => el === document.activeElement)) return;
    await page.keyboard.press('Tab');
  }
  await expect(locator).toBeFocused();
}

test('a keyboard-only game with a friend: create, copy the link, play, chat, rematch, leave', async ({ page, player }) => {
  await page.goto('/');
  await tabTo(page, page.getByRole('button', { name: 'Create a table' }));
  await page.keyboard.press('Enter');
  await expect(status(page)).toHaveText('Waiting for an opponent…');
  const copy = page.getByRole('button', { name: 'Copy' });
  await tabTo(page, copy);
  await page.keyboard.press('Enter');
  await expect(page.locator('#share button')).toHaveText('Copied!');

  // The friend comes: the link box goes, and the focus goes to the board
  // rather than to nowhere (the page), where a screen reader loses its place.
  const bob = await player('Bob');
  await bob.goto(page.url());
  await expect(status(page)).toHaveText('Your turn (X)');
  await expect(page.locator('#share')).toBeHidden();
  await expect(cell(page, 'b2')).toBeFocused();

  // Play with the keys: Enter on the focused cell, then the digits.
  await page.keyboard.press('Enter');
  await expect(cell(page, 'b2')).toHaveAttribute('data-mark', 'X');
  for (const [p, sq, mark, key] of [[bob, 'a1', 'O', null], [page, 'c1', 'X', '3'], [bob, 'a3', 'O', null], [page, 'a2', 'X', '4'], [bob, 'c2', 'O', null], [page, 'b1', 'X', '2'], [bob, 'b3', 'O', null], [page, 'c3', 'X', '9']]) {
    await expect(cell(p, sq)).toHaveAttribute('aria-disabled', 'false');
    if (key) await page.keyboard.press(key);
    else await cell(p, sq).click();
    await expect(cell(page, sq)).toHaveAttribute('data-mark', mark);
  }
  await expect(status(page)).toHaveText('Draw');

  // Chat, then a rematch, then leave: all from the keyboard.
  const box = page.getByRole('textbox', { name: 'Chat message' });
  await tabTo(page, box);
  await page.keyboard.type('good game');
  await page.keyboard.press('Enter');
  await expect(bob.locator('#chatlog')).toContainText('good game');
  await tabTo(page, page.getByRole('button', { name: 'Rematch' }));
  await page.keyboard.press('Enter');
  await bob.getByRole('button', { name: 'Rematch' }).click();
  await expect(page.locator('.game-head')).toContainText('Round 2');
  await expect(page.locator('.board .cell[tabindex="0"]')).toBeFocused();
  const leave = page.getByRole('button', { name: 'Leave' });
  await tabTo(page, leave);
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/$/);
});
