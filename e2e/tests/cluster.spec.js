// A cluster through HAProxy (scripts/cluster: PostgreSQL, NATS, three
// nodes, HAProxy): two friends play, their pages connected through
// HAProxy's round robin (so, most often, to different nodes, one of them
// reaching the table over the bus); the node that runs the table is killed
// (kill -9) mid-game;
// both pages reconnect by themselves, the game goes on to its end, and the
// replay has every move.
//
// Not under the usual guard (support/fixtures.js): during the failover a
// page sees refused connections and 503s, which is what this test is about.

import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { status, boardOf, play } from '../support/game.js';
import { E2E_DIR } from '../support/server.js';

const ROOT = resolve(E2E_DIR, '..');
const SCRIPT = join(ROOT, 'scripts/cluster');
const BIN = process.env.OXO_BIN
  ?? join(resolve(ROOT, process.env.CARGO_TARGET_DIR ?? 'target'), 'release/oxo');
const DIR = join(tmpdir(), `oxo-e2e-cluster-${process.pid}`);
const ENV = { ...process.env, OXO_CLUSTER_DIR: DIR, OXO: BIN, OXO_LEASE: '2s' };

const installed = existsSync('/usr/lib/postgresql') && (() => {
  try {
    execFileSync('sh', ['-c', 'command -v haproxy'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const cluster = (...args) => execFileSync(SCRIPT, args, { env: ENV, encoding: 'utf8' });
const state = (name) => readFileSync(join(DIR, name), 'utf8').trim();

/** The node that runs the most tables (this test's one table), by its /metrics gauge. */
async function busiest() {
  const nodes = Number(state('nodes'));
  let best = null;
  let most = 0;
  for (let n = 1; n <= nodes; n += 1) {
    try {
      const res = await fetch(`http://127.0.0.1:${state(`node${n}.port`)}/metrics`);
      const line = (await res.text()).split('\n').find((l) => l.startsWith('oxo_tables '));
      const tables = line ? Number(line.split(' ')[1]) : 0;
      if (tables > most) {
        most = tables;
        best = n;
      }
    } catch {
      // A node that does not answer runs nothing.
    }
  }
  return best;
}

test.describe.configure({ mode: 'serial' });

test.beforeAll(() => {
  if (!installed) return;
  cluster('up', '3');
});

test.afterAll(() => {
  if (!installed) return;
  cluster('down');
});

test('a game survives the death of the node that runs it, seen from two browsers', async ({ browser }) => {
  test.skip(!installed && process.env.OXO_TEST_POSTGRES !== 'required', 'PostgreSQL or HAProxy is not installed');
  expect(installed, 'PostgreSQL and HAProxy are required').toBe(true);
  test.setTimeout(90_000);
  const url = state('url');
  const alice = await (await browser.newContext({ baseURL: url })).newPage();
  const bob = await (await browser.newContext({ baseURL: url })).newPage();
  await alice.addInitScript(() => window.localStorage.setItem('oxo.name', 'Alice'));
  await bob.addInitScript(() => window.localStorage.setItem('oxo.name', 'Bob'));

  await alice.goto('/');
  await alice.getByRole('button', { name: 'Create a table' }).click();
  await expect(alice).toHaveURL(/\/t\/[^/]+$/);
  const link = alice.url();
  await bob.goto(link);
  await expect(status(alice)).toHaveText('Your turn (X)');
  await play(alice, 'a1', 'X');
  await play(bob, 'b1', 'O');
  await expect(status(alice)).toHaveText('Your turn (X)');
  const board = await boardOf(alice);

  const victim = await busiest();
  expect(victim, 'a node leads').not.toBeNull();
  cluster('kill', String(victim));

  // Both pages come back by themselves to the same game.
  for (const page of [alice, bob]) {
    await expect(page.locator('#conn')).toBeHidden({ timeout: 30_000 });
  }
  await expect(status(alice)).toHaveText('Your turn (X)', { timeout: 30_000 });
  expect(await boardOf(alice)).toBe(board);
  expect(await boardOf(bob)).toBe(board);
  await play(alice, 'a2', 'X');
  await play(bob, 'b2', 'O');
  await play(alice, 'a3', 'X');
  await expect(status(alice)).toHaveText('You win');
  await expect(status(bob)).toHaveText('Alice wins');

  // The replay has every move, read through HAProxy from any node.
  // A friends' table is private: its game is listed for its players.
  const token = await alice.evaluate(() => window.localStorage.getItem('oxo.token'));
  const asAlice = { headers: { Authorization: `Bearer ${token}` } };
  const games = await (await fetch(`${url}/api/games?limit=20`, asAlice)).json();
  const game = games.find((g) => g.players.x === 'Alice' && g.players.o === 'Bob');
  expect(game, 'the finished game is listed').toBeTruthy();
  const record = await (await fetch(`${url}/api/games/${game.id}`, asAlice)).json();
  expect(record.moves.map((m) => m.cell)).toEqual(['a1', 'b1', 'a2', 'b2', 'a3']);
  await alice.goto(`/games/${game.id}`);
  await expect(alice.locator('#outcome')).toHaveText('Alice (X) wins — three in a row: a1 a2 a3');
  await expect(alice.locator('#position')).toHaveText('Move 5 of 5');
  expect(await boardOf(alice)).toBe('XO.XO.X..');
  cluster('restart', String(victim));
});
