// Accessibility: axe-core on every page (home, a game against the computer
// mid-game and after the round, a replay), light and dark, on a desktop and
// a phone. Any serious or critical violation fails the test, listed with its
// rule, the elements and axe's help text.

import AxeBuilder from '@axe-core/playwright';
import { test, expect } from '../support/fixtures.js';
import {
  cell, toastEl, midGameWithHints, armForfeit, loseToBot, openReplay, homeWithBobsTable,
} from '../support/game.js';

const WIDTHS = [1280, 375];

// The experimental rule WCAG 2.5.3 "Label in Name" is worth having: a speech
// user says what they see ("click Alice"), and it must be part of the name.
const EXTRA_RULES = ['label-content-name-mismatch'];


function describeViolations(violations) {
  return violations.map((v) => [
    `${v.id} (${v.impact}): ${v.help}`,
    `  ${v.helpUrl}`,
    ...v.nodes.map((n) => `  - ${n.target.join(' ')}\n    ${n.failureSummary.replace(/\n/g, '\n    ')}`),
  ].join('\n')).join('\n');
}

/** Runs axe on the page as it is and fails softly on serious or critical findings. */
async function checkA11y(page, where) {
  let builder = new AxeBuilder({ page }).options({
    rules: Object.fromEntries(EXTRA_RULES.map((id) => [id, { enabled: true }])),
  });
  const { violations } = await builder.analyze();
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect.soft(bad.map((v) => v.id), `axe on ${where}:\n${describeViolations(bad)}`).toEqual([]);
}

for (const width of WIDTHS) {
  for (const scheme of ['light', 'dark']) {
    test(`axe finds no serious violations: ${width} px, ${scheme}`, async ({ page, server, player }) => {
      await page.setViewportSize({ width, height: 800 });
      // No transitions: axe must see the final colours.
      await page.emulateMedia({ colorScheme: scheme, reducedMotion: 'reduce' });

      // A game against the computer, mid-game, with hints.
      await midGameWithHints(page);
      await checkA11y(page, 'a game against the computer, mid-game');

      // A refused move (the square is taken) and Forfeit asking to be sure.
      await cell(page, 'b2').click();
      await expect(toastEl(page)).toBeVisible();
      await armForfeit(page);
      await checkA11y(page, 'a refused move and an armed Forfeit');

      // The same round, lost: the winning line, Rematch, Open replay.
      await loseToBot(page, server);
      await checkA11y(page, 'a finished round');

      // Its replay, at the end and at the start.
      await openReplay(page);
      // Scan once the solver's verdicts are in (they redraw the log).
      await expect(page.locator('#summary')).toBeVisible();
      await checkA11y(page, 'a replay, at the end');
      await page.keyboard.press('Home');
      await expect(page.locator('#position')).toHaveText(/^Start/);
      await expect(page.locator('#log li.is-current')).toHaveAttribute('data-ply', '0');
      // Let the last highlight's colours settle before axe samples them.
      await page.waitForTimeout(100);
      await checkA11y(page, 'a replay, at the start');

      // Home, with the game in "Recent games" (both colours of names) and
      // someone's open table in the lobby.
      await homeWithBobsTable(page, player);
      await checkA11y(page, 'the home page');

      // The name dialog.
      await page.locator('#me-name').click();
      await expect(page.getByRole('dialog', { name: 'Your name' })).toBeVisible();
      await checkA11y(page, 'the name dialog');
      await page.getByRole('button', { name: 'Cancel' }).click();

      // A table waiting for a friend, with its link to send.
      await page.getByRole('button', { name: 'Create a table' }).click();
      await expect(page.locator('#share')).toBeVisible();
      await checkA11y(page, 'a table waiting for a friend');
    });
  }
}
