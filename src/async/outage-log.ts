/**
 * What the log says while a dependency (the store, the broker) cannot be reached: one warning
 * when it goes away, a reminder every half minute while it stays away, one line when it is back.
 * Never a stack trace per reconnect attempt: the operator needs to know what is down and since
 * when, not every retry.
 *
 * @module
 */
import type { Logger } from '../logger.ts';

/** Options of {@link OutageLog}. */
export interface OutageLogOptions {
  readonly logger: Logger;
  /** What is down, as the log names it: `the store (redis://127.0.0.1:6379)`. */
  readonly what: string;
  /** The clock, in Unix ms. */
  readonly nowMs: () => number;
  /** Least time between two reminders, in ms. Default 30,000. */
  readonly repeatMs?: number;
}

/** The message of `error`, without its stack. */
export function messageOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) {
    return error.errors.map(messageOf).join('; ');
  }
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** Tracks one dependency's outages and logs them sparingly. */
export class OutageLog {
  readonly #options: OutageLogOptions;
  #since: number | null = null;
  #lastLogged = 0;
  #reason = '';

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
    const { logger, what } = this.#options;
    if (this.#since === null) {
      this.#since = now;
      this.#lastLogged = now;
      logger.warn({ reason: this.#reason }, `${what} is not reachable; retrying`);
      return;
    }
    if (now - this.#lastLogged < (this.#options.repeatMs ?? 30_000)) return;
    this.#lastLogged = now;
    const seconds = Math.round((now - this.#since) / 1000);
    logger.warn(
      { reason: this.#reason },
      `${what} still not reachable after ${seconds} s; retrying`,
    );
  }

  /** Records that the dependency answers (again). */
  recovered(): void {
    if (this.#since === null) return;
    const seconds = Math.round((this.#options.nowMs() - this.#since) / 1000);
    this.#since = null;
    this.#options.logger.info(`${this.#options.what} is reachable again after ${seconds} s`);
  }
}
