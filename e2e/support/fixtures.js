// Test fixtures: one `oxo serve` per worker, players in their own browser
// contexts (their own localStorage, so their own token), and a guard that
// fails any test in which a page logged a console error, threw, had a
// request fail or answered with an HTTP error, or sent or received a
// WebSocket frame that does not match the protocol's schema.

import { test as base, expect } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startServer, ARTIFACTS } from './server.js';
import { checkFrame } from './frames.js';

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

/**
 * Every frame of every WebSocket of `page`: it must match the protocol's
 * schema (support/frames.js), and no request id may go out twice on one
 * socket.
 */
function watchSockets(page, problems, who) {
  page.on('websocket', (ws) => {
    const ids = new Set();
    const check = (direction, payload) => {
      const wrong = checkFrame(direction, payload);
      if (wrong) problems.push(`${who}: frame ${direction} does not match the protocol schema: ${wrong}; frame: ${payload}`);
      return !wrong;
    };
    ws.on('framesent', ({ payload }) => {
      if (!check('sent', payload)) return;
      const msg = JSON.parse(String(payload));
      if (msg.id === undefined) return;
      if (ids.has(msg.id)) problems.push(`${who}: request id ${msg.id} sent twice on one socket: ${payload}`);
      ids.add(msg.id);
    });
    ws.on('framereceived', ({ payload }) => check('received', payload));
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
  /** More flags of the worker's `oxo serve`: `test.use({ serverArgs: [...] })` in a spec. */
  serverArgs: [[], { scope: 'worker', option: true }],

  server: [
    async ({ serverArgs }, use, workerInfo) => {
      const server = await startServer(`server-worker-${workerInfo.workerIndex}`, workerInfo.parallelIndex, serverArgs);
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
      expect(problems, 'console errors, page errors, failed requests, frames off the protocol schema or request ids sent twice').toEqual([]);
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
