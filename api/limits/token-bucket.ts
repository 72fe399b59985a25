/**
 * A token bucket: up to `burst` tokens, refilled at `perSecond`, on a clock the caller passes
 * (so every time rule is testable). A cost may be taken only when the tokens are there
 * ({@link TokenBucket.take}), or spent into debt when it is known only afterwards
 * ({@link TokenBucket.spend}: the time a pattern took to match); a bucket in debt refuses
 * until the refill has paid it back.
 *
 * @module
 */

/** Refill adds fractions of tokens: differences this small are rounding, not tokens. */
const EPSILON = 1e-9;

/** How fast a bucket refills and how much it holds. */
export interface BucketRate {
  /** Tokens added per second: a positive number. */
  readonly perSecond: number;
  /** Most tokens held: a positive number. A new bucket starts full. */
  readonly burst: number;
}

/**
 * Throws a RangeError naming the field unless both fields of `rate` are positive numbers.
 *
 * @example
 * ```ts
 * checkBucketRate({ perSecond: 0, burst: 1 }); // throws: 'perSecond' must be a positive number
 * ```
 */
export function checkBucketRate(rate: BucketRate): void {
  for (const name of ['perSecond', 'burst'] as const) {
    const value = rate[name];
    if (!Number.isFinite(value) || value <= 0) {
      throw new RangeError(`'${name}' must be a positive number: current value is ${value}`);
    }
  }
}

/**
 * One client's bucket.
 *
 * @example
 * ```ts
 * const bucket = new TokenBucket({ perSecond: 2, burst: 3 }, 0);
 * bucket.take(1, 0); // 0: taken
 * bucket.take(3, 0); // 500: not taken; one more token in 500 ms would make 3
 * ```
 */
export class TokenBucket {
  readonly #rate: BucketRate;
  #tokens: number;
  #atMs: number;

  constructor(rate: BucketRate, nowMs: number) {
    checkBucketRate(rate);
    this.#rate = rate;
    this.#tokens = rate.burst;
    this.#atMs = nowMs;
  }

  /** The tokens held at `nowMs` (negative while in debt). */
  tokens(nowMs: number): number {
    // A clock that steps back adds nothing: it never takes away either.
    const elapsedMs = Math.max(0, nowMs - this.#atMs);
    this.#tokens = Math.min(
      this.#rate.burst,
      this.#tokens + elapsedMs * this.#rate.perSecond / 1000,
    );
    this.#atMs = Math.max(this.#atMs, nowMs);
    return this.#tokens;
  }

  /**
   * Takes `cost` tokens if they are there and answers 0; else takes nothing and answers the ms
   * until they will be.
   */
  take(cost: number, nowMs: number): number {
    const missing = cost - this.tokens(nowMs);
    if (missing <= EPSILON) {
      this.#tokens -= cost;
      return 0;
    }
    return Math.max(1, Math.ceil(missing * 1000 / this.#rate.perSecond - EPSILON));
  }

  /** Takes `cost` tokens whether or not they are there: the bucket may go into debt. */
  spend(cost: number, nowMs: number): void {
    this.#tokens = this.tokens(nowMs) - cost;
  }

  /** True when the bucket holds its whole burst at `nowMs`. */
  isFull(nowMs: number): boolean {
    return this.tokens(nowMs) >= this.#rate.burst - EPSILON;
  }

  /** The ms until the bucket holds more than nothing again; 0 when it does now. */
  debtMs(nowMs: number): number {
    const tokens = this.tokens(nowMs);
    return tokens > EPSILON
      ? 0
      : Math.max(1, Math.ceil(-tokens * 1000 / this.#rate.perSecond - EPSILON));
  }
}
