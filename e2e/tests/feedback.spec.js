// Defects found by an outside sweep of the browser UI, each with the test
// that showed it: a chat line sent on a slow or dead link that stayed in
// its box and went again on every Enter; Rematch and Leave that showed
// nothing until the server answered; an opponent leaving after a finished
// round, which wiped its result; a move clock with no low-time warning; a
// move list too short for a whole game; a long name that spilled out of
// the status line; lobby rows without their time per move; and a home page
// that queued a new table while offline and jumped to it later.

import { test, expect, artifact } from '../support/fixtures.js';
import {
  status, substatus, play, boardOf, winCellsOf, slowSocket, cuttableSocket, aliceAndBob, chatLines,
} from '../support/game.js';

const chatBox = (page) => page.getByRole('textbox', { name: 'Chat message' });

/** Alice (X, `page`) wins a1-a2-a3 against Bob (O). */
async function aliceWins(page, bob) {
  for (const [p, sq, mark] of [[page, 'a1', 'X'], [bob, 'b1', 'O'], [page, 'a2', 'X'], [bob, 'b2', 'O'], [page, 'a3', 'X']]) {
    await play(p, sq, mark);
  }
  await expect(status(page)).toHaveText('You win');
  await expect(status(bob)).toHaveText('Alice wins');
}

// --- 1. Chat on a slow or dead link ---

test('a chat line shows at once as pending, the box clears, and a second Enter sends nothing', async ({ page, player }) => {
  let net = null;
  const { bob } = await aliceAndBob(page, player, async (b) => {
    net = await slowSocket(b);
  });
  net.lag(1_500);

  const box = chatBox(bob);
  await box.fill('hello there');
  await box.press('Enter');
  // At once: the box is empty and the line shows, dimmed, as being sent.
  await expect(box).toHaveValue('', { timeout: 300 });
  const line = bob.locator('#chatlog .chat-msg.is-pending');
  await expect(line).toHaveCount(1, { timeout: 300 });
  await expect(line).toContainText('hello there');
  await expect(line).toContainText('sending…');
  expect(Number(await line.evaluate((el) => getComputedStyle(el).opacity))).toBeLessThan(1);
  // More Enters and a click on Send: nothing more goes.
  await box.press('Enter');
  await bob.getByRole('button', { name: 'Send' }).click();
  await bob.waitForTimeout(300);
  expect(net.sent.filter((m) => m.type === 'chat')).toHaveLength(1);

  // The server's answer: the line, once, no longer pending.
  await expect(bob.locator('#chatlog .chat-msg.is-pending')).toHaveCount(0, { timeout: 5_000 });
  await expect(chatLines(bob)).toHaveText(['hello there']);
  await expect(chatLines(page)).toHaveText(['hello there']);
  await expect(bob.locator('#chatlog')).not.toContainText('sending');
  expect(net.sent.filter((m) => m.type === 'chat')).toHaveLength(1);
});

test('offline the chat says so and takes nothing; back online it works', async ({ page, player }) => {
  const { bob } = await aliceAndBob(page, player);
  await bob.context().setOffline(true);
  const box = chatBox(bob);
  await expect(box).toBeDisabled({ timeout: 3_000 });
  await expect(bob.locator('#chat-offline')).toHaveText(/Offline — chat comes back when you're connected/);
  await expect(bob.getByRole('button', { name: 'Send' })).toBeDisabled();

  await bob.context().setOffline(false);
  await expect(box).toBeEnabled({ timeout: 15_000 });
  await expect(bob.locator('#chat-offline')).toBeHidden();
  await box.fill('back');
  await box.press('Enter');
  await expect(chatLines(page)).toHaveText(['back']);
  await expect(chatLines(bob)).toHaveText(['back']);
});

test('a refused chat line says the server\'s reason on the line', async ({ page, player }) => {
  const { bob } = await aliceAndBob(page, player, async (b) => {
    const net = await slowSocket(b);
    net.refuse('chat', 'rate_limited', 'You are sending messages too fast; wait a moment.');
  });
  const box = chatBox(bob);
  await box.fill('spam');
  await box.press('Enter');
  const failed = bob.locator('#chatlog .chat-msg.is-failed');
  await expect(failed).toHaveCount(1);
  await expect(failed).toContainText('spam');
  await expect(failed).toContainText('You are sending messages too fast; wait a moment.');
  await expect(bob.locator('#chatlog .chat-msg.is-pending')).toHaveCount(0);
  await expect(chatLines(page)).toHaveCount(0);
});

// --- 2. Rematch and Leave answer at once ---

test('on a slow link Rematch turns busy at once, and a second click sends nothing', async ({ page, player }) => {
  const net = await slowSocket(page);
  const { bob } = await aliceAndBob(page, player);
  await aliceWins(page, bob);
  net.lag(2_000);
  const rematch = page.locator('#rematch');
  await rematch.click();
  await expect(rematch).toHaveText('Asking for a rematch…', { timeout: 300 });
  await expect(rematch).toHaveAttribute('aria-disabled', 'true');
  // Clicked again (Playwright waits for a button that says it is disabled).
  await rematch.click({ force: true });
  await page.waitForTimeout(300);
  expect(net.sent.filter((m) => m.type === 'rematch')).toHaveLength(1);
  await expect(rematch).toHaveText('Rematch asked', { timeout: 5_000 });
  await expect(substatus(bob)).toHaveText(/Alice wants a rematch/);
  expect(net.sent.filter((m) => m.type === 'rematch')).toHaveLength(1);
});

test('on a slow link Leave after a finished round goes home at once, and still leaves', async ({ page, player }) => {
  let net = null;
  const { bob } = await aliceAndBob(page, player, async (b) => {
    net = await slowSocket(b);
  });
  await aliceWins(page, bob);
  net.lag(2_000);
  await bob.locator('#leave').click();
  await expect(bob).toHaveURL(/\/$/, { timeout: 500 });
  expect(net.sent.filter((m) => m.type === 'leave_table')).toHaveLength(1);
  await expect(page.locator('.status-box')).toContainText('Bob left the table');
});

// --- 3. An opponent who leaves after the round is over ---

test('an opponent who leaves a finished round leaves its result, its line and its board', async ({ page, player }) => {
  const { bob } = await aliceAndBob(page, player);
  await aliceWins(page, bob);
  await page.locator('#rematch').click();
  await expect(substatus(bob)).toHaveText(/Alice wants a rematch/);
  await page.locator('#leave').click();
  await expect(page).toHaveURL(/\/$/);

  await expect(substatus(bob)).toHaveText(/Alice left the table/);
  await expect(status(bob)).toHaveText('Alice wins');
  // The move list: the result line stays, and the leaving is a line of its own after it.
  await expect(bob.locator('#moves .move-end').first()).toHaveText('Alice wins');
  await expect(bob.locator('#moves li').last()).toHaveText(/Alice left the table/);
  await expect(bob.locator('#moves li.move:not(.move-end)')).toHaveCount(5);
  // The board: the final position, with its winning line.
  expect(await boardOf(bob)).toBe('XO.XO.X..');
  expect(await winCellsOf(bob)).toEqual(['a1', 'a2', 'a3']);
  await expect(bob.locator('.winline .winstroke')).toHaveCount(1);
});

// --- 4. The move clock warns when time runs low ---

test('the move clock turns urgent at 5 s, and says so once to screen readers', async ({ page, player }) => {
  test.setTimeout(60_000);
  await page.goto('/');
  await page.getByRole('radio', { name: /^15 s/ }).check();
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  // Everything the announcer says, in order.
  await page.evaluate(() => {
    const said = [];
    /** @type {any} */ (window).said = said;
    const region = document.getElementById('announcer');
    new MutationObserver(() => {
      if (region?.textContent) said.push(region.textContent);
    }).observe(region, { childList: true, characterData: true, subtree: true });
  });
  const bob = await player('Bob');
  await bob.goto(page.url());
  await expect(status(page)).toHaveText('Your turn (X)');
  const clock = page.locator('#substatus .clock');
  await expect(clock).toHaveText(/^1\d s left for this move$/);
  await expect(clock).not.toHaveAttribute('data-urgent', 'true');
  const calm = await clock.evaluate((el) => getComputedStyle(el).color);

  await expect(clock).toHaveText(/^[1-5] s left!$/, { timeout: 15_000 });
  await expect(clock).toHaveAttribute('data-urgent', 'true');
  expect(await clock.evaluate((el) => getComputedStyle(el).color)).not.toBe(calm);
  await expect(page.locator('#announcer')).toHaveText(/s left/);
  await expect(clock).toHaveText(/^[1-2] s left!$/, { timeout: 5_000 });
  const said = await page.evaluate(() => /** @type {any} */ (window).said.filter((s) => /s left/.test(s)));
  expect(said).toHaveLength(1);
});

// --- 5. The move list holds a whole game ---

test('a whole game and its result fit in the move list on a desktop', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Start pass and play' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const game = ['b2', 'a1', 'c1', 'a3', 'a2', 'c2', 'b1', 'b3', 'c3'];
  let mark = 'X';
  for (const sq of game) {
    await play(page, sq, mark);
    mark = mark === 'X' ? 'O' : 'X';
  }
  await expect(status(page)).toHaveText('Draw');
  await expect(page.locator('#moves .verdict')).toHaveCount(9);
  const list = page.locator('#moves');
  for (const size of [{ width: 1280, height: 800 }, { width: 1920, height: 1080 }]) {
    await page.setViewportSize(size);
    const { scroll, client } = await list.evaluate((el) => ({ scroll: el.scrollHeight, client: el.clientHeight }));
    expect(scroll, `the move list scrolls at ${size.width}×${size.height}`).toBeLessThanOrEqual(client + 1);
    await expect(list.locator('li').first()).toBeInViewport();
    await expect(list.locator('.move-end')).toBeInViewport();
  }
});

// --- 6. A long name in the status line ---

test('a long name without spaces stays inside the status column at every width', async ({ page, player }) => {
  const long = 'Wwwwwwwwwwwwwwwwwwwwwwww';
  const w = await player(long);
  await w.goto('/');
  await w.getByRole('button', { name: 'Create a table' }).click();
  await expect(w).toHaveURL(/\/t\/[^/]+$/);
  await page.goto(w.url());
  await expect(status(page)).toHaveText(`Waiting for ${long}…`);
  for (const [width, height] of [[640, 400], [320, 640], [375, 740], [1280, 800]]) {
    await page.setViewportSize({ width, height });
    const spill = await page.evaluate(() => {
      const column = document.querySelector('.game-main').getBoundingClientRect();
      const bad = [];
      for (const el of document.querySelectorAll('#status, #substatus')) {
        if (!el.getClientRects().length) continue; // not shown
        const r = el.getBoundingClientRect();
        if (el.scrollWidth > el.clientWidth + 1) bad.push(`${el.id} scrolls: ${el.scrollWidth} in ${el.clientWidth}`);
        if (r.left < column.left - 0.5 || r.right > column.right + 0.5) bad.push(`${el.id} outside its column`);
        // A name cut short ends in the line's one ellipsis, not in its own
        // followed by the line's ("Waiting for Www… …").
        for (const who of el.querySelectorAll('.who')) {
          if (who.scrollWidth > who.clientWidth + 1 && who.nextElementSibling?.textContent.startsWith('…')) {
            bad.push(`${el.id}: a cut name is followed by a second ellipsis`);
          }
        }
      }
      if (document.documentElement.scrollWidth > window.innerWidth) bad.push('the page scrolls sideways');
      return bad;
    });
    expect(spill, `at ${width}×${height}`).toEqual([]);
    await page.screenshot({ path: artifact(`long-name-${width}.png`) });
  }
});

// --- 7. The lobby says a table's time per move ---

test('an open table with a clock says its time per move in the lobby', async ({ page, player }) => {
  const name = `Tim ${Math.floor(Math.random() * 1e6)}`;
  const host = await player(name);
  await host.goto('/');
  await host.getByRole('switch', { name: 'List it in open tables' }).check();
  await host.getByRole('radio', { name: /^30 s/ }).check();
  await host.getByRole('button', { name: 'Create a table' }).click();
  await expect(host).toHaveURL(/\/t\/[^/]+$/);
  await page.goto('/');
  const row = page.locator('#lobby .row').filter({ hasText: name });
  await expect(row).toContainText('30 s a move');
});

// --- 8. The home page offline ---

test('offline, the home page says so and starts nothing, now or later', async ({ page, context }) => {
  const created = [];
  page.on('websocket', (ws) => ws.on('framesent', ({ payload }) => {
    if (String(payload).includes('"create_table"')) created.push(payload);
  }));
  await page.goto('/');
  await expect(page.locator('#recent')).not.toContainText('Loading');
  await context.setOffline(true);
  const note = page.locator('#home-offline');
  await expect(note).toBeVisible({ timeout: 3_000 });
  await expect(note).toHaveText(/offline/i);
  const create = page.getByRole('button', { name: 'Create a table' });
  await expect(create).toHaveAttribute('aria-disabled', 'true');
  await expect(create).toHaveAccessibleDescription(/offline/i);
  // Clicked all the same (Playwright waits for a button that says it is disabled).
  await create.click({ force: true });
  await page.getByRole('button', { name: 'Play the computer' }).click({ force: true });
  await page.waitForTimeout(300);
  await context.setOffline(false);
  await expect(page.locator('#conn')).toBeHidden({ timeout: 15_000 });
  await expect(note).toBeHidden();
  await expect(create).not.toHaveAttribute('aria-disabled', 'true');
  await page.waitForTimeout(1_000);
  await expect(page).toHaveURL(/\/$/);
  expect(created).toEqual([]);
});

test('a home page that cannot connect says so in its lists, not "Loading…"', async ({ page }) => {
  const net = await cuttableSocket(page);
  await net.cut();
  await page.goto('/');
  await expect(page.locator('#home-offline')).toBeVisible({ timeout: 5_000 });
  await expect(page.locator('#recent')).toHaveText(/offline/i);
  await expect(page.locator('#lobby')).toHaveText(/offline/i);
  net.restore();
  await expect(page.locator('#home-offline')).toBeHidden({ timeout: 15_000 });
  await expect(page.locator('#recent')).not.toHaveText(/offline|Loading/i);
  await expect(page.locator('#lobby')).not.toHaveText(/offline|Loading/i);
});
