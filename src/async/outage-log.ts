/**
 * What the log says while a dependency (the store, the broker) cannot be reached: one warning
 * when it goes away, a reminder every half minute while it stays away, one line when it is back.
 * Never a stack trace per reconnect attempt: the operator needs to know what is down and since
 * when, not every retry. A reminder counts the failures since the line before it (reconnect
 * attempts, or calls refused while the dependency is away).
 *
 * @example
 * ```ts
 * const outage = new OutageLog({ logger, what: 'the store (redis://127.0.0.1:6379)', nowMs: Date.now });
 * client.on('error', (error) => outage.failed(error)); // one warning, then one per half minute
 * client.on('ready', () => outage.recovered()); // "... is reachable again after 12 s"
 * ```
 *
 * @module
 */
import type { Logger } from '../logger.ts';
import { messageOf } from '../text/error-message.ts';

/** Options of {@link OutageLog}. */
export interface OutageLogOptions {
  readonly logger: Logger;
  /** What is down, as the log names it: `the store (redis://127.0.0.1:6379)`. */
  readonly what: string;
  /** The clock, in Unix ms. */
  readonly nowMs: () => number;
  /** Least time between two reminders, in ms. Default {@link OUTAGE_REPEAT_MS}. */
  readonly repeatMs?: number;
  /**
   * Failures in a row (no answer between) before the outage is said. Default 1. With 2, one slow
   * call followed by an answer says nothing: a single timeout is no news (a metric counts those),
   * and "not reachable", then "reachable again after 0 s", would be noise.
   */
  readonly warnAfterFailures?: number;
}

/** Default of {@link OutageLogOptions.repeatMs}: a reminder every half minute, in ms. */
export const OUTAGE_REPEAT_MS = 30_000;

/** Tracks one dependency's outages and logs them sparingly. */
export class OutageLog {
  readonly #options: OutageLogOptions;
  /** When the first of the failures in a row came, or null while it answers. */
  #since: number | null = null;
  /** Whether this outage was said (see {@link OutageLogOptions.warnAfterFailures}). */
  #said = false;
  #lastLogged = 0;
  #reason = '';
  /** Failures since the last line (or since the outage began, before it is said). */
  #failures = 0;

  constructor(options: OutageLogOptions) {
    this.#options = options;
  }

  /** Why the dependency is down now, or null while it answers. */
  get reason(): string | null {
    return this.#since === null ? null : this.#reason;
  }

  /** Records a failure to reach the dependency. */
  failed(error: unknown): void {
    const now = this.#options.nowMs();
    this.#reason = messageOf(error);
    this.#failures += 1;
    const { logger, what } = this.#options;
    this.#since ??= now;
    if (!this.#said) {
      if (this.#failures < (this.#options.warnAfterFailures ?? 1)) return;
      this.#said = true;
      this.#lastLogged = now;
      this.#failures = 0;
      logger.warn({ reason: this.#reason }, `${what} is not reachable; retrying`);
      return;
    }
    if (now - this.#lastLogged < (this.#options.repeatMs ?? OUTAGE_REPEAT_MS)) return;
    this.#lastLogged = now;
    const seconds = Math.round((now - this.#since) / 1000);
    logger.warn(
      { reason: this.#reason, failures: this.#failures },
      `${what} still not reachable after ${seconds} s; retrying`,
    );
    this.#failures = 0;
  }

  /** Records that the dependency answers (again). */
  recovered(): void {
    if (this.#since === null) return;
    const seconds = Math.round((this.#options.nowMs() - this.#since) / 1000);
    const said = this.#said;
    this.#since = null;
    this.#said = false;
    this.#failures = 0;
    if (!said) return;
    this.#options.logger.info(`${this.#options.what} is reachable again after ${seconds} s`);
  }
}
