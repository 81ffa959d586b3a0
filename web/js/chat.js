// @ts-check
// The game page's chat panel: what was said at this table, and the box to
// say one.
//
// The server keeps a table's latest messages (`chat_history`): the page
// asks for them whenever it (re)attaches to the table, on opening, after a
// reload and after a reconnect, and hands them over (`history`); live
// `chat` events (`add`) follow them. Only what is not shown yet is added,
// so after a reconnect nothing shows twice or is read out again, and what
// was shown stays when the server forgot it (a restart).
//
// A line from someone who held no seat when they wrote it (a spectator) is
// marked "watching", so that the players can tell who plays and who looks
// on: the server says so with the line (`watching`), so that a line keeps
// its mark, or its lack of one, whatever the seats are later.
//
// A line we send shows at once at the end of the log, dimmed and marked
// "sending…", and the box empties, so that another Enter cannot send it
// again; the server's `chat` event for it takes its place among the lines
// said (in the server's order), and a refusal stays on the line, in the
// server's words ("Not sent: …"). A line whose answer was lost with the
// connection waits for the history that follows the reconnect: said if
// the server has it, else not sent. Offline the box takes nothing and says
// why: a line queued there would arrive much later, or many times.
//
// It owns its elements and the messages it shows, and nothing else: the
// page gives it the function that sends a message, and tells it when the
// connection comes and goes (`setStatus`). Whether the panel shows at all
// (not in pass and play) is the page's call.

import { conn, ServerError } from './net.js';
import { h, revealIn, limitChars } from './dom.js';
import { MAX_CHAT_CHARS } from './limits.js';

/** @typedef {import('./protocol.js').ChatLine} ChatLine */

/** Chat messages kept on screen; older ones scroll away for good. */
const MAX_CHAT = 100;

/**
 * Builds the chat panel (`el`). `send(text)` sends a message to the table
 * and settles once the server has answered.
 * @param {{ send: (text: string) => Promise<unknown> }} options
 */
export function chatPanel({ send }) {
  /** @type {ChatLine[]} the messages shown, oldest first (one per item of the log) */
  let shown = [];

  const empty = () => h('li.empty', {}, 'No messages yet.');
  // A tab stop, as the move list is: the log scrolls once it is full, and
  // a browser that lets the keyboard into no scroller by itself (Safari)
  // would leave earlier lines out of reach.
  const log = h('ol.chatlog', { id: 'chatlog', 'aria-live': 'polite', 'aria-label': 'Chat messages', tabindex: '0' }, empty());
  // Said under the box when a message is not sent (a blank one).
  const hint = h('p.chat-hint', { id: 'chat-hint', hidden: true, role: 'status' });
  const input = /** @type {HTMLInputElement} */ (h('input.chat-input', {
    type: 'text',
    placeholder: 'Say something nice',
    'aria-label': 'Chat message',
    autocomplete: 'off',
  }));
  limitChars(input, MAX_CHAT_CHARS);
  input.addEventListener('input', () => { hint.hidden = true; });
  const sendButton = /** @type {HTMLButtonElement} */ (h('button.btn.btn-secondary.btn-small', { type: 'submit' }, 'Send'));
  // Offline: the box is disabled, and this says why (the box points to it).
  const offline = h('p.chat-hint.chat-offline', { id: 'chat-offline', hidden: true },
    "Offline — chat comes back when you're connected.");
  // The table closed: nobody is there to read a line any more.
  const closedNote = h('p.chat-hint.chat-closed', { id: 'chat-closed', hidden: true },
    'This table has closed: its chat is over.');
  const form = h('form.chat-form', { onsubmit: submit }, input, sendButton);
  const el = h('section.panel.chat', { 'aria-labelledby': 'h-chat' },
    h('h2', { id: 'h-chat' }, 'Chat'),
    log,
    form,
    hint,
    offline,
    closedNote,
  );

  /**
   * A line of ours on its way: its text and its item; `unsure` once its
   * answer was lost with the connection (why, should the history not have
   * it).
   * @typedef {{ text: string, li: HTMLElement, unsure?: string }} Mine
   */
  /**
   * Our lines on their way, oldest first, each with its item at the end of
   * the log (after every line said, and before lines that were refused).
   * @type {Mine[]}
   */
  const sending = [];
  /** Whether the box had the focus when it went offline. */
  let typing = false;

  /** @param {SubmitEvent} ev */
  function submit(ev) {
    ev.preventDefault();
    if (input.disabled) return;
    const text = input.value.trim();
    input.value = '';
    if (!text) {
      hint.textContent = 'Empty messages are not sent.';
      hint.hidden = false;
      return;
    }
    hint.hidden = true;
    const li = line(conn.name ?? '', text, true);
    li.classList.add('is-pending');
    const state = h('span.chat-state', {}, 'sending…');
    li.append(state);
    append(li);
    /** @type {Mine} */
    const mine = { text, li };
    sending.push(mine);
    send(text).then(() => {
      // The server's `chat` event came first and said it; without one, it
      // is said as sent.
      if (settle(mine)) said(li, { from_id: conn.playerId ?? '', from_name: conn.name ?? '', text });
    }).catch((err) => {
      // Lost with the connection: the server may have said it. The
      // history that comes after the reconnect tells (`history`).
      if (err instanceof ServerError && err.code === 'disconnected' && sending.includes(mine)) {
        mine.unsure = err.message;
        return;
      }
      if (settle(mine)) refused(mine, err.message);
    });
  }

  /**
   * Shows our line `mine` (taken off the lines on their way) as not sent,
   * for `reason`.
   * @param {Mine} mine
   * @param {string} reason
   */
  function refused({ li }, reason) {
    li.classList.remove('is-pending');
    li.classList.add('is-failed');
    const state = li.querySelector('.chat-state');
    if (state) state.textContent = `Not sent: ${reason}`;
    // The reason makes the line taller: it stays in view whole (the log
    // was scrolled to the line when it went out).
    if (li.isConnected) revealIn(log, li);
  }

  /**
   * Our lines whose answer was lost with the connection and that the
   * history did not show as said, or that no history can tell about (the
   * page could not have it): they are not sent.
   */
  function refuseUnsure() {
    for (const mine of sending.filter((m) => m.unsure !== undefined)) {
      settle(mine);
      refused(mine, mine.unsure ?? '');
    }
  }

  /**
   * Takes `mine` off the lines on their way; false if it was not there (it
   * was settled already).
   * @param {Mine} mine
   */
  function settle(mine) {
    const i = sending.indexOf(mine);
    if (i < 0) return false;
    sending.splice(i, 1);
    return true;
  }

  /**
   * A line of the log: who said it (`watching`: from a spectator) and what.
   * @param {string} from
   * @param {string} text
   * @param {boolean} mine
   * @param {boolean} [watching]
   */
  function line(from, text, mine, watching = false) {
    return h(`li.chat-msg${mine ? '.is-mine' : ''}`, {},
      sender(from, watching),
      h('span.chat-text', {}, text),
    );
  }

  /**
   * Who said a line, marked when they were watching.
   * @param {string} from
   * @param {boolean} watching
   */
  function sender(from, watching) {
    return h('span.chat-from', {}, from, watching ? [' ', h('span.chat-badge', {}, 'watching')] : null);
  }

  /** The first item of the log's tail: our lines on their way, and refused ones. */
  const tail = () => log.querySelector('li:has(> .chat-state)');

  /**
   * Puts `li` at the end of the log (a line said goes before the tail), and
   * keeps the end in view.
   * @param {HTMLElement} li
   */
  function append(li) {
    log.querySelector('li.empty')?.remove();
    log.insertBefore(li, li.querySelector('.chat-state') ? null : tail());
    log.scrollTop = log.scrollHeight;
  }

  /**
   * Shows `msg` as said, in `li` (a new item, or ours that was on its way:
   * changed where it stands, so that screen readers do not read it again,
   * and moved only if lines of ours before it are still on their way).
   * @param {HTMLElement} li
   * @param {ChatLine} msg
   */
  function said(li, msg) {
    shown.push({ from_id: msg.from_id, from_name: msg.from_name, text: msg.text });
    if (li.isConnected) {
      li.classList.remove('is-pending');
      li.querySelector('.chat-state')?.remove();
      li.querySelector('.chat-from')?.replaceWith(sender(msg.from_name, msg.watching ?? false));
      const first = tail();
      if (first && first.compareDocumentPosition(li) & Node.DOCUMENT_POSITION_FOLLOWING) log.insertBefore(li, first);
    } else {
      append(li);
    }
    // The latest `MAX_CHAT` lines said stay.
    while (shown.length > MAX_CHAT) {
      shown.shift();
      log.querySelector('li.chat-msg:not(:has(> .chat-state))')?.remove();
    }
  }

  /**
   * Shows a message said at this table (a `chat` event's, or a line of the
   * history). Ours, on its way, takes its place.
   * @param {ChatLine} msg
   */
  function add(msg) {
    const mine = msg.from_id === conn.playerId;
    const waiting = mine ? sending.find((m) => m.text === msg.text) : undefined;
    if (waiting) settle(waiting);
    said(waiting?.li ?? line(msg.from_name, msg.text, mine, msg.watching), msg);
  }

  /** Whether the connection is down (`setStatus`). */
  let isOffline = false;
  /** Whether the table has closed (`setClosed`). */
  let isClosed = false;

  /**
   * The connection's status: offline, the box takes nothing and says why.
   * @param {import('./net.js').Status} status
   */
  function setStatus(status) {
    isOffline = status === 'offline';
    showAvailable();
  }

  /**
   * The table has closed (`closed`): the box takes nothing more, for good,
   * and says why.
   * @param {boolean} closed
   */
  function setClosed(closed) {
    isClosed = closed;
    showAvailable();
  }

  /** Disables the box while it can take nothing, saying why. */
  function showAvailable() {
    const off = isOffline || isClosed;
    offline.hidden = !(isOffline && !isClosed);
    closedNote.hidden = !isClosed;
    if (off) input.setAttribute('aria-describedby', isClosed ? 'chat-closed' : 'chat-offline');
    else input.removeAttribute('aria-describedby');
    if (off === input.disabled) return;
    // Back online, the box the player was typing in has the focus again.
    const refocus = !off && typing;
    typing = off && document.activeElement === input;
    input.disabled = off;
    sendButton.disabled = off;
    if (off) hint.hidden = true;
    if (refocus) input.focus();
  }

  /**
   * The table's chat so far, oldest first, as the server keeps it (its
   * latest messages): what is not shown yet is added. The history picks up
   * where the longest tail of what is shown ends (after a reconnect, the
   * messages said meanwhile follow what is shown; once the server's window
   * has moved on, it starts inside what is shown); with nothing in common
   * it is all new, and what is shown stays above it (the server forgot
   * its history in a restart, or more was said meanwhile than it keeps).
   * @param {ChatLine[]} messages
   */
  function history(messages) {
    const same = (/** @type {ChatLine} */ a, /** @type {ChatLine} */ b) =>
      a.from_id === b.from_id && a.from_name === b.from_name && a.text === b.text;
    const tailStarts = (/** @type {number} */ n) =>
      shown.slice(shown.length - n).every((m, i) => same(m, messages[i]));
    let common = Math.min(shown.length, messages.length);
    while (common > 0 && !tailStarts(common)) common -= 1;
    for (const m of messages.slice(common)) add(m);
    refuseUnsure();
  }

  setStatus(conn.status);

  return { el, add, history, noHistory: refuseUnsure, setStatus, setClosed };
}
