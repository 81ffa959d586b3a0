// @ts-check
// The WebSocket connection to the server: one per page, reconnecting by
// itself.
//
// - `hello` goes first on every (re)connection, with the stored token, so the
//   server gives us back the same player and re-attaches us to our tables.
// - `request(msg)` adds a request id and returns a promise that resolves with
//   the server's `ok` (or `welcome`) and rejects with a `ServerError` for an
//   `error` reply. Requests made before the first `welcome` wait for it;
//   `offline`, only those safe to repeat wait, and the others are refused
//   at once (code `offline`): queued, they would act much later, unseen.
//   Requests still unanswered when the socket drops are sent again, with the
//   same id, after the next `welcome`: the server never applies a retried
//   move twice. A request refused `table_moving` (in a cluster, its table
//   is changing node; nothing was applied) is sent again every half second
//   until it is answered otherwise or times out.
// - A dead network may never close the socket: when the browser goes
//   offline (`drop()`, from main.js), or a ping or a request gets no
//   answer in time, the socket is given up at once (status `offline`) and
//   a new one is tried with backoff; none while the browser says it is
//   offline (its `online` event `nudge()`s).
// - Events (`table`, `chat`, `chat_history`, `lobby`, `closing`) and
//   connection changes (`status`, `welcome`) reach listeners registered
//   with `on(type, fn)`.
//
// Request ids start from the clock (milliseconds × 1000) so that ids stay
// unique across reloads of the page, not just within one connection.

import * as store from './store.js';
import { Emitter } from './emitter.js';
import { PROTOCOL_VERSION } from './limits.js';

/** @typedef {import('./protocol.js').Request} Request */
/** @typedef {import('./protocol.js').RequestHello} RequestHello */
/** @typedef {import('./protocol.js').ServerMsg} ServerMsg */
/** @typedef {import('./protocol.js').ServerMsgWelcome} ServerMsgWelcome */
/** @typedef {import('./protocol.js').ServerMsgOk} ServerMsgOk */
/** @typedef {import('./protocol.js').ServerMsgPong} ServerMsgPong */
/** @typedef {import('./protocol.js').ServerMsgError} ServerMsgError */

/**
 * A request as the pages make it: any client message but `hello` (which
 * the connection sends itself), without the `id` the connection adds.
 * @typedef {Request extends infer R ? R extends { type: 'hello' } ? never : Omit<R, 'id'> : never} ClientMsg
 */

/** @typedef {'connecting' | 'online' | 'offline'} Status */

/**
 * What a `Connection` emits: its status, the `welcome` of each connection,
 * the server's events, refusals that no request waits for, and the
 * refusal of a name chosen while connecting (`name_refused`).
 * @typedef {{
 *   status: Status,
 *   welcome: ServerMsgWelcome,
 *   table: import('./protocol.js').ServerMsgTable,
 *   chat: import('./protocol.js').ServerMsgChat,
 *   chat_history: import('./protocol.js').ServerMsgChatHistory,
 *   lobby: import('./protocol.js').ServerMsgLobby,
 *   closing: import('./protocol.js').ServerMsgClosing,
 *   error: ServerMsgError,
 *   name_refused: ServerError,
 * }} ConnectionEvents
 */

/**
 * A request waiting for its reply.
 * @typedef {object} Pending
 * @property {ClientMsg} msg
 * @property {(reply: ServerMsgOk | ServerMsgPong) => void} resolve
 * @property {(err: ServerError) => void} reject
 * @property {ReturnType<typeof setTimeout>} timer
 * @property {boolean} sent whether it went out on a socket
 * @property {WebSocket | null} socket the socket it last went out on
 */

const REQUEST_TIMEOUT_MS = 20000;
const PING_EVERY_MS = 20000;
const PONG_WITHIN_MS = 10000;
// The waits before trying to reconnect, doubling up to 2 s: well within
// the 5 s a player to move keeps after a server restarts
// (docs/protocol.md), so a restart does not lose a clocked game.
const BACKOFF_MS = [250, 500, 1000, 2000];
// A request refused `table_moving` (a cluster's table changing node) goes
// again this much later.
const MOVING_RETRY_MS = 500;

// Requests that are safe to send again after a reconnect when their reply was
// lost: moves carry their id and the server never applies one twice; the
// others change nothing when repeated. The rest (create_table, chat, forfeit,
// rematch, leave_table) fail instead: `disconnected` if sent, else `offline`.
const RETRY_SAFE = new Set(['move', 'join_table', 'watch_table', 'sync', 'watch_lobby', 'unwatch_lobby', 'ping', 'set_name']);

/** Why a request that cannot wait is refused offline. */
/**
 * The pause before reconnect attempt `attempt` (0 first): its wait from
 * BACKOFF_MS, spread over the wait's second half so that the pages of a
 * restarted server do not all come back in the same instant.
 * @param {number} attempt
 * @param {() => number} [random] a number in [0, 1)
 * @returns {number} milliseconds
 */
export function reconnectDelay(attempt, random = Math.random) {
  const wait = BACKOFF_MS[Math.min(attempt, BACKOFF_MS.length - 1)];
  return Math.round(wait / 2 + (wait / 2) * random());
}

export const OFFLINE_MESSAGE = 'You are offline. Try again once you are connected.';

/** An `error` reply from the server (or a local failure with a similar shape). */
export class ServerError extends Error {
  /**
   * @param {string} code the server's `ErrorCode`, or `disconnected`, `timeout` or `offline`
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.name = 'ServerError';
    this.code = code;
  }
}

/**
 * The page's connection to the server (see the top of this file).
 * @extends {Emitter<ConnectionEvents>}
 */
export class Connection extends Emitter {
  constructor() {
    super();
    /** @type {Status} */
    this.status = 'connecting';
    /** @type {string | null} */
    this.playerId = null;
    /** @type {string | null} */
    this.name = null;
    /** @type {ServerMsgWelcome | null} */
    this.welcome = null;
    /** @type {WebSocket | null} */
    this.ws = null;
    /** @type {Map<number, Pending>} request id -> its request */
    this.pending = new Map();
    /** @type {number[]} requests made before `welcome`: ids, in order */
    this.waiting = [];
    this.nextId = Date.now() * 1000;
    this.attempt = 0;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.pingTimer = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.pongTimer = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.reconnectTimer = undefined;
    /** @type {number | null} the id of the `hello` awaiting its `welcome` */
    this.helloId = null;
    /** @type {string | null} the name the last `hello` carried */
    this.helloName = null;
    this.stopped = false;
    /** when the current socket last said anything (ms since the epoch) */
    this.lastHeard = 0;
  }

  /** @param {Status} status */
  setStatus(status) {
    if (this.status === status) return;
    this.status = status;
    this.emit('status', status);
  }

  start() {
    this.stopped = false;
    this.connect();
  }

  url() {
    const scheme = window.location.protocol === 'https:' ? 'wss' : 'ws';
    return `${scheme}://${window.location.host}/ws`;
  }

  connect() {
    clearTimeout(this.reconnectTimer);
    if (this.stopped) return;
    // The browser knows it has no network: trying would only fail (and log
    // an error). Check again later; the `online` event nudges us sooner.
    if (navigator.onLine === false) {
      this.setStatus('offline');
      this.scheduleReconnect();
      return;
    }
    let ws;
    try {
      ws = new WebSocket(this.url());
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.addEventListener('open', () => this.sendHello(ws));
    ws.addEventListener('message', (ev) => this.onMessage(ws, ev));
    ws.addEventListener('close', () => this.onClose(ws));
    // An `error` event is always followed by `close`; nothing to do here.
    ws.addEventListener('error', () => {});
  }

  /** @param {WebSocket} ws */
  sendHello(ws) {
    this.helloId = this.nextId++;
    /** @type {RequestHello} */
    const hello = { type: 'hello', id: this.helloId, version: PROTOCOL_VERSION };
    const token = store.token();
    if (token) hello.token = token;
    const name = store.name();
    if (name) hello.name = name;
    this.helloName = name ?? null;
    ws.send(JSON.stringify(hello));
  }

  /**
   * @param {WebSocket} ws
   * @param {MessageEvent} ev
   */
  onMessage(ws, ev) {
    if (ws !== this.ws) return;
    this.lastHeard = Date.now();
    /** @type {ServerMsg} */
    let msg;
    try {
      msg = JSON.parse(ev.data);
    } catch {
      return;
    }
    switch (msg.type) {
      case 'welcome':
        this.onWelcome(msg);
        break;
      case 'ok':
      case 'pong':
        if (msg.type === 'pong') clearTimeout(this.pongTimer);
        this.settle(msg.id, (p) => p.resolve(msg));
        break;
      case 'error':
        if (this.helloId !== null && (msg.id === this.helloId || msg.id === undefined)) {
          this.onHelloRefused(ws, msg);
        } else if (msg.code === 'table_moving' && typeof msg.id === 'number' && this.pending.has(msg.id)) {
          // In a cluster, the table is changing node and nothing was
          // applied: the same request goes again in a moment (until its
          // timeout).
          this.sendAgainSoon(msg.id);
        } else {
          this.settle(msg.id, (p) => p.reject(new ServerError(msg.code, msg.message)));
          if (msg.id === undefined) this.emit('error', msg);
        }
        break;
      case 'closing':
      case 'table':
      case 'chat':
      case 'chat_history':
      case 'lobby':
        // Events: each reaches the listeners of its type.
        this.emit(msg.type, msg);
        break;
      default:
        // A message this client does not know: nothing listens for it.
    }
  }

  /** @param {ServerMsgWelcome} msg */
  onWelcome(msg) {
    this.attempt = 0;
    this.helloId = null;
    store.setToken(msg.token);
    // A name chosen while the hello was on its way wins over the one the
    // welcome carries: it is sent once the connection is up.
    const chosen = store.name();
    const renamed = chosen !== null && chosen !== this.helloName ? chosen : null;
    if (renamed === null) store.setName(msg.name);
    this.playerId = msg.player_id;
    this.name = renamed ?? msg.name;
    this.welcome = msg;
    this.setStatus('online');
    this.startPing();
    // Requests left unanswered by the last socket, then those made since;
    // before the listeners run, so that what they send goes out once.
    const again = [...this.pending].filter(([, p]) => p.sent).map(([id]) => id);
    const waiting = this.waiting;
    this.waiting = [];
    for (const id of [...again, ...waiting]) {
      const p = this.pending.get(id);
      if (p) {
        p.sent = true;
        p.socket = this.ws;
        this.transmit(id, p.msg);
      }
    }
    if (renamed !== null) {
      this.request({ type: 'set_name', name: renamed }).catch((err) => {
        // Refused (a name nobody may take): the welcome's name stands, and
        // the page says why.
        if (!(err instanceof ServerError) || err.code !== 'invalid_name') return;
        store.setName(msg.name);
        this.name = msg.name;
        this.emit('name_refused', err);
      });
    }
    this.emit('welcome', msg);
  }

  /**
   * @param {WebSocket} ws
   * @param {ServerMsgError} msg
   */
  onHelloRefused(ws, msg) {
    this.helloId = null;
    if (msg.code === 'invalid_token') {
      // The server forgot us (e.g. a new database): start afresh.
      store.setToken(null);
    } else if (msg.code === 'invalid_name') {
      store.setName(null);
    } else {
      this.emit('error', msg);
    }
    ws.close();
  }

  /**
   * Gives up on the current socket at once, as if it had closed: the
   * browser went offline, or a ping or a request got no answer. A dead
   * network may never deliver the socket's `close` event, so nobody waits
   * for it; the socket is closed for good measure, and what it still says
   * is ignored.
   */
  drop() {
    const ws = this.ws;
    if (!ws) {
      if (this.status !== 'online') return;
      this.setStatus('offline');
      this.scheduleReconnect();
      return;
    }
    this.onClose(ws);
    try {
      ws.close();
    } catch {
      // Closing a dead socket may throw in some browsers: it is gone anyway.
    }
  }

  /** @param {WebSocket} ws */
  onClose(ws) {
    if (ws !== this.ws) return;
    this.ws = null;
    this.helloId = null;
    this.stopPing();
    for (const [id, p] of this.pending) {
      if (RETRY_SAFE.has(p.msg.type)) continue;
      this.waiting = this.waiting.filter((w) => w !== id);
      const err = p.sent
        ? new ServerError('disconnected', 'The connection was lost; please try again.')
        : new ServerError('offline', OFFLINE_MESSAGE);
      this.settle(id, (q) => q.reject(err));
    }
    this.setStatus('offline');
    this.scheduleReconnect();
  }

  scheduleReconnect() {
    if (this.stopped) return;
    const delay = reconnectDelay(this.attempt);
    this.attempt += 1;
    clearTimeout(this.reconnectTimer);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  /** Reconnects now (e.g. when the browser says it is back online). */
  nudge() {
    if (this.status === 'online' || this.stopped) return;
    // A socket on its way (opening, or its `hello` out) is left to finish.
    if (this.ws) return;
    this.attempt = 0;
    this.connect();
  }

  startPing() {
    this.stopPing();
    this.pingTimer = setInterval(() => {
      if (this.status !== 'online') return;
      const ws = this.ws;
      this.request({ type: 'ping' }).catch(() => {});
      clearTimeout(this.pongTimer);
      this.pongTimer = setTimeout(() => {
        // No answer: the connection is dead even if the socket does not
        // know (its `close` may not come for minutes): offline now.
        if (ws === this.ws && ws) this.drop();
      }, PONG_WITHIN_MS);
    }, PING_EVERY_MS);
  }

  stopPing() {
    clearInterval(this.pingTimer);
    clearTimeout(this.pongTimer);
  }

  /**
   * @param {number} id
   * @param {ClientMsg} msg
   */
  transmit(id, msg) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(JSON.stringify({ ...msg, id }));
  }

  /**
   * Sends request `id` again after a moment, if it still waits and the
   * connection is up (after a reconnect, `onWelcome` sends it anyway).
   * @param {number} id
   */
  sendAgainSoon(id) {
    setTimeout(() => {
      const p = this.pending.get(id);
      if (p && this.status === 'online') this.transmit(id, p.msg);
    }, MOVING_RETRY_MS);
  }

  /**
   * Ends the wait of request `id`, if it is pending, with `fn`.
   * @param {number | null | undefined} id
   * @param {(p: Pending) => void} fn
   */
  settle(id, fn) {
    if (id === undefined || id === null) return;
    const p = this.pending.get(id);
    if (!p) return;
    this.pending.delete(id);
    clearTimeout(p.timer);
    fn(p);
  }

  /**
   * Sends a request and resolves with its `ok` reply; rejects with a
   * `ServerError` for an `error` reply (or code `timeout` when none came).
   * @param {ClientMsg} msg
   * @returns {Promise<ServerMsgOk | ServerMsgPong>}
   */
  request(msg) {
    if (this.status === 'offline' && !RETRY_SAFE.has(msg.type)) {
      return Promise.reject(new ServerError('offline', OFFLINE_MESSAGE));
    }
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const p = this.pending.get(id);
        this.pending.delete(id);
        this.waiting = this.waiting.filter((w) => w !== id);
        reject(new ServerError('timeout', 'The server did not answer. Check your connection.'));
        // The server answers every request at once: a request sent on this
        // socket, left unanswered, and nothing else heard from it for a
        // while, means the socket is dead.
        if (p?.sent && p.socket === this.ws && Date.now() - this.lastHeard > PONG_WITHIN_MS) this.drop();
      }, REQUEST_TIMEOUT_MS);
      /** @type {Pending} */
      const p = { msg, resolve, reject, timer, sent: false, socket: null };
      this.pending.set(id, p);
      if (this.status === 'online') {
        p.sent = true;
        p.socket = this.ws;
        this.transmit(id, msg);
      } else {
        this.waiting.push(id);
      }
    });
  }

  /**
   * Creates a table with `options`; resolves with its id (rejects as
   * `request` does).
   * @param {import('./protocol.js').TableOptions} options
   * @returns {Promise<string>}
   */
  async createTable(options) {
    const ok = await this.request({ type: 'create_table', options });
    return (ok.type === 'ok' && ok.table_id) || '';
  }
}

/** The page's one connection. */
export const conn = new Connection();
