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

const gameAnalyses = new Map();

/**
 * The solver's verdict on every move of a game (`GameExplanation`), in one
 * request for the whole game: `first` "X" or "O", `moves` a list of cells.
 * Cached like `analyze`: a line of moves never changes value.
 */
export function analyzeGame(first, moves) {
  // Cells are a1..c3: nothing to escape, and the commas stay readable in logs.
  const query = `first=${encodeURIComponent(first)}&moves=${moves.map(encodeURIComponent).join(',')}`;
  if (!gameAnalyses.has(query)) {
    const pending = get(`/api/analyze/game?${query}`);
    pending.catch(() => gameAnalyses.delete(query));
    gameAnalyses.set(query, pending);
  }
  return gameAnalyses.get(query);
}
