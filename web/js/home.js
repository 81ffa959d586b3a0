// @ts-check
// The home page: play the computer, play a friend (share link or pass and
// play), the live list of open tables, your games in progress, and recent
// games to replay.

import { conn } from './net.js';
import * as api from './api.js';
import * as store from './store.js';
import { h, replaceKeepingFocus, toast, ago, plural } from './dom.js';
import { navigate } from './router.js';
import { yourGames } from './mygames.js';
import { markSvg } from './board.js';
import { LEVELS, SIDES, botChoice, botOptions, rememberBot } from './botgame.js';
import { segmented, toggle } from './controls.js';
import { listedOutcome } from './outcome.js';
import { myTables, onTablesChange } from './session.js';

/** @typedef {import('./protocol.js').TableOptions} TableOptions */
/** @typedef {import('./protocol.js').LobbyTable} LobbyTable */

/**
 * Per-move time limits a friend's table can have (none, or seconds).
 * @type {import('./controls.js').Choice[]}
 */
const CLOCKS = [
  { value: '0', label: 'None' },
  { value: '15', label: '15 s' },
  { value: '30', label: '30 s' },
  { value: '60', label: '60 s' },
];

/**
 * A time per move in words: "30 s a move", "2 min a move", "1 min 30 s a move".
 * @param {number} ms
 */
export function perMove(ms) {
  const secs = Math.max(1, Math.round(ms / 1000));
  const min = Math.floor(secs / 60);
  const rest = secs % 60;
  const said = secs <= 60 ? `${secs} s` : `${min} min${rest ? ` ${rest} s` : ''}`;
  return `${said} a move`;
}

/**
 * Mounts the home page in `main`; returns its unmount function.
 * @param {HTMLElement} main
 * @returns {() => void}
 */
export function mountHome(main) {
  const title = 'oxo — tic-tac-toe';
  document.title = title;
  /** @type {(() => void)[]} */
  const cleanups = [];
  let busy = false;

  let { level, side } = botChoice();
  let isPublic = store.pref('friendPublic', false);
  let clock = store.pref('friendClock', '0');

  /**
   * Creates a table and goes to it; `button` is busy meanwhile.
   * @param {TableOptions} options
   * @param {HTMLElement} button
   */
  async function create(options, button) {
    // Offline, the buttons say why they do nothing (see `showStatus`):
    // a table asked for now would open much later, unannounced.
    if (busy || conn.status === 'offline') return;
    busy = true;
    // Not `disabled`, which would drop the focus to the page: if creating
    // fails, the keyboard user is still on the button, to try again.
    button.setAttribute('aria-disabled', 'true');
    button.classList.add('is-busy');
    try {
      const id = await conn.createTable(options);
      navigate(`/t/${encodeURIComponent(id)}`);
    } catch (err) {
      toast(err.message);
      button.classList.remove('is-busy');
      showStatus(conn.status);
    } finally {
      busy = false;
    }
  }

  const botButton = h('button.btn.btn-primary.btn-block', {
    type: 'button',
    id: 'play-bot',
    onclick: () => create(botOptions({ level, side }), botButton),
  }, 'Play the computer');

  const friendButton = h('button.btn.btn-primary.btn-block', {
    type: 'button',
    id: 'play-friend',
    onclick: () => {
      /** @type {TableOptions} */
      const options = { public: isPublic, starter: 'alternate', seat: 'X' };
      if (Number(clock) > 0) options.move_time_ms = Number(clock) * 1000;
      create(options, friendButton);
    },
  }, 'Create a table');

  const passButton = h('button.btn.btn-secondary.btn-block', {
    type: 'button',
    id: 'pass-and-play',
    onclick: () => create({ public: false, starter: 'alternate', pass_and_play: true }, passButton),
  }, 'Start pass and play');

  const publicToggle = toggle({
    label: 'List it in open tables',
    checked: isPublic,
    onChange: (on) => {
      isPublic = on;
      store.setPref('friendPublic', isPublic);
    },
  });

  const nameEl = h('strong.name-now', {}, conn.name ?? store.name() ?? '');
  const resume = yourGames({ title });
  cleanups.push(resume.stop);
  const lobbyList = h('ul.list', { id: 'lobby' }, h('li.empty', {}, 'Loading…'));
  const recentList = h('ul.list', { id: 'recent' }, h('li.empty', {}, 'Loading…'));
  // Offline: said here once, and pointed to by every button that starts a
  // game (the header's banner is the live one).
  const offlineNote = h('p.offline-note', { id: 'home-offline', hidden: true },
    "You're offline. New games can be started once you're connected again.");

  main.append(
    h('div.home', {},
      h('section.hero', {},
        h('h1', {}, 'Tic-tac-toe, ', h('span.accent', {}, 'done properly.')),
        h('p.lede', {}, 'Take on a computer that never loses, or send a friend a link.'),
        h('p.name-line', {},
          'You are ', nameEl, '. ',
          h('button.linkish', {
            type: 'button',
            onclick: () => document.dispatchEvent(new Event('oxo:edit-name')),
          }, 'Change name'),
        ),
      ),
      offlineNote,
      resume.card,
      h('div.home-grid', {},
        h('section.card.card-bot', { 'aria-labelledby': 'h-bot' },
          h('h2', { id: 'h-bot' }, 'Play the computer'),
          segmented('level', 'Level', LEVELS, level, (v) => {
            level = v;
            rememberBot('level', v);
          }),
          segmented('side', 'You play', SIDES, side, (v) => {
            side = v;
            rememberBot('side', v);
          }),
          botButton,
        ),
        h('section.card.card-friend', { 'aria-labelledby': 'h-friend' },
          h('h2', { id: 'h-friend' }, 'Play a friend'),
          h('p.muted', {}, 'Create a table, then send your friend its link. They open it and take the other seat.'),
          publicToggle,
          segmented('clock', 'Time per move', CLOCKS, clock, (v) => {
            clock = v;
            store.setPref('friendClock', v);
          }),
          friendButton,
          h('hr.sep'),
          h('h3', {}, 'Pass and play'),
          h('p.muted', {}, 'Two people, one screen, taking turns.'),
          passButton,
        ),
        h('section.card.card-lobby', { 'aria-labelledby': 'h-lobby' },
          h('h2', { id: 'h-lobby' }, 'Open tables'),
          lobbyList,
        ),
        h('section.card.card-recent', { 'aria-labelledby': 'h-recent' },
          h('h2', { id: 'h-recent' }, 'Recent games'),
          recentList,
        ),
      ),
    ),
  );

  // --- Offline ---
  const starters = [botButton, friendButton, passButton];
  /** @param {import('./net.js').Status} status */
  function showStatus(status) {
    const off = status === 'offline';
    offlineNote.hidden = !off;
    for (const b of starters) {
      if (off) {
        b.setAttribute('aria-disabled', 'true');
        b.setAttribute('aria-describedby', 'home-offline');
      } else {
        b.removeAttribute('aria-disabled');
        b.removeAttribute('aria-describedby');
      }
    }
    // Lists never loaded say why they stay empty.
    for (const list of [lobbyList, recentList]) {
      const empty = list.querySelector('li.empty');
      if (off && empty?.textContent === 'Loading…') empty.textContent = 'Offline: this list comes back when you are connected.';
    }
  }
  showStatus(conn.status);
  cleanups.push(conn.on('status', showStatus));

  // --- Open tables (live) ---
  /**
   * The lobby's latest list: drawn again when the player's own tables
   * change, since a table of theirs is offered as theirs.
   * @type {LobbyTable[] | null}
   */
  let lobbyTables = null;
  /**
   * Draws the open tables. A table where the player holds a seat says so
   * and offers to open it: "Join" would offer them their own seat again,
   * and "Watch" to be a spectator of their own game.
   * @param {LobbyTable[]} tables
   */
  function renderLobby(tables) {
    lobbyTables = tables;
    if (!tables.length) {
      replaceKeepingFocus(lobbyList, h('li.empty', {}, 'No open tables right now. Create one and tick “List it in open tables”.'));
      return;
    }
    replaceKeepingFocus(lobbyList, tables.map((t) => {
      const x = t.players.x ?? 'open seat';
      const o = t.players.o ?? 'open seat';
      const free = t.status === 'waiting' && (!t.players.x || !t.players.o);
      const path = `/t/${encodeURIComponent(t.id)}`;
      /** @type {Record<string, string | undefined>} */
      const statuses = { waiting: 'Waiting', in_progress: 'Playing', round_over: 'Between rounds' };
      const status = statuses[t.status] ?? t.status;
      const clock = t.options.move_time_ms ? ` · ${perMove(t.options.move_time_ms)}` : '';
      const mine = myTables.has(t.id);
      return h('li.row', {},
        h('span.row-main', {},
          h('span.row-title', {}, h('span.vs-x', {}, x), ' vs ', h('span.vs-o', {}, o)),
          h('span.row-sub', {}, mine ? 'Your table · ' : '', status, clock, t.spectators ? ` · ${t.spectators} watching` : ''),
        ),
        mine ? h('span.row-actions', {},
          h('a.btn.btn-small.btn-primary', { href: path, 'data-link': true, 'aria-label': 'Open your table', dataset: { focusKey: `open:${t.id}` } }, 'Open'),
        ) : h('span.row-actions', {},
          free ? h('a.btn.btn-small.btn-primary', { href: path, 'data-link': true, 'aria-label': `Join ${t.players.x ?? t.players.o ?? 'table'}`, dataset: { focusKey: `join:${t.id}` } }, 'Join') : null,
          h('a.btn.btn-small.btn-ghost', { href: `${path}?watch`, 'data-link': true, 'aria-label': `Watch ${x} vs ${o}`, dataset: { focusKey: `watch:${t.id}` } }, 'Watch'),
        ),
      );
    }));
  }
  cleanups.push(conn.on('lobby', (msg) => renderLobby(msg.tables)));
  cleanups.push(onTablesChange(() => {
    if (lobbyTables) renderLobby(lobbyTables);
  }));
  const watchLobby = () => conn.request({ type: 'watch_lobby' }).catch(() => {});
  cleanups.push(conn.on('welcome', watchLobby));
  if (conn.status === 'online') watchLobby();

  // --- Recent games (refreshed now and then) ---
  async function loadRecent() {
    // Offline the request could only fail: the list stays as it is.
    if (conn.status === 'offline') return;
    try {
      const games = await api.recentGames({ limit: 8 });
      resume.setFinished(new Map(games.map((g) => [g.id, g])));
      if (!games.length) {
        replaceKeepingFocus(recentList, h('li.empty', {}, 'No finished games yet.'));
        return;
      }
      replaceKeepingFocus(recentList, games.map((g) =>
        h('li.row', {},
          h('a.row-main.row-link', { href: `/games/${encodeURIComponent(g.id)}`, 'data-link': true, dataset: { focusKey: `game:${g.id}` } },
            h('span.row-title', {}, h('span.vs-x', {}, g.players.x), ' vs ', h('span.vs-o', {}, g.players.o)),
            h('span.row-sub', {}, `${listedOutcome(g.outcome, g.players)} · ${plural(g.moves, 'move')} · ${ago(g.ended_at_ms)}`),
          ),
          g.outcome && g.outcome.result === 'win'
            ? h('span.row-badge', { 'aria-hidden': 'true' }, markSvg(g.outcome.winner, 'mini'))
            : h('span.row-badge.row-badge-draw', { 'aria-hidden': 'true' }, '½'),
        ),
      ));
    } catch (err) {
      replaceKeepingFocus(recentList, h('li.empty', {}, `Could not load recent games: ${err.message}`));
    }
  }
  // Once the server has welcomed us, the stored token is one it knows, and
  // our own private games (pass and play, friends' tables) are listed too.
  cleanups.push(conn.on('welcome', loadRecent));
  if (conn.status === 'online') loadRecent();
  const recentTimer = setInterval(loadRecent, 15000);

  const onName = () => {
    nameEl.textContent = conn.name ?? store.name() ?? '';
  };
  document.addEventListener('oxo:name-changed', onName);
  cleanups.push(conn.on('welcome', onName));

  return () => {
    for (const fn of cleanups) fn();
    clearInterval(recentTimer);
    document.removeEventListener('oxo:name-changed', onName);
    if (conn.status === 'online') conn.request({ type: 'unwatch_lobby' }).catch(() => {});
  };
}
