// A network that goes away without the socket noticing: the browser going
// offline, or a connection that simply stops answering. The page says so at
// once, the board turns inert, and it reconnects by itself; a move that got
// no answer is not called failed, since it may have landed: the state after
// the reconnect settles it.

import { test, expect } from '../support/fixtures.js';
import { status, substatus, play, boardOf, startBotGame, chooseMove, toastEl, cell } from '../support/game.js';

/**
 * Routes the page's WebSocket through the test, which can make the open
 * sockets go silent (`deafen()`: nothing the server says reaches the page,
 * and, with `both`, nothing the page says reaches the server), without
 * closing them, as a dead network does. New sockets are refused until
 * `restore()`.
 */
async function silenceableSocket(page) {
  const sockets = [];
  let down = false;
  await page.routeWebSocket(/\/ws$/, (ws) => {
    if (down) {
      ws.close();
      return;
    }
    const server = ws.connectToServer();
    const s = { up: true, down: true };
    sockets.push(s);
    ws.onMessage((m) => {
      if (s.up) server.send(m);
    });
    server.onMessage((m) => {
      if (s.down) ws.send(m);
    });
    // Closing is left alone: a dead network closes nothing.
    ws.onClose(() => {});
    server.onClose(() => {});
  });
  return {
    restore() {
      down = false;
    },
    deafen({ both = false } = {}) {
      down = true;
      for (const s of sockets) {
        s.down = false;
        if (both) s.up = false;
      }
    },
  };
}

test('the browser going offline shows at once, the board turns inert, and it comes back', async ({ page, context, server }) => {
  await startBotGame(page, { level: 'Impossible', side: 'X' });
  await expect(status(page)).toHaveText('Your turn (X)');
  await expect(page.locator('#conn')).toBeHidden();

  await context.setOffline(true);
  await expect(page.locator('#conn')).toBeVisible({ timeout: 3_000 });
  await expect(page.locator('#conn')).toHaveText(/Offline — reconnecting/);
  await expect(page.locator('.board')).toHaveAttribute('data-interactive', 'false');
  await expect(substatus(page)).toContainText('Offline');
  // It stays offline (no reconnect attempt pretends otherwise).
  await page.waitForTimeout(2_000);
  await expect(page.locator('#conn')).toBeVisible();

  await context.setOffline(false);
  await expect(page.locator('#conn')).toBeHidden({ timeout: 15_000 });
  await expect(status(page)).toHaveText('Your turn (X)');
  const board = await boardOf(page);
  await play(page, await chooseMove(server, board, 'X', 'best'), 'X');
});

test('a move played as the network goes says it is on its way, not "Your turn", and lands once when back', async ({ page, context }) => {
  const net = await silenceableSocket(page);
  await startBotGame(page, { level: 'Impossible', side: 'X' });
  await expect(status(page)).toHaveText('Your turn (X)');
  // The server hears the move, but the network goes before its answer.
  net.deafen();
  await cell(page, 'b2').click();
  await expect(status(page)).toHaveText('Sending your move (b2)…');
  await context.setOffline(true);
  await expect(page.locator('#conn')).toBeVisible({ timeout: 3_000 });
  // Offline with the move unanswered: the page says what became of it, and
  // not that it is still the player's turn.
  await expect(cell(page, 'b2')).toHaveAttribute('data-pending', 'X');
  await expect(status(page)).toHaveText('Sending your move (b2)…');
  await expect(substatus(page)).toHaveText('Offline — your move goes again once you are back online.');
  await expect(page).not.toHaveTitle(/Your turn/);

  net.restore();
  await context.setOffline(false);
  await expect(page.locator('#conn')).toBeHidden({ timeout: 15_000 });
  // Played once: X at b2, the computer's answer, and the move list says so.
  await expect(page.locator('#moves li.move')).toHaveCount(2, { timeout: 10_000 });
  await expect(cell(page, 'b2')).toHaveAttribute('data-mark', 'X');
  // One X and one O: Impossible answers the centre in any corner.
  expect([...(await boardOf(page)).replace(/\./g, '')].sort().join('')).toBe('OX');
  await expect(status(page)).toHaveText('Your turn (X)');
  await expect(substatus(page)).not.toContainText('Offline');
});

test('a connection that stops answering is noticed by the ping', async ({ page }) => {
  test.setTimeout(90_000);
  const net = await silenceableSocket(page);
  await startBotGame(page, { level: 'Impossible', side: 'X' });
  await expect(status(page)).toHaveText('Your turn (X)');
  net.deafen({ both: true });
  // The page pings every 20 s and waits 10 s for the answer.
  await expect(page.locator('#conn')).toBeVisible({ timeout: 35_000 });
  await expect(page.locator('.board')).toHaveAttribute('data-interactive', 'false');
  await expect(substatus(page)).toContainText('Offline');
  // The network is back: it reconnects by itself.
  net.restore();
  await expect(page.locator('#conn')).toBeHidden({ timeout: 15_000 });
  await expect(status(page)).toHaveText('Your turn (X)');
});

test('a move that got no answer is checked, not called failed, and the reconnect settles it', async ({ page }) => {
  test.setTimeout(90_000);
  const net = await silenceableSocket(page);
  await startBotGame(page, { level: 'Impossible', side: 'X' });
  await expect(status(page)).toHaveText('Your turn (X)');
  // The server hears the move, but its answer never comes back.
  net.deafen();
  await expect(cell(page, 'b2')).toHaveAttribute('aria-disabled', 'false');
  await cell(page, 'b2').click();
  await expect(substatus(page)).toHaveText(/No answer from the server — checking…/, { timeout: 35_000 });
  await expect(page.locator('#conn')).toBeVisible();
  await expect(toastEl(page)).not.toContainText('did not answer');
  await expect(cell(page, 'b2')).not.toHaveAttribute('data-mark', 'X');
  // After the reconnect, the state shows the move was played.
  net.restore();
  await expect(page.locator('#conn')).toBeHidden({ timeout: 20_000 });
  await expect(cell(page, 'b2')).toHaveAttribute('data-mark', 'X', { timeout: 10_000 });
  await expect(substatus(page)).not.toContainText('checking');
  await expect(status(page)).toHaveText(/Your turn \(X\)|Waiting for Impossible…/);
});
