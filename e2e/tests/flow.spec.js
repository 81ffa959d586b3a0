// The flow of play as a newcomer meets it: the next game against the
// computer one click away, a first level they can beat, a board that only
// takes a move when one can be made, a clock for friends, and a page of our
// own for what does not exist.

import { test, expect } from '../support/fixtures.js';
import { cell, status, substatus, play, playOutVsBot, startBotGame, boardOf, cuttableSocket } from '../support/game.js';

/** Every `move` frame the page sends from now on. */
function moveFrames(page) {
  const moves = [];
  page.on('websocket', (ws) => {
    ws.on('framesent', ({ payload }) => {
      try {
        const msg = JSON.parse(payload);
        if (msg.type === 'move') moves.push(msg);
      } catch {
        // not ours to judge here (the fixture's guard does)
      }
    });
  });
  return moves;
}

test('the next game against the computer is one click away and leaves no seat behind', async ({ page, server }) => {
  test.setTimeout(120_000);
  await startBotGame(page, { level: 'Impossible', side: 'X' });
  const nextGame = page.locator('#next-game');
  await expect(nextGame).toBeVisible();
  await expect(nextGame.getByRole('radio', { name: /^Impossible/ })).toBeChecked();

  // A whole game, then the next one without going home.
  const first = page.url();
  expect(await playOutVsBot(page, server, 'X', 'best')).toBe('Draw');
  // A bot always wants a rematch: nothing says so.
  await expect(page.locator('.player[data-seat="O"]')).not.toContainText('wants a rematch');
  // The round over, the move list carries the solver's verdict on each move.
  const played = await page.locator('#moves li.move:not(.move-end)').count();
  await expect(page.locator('#moves li.move[data-verdict="kept_draw"]')).toHaveCount(played);
  await expect(page.locator('#moves li.move').first()).toHaveAttribute('aria-label', /kept the draw/i);
  await nextGame.getByRole('button', { name: 'New game' }).click();
  await expect(page).not.toHaveURL(first);
  await expect(status(page)).toHaveText('Your turn (X)');

  // Eleven more, each left after one move: starting the next game during a
  // round asks once, then forfeits it. More than the ten seats a player may
  // hold at once, so none is left behind.
  for (let i = 0; i < 11; i += 1) {
    const url = page.url();
    await play(page, 'b2', 'X');
    const button = nextGame.getByRole('button', { name: /New game|Forfeit and start/ });
    await button.click();
    await expect(button).toHaveText('Forfeit and start a new game?');
    await button.click();
    await expect(page).not.toHaveURL(url);
    await expect(status(page)).toHaveText('Your turn (X)', { timeout: 10_000 });
  }
  // The level and side can change here too, and are remembered.
  await nextGame.getByRole('radio', { name: /^Easy/ }).check();
  await nextGame.getByRole('radio', { name: /^O\b/ }).check();
  await nextGame.getByRole('button', { name: /New game|Forfeit and start/ }).click();
  await nextGame.getByRole('button', { name: 'Forfeit and start a new game?' }).click();
  await expect(page.locator('.player[data-seat="X"] .player-name')).toHaveText('Easy');

  // Home lists only the game in play, not the finished or left ones.
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(page.locator('#my-tables li')).toHaveCount(1);
  await expect(page.getByRole('radio', { name: /^Easy/ })).toBeChecked();
});

test('a first visit starts at Medium, and the last choice is remembered', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('radio', { name: /^Medium/ })).toBeChecked();
  await page.getByRole('radio', { name: /^Impossible/ }).check();
  await page.reload();
  await expect(page.getByRole('radio', { name: /^Impossible/ })).toBeChecked();
});

test('the board is inert when it is not your turn, and while offline', async ({ page }) => {
  const moves = moveFrames(page);
  const net = await cuttableSocket(page);
  await startBotGame(page, { level: 'Impossible', side: 'O' });
  // The computer (X) moves first: until it has, the board takes nothing.
  await expect(status(page)).toHaveText(/Waiting for Impossible|Your turn/);
  const grid = page.locator('.board');
  if ((await status(page).textContent()).startsWith('Waiting')) {
    await expect(grid).toHaveAttribute('data-interactive', 'false');
  }
  await expect(status(page)).toHaveText('Your turn (O)', { timeout: 15_000 });
  await expect(grid).toHaveAttribute('data-interactive', 'true');
  const free = (await boardOf(page)).indexOf('.');
  const squares = ['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3', 'b3', 'c3'];
  await expect(cell(page, squares[free])).toHaveCSS('cursor', 'pointer');

  // Our move; while the computer thinks, clicks send nothing.
  const before = moves.length;
  await play(page, squares[free], 'O');
  expect(moves.length).toBe(before + 1);
  const board = await boardOf(page);
  if (board.split('').filter((c) => c !== '.').length % 2 === 0) {
    // Still the computer's turn (it thinks for 450 ms).
    await expect(grid).toHaveAttribute('data-interactive', 'false');
    await expect(status(page)).toHaveText('Waiting for Impossible…');
    const other = board.indexOf('.');
    await expect(cell(page, squares[other])).toHaveCSS('cursor', 'default');
    await cell(page, squares[other]).click({ force: true });
    expect(moves.length).toBe(before + 1);
  }

  // Offline: the board says it cannot take a move, and clicks send nothing.
  await expect(status(page)).toHaveText('Your turn (O)', { timeout: 15_000 });
  await net.cut();
  await expect(page.locator('#conn')).toBeVisible();
  await expect(grid).toHaveAttribute('data-interactive', 'false');
  await expect(page.locator('.board-wrap')).toHaveClass(/is-offline/);
  await expect(substatus(page)).toContainText('Offline');
  const offlineBoard = await boardOf(page);
  const sent = moves.length;
  await cell(page, squares[offlineBoard.indexOf('.')]).click({ force: true });
  net.restore();
  await expect(page.locator('#conn')).toBeHidden({ timeout: 15_000 });
  expect(moves.length).toBe(sent);
  expect(await boardOf(page)).toBe(offlineBoard);
});

test('nobody watching says nothing; the keyboard hint is not shown on touch screens', async ({ page, player }) => {
  await startBotGame(page, { level: 'Easy', side: 'X' });
  await expect(page.locator('.table-meta')).toHaveText(/^Round 1$/);
  await expect(page.locator('.keys-help')).toBeVisible();

  const phone = await player('Tess', { hasTouch: true, isMobile: true, viewport: { width: 375, height: 740 } });
  await phone.goto(page.url());
  await expect(phone.locator('.table-meta')).toHaveText(/1 watching/);
  await expect(phone.locator('.keys-help')).toBeHidden();
  await expect(page.locator('.table-meta')).toHaveText(/1 watching/, { timeout: 5_000 });
});

test('a friend table can have a time limit per move, counted down for everyone', async ({ page, player }) => {
  await page.goto('/');
  await page.getByRole('radio', { name: /^30 s/ }).check();
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const bob = await player('Bob');
  await bob.goto(page.url());
  const fan = await player('Fay');
  await fan.goto(`${page.url()}?watch`);
  for (const p of [page, bob, fan]) {
    await expect(substatus(p)).toHaveText(/\d+ s left for this move/, { timeout: 10_000 });
  }
  const left = Number((await substatus(fan).textContent()).match(/(\d+) s left/)[1]);
  expect(left).toBeGreaterThan(20);
  expect(left).toBeLessThanOrEqual(30);
});

test('pages and games that do not exist get our own page with a way home', async ({ page, problems }) => {
  for (const path of ['/no/such/page', '/games/0000000000000000ffffffffffffffff', '/t/ffffffffffffffffffffffffffffffff']) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(/not found|Nothing here/i);
    await expect(page.locator('main')).not.toContainText('{"error"');
    await page.getByRole('link', { name: /home page/i }).click();
    await expect(page).toHaveURL(/\/$/);
  }
  // The 404s of those lookups are expected here.
  for (let i = problems.length - 1; i >= 0; i -= 1) {
    if (/HTTP 404|status of 404/.test(problems[i])) problems.splice(i, 1);
  }
});

test('a link with a broken escape in it gets the page that says so, not a blank one', async ({ page }) => {
  // A link cut in the middle of "%E0%A4%A4", or mistyped: no id can be
  // read from it.
  for (const path of ['/t/%E0%A4%A', '/games/%ZZ']) {
    await page.goto(path);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Nothing here');
    await page.getByRole('link', { name: /home page/i }).click();
    await expect(page).toHaveURL(/\/$/);
    await expect(page.getByRole('button', { name: 'Play the computer' })).toBeVisible();
  }
});

test('the page comes compressed, and again from the cache', async ({ page }) => {
  const seen = new Map();
  page.on('response', async (res) => {
    const url = new URL(res.url());
    if (url.pathname === '/css/app.css' || url.pathname === '/js/main.js') {
      seen.set(url.pathname, { status: res.status(), headers: await res.allHeaders(), query: url.search });
    }
  });
  await page.goto('/');
  await expect(page.getByRole('button', { name: 'Play the computer' })).toBeVisible();
  for (const path of ['/css/app.css', '/js/main.js']) {
    const r = seen.get(path);
    expect(r, path).toBeTruthy();
    expect(r.headers['content-encoding'], path).toMatch(/^(br|gzip)$/);
    expect(r.query, path).toMatch(/^\?v=[0-9a-f]+$/);
    expect(r.headers['cache-control'], path).toContain('immutable');
  }
  // A second visit asks for the page only: the versioned files are cached.
  seen.clear();
  await page.reload();
  await expect(page.getByRole('button', { name: 'Play the computer' })).toBeVisible();
  for (const r of seen.values()) expect([200, 304]).toContain(r.status);
});
