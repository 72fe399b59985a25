/**
 * A small, fast, seeded pseudo-random generator (mulberry32) with the draws the synthetic
 * generator needs. Deterministic: the same seed gives the same sequence on every runtime.
 * Not for anything secret.
 *
 * @module
 */

const TWO_POW_32 = 4_294_967_296;

/** Two hex digits of every byte value: table lookups beat `toString(16)` by far. */
const HEX_BYTE: readonly string[] = Array.from(
  { length: 256 },
  (_, byte) => byte.toString(16).padStart(2, '0'),
);

/** A seeded random source. */
export class Random {
  #state: number;
  #spareNormal: number | null = null;

  /**
   * @param seed any safe integer; seeds are mixed, so neighbouring seeds give unrelated streams.
   * @throws {RangeError} when `seed` is not a safe integer.
   */
  constructor(seed: number) {
    if (!Number.isSafeInteger(seed)) {
      throw new RangeError(`seed must be a safe integer: got ${seed}`);
    }
    const low = seed >>> 0;
    const high = Math.floor(seed / TWO_POW_32) >>> 0;
    this.#state = mix(low ^ Math.imul(high ^ 0x5bd1e995, 0x9e3779b9));
  }

  /**
   * A uniform 32-bit unsigned integer.
   *
   * @example
   * ```ts
   * new Random(1).uint32(); // same value on every run
   * ```
   */
  uint32(): number {
    this.#state = (this.#state + 0x6d2b79f5) | 0;
    let t = this.#state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /**
   * A uniform float in [0, 1).
   *
   * @example
   * ```ts
   * const u = new Random(1).next(); // 0 <= u < 1
   * ```
   */
  next(): number {
    return this.uint32() / TWO_POW_32;
  }

  /**
   * A uniform integer in [0, n).
   *
   * @example
   * ```ts
   * new Random(1).int(6); // 0..5
   * ```
   */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /**
   * True with probability `p`.
   *
   * @example
   * ```ts
   * new Random(1).chance(0); // false
   * ```
   */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /**
   * A uniformly chosen element of a non-empty array.
   *
   * @throws {RangeError} when the array is empty.
   *
   * @example
   * ```ts
   * new Random(1).pick(['a', 'b']); // 'a' or 'b'
   * ```
   */
  pick<T>(items: readonly T[]): T {
    const item = items[this.int(items.length)];
    if (item === undefined) throw new RangeError('pick needs a non-empty array: got 0 items');
    return item;
  }

  /**
   * A standard normal draw (Box-Muller, the spare value cached).
   *
   * @example
   * ```ts
   * new Random(1).normal(); // mean 0, standard deviation 1
   * ```
   */
  normal(): number {
    const spare = this.#spareNormal;
    if (spare !== null) {
      this.#spareNormal = null;
      return spare;
    }
    const u = 1 - this.next(); // (0, 1]: log(0) is impossible
    const v = this.next();
    const radius = Math.sqrt(-2 * Math.log(u));
    this.#spareNormal = radius * Math.sin(2 * Math.PI * v);
    return radius * Math.cos(2 * Math.PI * v);
  }

  /**
   * `count` lower-case hex digits (count <= 8 per call is cheapest).
   *
   * @example
   * ```ts
   * new Random(1).hex(8); // e.g. '9f3a0c1b'
   * ```
   */
  hex(count: number): string {
    let text = '';
    while (text.length < count) {
      const value = this.uint32();
      // Every index is a byte, so every lookup hits.
      text += `${HEX_BYTE[value >>> 24]}${HEX_BYTE[(value >>> 16) & 255]}${
        HEX_BYTE[(value >>> 8) & 255]
      }${HEX_BYTE[value & 255]}`;
    }
    return text.length === count ? text : text.slice(0, count);
  }

  /**
   * A random version-4 UUID.
   *
   * @example
   * ```ts
   * new Random(1).uuid(); // e.g. '9f3a0c1b-5d2e-4a7f-8b1c-0e9d8c7b6a5f'
   * ```
   */
  uuid(): string {
    const h = this.hex(32);
    const variant = '89ab'[this.int(4)] ?? '8';
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${
      h.slice(20, 32)
    }`;
  }
}

/** murmur3's 32-bit finalizer: spreads every input bit over the state. */
function mix(value: number): number {
  let h = value | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

/**
 * A sampler over fixed weights: `draw` returns an index with probability proportional to its
 * weight, by binary search over the cumulative weights.
 *
 * @example
 * ```ts
 * const sampler = new WeightedSampler([0.9, 0.1]);
 * sampler.draw(new Random(1)); // 0 nine times out of ten
 * ```
 */
export class WeightedSampler {
  readonly #cumulative: Float64Array;
  readonly #total: number;

  /** @throws {RangeError} when there are no weights or one is negative or not finite. */
  constructor(weights: readonly number[]) {
    if (weights.length === 0) throw new RangeError('WeightedSampler needs at least one weight');
    this.#cumulative = new Float64Array(weights.length);
    let total = 0;
    weights.forEach((weight, index) => {
      if (!(weight >= 0 && Number.isFinite(weight))) {
        throw new RangeError(`weights must be finite and non-negative: got ${weight} at ${index}`);
      }
      total += weight;
      this.#cumulative[index] = total;
    });
    if (total <= 0) throw new RangeError('WeightedSampler needs a positive total weight');
    this.#total = total;
  }

  /** An index drawn in proportion to the weights. */
  draw(random: Random): number {
    const target = random.next() * this.#total;
    const cumulative = this.#cumulative;
    let low = 0;
    let high = cumulative.length - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((cumulative[middle] ?? 0) > target) high = middle;
      else low = middle + 1;
    }
    return low;
  }
}

/**
 * Zipf-like weights `1 / rank^exponent` for ranks 1..count: a few heavy items, a long tail.
 *
 * @example
 * ```ts
 * zipfWeights(3, 1); // [1, 0.5, 0.333...]
 * ```
 */
export function zipfWeights(count: number, exponent: number): number[] {
  return Array.from({ length: count }, (_, index) => 1 / (index + 1) ** exponent);
}
