// Full games against the Impossible (perfect) bot, as X and as O: perfect
// play draws, bad play loses with the winning line drawn, and the human
// never wins. Also the hints switch.

import { test, expect } from '../support/fixtures.js';
import {
  status, cell, boardOf, winCellsOf, playOutVsBot, startBotGame, analyze,
} from '../support/game.js';

for (const mark of ['X', 'O']) {
  test(`Impossible bot, human plays ${mark}: the human never wins`, async ({ page, server }) => {
    const botMark = mark === 'X' ? 'O' : 'X';
    await startBotGame(page, { level: 'Impossible', side: mark });
    const me = page.locator(`.player[data-seat="${mark}"]`);
    const bot = page.locator(`.player[data-seat="${botMark}"]`);
    await expect(me).toContainText('You');
    // One name per level everywhere: the bot is "Impossible", as picked.
    await expect(bot.locator('.player-name')).toHaveText('Impossible');
    await expect(bot).toContainText('computer');
    await expect(bot).not.toContainText('Perfect');

    // Round 1: perfect play from both sides is a draw.
    const first = await playOutVsBot(page, server, mark, 'best');
    expect(first).toBe('Draw');
    await expect(page.locator('.draws-n')).toHaveText('1');
    expect(await winCellsOf(page)).toEqual([]);

    // Round 2: bad play loses, and the bot's line is drawn.
    await page.getByRole('button', { name: 'Rematch' }).click();
    await expect(page.locator('.table-meta')).toContainText('Round 2');
    const second = await playOutVsBot(page, server, mark, 'worst');
    const botName = (await bot.locator('.player-name').textContent()).trim();
    expect(second).toBe(`${botName} wins`);
    expect(second).not.toMatch(/You win/);
    await expect(bot).toHaveClass(/is-winner/);
    await expect(bot.locator('.player-score')).toHaveText('1');
    await expect(me.locator('.player-score')).toHaveText('0');

    // The highlighted cells are a real line of the bot's marks, the same as
    // the server's analysis says, and the SVG stroke is drawn across them.
    const board = await boardOf(page);
    const { outcome } = await analyze(server, board, mark);
    expect(outcome).toMatchObject({ result: 'win', winner: botMark, reason: 'line' });
    const win = await winCellsOf(page);
    expect(win.sort()).toEqual([...outcome.cells].sort());
    for (const sq of win) {
      await expect(cell(page, sq)).toHaveAttribute('data-mark', botMark);
      await expect(cell(page, sq)).toHaveAttribute('aria-label', new RegExp(`^${sq}, ${botMark}.*winning line`));
    }
    await expect(page.locator('.winline line.winstroke')).toHaveCount(outcome.cells.length === 3 ? 1 : 2);
    await expect(page.locator('.winline')).toHaveAttribute('data-winner', botMark);

    // The announcer said how it ended.
    await expect(page.locator('#announcer')).toContainText(`${botName} wins`);
  });
}

test('hints show the perfect-play value of every free cell', async ({ page, server }) => {
  await startBotGame(page, { level: 'Easy', side: 'X' });
  await expect(status(page)).toHaveText('Your turn (X)');
  const hints = page.getByRole('switch', { name: 'Hints' });
  await expect(hints).toBeVisible();
  await hints.check();
  const badges = page.locator('.board .cell .hint');
  await expect(badges).toHaveCount(9);
  await expect(badges.first()).toHaveText('draw');
  await expect(cell(page, 'b2')).toHaveAttribute('aria-label', 'b2, empty, hint: draw');

  // After a move, the hints follow the new position and match the solver.
  await cell(page, 'b1').click();
  await expect(cell(page, 'b1')).toHaveAttribute('data-mark', 'X');
  await expect(page.locator('#moves li.move')).toHaveCount(2, { timeout: 15_000 });
  await expect(status(page)).toHaveText('Your turn (X)');
  const board = await boardOf(page);
  const analysis = await analyze(server, board, 'X');
  await expect(badges).toHaveCount(analysis.moves.length);
  for (const m of analysis.moves) {
    await expect(cell(page, m.cell).locator('.hint')).toHaveText(m.result);
  }

  // Switched off, they go; the choice is remembered.
  await hints.uncheck();
  await expect(badges).toHaveCount(0);
});
