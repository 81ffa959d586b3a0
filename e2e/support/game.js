// Helpers that read and play the board the way a person sees it.

import { expect } from '@playwright/test';

export const SQUARES = ['a1', 'b1', 'c1', 'a2', 'b2', 'c2', 'a3', 'b3', 'c3'];

export const cell = (page, sq) => page.locator(`.board .cell[data-square="${sq}"]`);
export const status = (page) => page.locator('#status');
export const substatus = (page) => page.locator('#substatus');
export const toastEl = (page) => page.locator('#toast');

/** The board as the page shows it, in position notation ("X...O...."). */
export async function boardOf(page) {
  return page.locator('.board .cell').evaluateAll((cells) => cells.map((c) => c.dataset.mark || '.').join(''));
}

/** The move list as text, e.g. ["1. X a1", "2. O b2"]. */
export async function movesOf(page) {
  // Without the solver's verdict that a finished round adds ("… — kept the draw").
  return page.locator('#moves li.move:not(.move-end)').evaluateAll((lis) => lis.map((li) => (li.dataset.baseLabel ?? li.getAttribute('aria-label')).split(' — ')[0]));
}

/** The squares highlighted as the winning line. */
export async function winCellsOf(page) {
  return page.locator('.board .cell.is-win').evaluateAll((cells) => cells.map((c) => c.dataset.square));
}

/** Clicks `sq` and waits until the server's new state shows `mark` there. */
export async function play(page, sq, mark) {
  // The board takes a move only when it is ours to make: wait for that, as
  // a person would.
  await expect(cell(page, sq)).toHaveAttribute('aria-disabled', 'false', { timeout: 15_000 });
  await cell(page, sq).click();
  await expect(cell(page, sq)).toHaveAttribute('data-mark', mark);
}

/** The server's analysis of `board` with `turn` to move. */
export async function analyze(server, board, turn) {
  const res = await fetch(`${server.url}/api/analyze?position=${encodeURIComponent(`${board} ${turn.toLowerCase()}`)}`);
  expect(res.status).toBe(200);
  return res.json();
}

/**
 * Picks a move: `best` plays perfectly (the analysis lists the best first);
 * `worst` opens in the corner a1 and then always picks a move with the worst
 * value, which against the perfect bot loses every time.
 */
export async function chooseMove(server, board, mark, strategy) {
  if (strategy === 'worst' && board === '.........') return 'a1';
  const { moves } = await analyze(server, board, mark);
  if (strategy === 'best') return moves[0].cell;
  const rank = { loss: 0, draw: 1, win: 2 };
  return [...moves].sort((a, b) => rank[a.result] - rank[b.result])[0].cell;
}

/**
 * Plays `mark` against the computer until the round is over; returns the
 * final status text. Every move waits for the server's state.
 */
export async function playOutVsBot(page, server, mark, strategy, { before } = {}) {
  const yourTurn = `Your turn (${mark})`;
  for (let i = 0; i < 6; i += 1) {
    await expect(status(page)).toHaveText(new RegExp(`^(${yourTurn.replace(/[()]/g, '\\$&')}|.* wins.*|Draw)$`), { timeout: 15_000 });
    const text = await status(page).textContent();
    if (text !== yourTurn) return text;
    const board = await boardOf(page);
    const sq = await chooseMove(server, board, mark, strategy);
    if (before) await before(sq, board);
    await play(page, sq, mark);
  }
  await expect(status(page)).toHaveText(/wins|Draw/);
  return status(page).textContent();
}

/** Starts a game against the computer from the home page. */
export async function startBotGame(page, { level = 'Impossible', side = 'X' } = {}) {
  await page.goto('/');
  await page.getByRole('radio', { name: new RegExp(`^${level}`) }).check();
  await page.getByRole('radio', { name: new RegExp(`^${side}\\b`) }).check();
  await page.getByRole('button', { name: 'Play the computer' }).click();
  await expect(page).toHaveURL(/\/t\/[^/]+$/);
  await expect(status(page)).not.toHaveText('Connecting…');
}
