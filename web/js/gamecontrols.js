// @ts-check
// The game page's controls around the board: Take the seat, Rematch,
// Forfeit and Leave (or Stop watching) under it; over it, the link to send
// a friend while we wait for one (the page lays it over the empty board, so
// that nothing moves when the friend comes and it goes); against the computer, the next game's
// level and side with its New game button; and the line on the keyboard.
//
// Which of them show follows from the state drawn (`render`). What they do
// goes through our presence at the table (presence.js), which alone
// changes who we are there; the hints switch that sits among the buttons
// is hints.js's.

import { h, toast } from './dom.js';
import { confirmable, segmented, shareLink } from './controls.js';
import { mySeats } from './session.js';
import { LEVELS, SIDES, botChoice, rememberBot } from './botgame.js';

/** @typedef {import('./protocol.js').TableState} TableState */
/** @typedef {import('./status.js').View} View */
/** @typedef {import('./presence.js').Presence} Presence */

/**
 * Builds the controls of table `tableId`: the share box (`share`), the
 * row of `buttons`, the next game against the computer (`nextGame`) and
 * the keyboard line (`keysHelp`), for the page to place.
 * @param {{ tableId: string, presence: Presence }} options
 */
export function gameControls({ tableId, presence }) {
  /** @type {TableState | null} the state drawn last, for the confirmations */
  let table = null;
  /** @type {View | null} how it was seen */
  let view = null;

  const share = h('div.share', { id: 'share', hidden: true },
    h('div.share-card', {},
      h('p.share-title', {}, 'Send this link to a friend. They open it and take the other seat.'),
      shareLink({ path: `/t/${encodeURIComponent(tableId)}`, label: 'Link to this table', copy: 'Copy', kind: 'btn-primary' }),
    ),
  );

  // A spectator at a table with a free seat takes it here.
  const takeSeatButton = /** @type {HTMLButtonElement} */ (h('button.btn.btn-primary', { type: 'button', id: 'take-seat', hidden: true, onclick: takeSeat }, 'Take the seat'));
  const rematchButton = /** @type {HTMLButtonElement} */ (h('button.btn.btn-primary', { type: 'button', id: 'rematch', onclick: rematch }, 'Rematch'));
  const forfeitButton = h('button.btn.btn-ghost', { type: 'button', id: 'forfeit' });
  const leaveButton = h('button.btn.btn-ghost', { type: 'button', id: 'leave' });
  const resetForfeit = confirmable(forfeitButton, {
    label: 'Forfeit',
    confirmLabel: 'Really forfeit?',
    needsConfirm: () => true,
    action: forfeit,
  });
  // A spectator's Leave stops watching, and says so (also while stopping,
  // and after stopping failed).
  const resetLeave = confirmable(leaveButton, {
    label: () => (table && mySeats(table).length === 0 ? 'Stop watching' : 'Leave'),
    confirmLabel: 'Leave and forfeit?',
    needsConfirm: () => table?.status === 'in_progress' && mySeats(table).length > 0 && !table.options.pass_and_play,
    action: () => presence.leave(),
  });

  const keysHelp = h('p.keys-help', {}, '');

  // Against the computer, the next game is one click away, with the level
  // and side beside the board (as in Google's game); starting it leaves this
  // table, so no seat is left behind.
  const next = botChoice();
  const newGameButton = /** @type {HTMLButtonElement} */ (h('button.btn.btn-primary', { type: 'button', id: 'new-game' }));
  const resetNewGame = confirmable(newGameButton, {
    label: 'New game',
    confirmLabel: 'Forfeit and start a new game?',
    needsConfirm: () => table?.status === 'in_progress',
    action: newGame,
  });
  const nextGame = h('section.next-game', { id: 'next-game', hidden: true, 'aria-label': 'New game against the computer' },
    segmented('next-level', 'Level', LEVELS, next.level, (v) => {
      next.level = v;
      rememberBot('level', v);
    }),
    segmented('next-side', 'You play', SIDES, next.side, (v) => {
      next.side = v;
      rememberBot('side', v);
    }),
    newGameButton,
  );

  // Taking the seat: the button takes no second click meanwhile. Not
  // `disabled`, which would drop the focus to the page: it stays on the
  // button, for the board to take once we are seated (see the page's
  // `onTable`).
  let seating = false;

  async function takeSeat() {
    if (seating) return;
    seating = true;
    takeSeatButton.setAttribute('aria-disabled', 'true');
    try {
      await presence.takeSeat();
    } finally {
      seating = false;
      takeSeatButton.removeAttribute('aria-disabled');
    }
  }

  // A rematch asked and not yet answered: the button says so at once, and
  // takes no second click. Not `disabled`: the focus stays on it, for the
  // board to take once the next round starts.
  let asking = false;

  function rematch() {
    if (asking || rematchButton.getAttribute('aria-disabled') === 'true') return;
    asking = true;
    showRematch();
    presence.request({ type: 'rematch' }).catch((err) => toast(err.message)).finally(() => {
      asking = false;
      showRematch();
    });
  }

  /** Rematch as the state drawn and the request on its way call for. */
  function showRematch() {
    const asked = Boolean(table && view?.seats.some((s) => view?.seatInfo(s)?.wants_rematch) && !view?.isPass());
    rematchButton.setAttribute('aria-disabled', String(asking || asked));
    rematchButton.classList.toggle('is-busy', asking);
    rematchButton.textContent = asking ? 'Asking for a rematch…' : asked ? 'Rematch asked' : 'Rematch';
  }

  function forfeit() {
    presence.request({ type: 'forfeit' }).catch((err) => toast(err.message));
  }

  // Not `disabled` while the new game is on its way, which would drop the
  // focus to the page: if it fails, the keyboard user is still on the
  // button.
  async function newGame() {
    if (newGameButton.getAttribute('aria-disabled') === 'true') return;
    newGameButton.setAttribute('aria-disabled', 'true');
    // On success the page goes, and the button with it.
    if (!(await presence.newGame(next))) newGameButton.removeAttribute('aria-disabled');
  }

  /**
   * Shows the controls that `t`, seen through `v` (its view), calls for.
   * @param {TableState} t
   * @param {View} v
   */
  function render(t, v) {
    table = t;
    view = v;
    const { seats, seatInfo, isPass } = v;
    const seated = seats.length > 0;
    const over = t.status === 'round_over';
    rematchButton.hidden = !(seated && over);
    showRematch();
    forfeitButton.hidden = !(seated && t.status === 'in_progress');
    if (forfeitButton.hidden) resetForfeit();
    leaveButton.hidden = false;
    resetLeave();
    const vsBot = Boolean(seatInfo('X')?.bot || seatInfo('O')?.bot);
    share.hidden = !(seated && t.status === 'waiting' && !vsBot && !isPass());
    const free = !seatInfo('X') || !seatInfo('O');
    takeSeatButton.hidden = !(!seated && t.status === 'waiting' && free && !vsBot && !isPass());
    nextGame.hidden = !(seated && vsBot);
    if (t.status !== 'in_progress') resetNewGame();
    keysHelp.textContent = seated
      ? 'Keyboard: arrow keys and Enter, or 1–9 (1 = top left).'
      : 'You are watching this table.';
  }

  return { share, buttons: [takeSeatButton, rematchButton, forfeitButton, leaveButton], nextGame, keysHelp, render };
}
