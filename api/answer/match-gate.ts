/**
 * One costly pattern matched at a time. Matching gives other work a turn between slices of about
 * 10 ms; with several costly patterns interleaved, every other request waits for one slice of
 * each (measured: 4 at once, `/healthz` median 118 ms, max 326 ms; `BENCHMARKS.md`). So a
 * pattern that needs more than one slice takes the gate for the rest of its matching, and the
 * next costly one waits for its turn: other requests then wait for one slice at most. A pattern
 * that would wait longer than `maxWaitMs` is answered 503 `unavailable` with `Retry-After`: the
 * cause is the load, not the pattern.
 *
 * @module
 */
import { unavailable } from '../errors.ts';
import { nextTurn } from '../../src/async/next-turn.ts';

/** Options of {@link MatchGate}. */
export interface MatchGateOptions {
  /** Longest wait for the turn, in ms, before the pattern is answered 503. */
  readonly maxWaitMs: number;
}

/** The turns of one pattern's matching. */
export interface MatchTurns {
  /** Lets other work go first, then continues (taking the gate, or waiting for it, first). */
  nextTurn(): Promise<void>;
  /** Gives the gate to the next pattern waiting (if this one held it). Idempotent. */
  release(): void;
}

/**
 * Lets one costly pattern at a time match beyond its first slice.
 *
 * @example
 * ```ts
 * const gate = new MatchGate({ maxWaitMs: 1_000 });
 * const turns = gate.open();
 * try {
 *   await matchHosts(entries, pattern, { budgetMs: 1_000, nextTurn: turns.nextTurn });
 * } finally {
 *   turns.release();
 * }
 * ```
 */
export class MatchGate {
  readonly #maxWaitMs: number;
  #holder: symbol | null = null;
  readonly #waiting: { readonly id: symbol; readonly grant: () => void }[] = [];

  constructor(options: MatchGateOptions) {
    const { maxWaitMs } = options;
    if (!Number.isInteger(maxWaitMs) || maxWaitMs < 1) {
      throw new RangeError(`'maxWaitMs' must be a positive integer: current value is ${maxWaitMs}`);
    }
    this.#maxWaitMs = maxWaitMs;
  }

  /** The turns of one pattern's matching; call `release` when it ends, however it ends. */
  open(): MatchTurns {
    const id = Symbol('matching');
    return {
      nextTurn: async () => {
        if (this.#holder === id) return await nextTurn();
        if (this.#holder === null) {
          this.#holder = id;
          return await nextTurn();
        }
        await this.#wait(id);
      },
      release: () => {
        if (this.#holder !== id) return;
        const next = this.#waiting.shift();
        this.#holder = next?.id ?? null;
        next?.grant();
      },
    };
  }

  #wait(id: symbol): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.#waiting.findIndex((entry) => entry.id === id);
        if (index !== -1) this.#waiting.splice(index, 1);
        reject(unavailable(
          `another costly project pattern is being matched, and this one waited ${this.#maxWaitMs} ms for its turn; retry shortly (a plain project ref is matched by substring search and never waits)`,
        ));
      }, this.#maxWaitMs);
      this.#waiting.push({
        id,
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }
}
