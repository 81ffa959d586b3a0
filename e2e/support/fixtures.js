// Test fixtures: one `oxo serve` per worker, players in their own browser
// contexts (their own localStorage, so their own token), and a guard that
// fails any test in which a page logged a console error, threw, or had a
// request fail or answered with an HTTP error.

import { test as base, expect } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, ARTIFACTS } from './server.js';

export { expect };

/**
 * Records everything that counts as a problem in `context` into `problems`;
 * also that no request id goes out twice on one WebSocket (a retry belongs
 * on a new connection only).
 */
function guard(context, problems, who) {
  context.on('page', (page) => watchSockets(page, problems, who));
  for (const page of context.pages()) watchSockets(page, problems, who);
  context.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`${who}: console error: ${msg.text()} (${msg.location().url})`);
  });
  context.on('weberror', (err) => problems.push(`${who}: uncaught: ${err.error().message}`));
  context.on('requestfailed', (req) => {
    const failure = req.failure()?.errorText ?? '';
    // A request cut off by a navigation or reload is not a failure of oxo.
    if (failure.includes('ERR_ABORTED')) return;
    problems.push(`${who}: request failed: ${req.method()} ${req.url()} ${failure}`);
  });
  context.on('response', (res) => {
    if (res.status() >= 400) problems.push(`${who}: HTTP ${res.status()} for ${res.request().method()} ${res.url()}`);
  });
}

function watchSockets(page, problems, who) {
  page.on('websocket', (ws) => {
    const ids = new Set();
    ws.on('framesent', ({ payload }) => {
      let msg;
      try {
        msg = JSON.parse(payload);
      } catch {
        problems.push(`${who}: non-JSON frame sent: ${payload}`);
        return;
      }
      if (msg.id === undefined) return;
      if (ids.has(msg.id)) problems.push(`${who}: request id ${msg.id} sent twice on one socket: ${payload}`);
      ids.add(msg.id);
    });
  });
}

/** Sets the display name before the app starts (only if none is stored yet). */
async function presetName(context, name) {
  await context.addInitScript((n) => {
    try {
      if (!window.localStorage.getItem('oxo.name')) window.localStorage.setItem('oxo.name', n);
    } catch {
      // about:blank has no storage.
    }
  }, name);
}

export const test = base.extend({
  server: [
    async ({}, use, workerInfo) => {
      const server = await startServer(`server-worker-${workerInfo.workerIndex}`);
      await use(server);
      await server.stop();
    },
    { scope: 'worker', timeout: 30_000 },
  ],

  baseURL: async ({ server }, use) => {
    await use(server.url);
  },

  problems: [
    async ({}, use) => {
      const problems = [];
      await use(problems);
      expect(problems, 'console errors, page errors, failed requests or request ids sent twice').toEqual([]);
    },
    { auto: true },
  ],

  context: async ({ context, problems }, use) => {
    guard(context, problems, 'page');
    await presetName(context, 'Alice');
    await use(context);
  },

  /**
   * Opens another player in a fresh browser context:
   * `const bob = await player('Bob')` → a Page at the home page.
   */
  player: async ({ browser, server, problems }, use) => {
    const contexts = [];
    await use(async (name, options = {}) => {
      const context = await browser.newContext({ baseURL: server.url, ...options });
      contexts.push(context);
      guard(context, problems, name);
      await presetName(context, name);
      const page = await context.newPage();
      return page;
    });
    for (const c of contexts) await c.close();
  },
});

/** Where screenshots go (e2e/artifacts, gitignored). */
export function artifact(name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  return join(ARTIFACTS, name);
}
