// Nothing in the board's column moves when the game's state changes: the
// status's second line, the scoreboard's notes and the rest keep their room
// whether they have words or not, so the board, its cells and the buttons
// stay under the player's pointer through a whole game with a clock (the
// friend arriving while the invite is shown, moves, the clock ticking, the
// end, a rematch asked and given, the opponent leaving and the invite
// back, another friend arriving and going away). On a desktop the column
// beside the board keeps still too: the move list keeps its room as the
// solver's verdicts come at the end of a round and go at the next, so the
// chat under it stays put. Measured with the browser's Layout Instability
// API ('layout-shift' entries), on a desktop and a phone.

import { test, expect } from '../support/fixtures.js';
import { status, substatus, play } from '../support/game.js';

/**
 * Runs in the page before its scripts: keeps every layout shift of an
 * element inside `watched` (a selector: the board's column, `.game-main`,
 * and on a desktop the moves and chat beside it, `.game-side`), with or
 * without input just before it, as "element y→y, height h→h".
 * @param {string} watched
 */
function recordShifts(watched) {
  /** @type {string[]} */
  const shifts = [];
  Object.defineProperty(window, '__shifts', { value: shifts });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      for (const s of entry.sources ?? []) {
        const node = s.node;
        if (!node || !(node instanceof Element) || !node.closest(watched)) continue;
        const name = `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''}.${[...node.classList].join('.')}`;
        const p = s.previousRect;
        const c = s.currentRect;
        // The row of buttons changes with the state (Forfeit becomes
        // Rematch): its buttons are other buttons, centred, not moved ones.
        // Were the row to change height, what is under it would move.
        if (node.closest('.controls')) continue;
        shifts.push(`${name}: at ${Math.round(p.x)},${Math.round(p.y)}→${Math.round(c.x)},${Math.round(c.y)}, height ${Math.round(p.height)}→${Math.round(c.height)}`);
      }
    }
  }).observe({ type: 'layout-shift' });
}

/** The shifts seen so far on `page` (after two frames, so the last is in). */
async function takeShifts(page) {
  return page.evaluate(async () => {
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    // @ts-ignore: set by recordShifts
    return window.__shifts.splice(0);
  });
}

// The friend has a name as wide as names get (24 letters, all W): in the
// status and the line under it it is cut to keep their lines, not wrapped.
const BOB = 'W'.repeat(24);

for (const width of [1280, 375]) {
  // On a phone the moves and the chat are under the board, below the fold.
  const watched = width > 900 ? '.game-main, .game-side' : '.game-main';
  test(`the board column keeps still through a game with a clock at ${width} px`, async ({ page, player }) => {
    await page.setViewportSize({ width, height: 900 });
    await page.addInitScript(recordShifts, watched);
    await page.goto('/');
    await page.getByRole('radio', { name: '15 s' }).check();
    await page.getByRole('button', { name: 'Create a table' }).click();
    await expect(page).toHaveURL(/\/t\/[^/]+$/);
    await expect(status(page)).toHaveText('Waiting for an opponent…');
    await expect(page.getByRole('textbox', { name: 'Link to this table' })).toBeVisible();
    // The page has its layout from here: nothing in it moves again, not
    // even as the invite goes when the friend comes.
    await takeShifts(page);
    const seen = [];
    const check = async (when, pages) => {
      for (const [who, p] of pages) {
        for (const s of await takeShifts(p)) seen.push(`${when}, ${who}'s page: ${s}`);
      }
    };

    const bob = await player(BOB);
    await bob.setViewportSize({ width, height: 900 });
    await bob.addInitScript(recordShifts, watched);
    await bob.goto(page.url());
    await expect(status(page)).toHaveText('Your turn (X)');
    await expect(status(bob)).toHaveText('Waiting for Alice…');
    await expect(page.getByRole('textbox', { name: 'Link to this table' })).toBeHidden();
    await check('the friend arriving', [['Alice', page]]);
    // Bob's page is new: what it did while loading is not a shift under
    // anyone's pointer.
    await takeShifts(bob);
    const both = [['Alice', page], [BOB, bob]];

    await play(page, 'a1', 'X');
    await play(bob, 'b1', 'O');
    await play(page, 'b2', 'X');
    await check('moves', both);
    // The clock ticks on Bob's move.
    await expect(substatus(bob)).toHaveText(/^1[0-3] s left for this move/);
    await check('the clock ticking', both);
    await play(bob, 'c1', 'O');
    await play(page, 'c3', 'X');
    await expect(status(page)).toHaveText('You win');
    await expect(status(bob)).toHaveText('Alice wins');
    // The solver's verdict on every move, one per line.
    for (const p of [page, bob]) await expect(p.locator('#moves .verdict')).toHaveCount(5);
    await check('the end of the round', both);

    await bob.getByRole('button', { name: 'Rematch' }).click();
    await expect(substatus(page)).toHaveText(`${BOB} wants a rematch`);
    await expect(substatus(bob)).toHaveText('Waiting for Alice to accept the rematch…');
    await check('a rematch asked', both);
    await page.getByRole('button', { name: 'Rematch' }).click();
    // The loser starts the next round.
    await expect(status(bob)).toHaveText('Your turn (O)');
    await expect(status(page)).toHaveText(`Waiting for ${BOB}…`);
    await expect(page.getByRole('link', { name: 'Replay of round 1' })).toBeVisible();
    await check('the rematch', both);

    // Bob leaves: Alice's table waits again, the invite back on her page.
    await bob.locator('#leave').click();
    await bob.getByRole('button', { name: 'Leave and forfeit?' }).click();
    await expect(status(page)).toHaveText(`You win — ${BOB} left the table`);
    await expect(page.getByRole('textbox', { name: 'Link to this table' })).toBeVisible();
    await check('the opponent leaving', [['Alice', page]]);

    // Cy takes the seat, then goes away.
    const cy = await player('Cy');
    await cy.setViewportSize({ width, height: 900 });
    await cy.goto(page.url());
    await expect(status(cy)).toHaveText('Waiting for Alice…');
    await expect(page.getByRole('textbox', { name: 'Link to this table' })).toBeHidden();
    await check('a new friend arriving', [['Alice', page]]);
    await play(page, 'b2', 'X');
    await cy.close();
    // Away on their turn: the status says for how long the seat waits.
    await expect(status(page)).toHaveText(/^Cy is away/);
    await check('the opponent away', [['Alice', page]]);
    expect(seen, 'elements of the game page that moved').toEqual([]);
  });
}
