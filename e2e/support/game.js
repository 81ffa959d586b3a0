// Helpers that read and play the board the way a person sees it.

import { expect } from '@playwright/test';

export const SQUARES = ['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3', 'b3', 'c3'];

export const cell = (page, sq) => page.locator(`.board .cell[data-square="${sq}"]`);
export const status = (page) => page.locator('#status');
export const substatus = (page) => page.locator('#substatus');
export const toastEl = (page) => page.locator('#toast');

/** The board as the page shows it, in position notation ("X...O...."). */
export async function boardOf(page) {
  return page.locator('.board .cell').evaluateAll((cells) => cells.map((c) => c.dataset.mark || '.').join(''));
}

/** The move list as text, e.g. ["1. X a1", "2. O b2"]. */
export async function movesOf(page) {
  // Without the solver's verdict that a finished round adds ("… — kept the draw").
  return page.locator('#moves li.move:not(.move-end)').evaluateAll((lis) => lis.map((li) => (li.dataset.baseLabel ?? li.getAttribute('aria-label')).split(' — ')[0]));
}

/** The squares highlighted as the winning line. */
export async function winCellsOf(page) {
  return page.locator('.board .cell.is-win').evaluateAll((cells) => cells.map((c) => c.dataset.square));
}

/** Clicks `sq` and waits until the server's new state shows `mark` there. */
export async function play(page, sq, mark) {
  // The board takes a move only when it is ours to make: wait for that, as
  // a person would.
  await expect(cell(page, sq)).toHaveAttribute('aria-disabled', 'false', { timeout: 15_000 });
  await cell(page, sq).click();
  await expect(cell(page, sq)).toHaveAttribute('data-mark', mark);
}

/** The server's analysis of `board` with `turn` to move. */
export async function analyze(server, board, turn) {
  const res = await fetch(`${server.url}/api/analyze?position=${encodeURIComponent(`${board} ${turn.toLowerCase()}`)}`);
  expect(res.status).toBe(200);
  return res.json();
}

/**
 * Picks a move: `best` plays perfectly (the analysis lists the best first);
 * `worst` opens in the corner a1 and then always picks a move with the worst
 * value, which against the perfect bot loses every time.
 */
export async function chooseMove(server, board, mark, strategy) {
  if (strategy === 'worst' && board === '.........') return 'a1';
  const { moves } = await analyze(server, board, mark);
  if (strategy === 'best') return moves[0].cell;
  const rank = { loss: 0, draw: 1, win: 2 };
  return [...moves].sort((a, b) => rank[a.result] - rank[b.result])[0].cell;
}

/**
 * Plays `mark` against the computer until the round is over; returns the
 * final status text. Every move waits for the server's state.
 */
export async function playOutVsBot(page, server, mark, strategy, { before } = {}) {
  const yourTurn = `Your turn (${mark})`;
  for (let i = 0; i < 6; i += 1) {
    await expect(status(page)).toHaveText(new RegExp(`^(${yourTurn.replace(/[()]/g, '\\$&')}|.* wins.*|Draw)$`), { timeout: 15_000 });
    const text = await status(page).textContent();
    if (text !== yourTurn) return text;
    const board = await boardOf(page);
    const sq = await chooseMove(server, board, mark, strategy);
    if (before) await before(sq, board);
    await play(page, sq, mark);
  }
  await expect(status(page)).toHaveText(/wins|Draw/);
  return status(page).textContent();
}

/** Starts a game against the computer from the home page. */
export async function startBotGame(page, { level = 'Impossible', side = 'X' } = {}) {
  await page.goto('/');
  await page.getByRole('radio', { name: new RegExp(`^${level}`) }).check();
  await page.getByRole('radio', { name: new RegExp(`^${side}\\b`) }).check();
  await page.getByRole('button', { name: 'Play the computer' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  await expect(status(page)).not.toHaveText('Connecting…');
}

/**
 * A game against Impossible half-way: `page` plays X, b2, the computer
 * answers, and the hints are on.
 */
export async function midGameWithHints(page) {
  await startBotGame(page, { level: 'Impossible', side: 'X' });
  await play(page, 'b2', 'X');
  await expect(page.locator('#moves li.move')).toHaveCount(2, { timeout: 15_000 });
  await expect(status(page)).toHaveText('Your turn (X)');
  await page.getByRole('switch', { name: 'Hints' }).check();
  await expect(page.locator('.cell .hint').first()).toBeVisible();
}

/** Clicks Forfeit once: it asks to be sure. */
export async function armForfeit(page) {
  await page.locator('#forfeit').click();
  await expect(page.locator('#forfeit')).toHaveText('Really forfeit?');
}

/**
 * Turns the hints off and loses the round against the computer (as X),
 * then waits for Rematch.
 */
export async function loseToBot(page, server) {
  await page.getByRole('switch', { name: 'Hints' }).uncheck();
  await playOutVsBot(page, server, 'X', 'worst');
  await expect(page.getByRole('button', { name: 'Rematch' })).toBeVisible();
}

/** From a finished round, opens its replay, which starts at the end. */
export async function openReplay(page) {
  await page.getByRole('link', { name: 'Open replay' }).click();
  await expect(page.locator('#position')).toHaveText(/^Move (\d) of \1$/);
}

/**
 * Bob (a new player) lists an open table, then `page` goes Home, where it
 * shows in the lobby beside the recent games. Returns Bob's page.
 */
export async function homeWithBobsTable(page, player) {
  const bob = await player('Bob');
  await bob.goto('/');
  await bob.getByRole('switch', { name: 'List it in open tables' }).check();
  await bob.getByRole('button', { name: 'Create a table' }).click();
  await expect(bob).toHaveURL(/\/t\/[^/]+$/);
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(page.locator('#lobby .row').filter({ hasText: 'Bob' }).first()).toBeVisible();
  await expect(page.locator('#recent .row')).not.toHaveCount(0);
  return bob;
}

/**
 * Routes the page's WebSocket through the test, so that the test can cut
 * the connection: `await net.cut()` closes it and refuses new ones until
 * `net.restore()`. Call before the page opens its socket.
 *
 * `toServer(msg, page)` and `toPage(msg)`, if given, see each frame on its
 * way (parsed) and return true to keep it from going on; `toServer` may
 * answer the page itself with `page.send(...)`.
 * @param {import('@playwright/test').Page} page
 * @param {{
 *   toServer?: (msg: any, page: import('@playwright/test').WebSocketRoute) => boolean,
 *   toPage?: (msg: any) => boolean,
 * }} [filters]
 */
export async function cuttableSocket(page, { toServer, toPage } = {}) {
  let cut = false;
  /** @type {import('@playwright/test').WebSocketRoute[]} */
  const sockets = [];
  await page.routeWebSocket(/\/ws$/, (ws) => {
    if (cut) {
      ws.close();
      return;
    }
    const server = ws.connectToServer();
    sockets.push(ws);
    if (toServer) ws.onMessage((m) => {
      if (!toServer(JSON.parse(String(m)), ws)) server.send(m);
    });
    if (toPage) server.onMessage((m) => {
      if (!toPage(JSON.parse(String(m)))) ws.send(m);
    });
  });
  return {
    async cut() {
      cut = true;
      for (const ws of sockets) await ws.close();
    },
    restore() {
      cut = false;
    },
  };
}

/**
 * Routes the page's WebSocket through the test, which answers some of the
 * page's requests itself instead of passing them on: `refuse(type, code,
 * message)` makes every later request of that `type` get an `error` reply
 * with that code (a failure the real server gives only rarely, such as
 * `internal`); `allow(type)` passes them on again. Call before the page
 * opens its socket.
 */
export async function refusingSocket(page) {
  const refused = new Map();
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    ws.onMessage((m) => {
      let msg = null;
      try {
        msg = JSON.parse(String(m));
      } catch {
        // Not JSON: the server says so.
      }
      const refusal = msg && refused.get(msg.type);
      if (!refusal) {
        server.send(m);
        return;
      }
      ws.send(JSON.stringify({ type: 'error', id: msg.id, code: refusal.code, message: refusal.message }));
    });
  });
  return {
    refuse(type, code, message) {
      refused.set(type, { code, message });
    },
    allow(type) {
      refused.delete(type);
    },
  };
}

/**
 * Routes the page's WebSocket through the test, which can make the link
 * slow: `lag(ms)` holds everything the server says for `ms` before the
 * page gets it (in order), and `refuse(type, code, message)` answers every
 * later request of that `type` itself, with an `error` that comes as late.
 * `sent` lists what the page sent, `delivered` what reached it. Call before
 * the page opens its socket.
 */
export async function slowSocket(page) {
  let delay = 0;
  const refused = new Map();
  const sent = [];
  const delivered = [];
  const parse = (m) => {
    try {
      return JSON.parse(String(m));
    } catch {
      return null;
    }
  };
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    const toPage = (m) => {
      const deliver = () => {
        delivered.push(parse(m));
        ws.send(m);
      };
      if (delay) setTimeout(deliver, delay);
      else deliver();
    };
    ws.onMessage((m) => {
      const msg = parse(m);
      if (msg) sent.push(msg);
      const refusal = msg && refused.get(msg.type);
      if (refusal) toPage(JSON.stringify({ type: 'error', id: msg.id, code: refusal.code, message: refusal.message }));
      else server.send(m);
    });
    server.onMessage(toPage);
  });
  return {
    sent,
    delivered,
    lag(ms) {
      delay = ms;
    },
    refuse(type, code, message) {
      refused.set(type, { code, message });
    },
  };
}

/** Says `text` in the chat of the game page `page`. */
export async function say(page, text) {
  const box = page.getByRole('textbox', { name: 'Chat message' });
  await box.fill(text);
  await box.press('Enter');
  await expect(box).toHaveValue('');
}

/** The chat messages the page shows, oldest first. */
export const chatLines = (page) => page.locator('#chatlog .chat-text');

/**
 * Alice (`page`) opens a table and Bob joins it by its link; Bob's page is
 * set up with `before(bob)` first (e.g. to route its socket). Returns
 * Bob's page and the table's link.
 */
export async function aliceAndBob(page, player, before = async () => {}) {
  await page.goto('/');
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const link = page.url();
  const bob = await player('Bob');
  await before(bob);
  await bob.goto(link);
  await expect(status(page)).toHaveText('Your turn (X)');
  await expect(status(bob)).toHaveText('Waiting for Alice…');
  return { bob, link };
}
