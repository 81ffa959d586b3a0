// @ts-check
// Any other path: a friendly way back.

import { h } from './dom.js';

/**
 * Mounts the page in `main`; returns its unmount function.
 * @param {HTMLElement} main
 * @returns {() => void}
 */
export function mountMissing(main) {
  document.title = 'Not found · oxo';
  main.append(
    h('section.card.narrow', {},
      h('h1', {}, 'Nothing here'),
      h('p', {}, 'This page does not exist.'),
      h('a.btn.btn-primary', { href: '/', 'data-link': true }, 'Go to the home page'),
    ),
  );
  return () => {};
}
