/**
 * Two nearest-rank quantiles of a sketch read straight from its stored form (what `writeSketch`
 * wrote), equal to what `quantile` reads from the sketch `readSketch` builds, without building
 * it: no array of values, no map of bins. An answer finalizes most of its buckets from one stored
 * part each (src/endpoints/read/invocation-stats.ts).
 *
 * @example
 * ```ts
 * const found: TwoQuantiles = { low: null, high: null };
 * readSketchQuantiles(new SevenBitReader(stored, at), 0.95, 0.99, found);
 * found.high; // the p99 of the stored values
 * ```
 *
 * @module
 */
import type { SevenBitReader } from '../text/seven-bit.ts';
import {
  rankOf,
  readBins,
  readExactLength,
  readExactValue,
  readSketchLayout,
  representative,
  SKETCH_LAYOUT,
} from './quantiles.ts';

/** Where {@link readSketchQuantiles} puts its two quantiles: null for an empty sketch. */
export interface TwoQuantiles {
  low: number | null;
  high: number | null;
}

/** A sketch's bins of one sign, read in stored (ascending) order; reused from call to call. */
class BinList {
  readonly bins: number[] = [];
  readonly counts: number[] = [];

  get size(): number {
    return this.bins.length;
  }

  /** Reads one sign's bins as `readSketch` does, refusing what it refuses; their total count. */
  read(input: SevenBitReader): number {
    this.bins.length = 0;
    this.counts.length = 0;
    return readBins(input, this.#push);
  }

  readonly #push = (bin: number, count: number): void => {
    this.bins.push(bin);
    this.counts.push(count);
  };
}

const POSITIVE = new BinList();
const NEGATIVE = new BinList();

/**
 * Reads a stored sketch from `input` (throwing where `readSketch` would, with its messages) and sets
 * `found.low` and `found.high` to its nearest-rank `qLow` and `qHigh` quantiles (`qLow <= qHigh`),
 * as `quantile` gives them. After a throw, `found` holds nothing to read.
 */
export function readSketchQuantiles(
  input: SevenBitReader,
  qLow: number,
  qHigh: number,
  found: TwoQuantiles,
): void {
  if (!(qLow <= qHigh)) throw new Error(`the lower quantile ${qLow} is above ${qHigh}`);
  found.low = null;
  found.high = null;
  const layout = readSketchLayout(input);
  if (layout === SKETCH_LAYOUT.bins) {
    readBinnedQuantiles(input, qLow, qHigh, found);
    return;
  }
  const length = readExactLength(input);
  if (length === 0) return;
  const low = rankOf(qLow, length) - 1;
  const high = rankOf(qHigh, length) - 1;
  let previous = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < length; i++) {
    const value = readExactValue(input, layout, i, previous);
    if (i === low) found.low = value;
    if (i === high) found.high = value;
    previous = value;
  }
}

/** The binned layout's part of {@link readSketchQuantiles}, after its layout byte. */
function readBinnedQuantiles(
  input: SevenBitReader,
  qLow: number,
  qHigh: number,
  found: TwoQuantiles,
): void {
  const zero = input.unsigned();
  const count = zero + POSITIVE.read(input) + NEGATIVE.read(input);
  if (count === 0) return;
  const low = rankOf(qLow, count);
  const high = rankOf(qHigh, count);
  let seen = 0;
  // Ascending values: the negatives from the largest magnitude, the zeros, the positives.
  const take = (value: number, binCount: number): boolean => {
    seen += binCount;
    if (found.low === null && seen >= low) found.low = value;
    if (seen >= high) {
      found.high = value;
      return true;
    }
    return false;
  };
  for (let i = NEGATIVE.size - 1; i >= 0; i--) {
    if (take(-representative(NEGATIVE.bins[i] as number), NEGATIVE.counts[i] as number)) return;
  }
  if (zero > 0 && take(0, zero)) return;
  for (let i = 0; i < POSITIVE.size; i++) {
    if (take(representative(POSITIVE.bins[i] as number), POSITIVE.counts[i] as number)) return;
  }
}
