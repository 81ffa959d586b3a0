// @ts-check
// The game page's chat panel: the messages said at this table while the
// page is open, and the box to say one.
//
// It owns its elements and its count of messages, and nothing else: the
// page hands it its table's `chat` events (`add`) and its first table state
// (`firstState`), and gives it the function that sends a message. Whether
// the panel shows at all (not in pass and play) is the page's call.

import { conn } from './net.js';
import { h, replace, toast } from './dom.js';
import { MAX_CHAT_CHARS } from './limits.js';

/** @typedef {import('./protocol.js').TableState} TableState */
/** @typedef {import('./protocol.js').ServerMsgChat} ServerMsgChat */

/** Chat messages kept on screen; older ones scroll away for good. */
const MAX_CHAT = 100;

/**
 * Builds the chat panel (`el`). `send(text)` sends a message to the table
 * and settles once the server has answered.
 * @param {{ send: (text: string) => Promise<unknown> }} options
 */
export function chatPanel({ send }) {
  let count = 0;

  const log = h('ol.chatlog', { id: 'chatlog', 'aria-live': 'polite', 'aria-label': 'Chat messages' },
    h('li.empty', {}, 'No messages yet.'));
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
   * The first state of the table since the page opened. The protocol
   * keeps no chat: after a reload (or coming back to a table where things
   * happened) say so, rather than "No messages yet".
   * @param {TableState} t
   */
  function firstState(t) {
    if (count > 0) return;
    if (t.moves.length > 0 || t.round > 1 || t.status === 'round_over') {
      replace(log, h('li.empty', {}, 'Earlier messages are not kept: only those sent while this page is open show here.'));
    }
  }

  /**
   * Shows a message said at this table.
   * @param {ServerMsgChat} msg
   */
  function add(msg) {
    if (count === 0) log.replaceChildren();
    count += 1;
    log.append(
      h(`li.chat-msg${msg.from_id === conn.playerId ? '.is-mine' : ''}`, {},
        h('span.chat-from', {}, msg.from_name),
        h('span.chat-text', {}, msg.text),
      ),
    );
    while (log.children.length > MAX_CHAT) log.firstChild?.remove();
    log.scrollTop = log.scrollHeight;
  }

  return { el, add, firstState };
}
