// Forced colours (Windows' high-contrast themes): the browser replaces the
// page's colours with a few system ones and drops its shadows, so whatever
// the page said with colour or shadow alone is gone. The choice made in a
// segmented control, the state of a switch, the empty cells of the board
// and whose turn it is must still show.
//
// What the page looks like is read from the computed style, which in forced
// colours is the forced one: two elements that compute the same border,
// outline and background look the same.

import { test, expect } from '../support/fixtures.js';
import { startBotGame, status, cell } from '../support/game.js';

/** What the eye can tell `locator`'s element by in forced colours. */
async function looks(locator) {
  return locator.evaluate((el) => {
    const c = getComputedStyle(el);
    return [
      `border ${c.borderTopWidth} ${c.borderTopStyle} ${c.borderTopColor}`,
      `outline ${c.outlineWidth} ${c.outlineStyle} ${c.outlineColor}`,
      `background ${c.backgroundColor}`,
    ].join('; ');
  });
}

/** Whether `locator`'s element has an edge that shows (border or outline). */
async function hasEdge(locator) {
  return locator.evaluate((el) => {
    const c = getComputedStyle(el);
    const border = parseFloat(c.borderTopWidth) > 0 && c.borderTopStyle !== 'none';
    const outline = parseFloat(c.outlineWidth) > 0 && c.outlineStyle !== 'none';
    return border || outline;
  });
}

test.beforeEach(async ({ page }) => {
  await page.emulateMedia({ forcedColors: 'active' });
});

test('in forced colours the chosen level and side show, and so does a switch being on', async ({ page }) => {
  await page.goto('/');
  const face = (name) => page.getByRole('radio', { name }).locator('xpath=following-sibling::*[1]');
  await page.getByRole('radio', { name: /^Medium/ }).check();
  expect(await looks(face(/^Medium/)), 'the chosen level looks like the others').not.toBe(await looks(face(/^Easy/)));
  await page.getByRole('radio', { name: /^O\b/ }).check();
  expect(await looks(face(/^O\b/)), 'the chosen side looks like the others').not.toBe(await looks(face(/^X\b/)));

  const listed = page.getByRole('switch', { name: 'List it in open tables' });
  const track = listed.locator('xpath=following-sibling::*[1]');
  await listed.uncheck();
  expect(await hasEdge(track), 'the switch has no edge: it does not show at all').toBe(true);
  const off = await looks(track);
  await listed.check();
  expect(await looks(track), 'the switch looks the same on and off').not.toBe(off);
});

test('in forced colours the empty cells of the board and whose turn it is show', async ({ page }) => {
  await startBotGame(page, { level: 'Impossible', side: 'X' });
  await expect(status(page)).toHaveText('Your turn (X)');
  expect(await hasEdge(cell(page, 'a1')), 'an empty cell has no edge: the board is a blank square').toBe(true);
  const mine = page.locator('.player[data-seat="X"]');
  const theirs = page.locator('.player[data-seat="O"]');
  await expect(mine).toHaveClass(/is-turn/);
  expect(await looks(mine), 'the player to move looks like the other').not.toBe(await looks(theirs));
});
