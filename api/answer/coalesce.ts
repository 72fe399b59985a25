/**
 * Single-flight with a short memory. Identical requests (same key) share one computation: while
 * it is in flight, and for `windowMs` after it started. Once that has passed, the next request
 * starts a new computation and, for at most `staleMs` more, is answered the previous result
 * without waiting (as are the requests arriving before the new one settles).
 *
 * So no answer is more than `windowMs + staleMs` behind the store (1.2 s by default), a burst
 * of identical requests costs one store read per window, and refreshes are spread over time
 * (each key expires when its own computation is a window old) instead of all keys missing at
 * once on a clock boundary, which would stall every request behind a wave of store reads. Keys
 * first asked for together would still refresh together, window after window; with `spreadMs`
 * each key's window is shorter by its own fixed amount below it, so such waves drift apart.
 *
 * A failed computation is never kept: the next request computes again.
 *
 * @module
 */

/** Options of {@link Coalescer}. */
export interface CoalescerOptions {
  /** The clock, in Unix milliseconds. */
  readonly nowMs: () => number;
  /** How long a result is reused, in ms; 0 = share only computations in flight. Default 1000. */
  readonly windowMs?: number;
  /** How long past its window a result may still answer while it is recomputed. Default windowMs / 5. */
  readonly staleMs?: number;
  /** Most results kept; beyond it, results are computed but not kept. Default 1000. */
  readonly maxEntries?: number;
  /**
   * Each key's window is shorter than `windowMs` by a fixed amount below this, derived from the
   * key. Default 0 (every window is `windowMs`).
   */
  readonly spreadMs?: number;
}

/** A fixed number in [0, 1) for `key` (FNV-1a). */
function keyFraction(key: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) hash = Math.imul(hash ^ key.charCodeAt(i), 0x01000193);
  return (hash >>> 0) / 2 ** 32;
}

interface Entry<V> {
  readonly startedMs: number;
  readonly promise: Promise<V>;
  /** Set once `promise` resolved. */
  settled: { readonly value: V } | null;
  /** The computation that replaces this entry once it settles, when one started. */
  next: Entry<V> | null;
}

/**
 * Shares computations by key.
 *
 * @example
 * ```ts
 * const coalescer = new Coalescer<string>({ nowMs: Date.now });
 * const [a, b] = await Promise.all([
 *   coalescer.run('k', () => readStore()),
 *   coalescer.run('k', () => readStore()), // not called: shares the first read
 * ]);
 * ```
 */
export class Coalescer<V> {
  readonly #nowMs: () => number;
  readonly #windowMs: number;
  readonly #staleMs: number;
  readonly #maxEntries: number;
  readonly #spreadMs: number;
  #entries = new Map<string, Entry<V>>();
  #sweptMs = Number.NEGATIVE_INFINITY;

  constructor(options: CoalescerOptions) {
    const windowMs = options.windowMs ?? 1000;
    const staleMs = options.staleMs ?? Math.floor(windowMs / 5);
    const maxEntries = options.maxEntries ?? 1000;
    const spreadMs = options.spreadMs ?? 0;
    for (
      const [name, value] of [
        ['windowMs', windowMs],
        ['staleMs', staleMs],
        ['spreadMs', spreadMs],
      ] as const
    ) {
      if (!Number.isInteger(value) || value < 0) {
        throw new RangeError(`'${name}' must be a non-negative integer: current value is ${value}`);
      }
    }
    if (!Number.isInteger(maxEntries) || maxEntries < 1) {
      throw new RangeError(
        `'maxEntries' must be a positive integer: current value is ${maxEntries}`,
      );
    }
    this.#nowMs = options.nowMs;
    this.#windowMs = windowMs;
    this.#staleMs = windowMs === 0 ? 0 : staleMs;
    this.#maxEntries = maxEntries;
    this.#spreadMs = Math.min(spreadMs, windowMs);
  }

  /** The result for `key`: shared, or computed by `compute`. */
  run(key: string, compute: () => Promise<V>): Promise<V> {
    const nowMs = this.#nowMs();
    this.#sweep(nowMs);
    const entry = this.#entries.get(key);
    if (entry === undefined) return this.#start(key, compute, nowMs, null).promise;
    const age = nowMs - entry.startedMs;
    const windowMs = this.#windowMs - Math.floor(keyFraction(key) * this.#spreadMs);
    if (entry.settled === null || age < windowMs) return entry.promise;
    const next = entry.next ?? (entry.next = this.#start(key, compute, nowMs, entry));
    if (age < windowMs + this.#staleMs) return Promise.resolve(entry.settled.value);
    return next.promise;
  }

  /** Forgets every kept result (after a write this process made), so the next run recomputes. */
  invalidate(): void {
    this.#entries = new Map();
  }

  #start(
    key: string,
    compute: () => Promise<V>,
    nowMs: number,
    previous: Entry<V> | null,
  ): Entry<V> {
    const entry: Entry<V> = { startedMs: nowMs, promise: compute(), settled: null, next: null };
    const entries = this.#entries;
    if (previous === null) {
      if (entries.size >= this.#maxEntries) return entry;
      entries.set(key, entry);
    }
    // A refresh takes over once it settles; until then the previous entry answers.
    const current = () => {
      const found = entries.get(key);
      return found !== undefined && (found === entry || found === previous);
    };
    entry.promise.then(
      (value) => {
        entry.settled = { value };
        if (!current()) return;
        if (this.#windowMs === 0) entries.delete(key);
        else entries.set(key, entry);
      },
      () => {
        if (current()) entries.delete(key);
      },
    );
    return entry;
  }

  /** Drops results too old to answer, at most once a second. */
  #sweep(nowMs: number): void {
    if (nowMs - this.#sweptMs < 1000) return;
    this.#sweptMs = nowMs;
    const oldest = nowMs - this.#windowMs - this.#staleMs;
    for (const [key, entry] of this.#entries) {
      if (entry.settled !== null && entry.next === null && entry.startedMs < oldest) {
        this.#entries.delete(key);
      }
    }
  }
}
