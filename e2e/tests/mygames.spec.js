// The home page's "Your games" says of each game whose move it is: yours,
// the opponent's, nobody's yet (waiting for an opponent), or that it is
// over; and keeps saying it as the game goes on, both for a game this page
// still hears (a game open in another tab) and for one it stepped away
// from (back to the home page from the game). Screen readers hear it with
// the entry's Continue link.

import { test, expect } from '../support/fixtures.js';
import { status, play, aliceAndBob, armForfeit, startBotGame } from '../support/game.js';

/** The entry of "Your games" that names `who`. */
const entry = (page, who) => page.locator('#my-tables li').filter({ hasText: who });

test('a game stepped away from says whose move it is, live, until it is over', async ({ page, player }) => {
  const { bob } = await aliceAndBob(page, player);
  await play(page, 'b2', 'X');
  await expect(status(bob)).toHaveText('Your turn (O)');

  // Alice goes home on Bob's move: her entry says it is his.
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  const mine = entry(page, 'Bob');
  await expect(mine.locator('.row-turn')).toHaveText('Their turn');
  const cont = mine.getByRole('link', { name: 'Continue' });
  await expect(cont).toHaveAccessibleDescription(/Their turn/);

  // Bob moves: the home page says it is her move now, without a reload.
  await play(bob, 'a1', 'O');
  await expect(mine.locator('.row-turn')).toHaveText('Your turn', { timeout: 5_000 });
  await expect(mine.locator('.row-turn')).toHaveClass(/is-yours/);
  await expect(cont).toHaveAccessibleDescription(/Your turn/);

  // Bob forfeits: over, and who won.
  await armForfeit(bob);
  await bob.locator('#forfeit').click();
  await expect(mine.locator('.row-turn')).toHaveText('Over: Alice won (forfeit)', { timeout: 5_000 });
  await expect(mine.locator('.row-urgent')).toHaveCount(0);
});

test('a game open in another tab says whose move it is on the home page, live', async ({ page, player, context }) => {
  const { bob } = await aliceAndBob(page, player);
  // Alice opens the home page in a second tab; the game stays open in the first.
  const home = await context.newPage();
  await home.goto('/');
  const mine = entry(home, 'Bob');
  await expect(mine.locator('.row-turn')).toHaveText('Your turn');
  await play(page, 'b2', 'X');
  await expect(mine.locator('.row-turn')).toHaveText('Their turn');
  await play(bob, 'a1', 'O');
  await expect(mine.locator('.row-turn')).toHaveText('Your turn');
});

test('waiting, the computer and pass and play say whose move it is', async ({ page }) => {
  // A table still waiting for a friend.
  await page.goto('/');
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(page.locator('#my-tables .row-turn')).toHaveText(['Waiting for an opponent']);

  // A game against the computer, on the player's move.
  await startBotGame(page, { level: 'Impossible', side: 'X' });
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(entry(page, 'Impossible').locator('.row-turn')).toHaveText('Your turn');

  // Pass and play: which mark moves.
  await page.getByRole('button', { name: 'Start pass and play' }).click();
  await play(page, 'b2', 'X');
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(entry(page, 'Pass and play').locator('.row-turn')).toHaveText('O to move');

  // The games on the player's move come first.
  await expect(page.locator('#my-tables .row-turn')).toHaveText(['Your turn', 'O to move', 'Waiting for an opponent']);
});

test('a table left waiting says so live when a friend joins it, and the friend sees its creator away', async ({ page, player }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const link = page.url();
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  const mine = page.locator('#my-tables li');
  await expect(mine.locator('.row-turn')).toHaveText(['Waiting for an opponent']);

  // Bob opens the link: Alice's home page says the game is on, and whose
  // move it is (Alice holds X, who starts), without a reload.
  const bob = await player('Bob');
  await bob.goto(link);
  await expect(mine.locator('.row-title')).toHaveText(['vs Bob'], { timeout: 5_000 });
  await expect(mine.locator('.row-turn')).toHaveText(['Your turn']);
  await expect(page.locator('#announcer')).toHaveText('Your turn vs Bob');
  // Alice is on the home page, not at the board: Bob sees her away, and
  // her time to come back running.
  await expect(status(bob)).toHaveText(/^Alice is away — \d+ s to come back$/);

  // Bob waits; Alice goes back and plays.
  await mine.getByRole('link', { name: 'Continue' }).click();
  await play(page, 'b2', 'X');
  await expect(status(bob)).toHaveText('Your turn (O)');
});

test("the home page's title says when a game there is on the player's move", async ({ page, player }) => {
  await page.goto('/');
  await expect(page).toHaveTitle('oxo — tic-tac-toe');
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const link = page.url();
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(page).toHaveTitle('oxo — tic-tac-toe');

  // Bob joins while Alice's home page is in a background tab: its title,
  // all she sees of it, says her move waits (and her time to come back runs).
  const bob = await player('Bob');
  await bob.goto(link);
  await expect(page).toHaveTitle('(1) Your turn · oxo — tic-tac-toe', { timeout: 5_000 });

  // She plays it: the home page's title is plain again.
  await page.locator('#my-tables').getByRole('link', { name: 'Continue' }).click();
  await play(page, 'b2', 'X');
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(page.locator('#my-tables .row-turn')).toHaveText('Their turn');
  await expect(page).toHaveTitle('oxo — tic-tac-toe');
});
