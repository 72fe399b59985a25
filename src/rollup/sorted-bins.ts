/**
 * The ascending order of a quantile sketch's bins (a map of bin index to count), kept per map: a
 * hot bucket's sketch is written again at every flush, and sorting its bins is most of that.
 *
 * @example
 * ```ts
 * for (const bin of sortedBins(sketch.positive)) out.unsigned(sketch.positive.get(bin) ?? 0);
 * ```
 *
 * @module
 */

/**
 * The last sorted order of each bin map. Bins are only ever added, never removed, so an order
 * of as many bins as the map holds is still its order: a hot bucket, serialized again at every
 * flush, is sorted again only when a value fell in a new bin, and then only its new bins.
 */
const sortedOrders = new WeakMap<ReadonlyMap<number, number>, Float64Array>();

/** Bin indexes in ascending order (a typed array sorts numbers without a comparator call). */
export function sortedBins(bins: ReadonlyMap<number, number>): Float64Array {
  const known = sortedOrders.get(bins);
  if (known !== undefined && known.length === bins.size) return known;
  const sorted = known === undefined
    ? Float64Array.from(bins.keys()).sort()
    : withAddedBins(known, bins);
  sortedOrders.set(bins, sorted);
  return sorted;
}

/**
 * `bins`' sorted order from `known`, the order of its first `known.length` bins: a map iterates
 * in the order its keys were added, and bins are never removed, so the bins added since are its
 * last keys. They are sorted alone and merged in (a hot day's sketch holds hundreds of bins and
 * gains one or two a flush).
 */
function withAddedBins(known: Float64Array, bins: ReadonlyMap<number, number>): Float64Array {
  const added = new Float64Array(bins.size - known.length);
  let skip = known.length;
  let next = 0;
  for (const bin of bins.keys()) {
    if (skip > 0) skip -= 1;
    else added[next++] = bin;
  }
  added.sort();
  const sorted = new Float64Array(bins.size);
  let a = 0;
  let b = 0;
  for (let k = 0; k < sorted.length; k++) {
    const fromKnown = b === added.length ||
      (a < known.length && (known[a] as number) <= (added[b] as number));
    sorted[k] = fromKnown ? known[a++] as number : added[b++] as number;
  }
  return sorted;
}
