// Layout on phones, tablets and desktops: every label fits its button, the
// page never scrolls sideways, the level descriptions stay readable on a
// phone, the header lines up with the game, the home cards leave no holes,
// a share field shows its whole link, the id at its end included, and the
// offline banner leaves the header's name whole on a phone.

import { test, expect } from '../support/fixtures.js';
import { status, play, startBotGame, midGameWithHints, armForfeit, loseToBot, openReplay } from '../support/game.js';

const WIDTHS = [320, 375, 768, 900, 1280];

// Everything that carries a label a person has to read in full.
const LABELLED = [
  'button',
  'a.btn',
  '.segment-face',
  '.segment-label',
  '.segment-note',
  '.switch',
  '.switch-label',
  '.back',
].join(', ');

/**
 * The labelled elements whose content is wider than their box (clipped, cut
 * by an ellipsis or spilling out), and whether the page scrolls sideways.
 */
async function overflows(page) {
  return page.evaluate((selector) => {
    const bad = [];
    for (const el of document.querySelectorAll(selector)) {
      if (!el.getClientRects().length) continue; // not rendered
      const name = `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}.${[...el.classList].join('.')}`;
      if (el.scrollWidth > el.clientWidth) {
        bad.push(`${name} "${el.textContent.trim()}": content ${el.scrollWidth} px in ${el.clientWidth} px`);
      }
      // Centred content spills out on both sides, which scrollWidth misses.
      const box = el.getBoundingClientRect();
      for (const child of el.children) {
        const r = child.getBoundingClientRect();
        if (r.width && (r.left < box.left - 0.5 || r.right > box.right + 0.5)) {
          bad.push(`${name} "${child.textContent.trim()}" spills out: ${r.left.toFixed(1)}–${r.right.toFixed(1)} in ${box.left.toFixed(1)}–${box.right.toFixed(1)}`);
        }
      }
    }
    const doc = document.documentElement;
    if (doc.scrollWidth > window.innerWidth) bad.push(`the page scrolls sideways: ${doc.scrollWidth} px in ${window.innerWidth} px`);
    return bad;
  }, LABELLED);
}

async function expectNoOverflow(page, where) {
  expect.soft(await overflows(page), `labels that do not fit, ${where}`).toEqual([]);
}

for (const width of WIDTHS) {
  test(`every label fits its button at ${width} px`, async ({ page, server, player }) => {
    await page.setViewportSize({ width, height: 800 });
    await page.emulateMedia({ reducedMotion: 'reduce' });

    // An open table in the lobby: its row has Join and Watch.
    const bob = await player('Bob');
    await bob.goto('/');
    await bob.getByRole('switch', { name: 'List it in open tables' }).check();
    await bob.getByRole('button', { name: 'Create a table' }).click();
    await expect(bob).toHaveURL(/\/t\/[^/]+$/);

    await page.goto('/');
    await expect(page.locator('#lobby .row').filter({ hasText: 'Bob' }).first()).toBeVisible();
    await expectNoOverflow(page, 'home');

    // The game: mid-game with hints, then both confirmations armed.
    await midGameWithHints(page);
    await expectNoOverflow(page, 'mid-game');
    await armForfeit(page);
    await page.locator('#leave').click();
    await expect(page.locator('#leave')).toHaveText('Leave and forfeit?');
    await expectNoOverflow(page, 'Forfeit and Leave asking for a second click');

    // The round over: Rematch, Open replay, Leave.
    await loseToBot(page, server);
    await expectNoOverflow(page, 'round over');

    // The replay.
    await openReplay(page);
    await expectNoOverflow(page, 'replay');
  });
}

for (const width of [320, 375]) {
  test(`the level descriptions stay readable at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    await page.goto('/');
    const notes = page.locator('.card-bot .segment-note');
    await expect(notes).toHaveCount(6);
    for (const note of await notes.all()) await expect(note).toBeVisible();
    const bad = await notes.evaluateAll((els) => els.flatMap((el) => {
      const size = parseFloat(getComputedStyle(el).fontSize);
      const face = el.closest('.segment-face').getBoundingClientRect();
      const box = el.getBoundingClientRect();
      const problems = [];
      if (size < 12) problems.push(`font size ${size} px`);
      if (el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight) problems.push('clipped');
      if (box.left < face.left || box.right > face.right || box.bottom > face.bottom) problems.push('spills out of its button');
      return problems.map((p) => `"${el.textContent}": ${p}`);
    }));
    expect(bad).toEqual([]);
  });
}

for (const width of [1280, 375]) {
  test(`the header, the Home link and the scoreboard line up at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });
    await startBotGame(page, { level: 'Easy', side: 'X' });
    const left = (sel) => page.locator(sel).evaluate((el) => el.getBoundingClientRect().left);
    const brand = await left('.brand');
    expect(Math.abs((await left('.game-head .back')) - brand), 'the Home link under the logo').toBeLessThanOrEqual(1);
    expect(Math.abs((await left('#scoreboard')) - brand), 'the scoreboard under the logo').toBeLessThanOrEqual(1);
  });
}

for (const width of [768, 900, 1280]) {
  test(`the home cards leave no hole at ${width} px`, async ({ page, player }) => {
    await page.setViewportSize({ width, height: 800 });
    // A few finished games make "Recent games" tall.
    for (let i = 0; i < 3; i += 1) {
      await page.goto('/');
      await page.getByRole('button', { name: 'Start pass and play' }).click();
      for (const [sq, mark] of [['a1', 'X'], ['b1', 'O'], ['b2', 'X'], ['c1', 'O'], ['c3', 'X']]) await play(page, sq, mark);
      await expect(status(page)).toHaveText('X wins');
    }
    await page.goto('/');
    // Three at least: other tests on this worker's server finish games too.
    await expect(page.locator('#recent .row').nth(2)).toBeVisible();
    await expect(page.locator('#lobby')).not.toContainText('Loading');

    const { cards, gap, top } = await page.locator('.home-grid').evaluate((grid) => ({
      top: grid.getBoundingClientRect().top,
      gap: parseFloat(getComputedStyle(grid).rowGap) || parseFloat(getComputedStyle(grid).columnGap) || 0,
      cards: [...grid.children].filter((c) => c.getClientRects().length).map((c) => {
        const r = c.getBoundingClientRect();
        return { id: c.getAttribute('aria-labelledby'), left: Math.round(r.left), top: r.top, bottom: r.bottom };
      }),
    }));
    const columns = new Map();
    for (const c of cards) columns.set(c.left, [...(columns.get(c.left) ?? []), c]);
    if (width >= 768) expect(columns.size, 'two columns of cards').toBe(2);
    const holes = [];
    for (const column of columns.values()) {
      column.sort((a, b) => a.top - b.top);
      if (column[0].top - top > 1) holes.push(`${column[0].id} starts ${column[0].top - top} px below the grid's top`);
      for (let i = 1; i < column.length; i += 1) {
        const space = column[i].top - column[i - 1].bottom;
        if (space > gap + 1) holes.push(`${space} px of nothing above ${column[i].id} (the gap is ${gap} px)`);
      }
    }
    expect(holes).toEqual([]);
  });
}

/**
 * Whether the end of a field's value is in view (its scroll position), and
 * whether it overflows its field (sideways, or, wrapped, downwards).
 */
async function endInView(input) {
  return input.evaluate((el) => {
    const rtl = getComputedStyle(el).direction === 'rtl';
    // An rtl box scrolls from its right edge: 0 is the end, negative the start.
    const atEnd = rtl ? el.scrollLeft >= -1 : el.scrollLeft >= el.scrollWidth - el.clientWidth - 1;
    const overflows = el.scrollWidth > el.clientWidth || el.scrollHeight > el.clientHeight + 1;
    return { overflows, atEnd };
  });
}

for (const width of [375, 1280]) {
  test(`share fields show their whole link at ${width} px`, async ({ page }) => {
    await page.setViewportSize({ width, height: 800 });

    // The table's link, waiting for a friend.
    await page.goto('/');
    await page.getByRole('button', { name: 'Create a table' }).click();
    await expect(page).toHaveURL(/\/t\/[^/]+$/);
    const tableLink = page.getByRole('textbox', { name: 'Link to this table' });
    await expect(tableLink).toBeVisible();
    await expect(tableLink).toHaveValue(page.url());
    expect(await endInView(tableLink)).toMatchObject({ overflows: false, atEnd: true });

    // A replay's link.
    await page.goto('/');
    await page.getByRole('button', { name: 'Start pass and play' }).click();
    for (const [sq, mark] of [['a1', 'X'], ['b1', 'O'], ['b2', 'X'], ['c1', 'O'], ['c3', 'X']]) await play(page, sq, mark);
    await page.getByRole('link', { name: 'Open replay' }).click();
    await expect(page.locator('#position')).toHaveText('Move 5 of 5');
    const replayLink = page.getByRole('textbox', { name: 'Link to this replay' });
    const gameId = new URL(page.url()).pathname.split('/').pop();
    await expect(replayLink).toHaveValue(new RegExp(`/games/${gameId}\\?ply=5$`));
    // Wrapped, the whole link is in view: its start and its end (the id).
    expect(await endInView(replayLink)).toMatchObject({ overflows: false, atEnd: true });
  });
}

test('a finished round shows no hover on its cells', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Start pass and play' }).click();
  for (const [sq, mark] of [['a1', 'X'], ['b1', 'O'], ['b2', 'X'], ['c1', 'O'], ['c3', 'X']]) await play(page, sq, mark);
  await expect(status(page)).toHaveText('X wins');
  // Compared once the cells' transitions and animations (the winning
  // line's, the last move's) have run their course.
  const look = (sq) => page.locator(`.cell[data-square="${sq}"]`).evaluate(async (el) => {
    await Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished));
    const style = getComputedStyle(el);
    return { background: style.backgroundColor, cursor: style.cursor };
  });
  // The pointer is still on c3, the last move; a1 is in the line too.
  await page.locator('.cell[data-square="c3"]').hover();
  expect(await look('c3')).toEqual(await look('a1'));
  expect((await look('c3')).cursor).toBe('default');
});

/** The boxes of the header's parts that must not overlap. */
async function headerBoxes(page) {
  return page.evaluate(() => Object.fromEntries(['.brand', '#conn', '.me'].map((sel) => {
    const r = document.querySelector(sel).getBoundingClientRect();
    return [sel, { left: r.left, right: r.right, top: r.top, bottom: r.bottom }];
  })));
}

for (const width of [375, 320]) {
  test(`the offline banner leaves the name in the header whole at ${width} px`, async ({ page, context }) => {
    await page.setViewportSize({ width, height: 800 });
    await startBotGame(page, { level: 'Easy', side: 'X' });
    const name = page.locator('#me-name');
    await expect(name).toHaveText('Alice');
    const natural = await name.evaluate((el) => el.getBoundingClientRect().width);

    await context.setOffline(true);
    await expect(page.locator('#conn')).toBeVisible({ timeout: 3_000 });
    await expect(page.locator('#conn')).toHaveText(/Offline — reconnecting/);
    const boxes = await headerBoxes(page);
    const overlaps = [];
    const names = Object.keys(boxes);
    for (let i = 0; i < names.length; i += 1) {
      for (let j = i + 1; j < names.length; j += 1) {
        const a = boxes[names[i]];
        const b = boxes[names[j]];
        if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) overlaps.push(`${names[i]} and ${names[j]}`);
      }
    }
    expect(overlaps, 'parts of the header that overlap').toEqual([]);
    // The name keeps its width and shows whole; so does the banner's text.
    expect(Math.abs((await name.evaluate((el) => el.getBoundingClientRect().width)) - natural), 'the name button squeezed').toBeLessThanOrEqual(1);
    expect(await name.evaluate((el) => el.scrollWidth <= el.clientWidth), 'the name cut').toBe(true);
    const text = page.locator('#conn .conn-text');
    expect(await text.evaluate((el) => el.scrollWidth <= el.clientWidth), "the banner's text cut").toBe(true);
    for (const [sel, box] of Object.entries(boxes)) {
      expect(box.left >= -0.5 && box.right <= width + 0.5, `${sel} inside the page: ${box.left}–${box.right}`).toBe(true);
    }
    await context.setOffline(false);
    await expect(page.locator('#conn')).toBeHidden({ timeout: 15_000 });
  });
}

test('on a phone held sideways the whole board is on the screen, beside the scoreboard', async ({ page }) => {
  for (const size of [{ width: 667, height: 375 }, { width: 844, height: 390 }]) {
    await page.setViewportSize(size);
    await startBotGame(page, { level: 'Easy', side: 'X' });
    await expect(status(page)).toHaveText('Your turn (X)');
    const board = await page.locator('.board-wrap').boundingBox();
    const scores = await page.locator('.scoreboard').boundingBox();
    expect(board, 'a board').not.toBeNull();
    expect(scores, 'a scoreboard').not.toBeNull();
    if (!board || !scores) return;
    expect(board.y + board.height, `the board's bottom at ${size.width}x${size.height}`).toBeLessThanOrEqual(size.height);
    expect(board.x + board.width).toBeLessThanOrEqual(size.width);
    expect(board.width, 'a board big enough to play').toBeGreaterThanOrEqual(240);
    expect(board.x, 'beside the scoreboard').toBeGreaterThanOrEqual(scores.x + scores.width);
  }
});

test('the longest names, in one word, never make a page scroll sideways on a 320 px phone', async ({ page, player }) => {
  // 24 wide letters with nowhere to break: the longest name the server takes.
  const wide = 'W'.repeat(24);
  const sideways = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await page.addInitScript((n) => localStorage.setItem('oxo.name', n), wide);
  await page.setViewportSize({ width: 320, height: 700 });
  await page.goto('/');
  await expect(page.locator('.name-now')).toHaveText(wide);
  expect(await sideways(), 'home').toBeLessThanOrEqual(0);

  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const bob = await player('Bob');
  await bob.addInitScript((n) => localStorage.setItem('oxo.name', n), 'M'.repeat(24));
  await bob.goto(page.url());
  await expect(status(page)).toHaveText('Your turn (X)');
  await play(page, 'b2', 'X');
  expect(await sideways(), 'the game').toBeLessThanOrEqual(0);
  await bob.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(status(page)).toHaveText(/is away/);
  expect(await sideways(), 'the opponent away').toBeLessThanOrEqual(0);

  await page.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(page.locator('#my-tables li')).toHaveCount(1);
  expect(await sideways(), 'home with the game to continue').toBeLessThanOrEqual(0);

  // Over, it is among the recent games: "MMM… won (forfeit)" stays in its card.
  await page.locator('#my-tables').getByRole('link', { name: 'Continue' }).click();
  await armForfeit(page);
  await page.locator('#forfeit').click();
  await expect(status(page)).toHaveText(/wins/);
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  // (Other tests on this worker's server may have finished games too.)
  await expect(page.locator('#recent li.row').filter({ hasText: 'M'.repeat(24) })).toHaveCount(1);
  expect(await sideways(), 'home with a recent game').toBeLessThanOrEqual(0);
  const spills = await page.locator('.row-main').evaluateAll((rows) => rows
    .filter((row) => row.scrollWidth > row.clientWidth)
    .map((row) => `"${row.textContent}": ${row.scrollWidth} px in ${row.clientWidth} px`));
  expect(spills, 'list entries wider than their card').toEqual([]);
});
