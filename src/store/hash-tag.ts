/**
 * Redis Cluster's hash tags: keys whose tag is equal live in one hash slot, so one script may
 * touch them all. The tag is what lies between the first `{` and the next `}` when that is not
 * empty, else the whole key (Redis's own rule).
 *
 * @module
 */

/** The part of `key` that decides its hash slot. */
export function hashTag(key: string): string {
  const open = key.indexOf('{');
  if (open < 0) return key;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

/**
 * Positions of `keys` grouped by hash tag, each group in the keys' order.
 *
 * @example
 * ```ts
 * groupByHashTag(['a:{x}:1', 'a:{y}:1', 'a:{x}:2']); // [[0, 2], [1]]
 * ```
 */
export function groupByHashTag(keys: readonly string[]): number[][] {
  const groups = new Map<string, number[]>();
  keys.forEach((key, position) => {
    const tag = hashTag(key);
    const group = groups.get(tag);
    if (group === undefined) groups.set(tag, [position]);
    else group.push(position);
  });
  return [...groups.values()];
}
