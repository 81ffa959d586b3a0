// @ts-check
// The game page (`/t/{table_id}`): a table seen by a player or a spectator.
//
// The server is the authority: a click sends `move` and the board changes
// only when the next `table` state arrives. A refused move shows the
// server's message for a moment and changes nothing else. Every `table`
// event carries the whole state, so a reload or a reconnect draws the exact
// game again from the first one.
//
// Who we are at this table follows from the state: the seats whose player id
// is ours. Opening the link seats us if a seat is free (the friend link);
// otherwise, or with `?watch`, we watch.

import { conn } from './net.js';
import * as api from './api.js';
import * as store from './store.js';
import { h, replace, announce, toast } from './dom.js';
import { confirmable, segmented, shareLink, toggle } from './controls.js';
import { MAX_CHAT_CHARS } from './limits.js';
import { Board, markSvg } from './board.js';
import { navigate } from './router.js';
import { mySeats, forget } from './session.js';
import { SQUARES, parseBoard, index, outcomeCells, other, bySeat, winnerOf } from './notation.js';
import { view, describe, outcomeText, departureText } from './status.js';
import { LEVELS, SIDES, botChoice, createBotTable, rememberBot } from './botgame.js';
import { explainGame, annotateMoves } from './explain.js';

/** @typedef {import('./protocol.js').TableState} TableState */
/** @typedef {import('./protocol.js').Player} Player */
/** @typedef {import('./protocol.js').ServerMsgChat} ServerMsgChat */
/**
 * A request about this page's table, without the `table_id` that
 * `request` adds.
 * @typedef {import('./net.js').ClientMsg extends infer M ? M extends { table_id: string } ? Omit<M, 'table_id'> : never : never} TableMsg
 */

/** Chat messages kept on screen; older ones scroll away for good. */
const MAX_CHAT = 100;

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
  /** @type {'player' | 'spectator' | null} what we were, for reconnects */
  let role = null;
  let gone = false;
  let hintsOn = store.pref('hints', false);
  /** @type {(string | null)[] | null} per cell, the solver's result for the side to move */
  let hints = null;
  let hintsKey = '';
  let lastStatus = '';
  let chatCount = 0;
  /**
   * The opponent who last left the table, while it waits for a new one:
   * who, from which seat, and the round they left (its moves, for the move
   * list). `won`: the seat that won by their leaving a round in play.
   * @type {import('./status.js').Departure | null}
   */
  let departure = null;
  /**
   * The move last sent and not yet settled. `checking`: its answer never
   * came (the connection dropped or hung): it may have landed, and the next
   * state after the reconnect tells.
   * @type {{ cell: string, gameId: string | null | undefined, ply: number, checking: boolean } | null}
   */
  let inflight = null;

  const board = new Board({ onPlay: play, label: 'Game board' });

  // --- Elements ---
  const seatEls = { X: playerCard('X'), O: playerCard('O') };
  const drawsEl = h('span.draws-n', {}, '0');
  const metaEl = h('p.table-meta', {});
  const statusEl = h('p.status', { id: 'status' }, 'Connecting…');
  const subEl = h('p.substatus', { id: 'substatus' });
  const shareEl = h('div.share', { id: 'share', hidden: true },
    h('p.share-title', {}, 'Send this link to a friend. They open it and take the other seat.'),
    shareLink({ path: `/t/${encodeURIComponent(tableId)}`, label: 'Link to this table', copy: 'Copy', kind: 'btn-primary' }),
  );

  const rematchButton = /** @type {HTMLButtonElement} */ (h('button.btn.btn-primary', { type: 'button', id: 'rematch', onclick: rematch }, 'Rematch'));
  const forfeitButton = h('button.btn.btn-ghost', { type: 'button', id: 'forfeit' });
  const leaveButton = h('button.btn.btn-ghost', { type: 'button', id: 'leave' });
  const resetForfeit = confirmable(forfeitButton, {
    label: 'Forfeit',
    confirmLabel: 'Really forfeit?',
    needsConfirm: () => true,
    action: forfeit,
  });
  const resetLeave = confirmable(leaveButton, {
    label: 'Leave',
    confirmLabel: 'Leave and forfeit?',
    needsConfirm: () => table?.status === 'in_progress' && mySeats(table).length > 0 && !table.options.pass_and_play,
    action: leave,
  });
  const hintsEl = toggle({
    label: 'Hints',
    id: 'hints',
    className: '.hints-switch',
    hidden: true,
    checked: hintsOn,
    onChange: (on) => {
      hintsOn = on;
      store.setPref('hints', hintsOn);
      renderBoard(false);
    },
  });

  // Focusable: with the verdicts of a finished round it may scroll, and a
  // keyboard must reach what it scrolls.
  const movesEl = h('ol.movelist', { id: 'moves', 'aria-label': 'Moves', tabindex: '0' });
  const replayLink = /** @type {HTMLAnchorElement} */ (h('a.btn.btn-small.btn-ghost', { 'data-link': true, hidden: true, id: 'replay-link' }, 'Open replay'));
  const chatLog = h('ol.chatlog', { id: 'chatlog', 'aria-live': 'polite', 'aria-label': 'Chat messages' },
    h('li.empty', {}, 'No messages yet.'));
  // Said under the box when a message is not sent (a blank one).
  const chatHint = h('p.chat-hint', { id: 'chat-hint', hidden: true, role: 'status' });
  const chatInput = /** @type {HTMLInputElement} */ (h('input.chat-input', {
    type: 'text',
    maxlength: MAX_CHAT_CHARS,
    placeholder: 'Say something nice',
    'aria-label': 'Chat message',
    autocomplete: 'off',
  }));
  chatInput.addEventListener('input', () => { chatHint.hidden = true; });
  const chatForm = h('form.chat-form', { onsubmit: sendChat },
    chatInput,
    h('button.btn.btn-secondary.btn-small', { type: 'submit' }, 'Send'),
  );
  // Pass and play is one screen: a chat there has nobody to talk to.
  const chatPanel = h('section.panel.chat', { 'aria-labelledby': 'h-chat' },
    h('h2', { id: 'h-chat' }, 'Chat'),
    chatLog,
    chatForm,
    chatHint,
  );
  // A spectator at a table with a free seat takes it here.
  const takeSeatButton = /** @type {HTMLButtonElement} */ (h('button.btn.btn-primary', { type: 'button', id: 'take-seat', hidden: true, onclick: takeSeat }, 'Take the seat'));

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
  const nextEl = h('section.next-game', { id: 'next-game', hidden: true, 'aria-label': 'New game against the computer' },
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

  const layout = h('div.game', {},
    h('section.game-main', { 'aria-labelledby': 'game-title' },
      h('div.game-head', {},
        h('a.back', { href: '/', 'data-link': true }, h('span', { 'aria-hidden': 'true' }, '← '), 'Home'),
        metaEl,
      ),
      h('h1.visually-hidden', { id: 'game-title' }, 'Game'),
      h('div.scoreboard', { id: 'scoreboard', 'aria-label': 'Scoreboard', role: 'group' },
        seatEls.X.el,
        h('div.draws', {}, drawsEl, h('span.draws-label', {}, 'draws')),
        seatEls.O.el,
      ),
      h('div.status-box', {}, statusEl, subEl),
      shareEl,
      board.el,
      h('div.controls', {}, takeSeatButton, rematchButton, forfeitButton, leaveButton, hintsEl),
      nextEl,
      keysHelp,
    ),
    h('aside.game-side', { 'aria-label': 'Moves and chat' },
      h('section.panel', { 'aria-labelledby': 'h-moves' },
        h('div.panel-head', {}, h('h2', { id: 'h-moves' }, 'Moves'), replayLink),
        movesEl,
      ),
      chatPanel,
    ),
  );
  main.append(layout);

  /**
   * A seat's card in the scoreboard: its mark, name, what it is doing, score.
   * @param {Player} seat
   */
  function playerCard(seat) {
    const name = h('span.player-name', {}, '—');
    const sub = h('span.player-sub', {}, '');
    const score = h('span.player-score', {}, '0');
    const el = h('div.player', { role: 'group', dataset: { seat } },
      h('span.player-mark', {}, markSvg(seat, 'badge')),
      h('span.player-info', {}, name, sub),
      score,
    );
    return { el, name, sub, score };
  }

  // --- Talking to the server ---

  /**
   * Sends a request about this table.
   * @param {TableMsg} msg
   */
  function request(msg) {
    return conn.request({ ...msg, table_id: tableId });
  }

  async function attach() {
    if (conn.status !== 'online' || gone) return;
    const seatedBefore = (conn.welcome?.tables ?? []).includes(tableId) || role === 'player';
    try {
      if (seatedBefore) {
        await request({ type: 'join_table' });
        role = 'player';
      } else if (watch || role === 'spectator') {
        await watchTable();
      } else {
        try {
          await request({ type: 'join_table' });
          role = 'player';
        } catch (err) {
          if (err.code !== 'table_full' && err.code !== 'already_seated') throw err;
          await watchTable();
        }
      }
    } catch (err) {
      if (err.code === 'no_such_table') showMissing();
      else if (err.code !== 'timeout') toast(err.message);
    }
  }

  async function watchTable() {
    try {
      await request({ type: 'watch_table' });
      role = 'spectator';
    } catch (err) {
      // Watching a table where we hold a seat: take the seat back instead.
      if (err.code !== 'already_seated') throw err;
      await request({ type: 'join_table' });
      role = 'player';
    }
  }

  /** Whether a click on the board may send a move now. */
  function canMove() {
    return Boolean(table) && conn.status === 'online' && table?.status === 'in_progress' && myTurn();
  }

  /**
   * Plays cell `i` (0..8), if it is ours to play.
   * @param {number} i
   */
  function play(i) {
    // Not our turn, or offline: the board is inert and nothing is sent
    // (a move queued while offline could land much later, unseen).
    if (!canMove()) return;
    // The toast is an alert: screen readers read the refusal too.
    // The round it is meant for: a retry after a reconnect is then never
    // played in a later round (docs/protocol.md, "Retries").
    /** @type {TableMsg} */
    const move = { type: 'move', cell: SQUARES[i] };
    if (table?.game_id) move.game_id = table.game_id;
    const sent = { cell: SQUARES[i], gameId: table?.game_id, ply: table?.moves.length ?? 0, checking: false };
    inflight = sent;
    request(move).then(() => {
      if (inflight !== sent) return;
      inflight = null;
      if (table) renderStatus();
    }).catch((err) => {
      if (inflight !== sent) return;
      if (err.code === 'timeout' || err.code === 'disconnected') {
        // No answer is not a refusal: the move may have landed. The state
        // after the reconnect settles it (settleMove).
        sent.checking = true;
        if (table) renderStatus();
        return;
      }
      inflight = null;
      if (table) renderStatus();
      toast(err.message);
    });
  }

  /**
   * Once a state arrives over a live connection, tells what became of a
   * move whose answer never came.
   * @param {TableState} t
   */
  function settleMove(t) {
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

  async function takeSeat() {
    takeSeatButton.disabled = true;
    try {
      await request({ type: 'join_table' });
      role = 'player';
    } catch (err) {
      toast(err.message);
    } finally {
      takeSeatButton.disabled = false;
    }
  }

  async function newGame() {
    newGameButton.disabled = true;
    try {
      try {
        await request({ type: 'leave_table' });
      } catch (err) {
        if (err.code !== 'not_seated' && err.code !== 'no_such_table') throw err;
      }
      role = null;
      forget(tableId);
      gone = true;
      const id = await createBotTable(next);
      navigate(`/t/${encodeURIComponent(id)}`);
    } catch (err) {
      gone = false;
      toast(err.message);
      newGameButton.disabled = false;
    }
  }

  function rematch() {
    request({ type: 'rematch' }).catch((err) => toast(err.message));
  }

  function forfeit() {
    request({ type: 'forfeit' }).catch((err) => toast(err.message));
  }

  async function leave() {
    try {
      await request({ type: 'leave_table' });
    } catch (err) {
      if (err.code !== 'not_seated' && err.code !== 'no_such_table') {
        toast(err.message);
        return;
      }
    }
    role = null;
    forget(tableId);
    navigate('/');
  }

  /** @param {SubmitEvent} ev */
  async function sendChat(ev) {
    ev.preventDefault();
    const text = chatInput.value.trim();
    if (!text) {
      chatInput.value = '';
      chatHint.textContent = 'Empty messages are not sent.';
      chatHint.hidden = false;
      return;
    }
    chatHint.hidden = true;
    try {
      await request({ type: 'chat', text });
      chatInput.value = '';
    } catch (err) {
      toast(err.message);
    }
  }

  function showMissing() {
    gone = true;
    document.title = 'Table not found · oxo';
    replace(main,
      h('section.card.narrow', {},
        h('h1', {}, 'Table not found'),
        h('p', {}, 'This table does not exist, or it has closed: a table closes once its players have left.'),
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

  function isPass() {
    return Boolean(table?.options?.pass_and_play);
  }

  function currentView() {
    return view(table, table ? mySeats(table) : [], Date.now() - receivedAt);
  }

  function renderStatus() {
    const v = currentView();
    const [line, described] = departure && table?.status === 'waiting' ? departureText(v, departure) : describe(v);
    const offline = conn.status !== 'online' && table?.status === 'in_progress' && mySeats(table).length > 0;
    const checking = inflight && (inflight.checking || conn.status !== 'online');
    const sub = checking
      ? 'No answer from the server — checking…'
      : offline ? 'Offline: reconnecting… Moves can be played again once back online.' : described;
    statusEl.textContent = line;
    subEl.textContent = sub;
    subEl.hidden = !sub;
    const your = table && table.status === 'in_progress' && myTurn();
    statusEl.classList.toggle('is-yours', Boolean(your));
    statusEl.dataset.state = table?.status ?? 'connecting';
    document.title = `${line} · oxo`;
    return line;
  }

  function renderPlayers() {
    const table = current();
    const seats = mySeats(table);
    for (const seat of /** @type {Player[]} */ (['X', 'O'])) {
      const card = seatEls[seat];
      const p = seatInfo(seat);
      card.name.textContent = !p ? 'Open seat' : isPass() ? `Player ${seat}` : p.name;
      const bits = [];
      if (seats.includes(seat) && !isPass()) bits.push('You');
      // The bot's name is its level ("Impossible"), as the player chose it.
      if (p?.bot) bits.push('computer');
      if (p && !p.bot && !p.connected) bits.push('offline');
      // A bot always wants a rematch: saying so is noise.
      if (p?.wants_rematch && !p.bot && table.status === 'round_over') bits.push('wants a rematch');
      if (!p) bits.push('waiting');
      card.sub.textContent = bits.join(' · ');
      const score = seat === 'X' ? table.scores.x : table.scores.o;
      card.score.textContent = String(score);
      card.score.setAttribute('aria-label', `${score} ${score === 1 ? 'win' : 'wins'}`);
      card.el.classList.toggle('is-turn', table.status === 'in_progress' && table.turn === seat);
      card.el.classList.toggle('is-me', seats.includes(seat) && !isPass());
      card.el.classList.toggle('is-empty', !p);
      card.el.classList.toggle('is-offline', Boolean(p && !p.connected));
      card.el.classList.toggle('is-winner', table.status === 'round_over' && winnerOf(table.outcome) === seat);
      card.el.setAttribute('aria-label', `${seat}: ${p ? p.name : 'open seat'}${bits.length ? ` (${bits.join(', ')})` : ''}, ${score} ${score === 1 ? 'win' : 'wins'}`);
    }
    drawsEl.textContent = String(table.scores.draws);
    const parts = [`Round ${table.round}`];
    if (isPass()) parts.push('Pass and play');
    if (table.spectators > 0) parts.push(`${table.spectators} watching`);
    metaEl.textContent = parts.join(' · ');
    metaEl.dataset.spectators = String(table.spectators);
  }

  /** @param {boolean} [animate] draw new marks in */
  function renderBoard(animate = true) {
    if (!table) return;
    const seats = mySeats(table);
    // A table waiting for a player plays no round: its board is empty, even
    // when it still holds the round an opponent left.
    const waiting = table.status === 'waiting';
    const cells = parseBoard(waiting ? '.........' : table.board);
    const last = table.moves.length && !waiting ? index(table.moves[table.moves.length - 1]) : -1;
    const myTurn = canMove();
    const vsBot = Boolean(seatInfo('X')?.bot || seatInfo('O')?.bot);
    hintsEl.hidden = !(vsBot && seats.length > 0);
    const wantHints = hintsOn && vsBot && myTurn;
    const key = `${table.board} ${table.turn}`;
    if (!wantHints) {
      hints = null;
    } else if (hintsKey !== key) {
      hints = null;
      hintsKey = key;
      // Hints only on our turn: `turn` is set.
      api.analyze(table.board, /** @type {Player} */ (table.turn)).then((res) => {
        if (hintsKey !== key) return;
        const byCell = Array(9).fill(null);
        for (const m of res.moves) byCell[index(m.cell)] = m.result;
        hints = byCell;
        renderBoard(false);
      }).catch((err) => toast(`Hints unavailable: ${err.message}`));
    }
    board.render({
      cells,
      last,
      winCells: table.status === 'round_over' ? outcomeCells(table.outcome) : [],
      winner: winnerOf(table.outcome),
      preview: myTurn ? table.turn : null,
      interactive: myTurn,
      hints: wantHints ? hints : null,
      animate,
    });
    board.el.classList.toggle('is-over', table.status === 'round_over');
    board.el.classList.toggle('is-offline', conn.status !== 'online');
  }

  function renderMoves() {
    const table = current();
    // Waiting after an opponent left: the round they left, and how it ended.
    const left = table.status === 'waiting' && departure?.moves.length ? departure : null;
    let player = left ? left.first : table.first;
    const items = (left ? left.moves : table.status === 'waiting' ? [] : table.moves).map((sq, i, moves) => {
      const li = h('li.move', { dataset: { player } },
        h('span.move-n', {}, `${i + 1}.`),
        markSvg(player, 'mini'),
        h('span.move-sq', {}, sq),
      );
      li.setAttribute('aria-label', `${i + 1}. ${player} ${sq}`);
      if (i === moves.length - 1) li.classList.add('is-last');
      player = other(player);
      return li;
    });
    if (table.status === 'round_over' && table.outcome) {
      items.push(h('li.move.move-end', {}, outcomeText(currentView(), table.outcome)));
    } else if (left) {
      items.push(h('li.move.move-end', {}, departureText(currentView(), left)[0]));
    }
    if (!items.length) items.push(h('li.empty', {}, table.status === 'waiting' ? 'The game starts when both seats are taken.' : 'No moves yet.'));
    replace(movesEl, items);
    movesEl.scrollTop = movesEl.scrollHeight;
    // Once the round is over, the solver's verdict on every move (one
    // request per game, cached; the same words as the replay page).
    if (table.status === 'round_over' && table.moves.length) {
      const shown = table;
      explainGame(shown.first, shown.moves).then((e) => {
        if (table === shown) annotateMoves(movesEl, e);
      }).catch(() => {});
    }
    const replayOf = table.status === 'round_over' ? table.game_id : left?.gameId;
    if (replayOf) {
      replayLink.href = `/games/${encodeURIComponent(replayOf)}`;
      replayLink.hidden = false;
    } else {
      replayLink.hidden = true;
    }
  }

  function renderControls() {
    const table = current();
    const seats = mySeats(table);
    const seated = seats.length > 0;
    const over = table.status === 'round_over';
    rematchButton.hidden = !(seated && over);
    const asked = seats.some((s) => seatInfo(s)?.wants_rematch) && !isPass();
    rematchButton.disabled = asked;
    rematchButton.textContent = asked ? 'Rematch asked' : 'Rematch';
    forfeitButton.hidden = !(seated && table.status === 'in_progress');
    if (forfeitButton.hidden) resetForfeit();
    leaveButton.hidden = false;
    if (!seated) leaveButton.textContent = 'Stop watching';
    else resetLeave();
    const vsBot = Boolean(seatInfo('X')?.bot || seatInfo('O')?.bot);
    shareEl.hidden = !(seated && table.status === 'waiting' && !vsBot && !isPass());
    const free = !seatInfo('X') || !seatInfo('O');
    takeSeatButton.hidden = !(!seated && table.status === 'waiting' && free && !vsBot && !isPass());
    chatPanel.hidden = isPass();
    nextEl.hidden = !(seated && vsBot);
    if (table.status !== 'in_progress') resetNewGame();
    document.body.classList.toggle('is-spectator', !seated);
    keysHelp.textContent = seated
      ? 'Keyboard: arrow keys and Enter, or 1–9 (1 = top left).'
      : 'You are watching this table.';
  }

  /** What a screen reader hears about the change from `prev` to `table`. */
  /** @param {string} line the status line now */
  function announcement(line) {
    const table = current();
    const parts = [];
    if (prev && prev.round === table.round && table.moves.length > prev.moves.length) {
      let player = table.first;
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

  /**
   * Who left between state `before` and `t`, if a seat was given up and
   * the table now waits for a new player.
   * @param {TableState | null} before
   * @param {TableState} t
   * @returns {import('./status.js').Departure | null}
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
        name: was.name,
        seat,
        won,
        winnerName: won ? bySeat(t.players, won)?.name ?? won : null,
        first: before.first,
        moves: before.moves,
        gameId: before.game_id,
      };
    }
    return null;
  }

  /** @param {import('./protocol.js').ServerMsgTable} msg */
  function onTable({ table: t }) {
    if (t.id !== tableId || gone) return;
    if (chatCount === 0 && !table) {
      // The protocol keeps no chat: after a reload (or coming back to a
      // table where things happened) say so, rather than "No messages yet".
      if (t.moves.length > 0 || t.round > 1 || t.status === 'round_over') {
        replace(chatLog, h('li.empty', {}, 'Earlier messages are not kept: only those sent while this page is open show here.'));
      }
    }
    const left = departed(table, t);
    if (left) departure = left;
    else if (t.status !== 'waiting') departure = null;
    prev = table;
    table = t;
    settleMove(t);
    receivedAt = Date.now();
    if (mySeats(t).length) role = 'player';
    const jump = !prev || prev.round !== t.round;
    renderPlayers();
    renderBoard(!jump || t.moves.length <= 1);
    renderMoves();
    renderControls();
    const line = renderStatus();
    const said = announcement(line);
    if (said) announce(said);
    lastStatus = line;
  }

  /** @param {ServerMsgChat} msg */
  function onChat(msg) {
    if (msg.table_id !== tableId) return;
    if (chatCount === 0) chatLog.replaceChildren();
    chatCount += 1;
    chatLog.append(
      h(`li.chat-msg${msg.from_id === conn.playerId ? '.is-mine' : ''}`, {},
        h('span.chat-from', {}, msg.from_name),
        h('span.chat-text', {}, msg.text),
      ),
    );
    while (chatLog.children.length > MAX_CHAT) chatLog.firstChild?.remove();
    chatLog.scrollTop = chatLog.scrollHeight;
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
  cleanups.push(conn.on('chat', onChat));
  cleanups.push(conn.on('welcome', attach));
  cleanups.push(conn.on('status', (status) => {
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
  attach();

  return () => {
    for (const fn of cleanups) fn();
    for (const t of timers) clearInterval(t);
    document.body.classList.remove('is-spectator');
    if (role === 'spectator' && conn.status === 'online') {
      conn.request({ type: 'leave_table', table_id: tableId }).catch(() => {});
    }
  };
}
