/**
 * How often the consumer group restarted lately. kafkajs rejoins by itself after an error it
 * retries, which is right for a coordinator still loading or a broker restarting, and wrong
 * when the same error comes back at every attempt: the group then restarts in a loop, consuming
 * nothing, while each restart looks like a passing hiccup. More than a few restarts a minute is
 * such a loop, and the process is not healthy.
 *
 * @example
 * ```ts
 * const restarts = new RestartRate(() => Date.now());
 * restarts.record();
 * restarts.excessive(); // null, or "the consumer group restarted 4 times in the last minute"
 * ```
 *
 * @module
 */

/** Restarts within {@link WINDOW_MS} beyond which the group is deemed to restart in a loop. */
export const MAX_RESTARTS_PER_MINUTE = 3;

/** The window restarts are counted over. */
const WINDOW_MS = 60_000;

/** The restarts of the last minute, by the injected clock. */
export class RestartRate {
  readonly #nowMs: () => number;
  #times: number[] = [];

  constructor(nowMs: () => number) {
    this.#nowMs = nowMs;
  }

  /** Counts one restart, now. */
  record(): void {
    this.#times.push(this.#nowMs());
    this.#forgetOld();
  }

  /** Why the restarts are too many (more than {@link MAX_RESTARTS_PER_MINUTE}), or null. */
  excessive(): string | null {
    this.#forgetOld();
    if (this.#times.length <= MAX_RESTARTS_PER_MINUTE) return null;
    return `the consumer group restarted ${this.#times.length} times in the last minute ` +
      `(more than ${MAX_RESTARTS_PER_MINUTE} is a loop: see the errors logged)`;
  }

  #forgetOld(): void {
    const since = this.#nowMs() - WINDOW_MS;
    this.#times = this.#times.filter((time) => time > since);
  }
}
