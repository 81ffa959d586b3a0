// What an outside tester found rough: a move list whose verdicts overlapped
// their neighbours, a clock choice wrapping one option alone, a share link
// shown out of order, a chat box that kept blank messages, a chat in pass
// and play, a replay page with the server's raw error, and a chat that
// looked empty after a reload as if nothing had been said; and clock
// choices that stood taller than the other buttons, their label in a corner.

import { test, expect, artifact } from '../support/fixtures.js';
import { status, play, playOutVsBot, startBotGame } from '../support/game.js';

/**
 * The move list's problems: items that overlap each other, and verdict
 * pills that are cut or stick out of their item.
 */
async function moveListProblems(page) {
  return page.locator('#moves').evaluate((list) => {
    const bad = [];
    const items = [...list.querySelectorAll('li.move')];
    const boxes = items.map((li) => li.getBoundingClientRect());
    for (let i = 0; i < boxes.length; i += 1) {
      for (let j = i + 1; j < boxes.length; j += 1) {
        const a = boxes[i];
        const b = boxes[j];
        const overlap = a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
        if (overlap) bad.push(`items ${i + 1} and ${j + 1} overlap`);
      }
    }
    items.forEach((li, i) => {
      const pill = li.querySelector('.verdict');
      if (!pill) return;
      const p = pill.getBoundingClientRect();
      const box = boxes[i];
      if (p.left < box.left - 0.5 || p.right > box.right + 0.5) bad.push(`item ${i + 1}: its verdict sticks out`);
      if (pill.scrollWidth > pill.clientWidth + 0.5) bad.push(`item ${i + 1}: its verdict "${pill.textContent}" is cut`);
      if (li.scrollWidth > li.clientWidth + 0.5) bad.push(`item ${i + 1}: its content is wider than it`);
    });
    return bad;
  });
}

for (const width of [375, 1280]) {
  test(`a finished round's move list shows every verdict in full at ${width} px`, async ({ page, server }) => {
    test.setTimeout(60_000);
    await page.setViewportSize({ width, height: 900 });
    await startBotGame(page, { level: 'Impossible', side: 'X' });
    expect(await playOutVsBot(page, server, 'X', 'best')).toBe('Draw');
    await expect(page.locator('#moves li.move[data-verdict]')).toHaveCount(await page.locator('#moves li.move:not(.move-end)').count());
    await expect(page.locator('#moves .verdict').first()).toContainText('kept the draw');
    expect(await moveListProblems(page)).toEqual([]);
  });
}

test('the four clock choices stay on one row, on a desktop and on a phone', async ({ page }) => {
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto('/');
    const tops = await page.locator('input[name="clock"]').evaluateAll((inputs) =>
      inputs.map((i) => Math.round(i.closest('.segment').getBoundingClientRect().top)));
    expect(tops.length).toBe(4);
    expect(new Set(tops).size, `clock choices at ${width} px, tops ${tops}`).toBe(1);
  }
});

test('the clock choices are as tall as the button under them, their labels centred, on a desktop and on a phone', async ({ page }) => {
  for (const width of [1280, 375]) {
    await page.setViewportSize({ width, height: 900 });
    await page.goto('/');
    const button = await page.locator('#play-friend').evaluate((el) => el.getBoundingClientRect().height);
    const faces = await page.locator('input[name="clock"]').evaluateAll((inputs) => inputs.map((input) => {
      const face = input.closest('.segment').querySelector('.segment-face').getBoundingClientRect();
      const label = input.closest('.segment').querySelector('.segment-label').getBoundingClientRect();
      return {
        text: input.closest('.segment').textContent.trim(),
        height: face.height,
        dy: (label.top + label.bottom) / 2 - (face.top + face.bottom) / 2,
        dx: (label.left + label.right) / 2 - (face.left + face.right) / 2,
      };
    }));
    expect(faces).toHaveLength(4);
    for (const f of faces) {
      expect(Math.abs(f.height - button), `"${f.text}" at ${width} px: ${f.height} px tall, the button ${button} px`).toBeLessThanOrEqual(2);
      expect(Math.abs(f.dy), `"${f.text}" at ${width} px: label ${f.dy} px off the middle, up and down`).toBeLessThanOrEqual(1);
      expect(Math.abs(f.dx), `"${f.text}" at ${width} px: label ${f.dx} px off the middle, across`).toBeLessThanOrEqual(1);
    }
  }
});

test('a share link reads in order, from "http"', async ({ page }) => {
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto('/');
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const link = page.getByRole('textbox', { name: 'Link to this table' });
  await expect(link).toHaveValue(page.url());
  // A right-to-left field reorders a URL's pieces ("://127.0.0.1…http"),
  // and a one-line one cuts it: the whole link is in view, in order.
  expect(await link.evaluate((el) => getComputedStyle(el).direction)).toBe('ltr');
  expect(await link.evaluate((el) => ({ wide: el.scrollWidth > el.clientWidth, tall: el.scrollHeight > el.clientHeight + 1 })))
    .toEqual({ wide: false, tall: false });
});

test('a blank chat message is not kept in the box, and says why', async ({ page, player }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  const box = page.getByRole('textbox', { name: 'Chat message' });
  await box.fill('    ');
  await box.press('Enter');
  await expect(box).toHaveValue('');
  await expect(page.locator('#chat-hint')).toHaveText(/empty/i);
  await page.locator('.chat').screenshot({ path: artifact('chat-blank-message.png') });
  await box.fill('  hello  ');
  await box.press('Enter');
  await expect(page.locator('#chatlog .chat-text')).toHaveText(['hello']);
  await expect(box).toHaveValue('');
  await expect(page.locator('#chat-hint')).toBeHidden();
});

test('pass and play has no chat', async ({ page }) => {
  await page.goto('/');
  await page.getByRole('button', { name: 'Start pass and play' }).click();
  await expect(status(page)).toHaveText('X to move');
  await expect(page.getByRole('heading', { name: 'Moves' })).toBeVisible();
  await expect(page.getByRole('textbox', { name: 'Chat message' })).toBeHidden();
  await expect(page.getByRole('heading', { name: 'Chat' })).toBeHidden();
});

test('a game or table that does not exist is said in plain words', async ({ page, problems }) => {
  await page.goto('/games/nope');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Game not found');
  await expect(page.locator('main p').first()).toHaveText(/^[A-Z].*\.$/);
  await expect(page.locator('main')).not.toContainText('no game has');
  await page.screenshot({ path: artifact('game-not-found.png') });
  await page.goto('/t/ffffffffffffffffffffffffffffffff');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Table not found');
  await expect(page.locator('main p').first()).toHaveText(/^[A-Z].*\.$/);
  await expect(page.locator('main')).not.toContainText('no open table');
  for (let i = problems.length - 1; i >= 0; i -= 1) {
    if (/HTTP 404|status of 404/.test(problems[i])) problems.splice(i, 1);
  }
});

test('after a reload the chat shows the messages said before it', async ({ page, player }) => {
  await page.goto('/');
  await expect(page.getByRole('button', { name: 'Create a table' })).toBeVisible();
  // A fresh table: nothing was said yet.
  await page.getByRole('button', { name: 'Create a table' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  await expect(page.locator('#chatlog')).toHaveText('No messages yet.');
  const bob = await player('Bob');
  await bob.goto(page.url());
  await expect(status(page)).toHaveText('Your turn (X)');
  await bob.getByRole('textbox', { name: 'Chat message' }).fill('good luck');
  await bob.getByRole('textbox', { name: 'Chat message' }).press('Enter');
  await expect(page.locator('#chatlog .chat-text')).toHaveText(['good luck']);
  await play(page, 'b2', 'X');
  await page.reload();
  await expect(status(page)).toHaveText('Waiting for Bob…');
  await expect(page.locator('#chatlog .chat-text')).toHaveText(['good luck']);
  await expect(page.locator('#chatlog .chat-from')).toHaveText(['Bob']);
  await expect(page.locator('#chatlog')).not.toContainText('No messages yet');
});
