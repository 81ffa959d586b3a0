// Bugs found in review of the game page's split into modules, each with the
// test that showed it: hints that did not come back when switched off and
// on again, a failed "New game" that left the page at a table it had
// already left, and a spectator's "Stop watching" that turned into "Leave"
// when stopping failed. New game now creates the new table before leaving
// the old one; a player at the limit of tables in play still gets one.

import { test, expect } from '../support/fixtures.js';
import {
  status, boardOf, play, startBotGame, midGameWithHints, refusingSocket, toastEl,
} from '../support/game.js';

const FAILED = 'The server failed; please try again.';

test('hints switched off and on again in the same position come back', async ({ page }) => {
  await midGameWithHints(page);
  const hints = page.getByRole('switch', { name: 'Hints' });
  const badges = page.locator('.board .cell .hint');
  const shown = await badges.count();
  expect(shown).toBeGreaterThan(0);
  await hints.uncheck();
  await expect(badges).toHaveCount(0);
  await hints.check();
  await expect(badges).toHaveCount(shown);
});

/** A game against Impossible as X, one move each: b2, then the computer's. */
async function midBotGame(page) {
  await startBotGame(page, { level: 'Impossible', side: 'X' });
  await play(page, 'b2', 'X');
  await expect(page.locator('#moves li.move')).toHaveCount(2, { timeout: 15_000 });
  await expect(status(page)).toHaveText('Your turn (X)');
}

/** Clicks New game, twice: in a round in play it asks to be sure. */
async function clickNewGame(page) {
  const button = page.locator('#new-game');
  await expect(button).toBeEnabled();
  await button.click();
  await expect(button).toHaveText('Forfeit and start a new game?');
  await button.click();
}

test('a new game that cannot be created leaves the player at the game they had', async ({ page }) => {
  const net = await refusingSocket(page);
  await midBotGame(page);
  const url = page.url();
  const board = await boardOf(page);

  net.refuse('create_table', 'internal', FAILED);
  await clickNewGame(page);
  await expect(toastEl(page)).toHaveText(FAILED);
  // Still at the same game, still seated, and it goes on.
  await expect(page).toHaveURL(url);
  await expect(status(page)).toHaveText('Your turn (X)');
  expect(await boardOf(page)).toBe(board);
  await expect(page.locator('#new-game')).toBeEnabled();
  await expect(page.locator('#new-game')).toHaveText('New game');
  // The server agrees: after a reload the same game is there to play.
  await page.reload();
  await expect(status(page)).toHaveText('Your turn (X)');
  expect(await boardOf(page)).toBe(board);
  await expect(page.locator('.player[data-seat="X"]')).toContainText('You');

  // Once creating works, New game leaves the old table for the new one.
  net.allow('create_table');
  await clickNewGame(page);
  await expect(page).not.toHaveURL(url);
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  await expect(status(page)).toHaveText('Your turn (X)');
  expect(await boardOf(page)).toBe('.........');
  await page.goto(url);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Table not found');
});

test('a new game still starts for a player at the limit of tables in play', async ({ page }) => {
  let refusals = 0;
  page.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => {
    if (String(payload).includes('"code":"too_many_tables"')) refusals += 1;
  }));
  await midBotGame(page);
  const url = page.url();
  // Nine more tables, waiting for opponents, from another connection of
  // the same player: ten tables in play, the most a player may hold.
  const created = await page.evaluate(async () => {
    const ws = new WebSocket(`ws://${window.location.host}/ws`);
    /** @type {any} */ (window).extraSocket = ws;
    const oks = [];
    await new Promise((resolve, reject) => {
      let id = Date.now() * 1000 + 500_000;
      ws.onopen = () => ws.send(JSON.stringify({ type: 'hello', id: id++, version: 1, token: window.localStorage.getItem('oxo.token') }));
      ws.onmessage = (ev) => {
        const msg = JSON.parse(ev.data);
        if (msg.type === 'welcome') {
          for (let i = 0; i < 9; i += 1) ws.send(JSON.stringify({ type: 'create_table', id: id++, options: { public: false } }));
        } else if (msg.type === 'ok') {
          oks.push(msg.table_id);
          if (oks.length === 9) resolve(undefined);
        } else if (msg.type === 'error') {
          reject(new Error(msg.message));
        }
      };
    });
    return oks.length;
  });
  expect(created).toBe(9);

  await clickNewGame(page);
  await expect(page).not.toHaveURL(url);
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  await expect(status(page)).toHaveText('Your turn (X)');
  expect(await boardOf(page)).toBe('.........');
  // Creating it first was refused: the old table made room.
  expect(refusals).toBe(1);
  await page.evaluate(() => /** @type {any} */ (window).extraSocket.close());
});

test('a spectator whose stopping fails still sees "Stop watching"', async ({ page, player }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const link = page.url();
  const fay = await player('Fay');
  const net = await refusingSocket(fay);
  let states = 0;
  fay.on('websocket', (ws) => ws.on('framereceived', ({ payload }) => {
    if (String(payload).startsWith('{"type":"table"')) states += 1;
  }));
  await fay.goto(`${link}?watch`);
  await expect(status(fay)).toHaveText('Alice is waiting for an opponent');
  const stop = fay.locator('#leave');
  await expect(stop).toHaveText('Stop watching');
  // The state that tells everyone Fay watches comes within a second of
  // the one she got: after it, no state comes to draw the button again.
  await expect.poll(() => states).toBe(2);

  net.refuse('leave_table', 'internal', FAILED);
  await stop.click();
  await expect(toastEl(fay)).toHaveText(FAILED);
  await expect(fay).toHaveURL(`${link}?watch`);
  await expect(stop).toHaveText('Stop watching');
  // A new state changes nothing about it either.
  const bob = await player('Bob');
  await bob.goto(link);
  await expect(status(fay)).toHaveText('Alice (X) to move');
  await expect(stop).toHaveText('Stop watching');

  net.allow('leave_table');
  await stop.click();
  await expect(fay).toHaveURL(/\/$/);
});

test('a game that cannot be started leaves the keyboard focus on the button pressed', async ({ page }) => {
  const net = await refusingSocket(page);
  await page.goto('/');
  net.refuse('create_table', 'internal', FAILED);
  // From the home page: Play the computer, pressed from the keyboard.
  const play = page.getByRole('button', { name: 'Play the computer' });
  await play.focus();
  await page.keyboard.press('Enter');
  await expect(toastEl(page)).toHaveText(FAILED);
  await expect(play).toBeFocused();
  await expect(play).toBeEnabled();

  // From a game against the computer: New game, pressed twice.
  net.allow('create_table');
  await midBotGame(page);
  net.refuse('create_table', 'internal', FAILED);
  const newGame = page.locator('#new-game');
  await newGame.focus();
  await page.keyboard.press('Enter');
  await expect(newGame).toHaveText('Forfeit and start a new game?');
  await page.keyboard.press('Enter');
  await expect(toastEl(page)).toHaveText(FAILED);
  await expect(newGame).toBeFocused();
  await expect(newGame).toBeEnabled();
});
