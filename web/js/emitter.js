// @ts-check
// Events within the page: the connection's messages and status (net.js),
// navigations (router.js) and the player's tables (session.js) all reach
// their listeners through one small emitter.
//
// A listener that throws does not stop the others, nor the code that
// emitted: its error is thrown again on its own, where the console and the
// tests see it.

/**
 * Listeners by event type. `Events` maps each type to its payload.
 * @template {Record<string, unknown>} Events
 */
export class Emitter {
  constructor() {
    /** @type {Map<keyof Events, Set<(payload: any) => void>>} */
    this.listeners = new Map();
  }

  /**
   * Registers `fn` for events of `type`; returns a function that
   * unregisters it.
   * @template {keyof Events} K
   * @param {K} type
   * @param {(payload: Events[K]) => void} fn
   * @returns {() => void}
   */
  on(type, fn) {
    let set = this.listeners.get(type);
    if (!set) {
      set = new Set();
      this.listeners.set(type, set);
    }
    set.add(fn);
    return () => {
      this.listeners.get(type)?.delete(fn);
    };
  }

  /**
   * Calls every listener of `type` with `payload`, in the order they came.
   * @template {keyof Events} K
   * @param {K} type
   * @param {Events[K]} payload
   */
  emit(type, payload) {
    for (const fn of [...(this.listeners.get(type) ?? [])]) {
      try {
        fn(payload);
      } catch (err) {
        setTimeout(() => {
          throw err;
        });
      }
    }
  }
}
