/**
 * Exact quantiles, the values the rollups' sketches approximate (CONTRACT section 5).
 *
 * @module
 */

/**
 * Nearest-rank percentile of ascending values: `v[ceil(p/100 * n) - 1]`, or null when there
 * are none. Computed from the integer `percent * n`, so no floating product such as
 * `0.95 * n` can land a hair above an integer and shift the rank by one.
 *
 * @throws {RangeError} when `percent` is not within (0, 100].
 *
 * @example
 * ```ts
 * nearestRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 95); // 10
 * nearestRank([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 50); // 5
 * nearestRank([], 99); // null
 * ```
 */
export function nearestRank(sortedAscending: readonly number[], percent: number): number | null {
  if (!(percent > 0 && percent <= 100)) {
    throw new RangeError(`percent must be within (0, 100]: got ${percent}`);
  }
  const n = sortedAscending.length;
  if (n === 0) return null;
  const rank = Math.ceil((percent * n) / 100);
  return sortedAscending[rank - 1] ?? null;
}
