/**
 * A wait that can be cut short: the time a flush gathers more work before it goes out, ended at
 * once when the work must go now (a full buffer, a shutdown).
 *
 * @example
 * ```ts
 * const linger = new Linger();
 * const gathered = linger.wait(100); // resolves after 100 ms...
 * linger.cut(); // ...or now
 * ```
 *
 * @module
 */

/** One wait at a time, cut short on demand. */
export class Linger {
  #cut: (() => void) | null = null;

  /** Resolves after `ms`, or as soon as {@link cut} is called. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const end = () => {
        clearTimeout(timer);
        if (this.#cut === end) this.#cut = null;
        resolve();
      };
      const timer = setTimeout(end, ms);
      this.#cut = end;
    });
  }

  /** Ends the wait under way, if there is one. */
  cut(): void {
    this.#cut?.();
  }
}
