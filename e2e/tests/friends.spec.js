// Two players meet through the share link while a third watches: everyone
// sees the same moves and the same result, refusals show the server's
// message, chat reaches everyone, and the rematch updates the scoreboard.

import { test, expect, artifact } from '../support/fixtures.js';
import {
  status, substatus, cell, boardOf, movesOf, winCellsOf, play, toastEl,
} from '../support/game.js';

test('two friends play through the share link while a third watches', async ({ page, player, context }) => {
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  const alice = page;
  await alice.goto('/');
  await alice.getByRole('button', { name: 'Create a table' }).click();
  await expect(alice).toHaveURL(/\/t\/[^/]+$/);
  await expect(status(alice)).toHaveText('Waiting for an opponent…');

  // The link to send, with a working Copy button.
  const link = await alice.getByRole('textbox', { name: 'Link to this table' }).inputValue();
  expect(link).toBe(alice.url());
  await alice.getByRole('button', { name: 'Copy' }).click();
  await expect(alice.getByRole('button', { name: 'Copied!' })).toBeVisible();
  expect(await alice.evaluate(() => navigator.clipboard.readText())).toBe(link);
  await alice.screenshot({ path: artifact('share-desktop-light.png'), animations: 'disabled' });

  // Bob opens the link and is seated; Carol opens it and watches.
  const bob = await player('Bob');
  await bob.goto(link);
  await expect(status(bob)).toHaveText('Waiting for Alice…');
  await expect(status(alice)).toHaveText('Your turn (X)');
  await expect(alice.locator('#share')).toBeHidden();
  const carol = await player('Carol');
  await carol.goto(link);
  await expect(status(carol)).toHaveText('Alice (X) to move');
  // Both seats were taken when she came: she is told why she only watches.
  await expect(toastEl(carol)).toHaveText(/both seats are taken.*watching/i);
  await expect(alice.locator('.table-meta')).toContainText('1 watching');
  await expect(bob.locator('.player[data-seat="O"]')).toContainText('You');
  const everyone = [alice, bob, carol];

  // Out of turn the board is inert (nothing is sent; the status says whose
  // turn it is); a move on a taken cell is refused by the server, whose
  // message shows; nothing else changes.
  await expect(cell(bob, 'b2')).toHaveAttribute('aria-disabled', 'true');
  await cell(bob, 'b2').click({ force: true });
  await expect(cell(bob, 'b2')).toHaveAttribute('data-mark', '');
  await play(alice, 'a1', 'X');
  const before = await boardOf(bob);
  await cell(bob, 'a1').click();
  await expect(toastEl(bob)).toHaveText(/a1.*taken|taken/i);
  expect(await boardOf(bob)).toBe(before);
  await expect(status(bob)).toHaveText('Your turn (O)');

  // The rest of the round: X takes column a.
  const script = [['b1', 'O', bob], ['a2', 'X', alice], ['b2', 'O', bob], ['a3', 'X', alice]];
  for (const [sq, mark, who] of script) {
    await play(who, sq, mark);
    for (const p of everyone) await expect(cell(p, sq)).toHaveAttribute('data-mark', mark);
  }
  const boards = await Promise.all(everyone.map(boardOf));
  expect(new Set(boards).size).toBe(1);
  expect(boards[0]).toBe('XO.XO.X..');
  const moves = await Promise.all(everyone.map(movesOf));
  expect(moves[1]).toEqual(moves[0]);
  expect(moves[2]).toEqual(moves[0]);
  expect(moves[0]).toEqual(['1. X a1', '2. O b1', '3. X a2', '4. O b2', '5. X a3']);

  await expect(status(alice)).toHaveText('You win');
  await expect(status(bob)).toHaveText('Alice wins');
  await expect(status(carol)).toHaveText('Alice wins');
  await carol.screenshot({ path: artifact('spectator-desktop-light.png'), animations: 'disabled' });
  for (const p of everyone) {
    expect((await winCellsOf(p)).sort()).toEqual(['a1', 'a2', 'a3']);
    await expect(p.locator('.player[data-seat="X"] .player-score')).toHaveText('1');
    await expect(p.locator('.player[data-seat="O"] .player-score')).toHaveText('0');
  }

  // Chat reaches players and spectators.
  await alice.getByRole('textbox', { name: 'Chat message' }).fill('good game!');
  await alice.getByRole('button', { name: 'Send' }).click();
  for (const p of everyone) await expect(p.locator('#chatlog')).toContainText('good game!');
  await expect(carol.locator('#chatlog .chat-from')).toHaveText('Alice');

  // The rematch: both ask, the next round starts with O (alternate starter)
  // and the scoreboard carries over.
  await expect(carol.getByRole('button', { name: 'Rematch' })).toBeHidden();
  await alice.getByRole('button', { name: 'Rematch' }).click();
  await expect(substatus(alice)).toHaveText(/Waiting for Bob to accept the rematch/);
  await expect(substatus(bob)).toHaveText(/Alice wants a rematch/);
  await bob.getByRole('button', { name: 'Rematch' }).click();
  for (const p of everyone) {
    await expect(p.locator('.table-meta')).toContainText('Round 2');
    expect(await boardOf(p)).toBe('.........');
  }
  await expect(status(bob)).toHaveText('Your turn (O)');
  await expect(status(alice)).toHaveText('Waiting for Bob…');

  // Alice forfeits round 2 (two clicks): the scoreboard is 1-1 everywhere.
  await play(bob, 'b2', 'O');
  await alice.getByRole('button', { name: 'Forfeit' }).click();
  await alice.getByRole('button', { name: 'Really forfeit?' }).click();
  await expect(status(alice)).toHaveText('Bob wins — you forfeited');
  await expect(status(bob)).toHaveText('You win — Alice forfeited');
  await expect(status(carol)).toHaveText('Bob wins — Alice forfeited');
  for (const p of everyone) {
    await expect(p.locator('.player[data-seat="X"] .player-score')).toHaveText('1');
    await expect(p.locator('.player[data-seat="O"] .player-score')).toHaveText('1');
    await expect(p.locator('.draws-n')).toHaveText('0');
  }
});

test('a public table shows in the lobby; join and watch from there', async ({ page, player }) => {
  const dave = await player('Dave');
  await dave.goto('/');
  await expect(dave.locator('#lobby')).toBeVisible();

  await page.goto('/');
  await page.getByRole('switch', { name: 'List it in open tables' }).check();
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const tableId = page.url().split('/t/')[1];

  // Dave's open-tables list updates by itself.
  const row = dave.locator(`#lobby li:has(a[href^="/t/${tableId}"])`);
  await expect(row).toContainText('Waiting');
  await row.getByRole('link', { name: /Join/ }).click();
  await expect(dave).toHaveURL(new RegExp(`/t/${tableId}$`));
  await expect(status(dave)).toHaveText('Waiting for Alice…');
  await expect(status(page)).toHaveText('Your turn (X)');

  // Erin watches it from the lobby.
  const erin = await player('Erin');
  await erin.goto('/');
  await erin.locator(`#lobby li:has(a[href^="/t/${tableId}"])`).getByRole('link', { name: /Watch/ }).click();
  await expect(status(erin)).toHaveText('Alice (X) to move');
  await expect(erin.locator('.board .cell').first()).toHaveAttribute('aria-disabled', 'true');
  await expect(page.locator('.table-meta')).toContainText('1 watching');
  await play(page, 'c3', 'X');
  await expect(cell(erin, 'c3')).toHaveAttribute('data-mark', 'X');
  await expect(status(erin)).toHaveText('Dave (O) to move');
});
