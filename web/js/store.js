// @ts-check
// What the browser remembers between visits: the session token, the display
// name and a few preferences. Everything lives in localStorage under "oxo.*";
// when storage is unavailable (private mode, blocked) it falls back to memory
// so the page still works for this visit.

const PREFIX = 'oxo.';
const memory = new Map();

/**
 * @param {string} key
 * @returns {string | null}
 */
function read(key) {
  try {
    return window.localStorage.getItem(PREFIX + key);
  } catch {
    return memory.has(key) ? memory.get(key) : null;
  }
}

/**
 * @param {string} key
 * @param {string | null | undefined} value
 */
function write(key, value) {
  try {
    if (value === null || value === undefined) window.localStorage.removeItem(PREFIX + key);
    else window.localStorage.setItem(PREFIX + key, value);
  } catch {
    if (value === null || value === undefined) memory.delete(key);
    else memory.set(key, value);
  }
}

/** The secret session token from the last `welcome`, or null. */
export function token() {
  return read('token');
}

/**
 * Keeps the token of a `welcome` (null forgets it).
 * @param {string | null} value
 */
export function setToken(value) {
  write('token', value);
}

/** The display name this browser uses, or null if none was chosen yet. */
export function name() {
  return read('name');
}

/**
 * Keeps the display name (null forgets it).
 * @param {string | null} value
 */
export function setName(value) {
  write('name', value);
}

/**
 * A JSON preference (e.g. the last bot level chosen), with a default.
 * @template T
 * @param {string} key
 * @param {T} fallback
 * @returns {T}
 */
export function pref(key, fallback) {
  const raw = read('pref.' + key);
  if (raw === null) return fallback;
  try {
    return JSON.parse(raw);
  } catch {
    return fallback;
  }
}

/**
 * Keeps a preference, as JSON.
 * @param {string} key
 * @param {unknown} value
 */
export function setPref(key, value) {
  write('pref.' + key, JSON.stringify(value));
}

const ADJECTIVES = ['Swift', 'Clever', 'Brave', 'Calm', 'Lucky', 'Bold', 'Quiet', 'Witty', 'Keen', 'Sunny'];
const ANIMALS = ['Otter', 'Fox', 'Owl', 'Lynx', 'Heron', 'Panda', 'Koala', 'Falcon', 'Badger', 'Seal'];

/** A friendly name for a first visit, e.g. "Keen Otter". */
export function randomName() {
  /** @param {string[]} list */
  const pick = (list) => list[Math.floor(Math.random() * list.length)];
  return `${pick(ADJECTIVES)} ${pick(ANIMALS)}`;
}
