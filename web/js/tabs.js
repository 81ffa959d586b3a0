// @ts-check
// This browser's other tabs: what one tab does that the others must hear
// of at once.
//
// Leaving a table gives up the player's seat for all of their connections.
// The server sends the table's last state to those at the table, but a tab
// elsewhere (the home page's "Your games") hears nothing, and a tab that
// is offline for a moment would miss it. So the tab that left tells this
// browser's other tabs (a BroadcastChannel: same origin, same browser,
// never the tab itself), which hold the same token, and they stop showing
// the table as the player's.
//
// It knows nothing of pages or seats: it carries table ids.

import { Emitter } from './emitter.js';

/** Absent where the browser has no BroadcastChannel: each tab for itself. */
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('oxo-tabs') : null;

/** @type {Emitter<{ left: string }>} */
const events = new Emitter();

channel?.addEventListener('message', (ev) => {
  const left = ev.data?.left;
  if (typeof left === 'string') events.emit('left', left);
});

/**
 * Tells this browser's other tabs that the player left table `tableId`
 * (the server said `ok`): they no longer hold a seat there.
 * @param {string} tableId
 */
export function tellLeft(tableId) {
  channel?.postMessage({ left: tableId });
}

/**
 * Calls `fn(tableId)` when another tab of this browser says the player left
 * that table; returns a function that stops.
 * @param {(tableId: string) => void} fn
 */
export function onLeftElsewhere(fn) {
  return events.on('left', fn);
}
