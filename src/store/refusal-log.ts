/**
 * The store refusing writes, as a state (src/store/write-refusal.ts): one line when it starts,
 * naming the cause and what to do, a reminder at most once a minute while it lasts, and one line
 * when writes are accepted again, with how long it lasted and how many writes waited. Never a
 * stack trace per refused write. Health checks and metrics read {@link RefusalLog.current}.
 *
 * @example
 * ```ts
 * const refusals = new RefusalLog({ logger, nowMs: Date.now, memory: () => store.memory() });
 * refusals.refused('full', 'commitProject'); // "the store refuses writes: the store is full (…)"
 * refusals.accepted('commitProject'); // "the store accepts writes again after 20 s (full); …"
 * ```
 *
 * @module
 */
import type { Logger } from '../logger.ts';
import type { StoreCommand } from './observed.ts';
import { refusalAdvice, type StoreMemory, type WriteRefusal } from './write-refusal.ts';

/** Least time between two reminders while the store refuses writes, in ms. */
export const REFUSAL_REPEAT_MS = 60_000;

/** Options of {@link RefusalLog}. */
export interface RefusalLogOptions {
  readonly logger: Logger;
  /** The clock, in Unix ms. */
  readonly nowMs: () => number;
  /** How full the store is, for the first line of a `full` refusal; null where it cannot say. */
  readonly memory?: () => Promise<StoreMemory | null>;
  /** Told each time the state changes: the reason now, or null once writes are accepted. */
  readonly onChange?: (reason: WriteRefusal | null) => void;
}

/** The refusal under way. */
interface Refusing {
  readonly reason: WriteRefusal;
  readonly sinceMs: number;
  lastLoggedMs: number;
  /** Writes refused since it began. */
  waited: number;
  /** The calls refused: the refusal is over once one of them is made. */
  readonly calls: Set<StoreCommand>;
}

/** Tracks whether the store refuses writes, and says so sparingly. */
export class RefusalLog {
  readonly #options: RefusalLogOptions;
  #refusing: Refusing | null = null;

  constructor(options: RefusalLogOptions) {
    this.#options = options;
  }

  /** Why the store refuses writes now, or null while it accepts them. */
  current(): WriteRefusal | null {
    return this.#refusing?.reason ?? null;
  }

  /** A write (`call`) was refused for `reason`. */
  refused(reason: WriteRefusal, call: StoreCommand): void {
    const now = this.#options.nowMs();
    const refusing = this.#refusing;
    if (refusing !== null && refusing.reason === reason) {
      refusing.waited += 1;
      refusing.calls.add(call);
      if (now - refusing.lastLoggedMs < REFUSAL_REPEAT_MS) return;
      refusing.lastLoggedMs = now;
      this.#options.logger.warn(
        { reason, seconds: Math.round((now - refusing.sinceMs) / 1000), waited: refusing.waited },
        `the store still refuses writes (${reason}); writes wait`,
      );
      return;
    }
    this.#refusing = { reason, sinceMs: now, lastLoggedMs: now, waited: 1, calls: new Set([call]) };
    this.#options.onChange?.(reason);
    void this.#sayRefusing(reason);
  }

  /**
   * A write (`call`) was made: a refusal under way is over if it refused such a call (a user
   * that lacks one command still makes the others).
   */
  accepted(call: StoreCommand): void {
    const refusing = this.#refusing;
    if (refusing === null || !refusing.calls.has(call)) return;
    this.#refusing = null;
    this.#options.onChange?.(null);
    const seconds = Math.round((this.#options.nowMs() - refusing.sinceMs) / 1000);
    this.#options.logger.info(
      { reason: refusing.reason, seconds, waited: refusing.waited },
      `the store accepts writes again after ${seconds} s (${refusing.reason}); ` +
        `${refusing.waited} writes waited and are made now`,
    );
  }

  async #sayRefusing(reason: WriteRefusal): Promise<void> {
    const memory = reason === 'full' && this.#options.memory !== undefined
      ? await this.#options.memory().catch(() => null)
      : null;
    this.#options.logger.warn(
      { reason },
      `the store refuses writes: ${refusalAdvice(reason, memory)}`,
    );
  }
}
