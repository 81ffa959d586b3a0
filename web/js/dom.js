// @ts-check
// Small DOM helpers shared by the pages: element building, the screen-reader
// announcer, the toast for refusals, and relative times.

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * What `h` and `s` take as children: text, nodes, lists of them; null,
 * undefined and false are left out.
 * @typedef {string | number | Node | null | undefined | false | unknown[]} Child
 */

/**
 * Attributes for `h`: listeners (`onclick`), `class`, `dataset`, `text`,
 * booleans (present or absent), and the rest as strings.
 * @typedef {Record<string, unknown>} Attrs
 */

/**
 * Builds an element: `h('button.btn.primary', { type: 'button', onclick }, 'Play')`.
 * Attributes starting with "on" become listeners; `class`, `dataset` and
 * boolean attributes are handled; children may be strings, nodes, arrays or
 * null. Text is always set as text, never parsed as HTML.
 * @param {string} tag
 * @param {Attrs} [attrs]
 * @param {...Child} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split('.');
  const el = document.createElement(name || 'div');
  if (classes.length) el.classList.add(...classes);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/**
 * Like `h` for SVG elements (no class shorthand parsing beyond `tag.class`).
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...Child} children
 * @returns {SVGElement}
 */
export function s(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split('.');
  const el = document.createElementNS(SVG_NS, name);
  if (classes.length) el.setAttribute('class', classes.join(' '));
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

/**
 * @param {HTMLElement} el
 * @param {Attrs} attrs
 */
function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.slice(2), /** @type {EventListener} */ (v));
    } else if (k === 'class') {
      for (const c of String(v).split(/\s+/).filter(Boolean)) el.classList.add(c);
    } else if (k === 'dataset') {
      Object.assign(el.dataset, /** @type {Record<string, string>} */ (v));
    } else if (k === 'text') {
      el.textContent = String(v);
    } else if (v === true) {
      el.setAttribute(k, '');
    } else {
      el.setAttribute(k, String(v));
    }
  }
}

/**
 * @param {Element} el
 * @param {Child[]} children
 */
function append(el, children) {
  for (const child of /** @type {Child[]} */ (children.flat(Infinity))) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Replaces all children of `el`.
 * @param {Element} el
 * @param {...Child} children
 */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

/**
 * Replaces all children of `list`, as `replace` does, where the keyboard
 * focus may be (a list redrawn while someone tabs through it): the element
 * that had it gives it to the new one with the same `data-focus-key` (the
 * same row's same action), or, when its row is gone, to the list itself,
 * so that Tab goes on from there and not from the top of the page.
 * @param {HTMLElement} list
 * @param {...Child} children
 */
export function replaceKeepingFocus(list, ...children) {
  const focused = document.activeElement;
  const had = focused instanceof HTMLElement && focused !== list && list.contains(focused);
  const key = had ? focused.dataset.focusKey : undefined;
  replace(list, ...children);
  if (!had) return;
  const again = key === undefined ? null : [...list.querySelectorAll('[data-focus-key]')]
    .find((el) => el instanceof HTMLElement && el.dataset.focusKey === key);
  if (again instanceof HTMLElement) {
    again.focus({ preventScroll: true });
  } else {
    list.tabIndex = -1;
    list.focus({ preventScroll: true });
  }
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let announceTimer;

/**
 * The element of index.html with this `id`, of this `type`: one the page
 * cannot do without, so its absence throws.
 * @template {HTMLElement} [T=HTMLElement]
 * @param {string} id
 * @param {{ new (): T, prototype: T }} [type] HTMLElement unless given
 * @returns {T}
 */
export function byId(id, type) {
  const el = document.getElementById(id);
  if (!(el instanceof (type ?? HTMLElement))) throw new Error(`index.html has no #${id} of the right kind`);
  return /** @type {T} */ (el);
}

/**
 * Says `text` to screen readers through the polite live region.
 * @param {string} text
 */
export function announce(text) {
  const region = document.getElementById('announcer');
  if (!region || !text) return;
  // Clearing first makes a repeated message be read again.
  region.textContent = '';
  clearTimeout(announceTimer);
  announceTimer = setTimeout(() => {
    region.textContent = text;
  }, 60);
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;

/**
 * Shows a short message (e.g. a refused move) for a few seconds.
 * @param {string} text
 * @param {{ kind?: 'error' | 'info', ms?: number }} [options]
 */
export function toast(text, { kind = 'error', ms = 3500 } = {}) {
  const el = document.getElementById('toast');
  if (!el) return;
  el.textContent = text;
  el.dataset.kind = kind;
  el.hidden = false;
  el.classList.remove('toast-out');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => {
    el.classList.add('toast-out');
    toastTimer = setTimeout(() => {
      el.hidden = true;
      el.classList.remove('toast-out');
    }, 250);
  }, ms);
}

/**
 * "just now", "5 min ago", "3 h ago", or a date.
 * @param {number} ms a time, in milliseconds since the Unix epoch
 */
export function ago(ms) {
  const secs = Math.max(0, (Date.now() - ms) / 1000);
  if (secs < 45) return 'just now';
  if (secs < 3600) return `${Math.round(secs / 60)} min ago`;
  if (secs < 86400) return `${Math.round(secs / 3600)} h ago`;
  return new Date(ms).toLocaleDateString();
}

/**
 * Copies text to the clipboard; resolves to whether it worked.
 * @param {string} text
 * @param {HTMLInputElement | HTMLTextAreaElement} [fallbackInput] a field holding `text`, copied the old way
 * @returns {Promise<boolean>}
 */
export async function copyText(text, fallbackInput) {
  try {
    if (navigator.clipboard && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // Permission refused: try the old way below.
  }
  if (fallbackInput) {
    fallbackInput.focus();
    fallbackInput.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    }
  }
  return false;
}

/**
 * "1 move", "5 moves": a count with its noun in the right number.
 * @param {number} n
 * @param {string} noun
 */
export function plural(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * Scrolls `box` so that `item`, inside it, is in view, and never the page
 * (`scrollIntoView` would also scroll the window, e.g. a phone's page down
 * to a list under the board).
 * @param {HTMLElement} box
 * @param {Element} item
 */
export function revealIn(box, item) {
  const outer = box.getBoundingClientRect();
  const inner = item.getBoundingClientRect();
  if (inner.top < outer.top) box.scrollTop -= outer.top - inner.top;
  else if (inner.bottom > outer.bottom) box.scrollTop += inner.bottom - outer.bottom;
}

/**
 * Holds `input` to `max` characters as the server counts them (Unicode
 * code points: an emoji is one), where `maxlength` counts UTF-16 units
 * (an emoji is two) and would stop at half as many emoji. As `maxlength`
 * does, an edit that would go over is cut: what it inserted loses its
 * end, and the text around it stays. Text being composed (an input method)
 * is held once it is done.
 * @param {HTMLInputElement} input
 * @param {number} max
 */
export function limitChars(input, max) {
  // The most UTF-16 units `max` characters take: the browser's own cut
  // for a paste far too long.
  input.maxLength = max * 2;
  const hold = () => {
    const over = [...input.value].length - max;
    if (over <= 0) return;
    const caret = input.selectionEnd ?? input.value.length;
    const before = [...input.value.slice(0, caret)];
    const kept = before.slice(0, Math.max(0, before.length - over)).join('');
    // An edit not before the caret (none the keyboard makes) loses the end.
    const value = [...kept + input.value.slice(caret)].slice(0, max).join('');
    input.value = value;
    const at = Math.min(kept.length, value.length);
    input.setSelectionRange(at, at);
  };
  input.addEventListener('input', (ev) => {
    if (!(ev instanceof InputEvent && ev.isComposing)) hold();
  });
  input.addEventListener('compositionend', hold);
}
