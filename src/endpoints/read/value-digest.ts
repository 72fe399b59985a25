/**
 * The values an answer's rows are written from, as bytes: what its entity tag is taken from where
 * they are far fewer than the answer's bytes (a `5min` invocation-stats answer is 57 KB of rows
 * written from about 6 KB of numbers; hashing the body took 30 of the API's 377 µs per answer,
 * `npm run bench:api -- --only 5min --profile DIR`). The endpoint that gives a digest makes sure
 * that two answers of one request with the same digest and the same number of rows are the same
 * bytes.
 *
 * @example
 * ```ts
 * const digest = new ValueDigest(8);
 * digest.add(3).add(null).add(-0);
 * digest.bytes(); // 24 bytes: 3, NaN for null, 0
 * ```
 *
 * @module
 */

/** A growing list of numbers, kept as 64-bit floats. */
export class ValueDigest {
  #values: Float64Array<ArrayBuffer>;
  #length = 0;

  /** An empty digest with room for `capacity` values before it grows. */
  constructor(capacity: number) {
    this.#values = new Float64Array(Math.max(8, capacity));
  }

  /**
   * Appends a value: null (which JSON writes for every non-finite number too) as NaN, and `-0`
   * as 0 (JSON writes both as `0`).
   */
  add(value: number | null): this {
    if (this.#length === this.#values.length) {
      const bigger = new Float64Array(this.#values.length * 2);
      bigger.set(this.#values);
      this.#values = bigger;
    }
    this.#values[this.#length++] = value === null || !Number.isFinite(value)
      ? Number.NaN
      : value === 0
      ? 0
      : value;
    return this;
  }

  /** The values added, as bytes (a view, valid until the next {@link add}). */
  bytes(): Uint8Array<ArrayBuffer> {
    return new Uint8Array(this.#values.buffer, 0, this.#length * 8);
  }
}
