/**
 * Splits a time range into the fewest aligned buckets of the rollup grains, so that a range
 * starting mid-bucket (a window start at second precision inside an hour bucket) is summed
 * from finer buckets, and everything else from the coarsest ones.
 *
 * @module
 */
import { type Grain, GRAIN_US, GRAINS } from '../../time/grain.ts';

/** One stored bucket of a cover. */
export interface CoverPart {
  readonly grain: Grain;
  readonly bucketUs: number;
}

/**
 * The buckets, at grains no coarser than `coarsest`, that exactly cover `[startUs, endUs)`.
 * `startUs` must be aligned to the finest grain used and `endUs` to `coarsest`.
 *
 * @example
 * ```ts
 * // [10:59:30, 12:00:00) at hour grain: 30 seconds, then 11:00 as one hour bucket
 * cover(t('10:59:30'), t('12:00:00'), 'hour');
 * ```
 */
export function cover(startUs: number, endUs: number, coarsest: Grain): CoverPart[] {
  const grains = GRAINS.slice(0, GRAINS.indexOf(coarsest) + 1).reverse();
  const parts: CoverPart[] = [];
  let cursor = startUs;
  while (cursor < endUs) {
    const grain = grains.find((g) => cursor % GRAIN_US[g] === 0 && cursor + GRAIN_US[g] <= endUs);
    if (grain === undefined) {
      throw new RangeError(`cannot cover [${startUs}, ${endUs}) with grains up to ${coarsest}`);
    }
    parts.push({ grain, bucketUs: cursor });
    cursor += GRAIN_US[grain];
  }
  return parts;
}
