// The home page: the remembered, changeable name; your games in progress;
// recent games that open their replay.

import { test, expect } from '../support/fixtures.js';
import { status, play, homeWithBobsTable } from '../support/game.js';

test('the display name is remembered and can be changed', async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('#me-name')).toHaveText('Alice');
  await page.getByRole('button', { name: 'Change name' }).click();
  const dialog = page.getByRole('dialog', { name: 'Your name' });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('textbox').fill('Zed the Great');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.locator('#me-name')).toHaveText('Zed the Great');
  await expect(page.locator('.name-now')).toHaveText('Zed the Great');

  await page.reload();
  await expect(page.locator('#me-name')).toHaveText('Zed the Great');

  // Seats show the new name.
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page.locator('.player[data-seat="X"] .player-name')).toHaveText('Zed the Great');

  // An empty name is refused.
  await page.locator('#me-name').click();
  await dialog.getByRole('textbox').fill('   ');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('#name-error')).toBeVisible();
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
});

test('a refused name is said to screen readers, on the field that holds it', async ({ page }) => {
  // Connected first: a name saved while connecting is answered later (the
  // test below).
  const welcomed = page.waitForEvent('websocket').then((ws) =>
    ws.waitForEvent('framereceived', { predicate: (f) => String(f.payload).includes('"type":"welcome"') }));
  await page.goto('/');
  await welcomed;
  await expect(page.locator('#me-name')).toHaveText('Alice');
  await page.getByRole('button', { name: 'Change name' }).click();
  const dialog = page.getByRole('dialog', { name: 'Your name' });
  const field = dialog.getByRole('textbox', { name: 'Display name' });
  await field.fill('Impossible');
  await dialog.getByRole('button', { name: 'Save' }).click();
  // The server's reason: read out at once, and again with the field, which
  // has the focus back to fix it.
  const reason = /computer player/;
  await expect(dialog.getByRole('alert')).toHaveText(reason);
  await expect(field).toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveAccessibleDescription(reason);
  await expect(field).toBeFocused();
  // An empty one too, in our words.
  await field.fill('  ');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(field).toHaveAccessibleDescription(/^Please enter a name\./);
  // Opened again, the field starts clean.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await page.locator('#me-name').click();
  await expect(field).not.toHaveAttribute('aria-invalid', 'true');
  await expect(field).toHaveAccessibleDescription('Shown to the people you play. Up to 24 characters.');
  await field.fill('Alicia');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toBeHidden();
  await expect(page.locator('#me-name')).toHaveText('Alicia');
});

test('your games in progress and recent games on the home page', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Start pass and play' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const tableUrl = page.url();
  await play(page, 'b2', 'X');

  // Home lists the game to continue.
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  const mine = page.locator('#my-tables');
  await expect(mine).toContainText('Pass and play');
  await mine.getByRole('link', { name: 'Continue' }).click();
  await expect(page).toHaveURL(tableUrl);
  await expect(status(page)).toHaveText('O to move');

  // Finish it; it shows in recent games and opens its replay.
  for (const [sq, mark] of [['a1', 'O'], ['c1', 'X'], ['a3', 'O'], ['a2', 'X'], ['c2', 'O'], ['b1', 'X'], ['b3', 'O'], ['c3', 'X']]) {
    await play(page, sq, mark);
  }
  await expect(status(page)).toHaveText('Draw');
  const replay = await page.getByRole('link', { name: 'Open replay' }).getAttribute('href');
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  const recent = page.locator(`#recent li:has(a[href="${replay}"])`);
  // Pass and play records name the seats, not the creator twice.
  await expect(recent).toContainText('Player X vs Player O');
  await expect(recent).toContainText('Draw');
  await expect(recent).toContainText('9 moves');
  await recent.getByRole('link').click();
  await expect(page).toHaveURL(/\/games\//);
  await expect(page.locator('#outcome')).toHaveText('Draw');
});

test('a token the server does not know starts a fresh session', async ({ page }) => {
  await page.addInitScript(() => {
    if (!sessionStorage.getItem('seeded')) {
      sessionStorage.setItem('seeded', '1');
      localStorage.setItem('oxo.token', 'not-a-real-token');
    }
  });
  await page.goto('/');
  await expect(page.locator('#me-name')).toHaveText('Alice');
  await page.getByRole('button', { name: 'Start pass and play' }).click();
  await expect(status(page)).toHaveText('X to move');
  const token = await page.evaluate(() => localStorage.getItem('oxo.token'));
  expect(token).not.toBe('not-a-real-token');
  expect(token).toBeTruthy();
});

test('a name changed while the page is still connecting is kept', async ({ page }) => {
  // The server's welcome is held back until the name has changed.
  const release = await holdWelcome(page);
  await page.goto('/');
  const dialog = await saveName(page, 'Zed the Great');
  await expect(dialog).toBeHidden();
  release();
  // The welcome (with the old name) does not undo it, here or on the server.
  await expect(page.locator('.name-now')).toHaveText('Zed the Great');
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page.locator('.player[data-seat="X"] .player-name')).toHaveText('Zed the Great');
});

test('a name saved while connecting and refused once connected is said, and the old name stays', async ({ page }) => {
  const release = await holdWelcome(page);
  await page.goto('/');
  await expect(page.locator('#me-name')).toHaveText('Alice');
  const dialog = await saveName(page, 'Impossible');
  await expect(dialog).toBeHidden();
  release();
  await expect(dialog.getByRole('alert')).toHaveText(/computer player/);
  await expect(page.locator('#me-name')).toHaveText('Alice');
  await expect(page.locator('.name-now')).toHaveText('Alice');
});

test('the lists of the home page keep the keyboard focus when they change', async ({ page, player }) => {
  await page.clock.install();
  await page.goto('/');
  await page.getByRole('button', { name: 'Start pass and play' }).click();
  for (const [sq, mark] of [['a1', 'X'], ['b1', 'O'], ['b2', 'X'], ['c1', 'O'], ['c3', 'X']]) await play(page, sq, mark);
  await homeWithBobsTable(page, player);

  // On a table of the lobby when another one opens.
  const watchBob = page.getByRole('link', { name: 'Watch Bob vs open seat' });
  await watchBob.focus();
  const cy = await player('Cy');
  await cy.goto('/');
  await cy.getByRole('switch', { name: 'List it in open tables' }).check();
  await cy.getByRole('button', { name: 'Create a table' }).click();
  await expect(page.locator('#lobby .row').filter({ hasText: 'Cy' })).toBeVisible();
  await expect(watchBob).toBeFocused();

  // On a recent game when the list is fetched again.
  const game = page.locator('#recent .row-link').first();
  await game.focus();
  const before = await game.getAttribute('href');
  await page.clock.runFor(16_000);
  await expect(page.locator(`#recent .row-link[href="${before}"]`)).toBeFocused();
});

test('the open tables are not read out whole to screen readers at every change', async ({ page }) => {
  await page.goto('/');
  await expect(page.locator('#lobby')).toBeVisible();
  // A live region re-reads its content as it changes: the lobby changes
  // with every table opened, filled or closed anywhere.
  const live = await page.locator('#lobby').evaluate(
    (el) => el.closest('[aria-live]:not([aria-live="off"])')?.id ?? null,
  );
  expect(live).toBeNull();
});

/**
 * Holds the server's `welcome` back from the page until the returned
 * function is called.
 * @returns {Promise<() => void>}
 */
async function holdWelcome(page) {
  let release = () => {};
  const held = new Promise((resolve) => { release = resolve; });
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => server.send(m));
    server.onMessage(async (m) => {
      if (typeof m === 'string' && m.includes('"type":"welcome"')) await held;
      ws.send(m);
    });
  });
  return () => release();
}

/** Saves `name` in the name dialog; returns the dialog. */
async function saveName(page, name) {
  await page.getByRole('button', { name: 'Change name' }).click();
  const dialog = page.getByRole('dialog', { name: 'Your name' });
  await dialog.getByRole('textbox').fill(name);
  await dialog.getByRole('button', { name: 'Save' }).click();
  return dialog;
}

test("the player's own open table says it is theirs and opens it, not Join", async ({ page, player }) => {
  await page.goto('/');
  await page.getByRole('switch', { name: 'List it in open tables' }).check();
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const tableId = page.url().split('/t/')[1];
  await page.getByRole('link', { name: 'Home', exact: true }).click();

  const row = page.locator(`#lobby li:has(a[href^="/t/${tableId}"])`);
  await expect(row).toContainText('Your table');
  await expect(row.getByRole('link', { name: /Join/ })).toHaveCount(0);
  await expect(row.getByRole('link', { name: /Watch/ })).toHaveCount(0);
  await row.getByRole('link', { name: 'Open your table' }).click();
  await expect(page).toHaveURL(new RegExp(`/t/${tableId}$`));
  await expect(status(page)).toHaveText('Waiting for an opponent…');

  // Someone else still gets Join for it.
  const bob = await player('Bob');
  await bob.goto('/');
  const theirs = bob.locator(`#lobby li:has(a[href^="/t/${tableId}"])`);
  await expect(theirs.getByRole('link', { name: 'Join Alice' })).toBeVisible();
  await expect(theirs).not.toContainText('Your table');
});
