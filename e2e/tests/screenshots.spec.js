// Screenshots of the main screens on a desktop and a 375 px phone, light and
// dark (and a 768 px tablet and a 320 px phone, light; the replay at its
// end and at a blunder), saved to e2e/artifacts/ for people to look at.

import { test, expect, artifact } from '../support/fixtures.js';
import { status, play, startBotGame, homeWithBobsTable } from '../support/game.js';

const VIEWPORTS = {
  desktop: { size: { width: 1280, height: 800 }, schemes: ['light', 'dark'] },
  mobile: { size: { width: 375, height: 812 }, schemes: ['light', 'dark'] },
  tablet: { size: { width: 768, height: 1024 }, schemes: ['light'] },
  small: { size: { width: 320, height: 640 }, schemes: ['light'] },
};

for (const [label, { size, schemes }] of Object.entries(VIEWPORTS)) {
  for (const scheme of schemes) {
    test(`screenshots: ${label}, ${scheme}`, async ({ page, server, player }) => {
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      const shot = async (name) => {
        await page.screenshot({ path: artifact(`${name}-${label}-${scheme}.png`), fullPage: true, animations: 'disabled' });
      };

      await page.goto('/');
      await expect(page.locator('#recent')).not.toContainText('Loading');
      await shot('home');

      // Mid-game against the computer: two moves each.
      await startBotGame(page, { level: 'Impossible', side: 'X' });
      await play(page, 'b2', 'X');
      await expect(page.locator('#moves li.move')).toHaveCount(2, { timeout: 15_000 });
      await expect(status(page)).toHaveText('Your turn (X)');
      const corner = await page.locator('.cell[data-mark=""]').first().getAttribute('data-square');
      await play(page, corner, 'X');
      await expect(page.locator('#moves li.move')).toHaveCount(4, { timeout: 15_000 });
      await expect(status(page)).toHaveText(/Your turn \(X\)|wins|Draw/);
      await page.getByRole('switch', { name: 'Hints' }).check();
      await expect(page.locator('.cell .hint').first()).toBeVisible();
      await page.mouse.move(0, 0);
      await shot('game');
      await page.getByRole('switch', { name: 'Hints' }).uncheck();

      // A won game (pass and play, scripted).
      await page.goto('/');
      await page.getByRole('button', { name: 'Start pass and play' }).click();
      await expect(page).toHaveURL(/\/t\/[^/]+$/);
      for (const [sq, mark] of [['a1', 'X'], ['b1', 'O'], ['b2', 'X'], ['c1', 'O'], ['c3', 'X']]) {
        await play(page, sq, mark);
      }
      await expect(status(page)).toHaveText('X wins');
      await shot('win');

      // Its replay (it opens at the end), explained by the solver; then the
      // blunder's ply (O b1: b2 held the draw) with its better move marked.
      await page.getByRole('link', { name: 'Open replay' }).click();
      await expect(page.locator('#position')).toHaveText('Move 5 of 5');
      await expect(page.locator('#summary')).toBeVisible();
      await expect(page.locator('#log li.move[data-verdict]')).toHaveCount(5);
      await shot('replay');
      await page.getByRole('button', { name: /^O: 2\. b1\b/ }).click();
      await expect(page.locator('.board .cell.is-better')).toHaveCount(1);
      await shot('replay-blunder');

      // A table waiting for a friend, its link to send.
      await page.goto('/');
      await page.getByRole('button', { name: 'Create a table' }).click();
      await expect(page.locator('#share')).toBeVisible();
      await page.mouse.move(0, 0);
      await shot('waiting');

      // Home in use: someone's open table, recent games.
      await homeWithBobsTable(page, player);
      await page.mouse.move(0, 0);
      await shot('home-busy');
    });
  }
}

// The screens of an opponent who left (the player left behind, and a
// spectator offered the seat) and of a dropped network, on a desktop and a
// phone, light and dark.
for (const [label, size] of [['desktop', VIEWPORTS.desktop.size], ['mobile', VIEWPORTS.mobile.size]]) {
  for (const scheme of ['light', 'dark']) {
    test(`screenshots: opponent left and offline, ${label}, ${scheme}`, async ({ page, context, player }) => {
      const pages = [page];
      const shoot = (p, name) => p.screenshot({ path: artifact(`${name}-${label}-${scheme}.png`), fullPage: true, animations: 'disabled' });
      await page.setViewportSize(size);
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });
      await page.goto('/');
      await page.getByRole('button', { name: 'Create a table' }).click();
      await expect(page).toHaveURL(/\/t\/[^/]+$/);
      const ann = await player('Ann');
      await ann.goto(page.url());
      const fay = await player('Fay', { viewport: size, colorScheme: scheme, reducedMotion: 'reduce' });
      pages.push(fay);
      await fay.goto(`${page.url()}?watch`);
      await play(page, 'b2', 'X');
      await play(ann, 'a1', 'O');
      await ann.locator('#leave').click();
      await ann.getByRole('button', { name: 'Leave and forfeit?' }).click();
      await expect(status(page)).toHaveText('You win — Ann left the table');
      await expect(status(fay)).toHaveText('Alice wins — Ann left the table');
      for (const p of pages) await p.mouse.move(0, 0);
      await shoot(page, 'opponent-left');
      await shoot(fay, 'opponent-left-spectator');

      // Offline in the middle of a game.
      await fay.getByRole('button', { name: 'Take the seat' }).click();
      await expect(status(page)).toHaveText(/^(Your turn \(.\)|Waiting for Fay…)$/);
      if ((await status(page).textContent()).startsWith('Waiting')) await play(fay, 'a1', 'O');
      await expect(status(page)).toHaveText(/^Your turn/);
      await context.setOffline(true);
      await expect(page.locator('#conn')).toBeVisible();
      await shoot(page, 'offline');
      await context.setOffline(false);
      await expect(page.locator('#conn')).toBeHidden({ timeout: 15_000 });
    });
  }
}
