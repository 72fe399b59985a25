/**
 * The JSON text a version before the binary stored forms wrote for each state (see
 * `src/rollup/state-format.ts`): what a live store holds when this version is deployed over it.
 *
 * @module
 */
import { type InvocationStats, invocationStats } from '../../src/rollup/invocation-stats.ts';
import { toSerialized } from '../../src/rollup/quantiles.ts';
import { STATE_FORMATS } from '../../src/rollup/state-format.ts';
import { usageCounts } from '../../src/rollup/usage-counts.ts';

/** The JSON text the version before the binary forms wrote for an invocation-stats state. */
export function legacyInvocationJson(state: InvocationStats): string {
  return JSON.stringify({
    n: state.count,
    e: state.errorCount,
    s: state.statusClasses,
    t: state.timedCount,
    sum: state.sum,
    min: state.min,
    max: state.max,
    q: toSerialized(state.times),
  });
}

/**
 * The JSON text of a stored state (in any form), as the version before the binary forms wrote
 * it: `[total, rest, storage, auth, realtime]`, or `{"n", "e", "s", "t", "sum", "min", "max",
 * "q"}` with the sketch as `{"v": values}` or `{"b": [zero, bins, bins]}`.
 */
export function legacyJson(text: string): string {
  const format = text.charCodeAt(0);
  if (format === STATE_FORMATS.usageCountsV1) {
    const { total, rest, storage, auth, realtime } = usageCounts.deserialize(text);
    return JSON.stringify([total, rest, storage, auth, realtime]);
  }
  if (format === STATE_FORMATS.invocationStatsV1) {
    return legacyInvocationJson(invocationStats.deserialize(text));
  }
  return text;
}
