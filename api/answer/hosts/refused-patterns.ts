/**
 * Patterns refused for their matching budget, remembered for `refusalMs` so that the same costly
 * pattern asked again is refused at once rather than matched again (the registry changes little
 * in a minute). At most `capacity` are remembered, the oldest refusal first out.
 *
 * @example
 * ```ts
 * const refused = new RefusedPatterns({ capacity: 10_000, refusalMs: 60_000, nowMs: Date.now });
 * refused.remember('(a+)+$', refusal);
 * refused.refusal('(a+)+$'); // refusal, for the next minute; then null
 * ```
 *
 * @module
 */
import type { ParamRefusal } from '../../../src/contract/params/common.ts';

/** Options of {@link RefusedPatterns}. */
export interface RefusedPatternsOptions {
  /** Most refusals remembered. */
  readonly capacity: number;
  /** How long a refusal stands, in ms. */
  readonly refusalMs: number;
  /** The clock, in Unix milliseconds. */
  readonly nowMs: () => number;
}

interface Refused {
  readonly atMs: number;
  readonly refusal: ParamRefusal;
}

/** Refusals by pattern source, oldest first. */
export class RefusedPatterns {
  readonly #options: RefusedPatternsOptions;
  readonly #bySource = new Map<string, Refused>();

  constructor(options: RefusedPatternsOptions) {
    this.#options = options;
  }

  /** The refusal of the pattern `source` while it stands, else null. */
  refusal(source: string): ParamRefusal | null {
    const refused = this.#bySource.get(source);
    if (refused === undefined) return null;
    return this.#options.nowMs() - refused.atMs < this.#options.refusalMs ? refused.refusal : null;
  }

  /** Remembers that the pattern `source` was refused with `refusal`, now. */
  remember(source: string, refusal: ParamRefusal): void {
    this.#bySource.delete(source);
    if (this.#bySource.size >= this.#options.capacity) {
      const oldest = this.#bySource.keys().next();
      if (oldest.done !== true) this.#bySource.delete(oldest.value);
    }
    this.#bySource.set(source, { atMs: this.#options.nowMs(), refusal });
  }
}
