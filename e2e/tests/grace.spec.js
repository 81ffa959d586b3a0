// A player away for longer than the reconnect grace loses the round
// (`dropped`); away past a second grace, the finished round's seat is
// given up too. A page that comes back after that must not take the
// freed seat again as if nothing happened (a new round would start at
// once, with the player never told they lost the last one): it shows the
// table to watch, the lost round's result, and says the seat was given up.

import { test, expect, artifact } from '../support/fixtures.js';
import { status, substatus, play, cuttableSocket, aliceAndBob } from '../support/game.js';

test.use({ serverArgs: ['--reconnect-grace', '2s'] });

test('a player back after losing the seat is told so, watches, and no round starts by itself', async ({ page, player }) => {
  /** @type {Awaited<ReturnType<typeof cuttableSocket>> | null} */
  let net = null;
  const { bob } = await aliceAndBob(page, player, async (b) => {
    net = await cuttableSocket(b);
  });
  await play(page, 'b2', 'X');
  await play(bob, 'a1', 'O');

  await net.cut();
  await expect(bob.locator('#conn')).toBeVisible();
  // The round is lost after one grace; the seat goes after a second.
  await expect(status(page)).toHaveText(/^You win/, { timeout: 10_000 });
  await expect(substatus(page)).toContainText('Waiting for a new opponent', { timeout: 10_000 });

  net.restore();
  await expect(bob.locator('#conn')).toBeHidden({ timeout: 15_000 });
  await expect(bob.getByText(/seat .*given up|gave up your seat|lost your seat/i).first()).toBeVisible();
  await expect(bob.getByRole('button', { name: 'Take the seat' })).toBeVisible();
  await expect(status(bob)).not.toHaveText(/Your turn/);
  await bob.screenshot({ path: artifact('grace-bob-back.png') });
  // Alice still waits for an opponent: no round started behind her back.
  await expect(substatus(page)).toContainText('Waiting for a new opponent');
  await expect(status(page)).toHaveText(/^You win/);
});
