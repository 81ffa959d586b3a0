// The first visit on a slow link: the page names every module it will need
// (`<link rel="modulepreload">`, written by the server's build from the
// modules' imports), so the browser asks for them all at once instead of
// finding them one import at a time. The list must stay in step with the
// modules: the test learns the real module graph from the browser itself
// (the page with its preloads taken out) and compares.

import { test, expect } from '../support/fixtures.js';

/** The JavaScript URLs `page` requests while `load` runs, in order. */
async function scriptsRequested(page, load) {
  /** @type {string[]} */
  const urls = [];
  const onRequest = (req) => {
    if (new URL(req.url()).pathname.endsWith('.js')) urls.push(req.url());
  };
  page.on('request', onRequest);
  await load();
  await expect(page.locator('#play-bot')).toBeVisible();
  page.off('request', onRequest);
  return urls;
}

test('the page preloads exactly the modules it imports, each fetched once', async ({ page, browser, server }) => {
  // The real graph: a fresh browser, the page without its preloads.
  const bare = await browser.newContext({ baseURL: server.url });
  const barePage = await bare.newPage();
  await barePage.route('/', async (route) => {
    const res = await route.fetch();
    const html = (await res.text()).replace(/<link rel="modulepreload"[^>]*>\s*/g, '');
    await route.fulfill({ response: res, body: html });
  });
  const graph = await scriptsRequested(barePage, () => barePage.goto('/'));
  await bare.close();

  const requested = await scriptsRequested(page, () => page.goto('/'));
  const base = new URL(server.url);
  const entry = await page.locator('script[type="module"][src]').evaluateAll((els) => els.map((e) => e.src));
  const preloads = await page.locator('link[rel="modulepreload"]').evaluateAll((els) => els.map((e) => e.href));
  const sorted = (list) => [...new Set(list)].map((u) => new URL(u, base).href).sort();

  expect(entry).toHaveLength(1);
  // Every module the page needs besides its entry is preloaded, and nothing else.
  expect(sorted(preloads)).toEqual(sorted(graph.filter((u) => !entry.includes(u))));
  // The preloads are the very URLs the imports resolve to: nothing is
  // fetched twice, and nothing beyond the graph.
  expect(requested.length).toBe(new Set(requested).size);
  expect(sorted(requested)).toEqual(sorted(graph));
  // After the import map, which must come before any module is fetched.
  const order = await page.evaluate(() => [...document.head.children].map((e) => e.getAttribute('rel') ?? e.getAttribute('type') ?? e.tagName));
  expect(order.indexOf('importmap')).toBeGreaterThanOrEqual(0);
  expect(order.indexOf('importmap')).toBeLessThan(order.indexOf('modulepreload'));
});
