// The server's HTTP API (`/api/...`): small JSON GETs.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

async function get(path) {
  const res = await fetch(path, { headers: { accept: 'application/json' } });
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

/** `GameRecord` of one game. */
export function game(id) {
  return get(`/api/games/${encodeURIComponent(id)}`);
}

/** Recent finished games (`GameSummary[]`), newest first. */
export function recentGames({ player, limit = 10 } = {}) {
  const q = new URLSearchParams({ limit: String(limit) });
  if (player) q.set('player', player);
  return get(`/api/games?${q}`);
}

/** The public tables (`LobbyTable[]`). */
export function tables() {
  return get('/api/tables');
}

const analyses = new Map();

/**
 * The solver's view of a position (`AnalyzeResponse`): `board` in position
 * notation, `turn` "X" or "O". Cached: positions never change value.
 */
export function analyze(board, turn) {
  const position = `${board} ${turn.toLowerCase()}`;
  if (!analyses.has(position)) {
    const pending = get(`/api/analyze?position=${encodeURIComponent(position)}`);
    pending.catch(() => analyses.delete(position));
    analyses.set(position, pending);
  }
  return analyses.get(position);
}
