// @ts-check
// The game page (`/t/{table_id}`): a table seen by a player or a spectator.
//
// The server is the authority: a click sends `move`, its cell shows the
// mark dimmed as pending at once, and the board shows it played only when
// the next `table` state arrives (sendmove.js). Every `table`
// event carries the whole state, so a reload or a reconnect draws the exact
// game again from the first one.
//
// Who we are at this table follows from the state: the seats whose player id
// is ours. Opening the link seats us if a seat is free (the friend link);
// otherwise, or with `?watch`, we watch (presence.js).
//
// This file is the page's shell. It keeps the latest state and the one
// before it, lays the page out, draws the board and the status line, tells
// screen readers what changed, and wires the page to the connection. The
// panels own their elements and draw the state they are handed: the
// scoreboard (scoreboard.js), the controls around the board
// (gamecontrols.js), the hints (hints.js), the move list with its verdicts
// (movelist.js) and the chat (chat.js), which shows the table's chat
// history each time we take our place (presence.js says when). None of
// them imports another.

import { conn } from './net.js';
import { h, replace, announce } from './dom.js';
import { Board } from './board.js';
import { mySeats, awayWhenGone } from './session.js';
import { SQUARES, parseBoard, index, outcomeCells, other, bySeat, winnerOf, firstMover } from './notation.js';
import { view, describe, departureText, moveClock } from './status.js';
import { Presence } from './presence.js';
import { moveSender } from './sendmove.js';
import { scoreboard } from './scoreboard.js';
import { gameControls } from './gamecontrols.js';
import { hintsSwitch } from './hints.js';
import { moveList } from './movelist.js';
import { chatPanel } from './chat.js';

/** @typedef {import('./protocol.js').TableState} TableState */
/** @typedef {import('./protocol.js').Player} Player */
/** @typedef {import('./status.js').Departure} Departure */

/**
 * Mounts the page of table `tableId` in `main` (`watch`: as a spectator);
 * returns its unmount function.
 * @param {HTMLElement} main
 * @param {{ tableId: string, watch: boolean }} route
 * @returns {() => void}
 */
export function mountGame(main, { tableId, watch }) {
  document.title = 'Game · oxo';
  /** @type {(() => void)[]} */
  const cleanups = [];
  /** @type {ReturnType<typeof setInterval>[]} */
  const timers = [];

  /** @type {TableState | null} the latest state */
  let table = null;
  let receivedAt = 0;
  /** @type {TableState | null} the state before it */
  let prev = null;
  let lastStatus = '';
  /** The move (round and ply) whose low time was said already. */
  let urgedFor = '';
  /**
   * The opponent who last left the table, while it waits for a new one:
   * who, from which seat, and the round they left (its moves, for the move
   * list). `won`: the seat that won by their leaving a round in play.
   * @type {Departure | null}
   */
  let departure = null;

  const presence = new Presence(tableId, {
    watch,
    onAttached: askChatHistory,
    onMissing: showMissing,
    onLeftElsewhere: showLeftElsewhere,
  });
  const sender = moveSender({
    request: (msg) => presence.request(msg),
    onChange: () => {
      if (!table) return;
      renderBoard(false);
      renderStatus();
    },
  });
  const board = new Board({ onPlay: play, label: 'Game board' });

  // --- Elements ---
  const scores = scoreboard();
  const statusEl = h('p.status', { id: 'status' }, 'Connecting…');
  const subEl = h('p.substatus', { id: 'substatus' });
  const controls = gameControls({ tableId, presence });
  const hints = hintsSwitch(() => renderBoard(false));
  const moves = moveList();
  const chat = chatPanel({
    send: (text) => presence.request({ type: 'chat', text }),
  });

  // The invite lies over the board, which is empty while the table waits
  // (or shows the round the last opponent left): the board is where it
  // will be for the game, and stays there when the friend comes.
  board.el.append(controls.share);

  main.append(
    h('div.game', {},
      h('section.game-main', { 'aria-labelledby': 'game-title' },
        h('div.game-head', {},
          h('a.back', { href: '/', 'data-link': true }, h('span', { 'aria-hidden': 'true' }, '← '), 'Home'),
          scores.meta,
        ),
        h('h1.visually-hidden', { id: 'game-title' }, 'Game'),
        scores.el,
        h('div.status-box', {}, statusEl, subEl),
        board.el,
        h('div.controls', {}, controls.buttons, hints.el),
        controls.nextGame,
        controls.keysHelp,
      ),
      h('aside.game-side', { 'aria-label': 'Moves and chat' },
        moves.el,
        chat.el,
      ),
    ),
  );

  /**
   * Whether a click on the board may send a move now: not while one is on
   * its way (it would only be refused), nor once the page is done with the
   * table (a key may still be pressed).
   */
  function canMove() {
    return Boolean(table) && !presence.gone && conn.status === 'online' && table?.status === 'in_progress' && myTurn() && !sender.busy();
  }

  /**
   * Plays cell `i` (0..8), if it is ours to play.
   * @param {number} i
   */
  function play(i) {
    // Not our turn, offline, or a move on its way: the board is inert and
    // nothing is sent (a move queued while offline could land much later,
    // unseen).
    if (!canMove()) return;
    sender.send(current(), SQUARES[i]);
  }

  /**
   * We have taken our place at the table (on opening, after a reload or a
   * reconnect): the chat so far comes as a `chat_history` event, which
   * replaces what the panel shows. Failing that, the panel keeps what it
   * has, and our lines lost with the connection show as not sent.
   */
  function askChatHistory() {
    presence.request({ type: 'chat_history' }).catch(() => chat.noHistory());
  }

  /** The table does not exist, or it has closed: the page says so. */
  function showMissing() {
    showGone('Table not found', 'This table does not exist, or it has closed: a table closes once its players have left.');
  }

  /**
   * The player left this table in another tab or window: nothing more
   * comes here (the server let this connection go with the seat), and the
   * page says so rather than show a seat that is no longer ours.
   */
  function showLeftElsewhere() {
    showGone('You left this table', 'You left this table in another tab or window.');
  }

  /**
   * The page has no table to show any more: it says why (`title`, `text`)
   * and offers the way home.
   * @param {string} title
   * @param {string} text
   */
  function showGone(title, text) {
    document.title = `${title} · oxo`;
    replace(main,
      h('section.card.narrow', {},
        h('h1', {}, title),
        h('p', {}, text),
        h('a.btn.btn-primary', { href: '/', 'data-link': true }, 'Go to the home page'),
      ),
    );
  }

  // --- Drawing ---

  /**
   * The player in `seat`, if any.
   * @param {Player} seat
   */
  function seatInfo(seat) {
    return bySeat(table?.players, seat) ?? null;
  }

  /** The state drawn: the render functions below run once one came. */
  function current() {
    if (!table) throw new Error('the game page has no table state yet');
    return table;
  }

  /** Whether it is our move in the state drawn. */
  function myTurn() {
    return Boolean(table?.turn) && mySeats(table).includes(/** @type {Player} */ (table?.turn));
  }

  function currentView() {
    return view(table, table ? mySeats(table) : [], Date.now() - receivedAt);
  }

  function renderStatus() {
    const v = currentView();
    const left = departure && table?.status === 'waiting' ? departureText(v, departure) : null;
    const [told, described] = left ? [left.line, left.sub] : describe(v);
    // A move on its way: the status says so until the server's answer
    // (the cell shows it dimmed meanwhile), offline too: it is no longer
    // the player's turn to play, whatever became of it.
    const sending = table ? sender.pending(table) : null;
    const line = sending ? `Sending your move (${sending.cell})…` : told;
    const offline = conn.status !== 'online' && table?.status === 'in_progress' && mySeats(table).length > 0;
    let sub = described;
    if (sender.unanswered()) sub = 'No answer from the server — checking…';
    // Still waiting for its answer: the connection sends it again once up.
    else if (offline && sending) sub = 'Offline — your move goes again once you are back online.';
    else if (offline) sub = 'Offline: reconnecting… Moves can be played again once back online.';
    const names = [v.seatInfo('X')?.name, v.seatInfo('O')?.name, departure?.name];
    showNamed(statusEl, line, names);
    renderSub(sub, v, names);
    const your = table && table.status === 'in_progress' && myTurn() && !sending;
    statusEl.classList.toggle('is-yours', Boolean(your));
    statusEl.dataset.state = table?.status ?? 'connecting';
    document.title = `${line} · oxo`;
    return line;
  }

  /**
   * The line under the status, `sub`, with its move clock (`v`'s) set apart
   * to show when time runs low; that is said once a move to the player
   * whose move it is (the live region is not told every second).
   * @param {string} sub
   * @param {import('./status.js').View} v
   * @param {(string | undefined)[]} names the players' names, to cut if need be
   */
  function renderSub(sub, v, names) {
    const clock = moveClock(v);
    // Empty, it keeps its room (hidden, not removed): the board stays put.
    subEl.dataset.empty = String(!sub);
    if (!clock || !sub.startsWith(clock.text)) {
      showNamed(subEl, sub, names);
      return;
    }
    subEl.classList.remove('is-named');
    replace(subEl, h('span.clock', { dataset: { urgent: String(clock.urgent) } }, clock.text), sub.slice(clock.text.length));
    const key = `${v.table?.game_id}:${v.table?.moves.length}`;
    if (clock.urgent && myTurn() && urgedFor !== key) {
      urgedFor = key;
      announce(`${clock.seconds} seconds left for your move.`);
    }
  }

  /**
   * Shows `text` in `el` (the status or the line under it), with each of
   * the `names` in it set apart: such a line keeps to one line, its names
   * cut short (with an ellipsis) as much as it takes, so that a long name
   * never wraps it onto a line it has no room for, which would move the
   * board. The scoreboard shows the names whole.
   * @param {HTMLElement} el
   * @param {string} text
   * @param {(string | undefined)[]} names
   */
  function showNamed(el, text, names) {
    const found = [...new Set(names)].filter(/** @returns {n is string} */ (n) => Boolean(n && text.includes(n))).sort((a, b) => b.length - a.length);
    el.classList.toggle('is-named', found.length > 0);
    if (!found.length) {
      el.textContent = text;
      return;
    }
    const escaped = found.map((n) => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    // A whole name, not letters of a word ("Al" in "Alice").
    const pattern = new RegExp(`(?<![\\p{L}\\p{N}])(${escaped.join('|')})(?![\\p{L}\\p{N}])`, 'u');
    const parts = text.split(pattern);
    // An ellipsis right after a name ("Waiting for Alice…") goes with it:
    // a name cut short then ends in one ellipsis, not two.
    const trails = (/** @type {number} */ i) => parts[i]?.startsWith('…') ?? false;
    replace(el, parts.map((part, i) => (i % 2
      ? h('span.who', { title: part }, part, trails(i + 1) ? '…' : null)
      : h('span', {}, i > 0 && trails(i) ? part.slice(1) : part))));
  }

  /** @param {boolean} [animate] draw new marks in */
  function renderBoard(animate = true) {
    if (!table) return;
    const seats = mySeats(table);
    // A table waiting for a player plays no round: its board is empty,
    // unless an opponent just left a round here, whose final position
    // stays in view (dimmed, as over) until the next round starts.
    const waiting = table.status === 'waiting';
    const blank = waiting && !departure;
    const left = waiting ? departure : null;
    const moves = left ? left.moves : table.moves;
    const cells = parseBoard(blank ? '.........' : left ? left.board : table.board);
    const last = moves.length && !blank ? index(moves[moves.length - 1]) : -1;
    // The round the opponent left, if it was over: its result stays drawn.
    const outcome = table.status === 'round_over' ? table.outcome : left?.outcome;
    const myTurn = canMove();
    const vsBot = Boolean(seatInfo('X')?.bot || seatInfo('O')?.bot);
    const sending = sender.pending(table);
    board.render({
      cells,
      last,
      pending: sending ? { index: index(sending.cell), mark: sending.mark } : null,
      winCells: outcomeCells(outcome),
      winner: winnerOf(outcome),
      preview: myTurn ? table.turn : null,
      interactive: myTurn,
      hints: hints.forBoard(table, { offered: vsBot && seats.length > 0, wanted: vsBot && myTurn }),
      animate,
    });
    board.el.classList.toggle('is-over', table.status === 'round_over' || (waiting && !blank));
    board.el.classList.toggle('is-offline', conn.status !== 'online');
  }

  /** What a screen reader hears about the change from `prev` to `table`. */
  /** @param {string} line the status line now */
  function announcement(line) {
    const table = current();
    const parts = [];
    if (prev && prev.round === table.round && table.moves.length > prev.moves.length) {
      let player = firstMover(table);
      for (let i = 0; i < table.moves.length; i++) {
        if (i >= prev.moves.length) parts.push(`${player} played ${table.moves[i]}.`);
        player = other(player);
      }
    } else if (prev && prev.round !== table.round) {
      parts.push(`Round ${table.round}.`);
    }
    if (line !== lastStatus || parts.length) parts.push(line);
    return parts.join(' ');
  }

  /** @param {import('./protocol.js').ServerMsgTable} msg */
  function onTable({ table: t }) {
    if (t.id !== tableId || presence.gone) return;
    // Seated a moment ago and not now, without leaving here: the player
    // left from another tab or device (the server tells every connection).
    if (presence.role === 'player' && table && mySeats(table).length && !mySeats(t).length) {
      presence.leftElsewhere();
      return;
    }
    const left = departed(table, t);
    if (left) departure = left;
    else if (t.status !== 'waiting') departure = null;
    prev = table;
    table = t;
    sender.settle(t);
    receivedAt = Date.now();
    if (mySeats(t).length) presence.role = 'player';
    const jump = !prev || prev.round !== t.round;
    const v = currentView();
    const focused = document.activeElement;
    scores.render(t, v);
    renderBoard(!jump || t.moves.length <= 1);
    moves.render(t, v, departure);
    controls.render(t, v);
    // Under the invite, the board is out of reach: no cell there to tab to
    // or to click, hidden as it is.
    board.grid.inert = !controls.share.hidden;
    // A control that hides while it has the focus (Rematch, once the next
    // round starts; the link's Copy, once the friend came) would drop
    // keyboard users on the page itself, where a screen reader loses its
    // place: the focus goes to the board instead.
    if (focused instanceof HTMLElement && main.contains(focused) && focused.closest('[hidden]')) board.focus();
    // Pass and play is one screen: a chat there has nobody to talk to.
    chat.el.hidden = v.isPass();
    chat.setClosed(t.status === 'closed');
    document.body.classList.toggle('is-spectator', v.seats.length === 0);
    const line = renderStatus();
    const said = announcement(line);
    if (said) announce(said);
    lastStatus = line;
  }

  // Digits 1-9 play a cell directly (1 = a1, top left … 9 = c3).
  /** @param {KeyboardEvent} ev */
  function onKey(ev) {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const target = ev.target;
    if (target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))) return;
    if (document.querySelector('dialog[open]')) return;
    if (!/^[1-9]$/.test(ev.key)) return;
    const i = Number(ev.key) - 1;
    ev.preventDefault();
    board.focus(i);
    if (table && mySeats(table).length) play(i);
  }

  document.addEventListener('keydown', onKey);
  cleanups.push(() => document.removeEventListener('keydown', onKey));
  cleanups.push(conn.on('table', onTable));
  cleanups.push(conn.on('chat', (msg) => {
    if (msg.table_id === tableId && !presence.gone) chat.add(msg);
  }));
  cleanups.push(conn.on('chat_history', (msg) => {
    if (msg.table_id === tableId && !presence.gone) chat.history(msg.messages);
  }));
  cleanups.push(conn.on('welcome', () => presence.attach()));
  cleanups.push(conn.on('status', (status) => {
    chat.setStatus(status);
    if (status !== 'online' && table) {
      statusEl.dataset.offline = 'true';
    } else {
      delete statusEl.dataset.offline;
    }
    // Offline the board cannot take a move: it turns inert and says why.
    if (table) {
      renderBoard(false);
      renderStatus();
    }
  }));
  timers.push(setInterval(() => {
    if (!table) return;
    const { players } = table;
    const counting = table.time_left_ms !== undefined ||
      /** @type {Player[]} */ (['X', 'O']).some((s) => {
        const p = bySeat(players, s);
        return Boolean(p && !p.connected && p.grace_left_ms !== undefined);
      });
    if (counting) renderStatus();
  }, 500));
  presence.attach();

  return () => {
    for (const fn of cleanups) fn();
    for (const t of timers) clearInterval(t);
    document.body.classList.remove('is-spectator');
    presence.close({ away: awayWhenGone(table) });
  };
}

/**
 * Who left between state `before` and `t`, if a seat was given up and
 * the table now waits for a new player.
 * @param {TableState | null} before
 * @param {TableState} t
 * @returns {Departure | null}
 */
function departed(before, t) {
  if (!before || t.status !== 'waiting' || before.status === 'waiting' || before.status === 'closed') return null;
  for (const seat of /** @type {Player[]} */ (['X', 'O'])) {
    const was = bySeat(before.players, seat);
    const now = bySeat(t.players, seat);
    if (!was || (now && now.id === was.id)) continue;
    const stays = other(seat);
    // Leaving a round in play forfeits it; a finished round keeps its result.
    const won = before.status === 'in_progress' && bySeat(t.players, stays) ? stays : null;
    return {
      outcome: before.status === 'round_over' ? before.outcome ?? null : null,
      board: before.board,
      name: was.name,
      seat,
      won,
      winnerName: won ? bySeat(t.players, won)?.name ?? won : null,
      first: firstMover(before),
      moves: before.moves,
      gameId: before.game_id,
    };
  }
  return null;
}

