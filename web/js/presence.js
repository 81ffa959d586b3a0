// @ts-check
// Our place at one table, for the game page: player, spectator, or gone.
//
// Opening a table's page seats us if a seat is free (the friend link);
// otherwise, or with `?watch`, we watch. `attach` runs on every `welcome`,
// so that a reconnect takes the same place again: the seat we hold (the
// server lists our tables in `welcome`), or a spectator's place. Taking a
// free seat, leaving, and leaving for a new game against the computer
// change the place here too, and `close` gives a spectator's place back
// when the page goes.
//
// It holds no table state and draws nothing: the page reads who we are
// (`role`) and whether it is done with the table (`gone`), and is told
// through `onAttached` each time we have taken our place (to catch up on
// what a page that was away missed, such as the chat), through `onMissing`
// when the table does not exist, and through `onLeftElsewhere` when the
// player left the table in another tab or window: the server then sends
// this connection the table's state without the player (`leftElsewhere`),
// and a tab of this browser that left also says so (tabs.js).
//
// A new game against the computer is created before this table is left:
// if creating fails, nothing changed and we are still here. Only a player
// at the limit of tables in play must leave first to make room; if creating
// fails then, this table is gone and we go home.

import { conn, OFFLINE_MESSAGE } from './net.js';
import { toast } from './dom.js';
import { navigate, markLeft } from './router.js';
import { forget, setSteppedAway, stepAway, stepAwayOnStart, show } from './session.js';
import { tellLeft, onLeftElsewhere } from './tabs.js';
import { createBotTable } from './botgame.js';

/**
 * A request about this page's table, without the `table_id` that
 * `request` adds.
 * @typedef {import('./net.js').ClientMsg extends infer M ? M extends { table_id: string } ? Omit<M, 'table_id'> : never : never} TableMsg
 */

export class Presence {
  /**
   * Our place at table `tableId`; `watch`: as a spectator (`?watch`);
   * `onAttached()` is called each time we have taken our place (on
   * opening, and after every reconnect); `onMissing()` once we learn that
   * the table does not exist; `onLeftElsewhere()` once the player left it
   * in another tab (`close` stops listening for that).
   * @param {string} tableId
   * @param {{ watch: boolean, onAttached: () => void, onMissing: () => void, onLeftElsewhere: () => void }} options
   */
  constructor(tableId, { watch, onAttached, onMissing, onLeftElsewhere: onLeft }) {
    this.tableId = tableId;
    this.watch = watch;
    this.onAttached = onAttached;
    this.onMissing = onMissing;
    /** @type {'player' | 'spectator' | null} what we were, for reconnects */
    this.role = null;
    /**
     * Whether the page is done with the table (it does not exist, or we
     * are leaving it for a new game): its states are no longer drawn.
     */
    this.gone = false;
    this.onLeft = onLeft;
    const stopLeft = onLeftElsewhere((id) => {
      if (id === this.tableId) this.leftElsewhere();
    });
    const unshow = show(tableId);
    /** Stops what the page does for the table while it shows it. */
    this.stopListening = () => {
      stopLeft();
      unshow();
    };
  }

  /**
   * The player gave up their seat from another tab or device: the page is
   * done with the table (a spectator's place is this connection's alone,
   * so it stays). The server sends this connection the table's state
   * without the player then; another tab of this browser also says so.
   */
  leftElsewhere() {
    if (this.gone || this.role === 'spectator') return;
    this.gone = true;
    this.role = null;
    forget(this.tableId);
    this.onLeft();
  }

  /**
   * Sends a request about this table.
   * @param {TableMsg} msg
   */
  request(msg) {
    return conn.request({ ...msg, table_id: this.tableId });
  }

  /** Takes our place at the table: run once online, and on every `welcome`. */
  async attach() {
    if (conn.status !== 'online' || this.gone) return;
    // Shown again: the page no longer steps away when the round starts.
    setSteppedAway(this.tableId, false);
    const listed = (conn.welcome?.tables ?? []).includes(this.tableId);
    try {
      if (listed) {
        await this.request({ type: 'join_table' });
        this.role = 'player';
      } else if (this.role === 'player') {
        await this.comeBack();
      } else if (this.watch || this.role === 'spectator') {
        await this.watchTable();
      } else {
        try {
          await this.request({ type: 'join_table' });
          this.role = 'player';
        } catch (err) {
          if (err.code !== 'table_full' && err.code !== 'already_seated') throw err;
          await this.watchTable();
          // A link to a full table, or one that filled while the player
          // clicked Join: say why they only watch.
          if (err.code === 'table_full') {
            toast('Both seats are taken: you are watching this table.');
          }
        }
      }
    } catch (err) {
      if (err.code === 'no_such_table') {
        this.gone = true;
        this.onMissing();
      } else if (err.code !== 'timeout') {
        toast(err.message);
      }
      return;
    }
    // Any request about the table brings a connection that stepped away back.
    setSteppedAway(this.tableId, false);
    if (!this.gone) this.onAttached();
  }

  /**
   * Back after a reconnect at a table where we held a seat that `welcome`
   * does not list: a finished round's seat (not listed, but still ours),
   * or one given up while we were away (past a second reconnect grace
   * after the round we lost by not coming back). The second must not be
   * taken again as if nothing happened, starting a round at once: we watch
   * the table, showing that round's result, and say so (the seat is there
   * to take again).
   */
  async comeBack() {
    // Told as a spectator, the table's state without us is no sign of a
    // seat given up in another tab.
    this.role = 'spectator';
    await this.watchTable();
    if (this.role === 'spectator') {
      toast('You were away too long: your seat was given up. You are watching this table.');
    }
  }

  async watchTable() {
    try {
      await this.request({ type: 'watch_table' });
      this.role = 'spectator';
    } catch (err) {
      // Watching a table where we hold a seat: take the seat back instead.
      if (err.code !== 'already_seated') throw err;
      await this.request({ type: 'join_table' });
      this.role = 'player';
    }
  }

  /** A spectator takes a free seat; a refusal shows as a toast. */
  async takeSeat() {
    try {
      await this.request({ type: 'join_table' });
      this.role = 'player';
    } catch (err) {
      toast(err.message);
    }
  }

  /**
   * Leaves the table (giving up a seat) and goes home. A player goes at
   * once, while the request is on its way: the page has nothing more to
   * show them here, and a refusal shows at home as a toast (the seat is
   * kept, and listed among their games). A spectator goes once the server
   * has let them go: a refusal leaves them watching, and says why.
   */
  async leave() {
    if (conn.status === 'offline') {
      toast(OFFLINE_MESSAGE);
      return;
    }
    const player = this.role !== 'spectator';
    const leaving = this.request({ type: 'leave_table' });
    if (player) {
      // The page goes now, and says nothing to the table as it goes.
      this.gone = true;
      this.role = null;
      forget(this.tableId);
      markLeft();
      navigate('/');
    }
    try {
      await leaving;
    } catch (err) {
      if (err.code !== 'not_seated' && err.code !== 'no_such_table') {
        toast(player ? `You did not leave the table: ${err.message}` : err.message);
        return;
      }
    }
    if (player) {
      tellLeft(this.tableId);
      return;
    }
    this.left();
    markLeft();
    navigate('/');
  }

  /**
   * We are no longer at the table: a seat we held is given up here and in
   * this browser's other tabs, which the server does not tell.
   */
  left() {
    if (this.role !== 'spectator') tellLeft(this.tableId);
    this.role = null;
    forget(this.tableId);
  }

  /**
   * Leaves the table for a new game against the computer, as `choice`
   * says, and goes to it. Resolves to false if that failed and we are
   * still here (a toast says why).
   * @param {import('./botgame.js').BotChoice} choice
   * @returns {Promise<boolean>}
   */
  async newGame(choice) {
    let id;
    try {
      id = await createBotTable(choice);
    } catch (err) {
      if (err.code !== 'too_many_tables') {
        // Nothing changed: the game here goes on.
        toast(err.message);
        return false;
      }
      // At the limit of tables in play: this one makes room first.
      try {
        await this.giveUp();
      } catch (err2) {
        toast(err2.message);
        return false;
      }
      try {
        id = await createBotTable(choice);
      } catch (err2) {
        // This table is gone already: home, where a game can be started.
        toast(err2.message);
        navigate('/');
        return true;
      }
      navigate(`/t/${encodeURIComponent(id)}`);
      return true;
    }
    try {
      await this.giveUp();
    } catch (err) {
      // The new game is there all the same; this one stays in the list of
      // our games on the home page.
      toast(`The last game was not left: ${err.message}`);
    }
    navigate(`/t/${encodeURIComponent(id)}`);
    return true;
  }

  /**
   * Leaves the table for good, without drawing its last state: the page
   * goes elsewhere next. If that is refused we are still here (it throws).
   */
  async giveUp() {
    this.gone = true;
    try {
      await this.request({ type: 'leave_table' });
    } catch (err) {
      if (err.code !== 'not_seated' && err.code !== 'no_such_table') {
        this.gone = false;
        throw err;
      }
    }
    this.left();
  }

  /**
   * The page goes: a spectator stops watching; a seat is kept, and when a
   * person plays us there they are told we are away until we come back
   * (`step_away`: the reconnect grace runs during a round): `away` is
   * `now`, or `on_start` for a table waiting for that person (the page
   * still hears it, to learn that someone joined; see session.js), or
   * `never` (a bot, or pass and play: nobody to tell).
   * @param {{ away: 'now' | 'on_start' | 'never' }} options
   */
  close({ away }) {
    this.gone = true;
    this.stopListening();
    const online = conn.status === 'online';
    if (this.role === 'spectator') {
      if (online) conn.request({ type: 'leave_table', table_id: this.tableId }).catch(() => {});
    } else if (this.role === 'player') {
      if (away === 'on_start') stepAwayOnStart(this.tableId);
      else if (away === 'now' && online) stepAway(this.tableId);
    }
  }
}
