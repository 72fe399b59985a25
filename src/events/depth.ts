/**
 * Nesting depth of ingested JSON. Deeply nested values are cheap to send and expensive to
 * keep: recursive serializers overflow the stack on them when a ring buffer returns them.
 *
 * @module
 */

import type { Json } from './types.ts';

/**
 * Whether `value` nests containers (arrays, objects) deeper than `limit`; the value itself
 * is depth 1 when it is a container. Stops at the first container beyond the limit, so the
 * recursion is never deeper than `limit`.
 *
 * @example
 * ```ts
 * exceedsDepth([{ a: [1] }], 3); // false: array, object, array
 * exceedsDepth([{ a: [1] }], 2); // true
 * ```
 */
export function exceedsDepth(value: Json | undefined, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (limit <= 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (exceedsDepth(item, limit - 1)) return true;
    return false;
  }
  for (const key in value) if (exceedsDepth(value[key], limit - 1)) return true;
  return false;
}
