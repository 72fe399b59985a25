/**
 * The nearest-rank quantile the benchmarks and the load-test report print (CONTRACT section 6's
 * definition: sorted values `v[0..n-1]`, quantile `q` is `v[ceil(q*n) - 1]`).
 *
 * @module
 */

/**
 * The nearest-rank quantile `q` (0..1) of ascending `sorted`; NaN when it is empty.
 *
 * @example
 * ```ts
 * nearestRank([1, 2, 3, 4], 0.5); // 2
 * ```
 */
export function nearestRank(sorted: readonly number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}
