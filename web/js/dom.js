// Small DOM helpers shared by the pages: element building, the screen-reader
// announcer, the toast for refusals, and relative times.

const SVG_NS = 'http://www.w3.org/2000/svg';

/**
 * Builds an element: `h('button.btn.primary', { type: 'button', onclick }, 'Play')`.
 * Attributes starting with "on" become listeners; `class`, `dataset` and
 * boolean attributes are handled; children may be strings, nodes, arrays or
 * null. Text is always set as text, never parsed as HTML.
 */
export function h(tag, attrs = {}, ...children) {
  const [name, ...classes] = tag.split('.');
  const el = document.createElement(name || 'div');
  if (classes.length) el.classList.add(...classes);
  setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** Like `h` for SVG elements (no class shorthand parsing beyond `tag.class`). */
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

function setAttrs(el, attrs) {
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') {
      el.addEventListener(k.slice(2), v);
    } else if (k === 'class') {
      for (const c of String(v).split(/\s+/).filter(Boolean)) el.classList.add(c);
    } else if (k === 'dataset') {
      Object.assign(el.dataset, v);
    } else if (k === 'text') {
      el.textContent = v;
    } else if (v === true) {
      el.setAttribute(k, '');
    } else {
      el.setAttribute(k, String(v));
    }
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replaces all children of `el`. */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

let announceTimer = null;

/** Says `text` to screen readers through the polite live region. */
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

let toastTimer = null;

/** Shows a short message (e.g. a refused move) for a few seconds. */
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

/** "just now", "5 min ago", "3 h ago", or a date. */
export function ago(ms) {
  const secs = Math.max(0, (Date.now() - ms) / 1000);
  if (secs < 45) return 'just now';
  if (secs < 3600) return `${Math.round(secs / 60)} min ago`;
  if (secs < 86400) return `${Math.round(secs / 3600)} h ago`;
  return new Date(ms).toLocaleDateString();
}

/** Copies text to the clipboard; resolves to whether it worked. */
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

/** "1 move", "5 moves": a count with its noun in the right number. */
export function plural(n, noun) {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}
