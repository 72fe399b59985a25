/**
 * The order of `logs.all`: newest first. Shared by the reference evaluator and the ring
 * buffers, which must agree on ties to give identical answers.
 *
 * @module
 */
import { compareUtf8 } from '../text/utf8-order.ts';

/** What the order looks at. */
export interface Ordered {
  readonly timestampUs: number;
  readonly id: string;
}

/**
 * Comparator for newest first: later `timestampUs` first; for equal timestamps, greater `id`
 * first in UTF-8 byte order (the order Redis keeps sorted-set members of equal score in).
 * Entries equal in both compare as 0, so a stable sort keeps them in input (arrival) order;
 * the ring buffer encodes positions so that earlier arrivals come first too.
 *
 * @example
 * ```ts
 * [{ timestampUs: 1, id: 'a' }, { timestampUs: 2, id: 'a' }, { timestampUs: 1, id: 'b' }]
 *   .sort(newestFirst); // timestamps 2, 1, 1 with ids 'a', 'b', 'a'
 * ```
 */
export function newestFirst(a: Ordered, b: Ordered): number {
  if (a.timestampUs !== b.timestampUs) return b.timestampUs - a.timestampUs;
  return compareUtf8(b.id, a.id);
}
