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
// It owns its elements and the messages it shows, and nothing else: the
// page gives it the function that sends a message, and the one that tells
// who watches. Whether the panel shows at all (not in pass and play) is the
// page's call.

import { conn } from './net.js';
import { h, replace, toast } from './dom.js';
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
  const log = h('ol.chatlog', { id: 'chatlog', 'aria-live': 'polite', 'aria-label': 'Chat messages' }, empty());
  // Said under the box when a message is not sent (a blank one).
  const hint = h('p.chat-hint', { id: 'chat-hint', hidden: true, role: 'status' });
  const input = /** @type {HTMLInputElement} */ (h('input.chat-input', {
    type: 'text',
    maxlength: MAX_CHAT_CHARS,
    placeholder: 'Say something nice',
    'aria-label': 'Chat message',
    autocomplete: 'off',
  }));
  input.addEventListener('input', () => { hint.hidden = true; });
  const form = h('form.chat-form', { onsubmit: submit },
    input,
    h('button.btn.btn-secondary.btn-small', { type: 'submit' }, 'Send'),
  );
  const el = h('section.panel.chat', { 'aria-labelledby': 'h-chat' },
    h('h2', { id: 'h-chat' }, 'Chat'),
    log,
    form,
    hint,
  );

  /** @param {SubmitEvent} ev */
  async function submit(ev) {
    ev.preventDefault();
    const text = input.value.trim();
    if (!text) {
      input.value = '';
      hint.textContent = 'Empty messages are not sent.';
      hint.hidden = false;
      return;
    }
    hint.hidden = true;
    try {
      await send(text);
      input.value = '';
    } catch (err) {
      toast(err.message);
    }
  }

  /**
   * Shows a message said at this table (a `chat` event's, or a line of the
   * history).
   * @param {ChatLine} msg
   */
  function add(msg) {
    if (shown.length === 0) log.replaceChildren();
    shown.push({ from_id: msg.from_id, from_name: msg.from_name, text: msg.text });
    log.append(
      h(`li.chat-msg${msg.from_id === conn.playerId ? '.is-mine' : ''}`, {},
        h('span.chat-from', {},
          msg.from_name,
          msg.watching ? [' ', h('span.chat-badge', {}, 'watching')] : null,
        ),
        h('span.chat-text', {}, msg.text),
      ),
    );
    while (shown.length > MAX_CHAT) {
      shown.shift();
      log.firstChild?.remove();
    }
    log.scrollTop = log.scrollHeight;
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
  }

  return { el, add, history };
}
