// @ts-check
// Sending a move from the game page, and telling what became of it.
//
// The server is the authority: a move is sent, and the board shows it as
// played only when the next `table` state comes. Meanwhile the move is
// pending: the page draws the mark dimmed in its cell (`pending`), so that
// a slow link still answers the click at once, and sends no other move
// while one is on its way (`busy`): a second click would only be refused
// ("Not your turn"). A refused move shows the server's message for a
// moment (a toast, which screen readers read too), and its cell is empty
// again. No answer is no refusal: when the connection drops or hangs, the
// move may have landed, and the first state over a live connection tells
// (`settle`).
//
// It draws nothing and decides nothing about turns: the page sends only
// when a move may be played, asks whether one is on its way (`busy`,
// `pending`) or its answer given up on (`unanswered`), and is told
// through `onChange` when that may have changed.

import { conn } from './net.js';
import { announce, toast } from './dom.js';

/** @typedef {import('./protocol.js').TableState} TableState */
/** @typedef {import('./protocol.js').Square} Square */
/** @typedef {import('./protocol.js').Player} Player */
/** @typedef {import('./presence.js').TableMsg} TableMsg */

/**
 * Sends moves with `request`; `onChange()` redraws what depends on
 * `pending()` and `unanswered()`.
 * @param {{ request: (msg: TableMsg) => Promise<unknown>, onChange: () => void }} options
 */
export function moveSender({ request, onChange }) {
  /**
   * The move last sent and not yet settled. `checking`: its answer never
   * came (the connection dropped or hung): it may have landed, and the next
   * state after the reconnect tells.
   * `mark` is the seat that played it, `ply` the number of moves in the
   * state it was played in.
   * @type {{ cell: Square, mark: Player, gameId: string | null | undefined, ply: number, checking: boolean } | null}
   */
  let inflight = null;

  /**
   * Plays `cell` in the round of `table`, the state drawn.
   * @param {TableState} table
   * @param {Square} cell
   */
  function send(table, cell) {
    // The round it is meant for: a retry after a reconnect is then never
    // played in a later round (docs/protocol.md, "Retries").
    /** @type {TableMsg} */
    const move = { type: 'move', cell };
    if (table.game_id) move.game_id = table.game_id;
    const mark = /** @type {Player} */ (table.turn);
    const sent = { cell, mark, gameId: table.game_id, ply: table.moves.length, checking: false };
    inflight = sent;
    onChange();
    request(move).then(() => {
      if (inflight !== sent) return;
      inflight = null;
      onChange();
    }).catch((err) => {
      if (inflight !== sent) return;
      if (err.code === 'timeout' || err.code === 'disconnected') {
        // No answer is not a refusal: the move may have landed. The state
        // after the reconnect settles it (settle).
        // The connection may still be up (nothing else was missed): a
        // state is asked for, to settle it.
        sent.checking = true;
        onChange();
        if (conn.status === 'online') request({ type: 'sync' }).catch(() => {});
        return;
      }
      inflight = null;
      onChange();
      toast(err.message);
    });
  }

  /**
   * Once a state arrives over a live connection, tells what became of a
   * move whose answer never came.
   * @param {TableState} t
   */
  function settle(t) {
    if (!inflight?.checking || conn.status !== 'online') return;
    const { cell, gameId, ply } = inflight;
    inflight = null;
    if (t.game_id === gameId && t.moves[ply] === cell) {
      announce(`Your move ${cell} was played.`);
    } else if (t.game_id === gameId && t.status === 'in_progress') {
      toast(`Your move ${cell} did not reach the server. Please play it again.`, { kind: 'info', ms: 5000 });
    } else {
      toast(`Your move ${cell} did not reach the server before the round ended.`, { kind: 'info', ms: 5000 });
    }
  }

  /** Whether a move is on its way, or its fate unknown: no other is sent. */
  function busy() {
    return inflight !== null;
  }

  /**
   * The move on its way, while `t` (the state drawn) does not show it yet:
   * the state it was played in. Once a later state comes, the board shows
   * the server's.
   * @param {TableState} t
   * @returns {{ cell: Square, mark: Player } | null}
   */
  function pending(t) {
    if (!inflight || t.game_id !== inflight.gameId || t.moves.length !== inflight.ply) return null;
    return { cell: inflight.cell, mark: inflight.mark };
  }

  /**
   * Whether the answer to the move sent was given up on (no answer in
   * time): the next state tells whether it landed, and it is not sent
   * again.
   */
  function unanswered() {
    return Boolean(inflight?.checking);
  }

  return { send, settle, busy, pending, unanswered };
}
