// @ts-check
// Entry point: starts the connection, keeps the header (name, connection
// indicator) up to date and mounts the page for the current path.

import { conn } from './net.js';
import * as store from './store.js';
import { currentRoute, onNavigate } from './router.js';
import { byId, toast, limitChars } from './dom.js';
import { mountHome } from './home.js';
import { mountGame } from './game.js';
import { mountReplay } from './replay.js';
import { mountMissing } from './missing.js';
import './session.js';
import { MAX_NAME_CHARS } from './limits.js';

const main = byId('main');
/** @type {(() => void) | null} */
let unmount = null;
let firstRender = true;

function render() {
  if (unmount) unmount();
  unmount = null;
  main.replaceChildren();
  const route = currentRoute();
  document.body.dataset.page = route.page;
  switch (route.page) {
    case 'home':
      unmount = mountHome(main);
      break;
    case 'game':
      unmount = mountGame(main, route);
      break;
    case 'replay':
      unmount = mountReplay(main, route);
      break;
    default:
      unmount = mountMissing(main);
  }
  if (!firstRender) {
    window.scrollTo(0, 0);
    main.focus({ preventScroll: true });
  }
  firstRender = false;
}

// --- The name in the header, and the dialog that changes it. ---

const nameButton = byId('me-name');
const dialog = byId('name-dialog', HTMLDialogElement);
const nameForm = byId('name-form');
const nameInput = byId('name-input', HTMLInputElement);
const nameError = byId('name-error');
limitChars(nameInput, MAX_NAME_CHARS);
byId('name-hint').textContent = `Shown to the people you play. Up to ${MAX_NAME_CHARS} characters.`;

function showName() {
  nameButton.textContent = conn.name ?? store.name() ?? '…';
}

/**
 * Shows why the name was refused (`message`), on the field that holds it
 * and read out at once (the error is an alert), with the focus back in the
 * field to fix it; null clears it.
 * @param {string | null} message
 */
function showNameError(message) {
  nameError.textContent = message ?? '';
  nameError.hidden = message === null;
  if (message === null) {
    nameInput.removeAttribute('aria-invalid');
    nameInput.setAttribute('aria-describedby', 'name-hint');
    return;
  }
  nameInput.setAttribute('aria-invalid', 'true');
  nameInput.setAttribute('aria-describedby', 'name-error name-hint');
  nameInput.focus();
}

export function openNameDialog() {
  nameInput.value = conn.name ?? store.name() ?? '';
  showNameError(null);
  dialog.showModal();
  nameInput.select();
}

nameButton.addEventListener('click', openNameDialog);
byId('name-cancel').addEventListener('click', () => dialog.close());
document.addEventListener('oxo:edit-name', openNameDialog);

nameForm.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const name = nameInput.value.trim();
  if (!name) {
    showNameError('Please enter a name.');
    return;
  }
  if (conn.status !== 'online') {
    // Offline: it goes in the next hello.
    store.setName(name);
    conn.name = name;
    showName();
    dialog.close();
    document.dispatchEvent(new CustomEvent('oxo:name-changed'));
    return;
  }
  try {
    await conn.request({ type: 'set_name', name });
    store.setName(name);
    conn.name = name;
    showName();
    dialog.close();
    document.dispatchEvent(new CustomEvent('oxo:name-changed'));
  } catch (err) {
    showNameError(err.message);
  }
});

// --- The connection indicator: shown when offline for more than a moment. ---

const indicator = byId('conn');
const indicatorText = /** @type {HTMLElement} */ (indicator.querySelector('.conn-text'));
/** @type {ReturnType<typeof setTimeout> | undefined} */
let indicatorTimer;

/** @param {import('./net.js').Status} status */
function showStatus(status) {
  clearTimeout(indicatorTimer);
  if (status === 'online') {
    indicator.hidden = true;
    document.body.classList.remove('is-offline');
    return;
  }
  indicatorTimer = setTimeout(() => {
    indicatorText.textContent = status === 'connecting' ? 'Connecting…' : 'Offline — reconnecting…';
    indicator.dataset.status = status;
    indicator.hidden = false;
    document.body.classList.toggle('is-offline', status === 'offline');
  }, status === 'connecting' ? 800 : 300);
}

conn.on('status', showStatus);
conn.on('welcome', showName);
// A name chosen while connecting, refused once connected: the name the
// server kept shows again, and the dialog says why.
conn.on('name_refused', (err) => {
  showName();
  document.dispatchEvent(new CustomEvent('oxo:name-changed'));
  openNameDialog();
  showNameError(err.message);
});
conn.on('closing', () => toast('The server is restarting; reconnecting…', { kind: 'info' }));
conn.on('error', (msg) => toast(msg.message));
window.addEventListener('online', () => conn.nudge());
// The browser lost its network: the socket may never say so (no `close`
// comes while nothing can be sent), so it is given up at once.
window.addEventListener('offline', () => conn.drop());

if (!store.name()) store.setName(store.randomName());
showName();
onNavigate(render);
render();
conn.start();
