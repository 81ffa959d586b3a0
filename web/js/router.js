// Client-side navigation between the three pages (home, game, replay)
// without reloading, so the one WebSocket connection stays up. The server
// serves index.html at every page's path, so a reload or a shared link lands
// on the same page.

const listeners = new Set();

/** Calls `fn()` after every navigation (including the back button). */
export function onNavigate(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

function notify() {
  for (const fn of listeners) fn();
}

/** Goes to `path` ("/t/abc", "/games/xyz?ply=3"). */
export function navigate(path, { replace = false } = {}) {
  if (replace) window.history.replaceState(null, '', path);
  else window.history.pushState(null, '', path);
  notify();
}

window.addEventListener('popstate', notify);

// Same-origin links marked `data-link` navigate in place.
document.addEventListener('click', (ev) => {
  if (ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey || ev.altKey) return;
  const a = ev.target instanceof Element ? ev.target.closest('a[data-link]') : null;
  if (!a || a.target || a.origin !== window.location.origin) return;
  ev.preventDefault();
  navigate(a.pathname + a.search + a.hash);
});

/** The page for the current location: { page, ...params }. */
export function currentRoute() {
  const path = window.location.pathname;
  const params = new URLSearchParams(window.location.search);
  let m = path.match(/^\/t\/([^/]+)\/?$/);
  if (m) return { page: 'game', tableId: decodeURIComponent(m[1]), watch: params.has('watch') };
  m = path.match(/^\/games\/([^/]+)\/?$/);
  if (m) {
    const ply = params.has('ply') ? Number(params.get('ply')) : null;
    return { page: 'replay', gameId: decodeURIComponent(m[1]), ply: Number.isFinite(ply) ? ply : null };
  }
  if (path === '/' || path === '/index.html') return { page: 'home' };
  return { page: 'missing' };
}
