// @ts-check
// The form controls the pages share, each built in one place so that they
// look and behave alike: the on/off switch, the segmented choice, the
// button that asks for a second click, and the link to share with its Copy
// button.

import { h, copyText } from './dom.js';

/**
 * An on/off switch: a checkbox with the switch role, drawn as a track.
 * `onChange` gets the new state.
 * @param {{ label: string, checked: boolean, onChange: (on: boolean) => void, id?: string, className?: string, hidden?: boolean }} options
 *   `className`: extra classes for the label (".hints-switch")
 * @returns {HTMLLabelElement}
 */
export function toggle({ label, checked, onChange, id, className = '', hidden = false }) {
  return /** @type {HTMLLabelElement} */ (h(`label.switch${className}`, { hidden },
    h('input', {
      type: 'checkbox',
      role: 'switch',
      id,
      checked,
      /** @param {Event} ev */
      onchange: (ev) => onChange(/** @type {HTMLInputElement} */ (ev.target).checked),
    }),
    h('span.switch-track', { 'aria-hidden': 'true' }),
    h('span.switch-label', {}, label),
  ));
}

/** @typedef {{ value: string, label: string, note?: string }} Choice */

/**
 * A group of radio buttons shown as one segmented control.
 * @param {string} name the radio group's name
 * @param {string} legend
 * @param {Choice[]} options
 * @param {string} selected the value checked at first
 * @param {(value: string) => void} onChange
 */
export function segmented(name, legend, options, selected, onChange) {
  return h('fieldset.choice', {},
    h('legend', {}, legend),
    h('div.segmented', {},
      options.map((opt) =>
        h('label.segment', {},
          h('input', {
            type: 'radio',
            name,
            value: opt.value,
            checked: opt.value === selected,
            onchange: () => onChange(opt.value),
          }),
          h('span.segment-face', {},
            h('span.segment-label', {}, opt.label),
            opt.note ? h('span.segment-note', {}, opt.note) : null,
          ),
        ),
      ),
    ),
  );
}

/**
 * Makes `button` ask for a second click within a few seconds before it
 * acts, when `needsConfirm()` says so. Returns a function that disarms it.
 * `label` is the button's text when not armed, or a function that says
 * what it is now (a button whose job changes with the state).
 * @param {HTMLElement} button
 * @param {{ label: string | (() => string), confirmLabel: string, needsConfirm: () => boolean, action: () => void }} options
 * @returns {() => void}
 */
export function confirmable(button, { label, confirmLabel, needsConfirm, action }) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let armed;
  const labelNow = typeof label === 'function' ? label : () => label;
  const reset = () => {
    clearTimeout(armed);
    armed = undefined;
    button.textContent = labelNow();
    button.classList.remove('is-armed');
  };
  button.textContent = labelNow();
  button.addEventListener('click', () => {
    if (!needsConfirm() || armed) {
      reset();
      action();
      return;
    }
    button.textContent = confirmLabel;
    button.classList.add('is-armed');
    armed = setTimeout(reset, 4000);
  });
  return reset;
}

/**
 * A link to share, in a read-only field that selects itself and wraps the
 * link to show it whole, with a button
 * that copies it and says whether that worked.
 * @param {{ path: string, label: string, copy: string, kind: string }} options
 *   `path` on this site ("/t/abc"), `label` names the field, `copy` is the
 *   button's text, `kind` its style ("btn-primary")
 * @returns {HTMLDivElement} the `.share-row`
 */
export function shareLink({ path, label, copy, kind }) {
  // A read-only text area, not a one-line field: a link is longer than a
  // phone is wide, and wrapped it reads whole, from "https" to the id.
  const input = /** @type {HTMLTextAreaElement} */ (h('textarea.share-input', {
    readonly: true,
    rows: 1,
    spellcheck: 'false',
    'aria-label': label,
    /** @param {FocusEvent} ev */
    onfocus: (ev) => /** @type {HTMLTextAreaElement} */ (ev.target).select(),
  }));
  input.value = `${window.location.origin}${path}`;
  const button = h(`button.btn.${kind}.btn-small`, {
    type: 'button',
    onclick: async () => {
      const ok = await copyText(input.value, input);
      button.textContent = ok ? 'Copied!' : 'Press Ctrl+C';
      setTimeout(() => { button.textContent = copy; }, 2000);
    },
  }, copy);
  return /** @type {HTMLDivElement} */ (h('div.share-row', {}, input, button));
}
