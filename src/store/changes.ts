/**
 * Change signals: after each applied commit of a project's parts, its writer says so on the
 * project's change channel (`changesChannel` in src/rollup/keys.ts), so that whoever shows an
 * answer of the project recomputes it then instead of polling. On Redis the commit script
 * publishes it (`SPUBLISH`, sharded on a Cluster: the channel is in the project's hash slot); the
 * embedded store tells its listeners in process ({@link LocalChanges}). A signal says only that
 * the project may have changed: a listener reads the answer again. Signals are not kept: one
 * sent while a listener's connection was down is lost, which {@link ChangeFeed.onReconnect} tells.
 *
 * @example
 * ```ts
 * const stop = await feed.watch(changesChannel('abc'), () => console.log('abc changed'));
 * await stop();
 * ```
 *
 * @module
 */

/** Where change signals are listened for. */
export interface ChangeFeed {
  /**
   * Calls `listener` after each commit signalled on `channel`, from when the returned promise
   * resolves; resolves with the function that stops it.
   */
  watch(channel: string, listener: () => void): Promise<() => Promise<void>>;
  /** Calls `listener` each time the feed's connection is back after a loss (signals were lost). */
  onReconnect(listener: () => void): void;
  /** Stops every watch and releases the feed's connection. */
  close(): Promise<void>;
}

/** The change feed of one process: what its embedded store signals, told in process. */
export class LocalChanges implements ChangeFeed {
  readonly #listeners = new Map<string, Set<() => void>>();

  /** Tells every listener of `channel`, after the current turn (never inside the commit). */
  signal(channel: string): void {
    const listeners = this.#listeners.get(channel);
    if (listeners === undefined) return;
    queueMicrotask(() => {
      for (const listener of listeners) listener();
    });
  }

  watch(channel: string, listener: () => void): Promise<() => Promise<void>> {
    let listeners = this.#listeners.get(channel);
    if (listeners === undefined) {
      listeners = new Set();
      this.#listeners.set(channel, listeners);
    }
    // A function of its own per watch: the same listener watched twice is stopped twice.
    const entry = () => listener();
    listeners.add(entry);
    return Promise.resolve(() => {
      listeners.delete(entry);
      if (listeners.size === 0 && this.#listeners.get(channel) === listeners) {
        this.#listeners.delete(channel);
      }
      return Promise.resolve();
    });
  }

  onReconnect(): void {
    // In process: never lost.
  }

  close(): Promise<void> {
    this.#listeners.clear();
    return Promise.resolve();
  }
}
