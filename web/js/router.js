// @ts-check
// Client-side navigation between the three pages (home, game, replay)
// without reloading, so the one WebSocket connection stays up. The server
// serves index.html at every page's path, so a reload or a shared link lands
// on the same page.

import { Emitter } from './emitter.js';

/** @type {Emitter<{ navigate: undefined }>} */
const events = new Emitter();

/**
 * Calls `fn()` after every navigation (including the back button).
 * @param {() => void} fn
 */
export function onNavigate(fn) {
  return events.on('navigate', fn);
}

function notify() {
  events.emit('navigate', undefined);
}

/**
 * Goes to `path` ("/t/abc", "/games/xyz?ply=3").
 * @param {string} path
 * @param {{ replace?: boolean }} [options] `replace`: no new history entry
 */
export function navigate(path, { replace = false } = {}) {
  if (replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  notify();
}

window.addEventListener('popstate', notify);

/**
 * Marks the page shown now, a table's, as one the player left (a seat given
 * up, or watching stopped): coming back to it through the browser's history
 * (Back, Forward) shows the table to watch. Opening a table's page seats us
 * at a free seat (the friend link), and a Back after Leave is not a wish to
 * play there again: the page offers "Take the seat" for that.
 */
export function markLeft() {
  const state = window.history.state;
  window.history.replaceState({ ...(state && typeof state === 'object' ? state : {}), left: true }, '');
}

/** Whether the page shown now is one the player left (see `markLeft`). */
function leftHere() {
  const state = window.history.state;
  return Boolean(state && typeof state === 'object' && state.left === true);
}

// Same-origin links marked `data-link` navigate in place.
document.addEventListener('click', (ev) => {
  if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  const a = ev.target instanceof Element ? ev.target.closest('a[data-link]') : null;
  if (!(a instanceof HTMLAnchorElement)) return;
  if (a.target || a.origin !== window.location.origin) return;
  ev.preventDefault();
  navigate(a.pathname + a.search + a.hash);
});

/**
 * The page for a location, with what it shows.
 * @typedef {{ page: 'home' } | { page: 'missing' }
 *   | { page: 'game', tableId: string, watch: boolean }
 *   | { page: 'replay', gameId: string, ply: number | null }} Route
 */

/**
 * The page for the current location: { page, ...params }.
 * @returns {Route}
 */
export function currentRoute() {
  const path = window.location.pathname;
  const params = new URLSearchParams(window.location.search);
  let m = path.match(/^\/t\/([^/]+)\/?$/);
  let id = m ? decoded(m[1]) : null;
  if (id !== null) return { page: 'game', tableId: id, watch: params.has('watch') || leftHere() };
  m = path.match(/^\/games\/([^/]+)\/?$/);
  id = m ? decoded(m[1]) : null;
  if (id !== null) {
    // A move number is a whole number ("-3" and "99" are taken to the
    // nearest end); anything else ("2.5", "abc", a cut "?ply=") is no move,
    // and the replay opens at its end.
    const raw = params.get('ply') ?? '';
    const ply = /^-?\d+$/.test(raw) ? Number(raw) : null;
    return { page: 'replay', gameId: id, ply };
  }
  if (path === '/' || path === '/index.html') return { page: 'home' };
  return { page: 'missing' };
}

/**
 * A part of the path with its escapes decoded; null if they are broken
 * ("%E0%A4%A", "%ZZ": a link cut short or mistyped), for which there is
 * no page.
 * @param {string} part
 * @returns {string | null}
 */
function decoded(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}
