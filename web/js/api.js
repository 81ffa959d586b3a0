// @ts-check
// The server's HTTP API (`/api/...`): small JSON GETs.
//
// Requests about games carry the session token in an `Authorization: Bearer`
// header (never in the URL), so that the server shows this player their own
// games at private tables (pass and play, friends' tables) as well.

import * as store from './store.js';

/** @typedef {import('./protocol.js').GameRecord} GameRecord */
/** @typedef {import('./protocol.js').GameSummary} GameSummary */
/** @typedef {import('./protocol.js').LobbyTable} LobbyTable */
/** @typedef {import('./protocol.js').AnalyzeResponse} AnalyzeResponse */
/** @typedef {import('./protocol.js').GameExplanation} GameExplanation */
/** @typedef {import('./protocol.js').Player} Player */

/** A refused or failed request: the HTTP status and the server's message. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} message
   */
  constructor(status, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

/** What the server's session tokens look like: 64 hex digits. */
const TOKEN_SHAPE = /^[0-9a-f]{64}$/i;

/**
 * GETs `path` and resolves with its JSON body, whose type each caller
 * names (the API types of protocol.js).
 * @param {string} path
 * @param {{ auth?: boolean }} [options] `auth`: send the session token
 * @returns {Promise<any>}
 */
async function get(path, { auth = false } = {}) {
  /** @type {Record<string, string>} */
  const headers = { accept: 'application/json' };
  const token = auth ? store.token() : null;
  if (token && TOKEN_SHAPE.test(token)) headers.authorization = `Bearer ${token}`;
  let res = await fetch(path, { headers });
  if (res.status === 401 && headers.authorization) {
    // A token this server does not know (its database was reset, say): the
    // WebSocket will replace it; meanwhile ask as nobody in particular.
    delete headers.authorization;
    res = await fetch(path, { headers });
  }
  if (!res.ok) {
    let message = `${res.status} ${res.statusText}`;
    try {
      const body = await res.json();
      if (body && body.error) message = body.error;
    } catch {
      // Not JSON: keep the status line.
    }
    throw new ApiError(res.status, message);
  }
  return res.json();
}

/**
 * `GameRecord` of one game.
 * @param {string} id
 * @returns {Promise<GameRecord>}
 */
export function game(id) {
  return get(`/api/games/${encodeURIComponent(id)}`, { auth: true });
}

/**
 * Recent finished games (`GameSummary[]`), newest first: those of public
 * tables, and this player's own.
 * @param {{ player?: string, limit?: number }} [options]
 * @returns {Promise<GameSummary[]>}
 */
export function recentGames({ player, limit = 10 } = {}) {
  const q = new URLSearchParams({ limit: String(limit) });
  if (player) q.set('player', player);
  return get(`/api/games?${q}`, { auth: true });
}

/**
 * The public tables (`LobbyTable[]`).
 * @returns {Promise<LobbyTable[]>}
 */
export function tables() {
  return get('/api/tables');
}

/** @type {Map<string, Promise<AnalyzeResponse>>} */
const analyses = new Map();

/**
 * The solver's view of a position (`AnalyzeResponse`): `board` in position
 * notation, `turn` "X" or "O". Cached: positions never change value.
 * @param {string} board
 * @param {Player} turn
 * @returns {Promise<AnalyzeResponse>}
 */
export function analyze(board, turn) {
  const position = `${board} ${turn.toLowerCase()}`;
  if (!analyses.has(position)) {
    const pending = get(`/api/analyze?position=${encodeURIComponent(position)}`);
    pending.catch(() => analyses.delete(position));
    analyses.set(position, pending);
  }
  return /** @type {Promise<AnalyzeResponse>} */ (analyses.get(position));
}

/** @type {Map<string, Promise<GameExplanation>>} */
const gameAnalyses = new Map();

/**
 * The solver's verdict on every move of a game (`GameExplanation`), in one
 * request for the whole game: `first` "X" or "O", `moves` a list of cells.
 * Cached like `analyze`: a line of moves never changes value.
 * @param {Player} first
 * @param {string[]} moves
 * @returns {Promise<GameExplanation>}
 */
export function analyzeGame(first, moves) {
  // Cells are a1..c3: nothing to escape, and the commas stay readable in logs.
  const query = `first=${encodeURIComponent(first)}&moves=${moves.map(encodeURIComponent).join(',')}`;
  if (!gameAnalyses.has(query)) {
    const pending = get(`/api/analyze/game?${query}`);
    pending.catch(() => gameAnalyses.delete(query));
    gameAnalyses.set(query, pending);
  }
  return /** @type {Promise<GameExplanation>} */ (gameAnalyses.get(query));
}
