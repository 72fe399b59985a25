/**
 * `functions.invocation-stats` from the rollups: every writer's part of each bucket of the
 * series, read in one round trip, merged and finalized.
 *
 * @module
 */
import { invocationStats } from '../../rollup/invocation-stats.ts';
import { functionScope, invocationKey, projectPrefix } from '../../rollup/keys.ts';
import { mergeParts } from '../../rollup/unreadable.ts';
import { INVOCATION_INTERVALS, invocationSeries } from '../../time/series.ts';
import type { InvocationStatsParams } from '../../contract/params/invocation-stats.ts';
import type { InvocationStatsRow } from '../../contract/rows.ts';
import type { ReadContext } from './context.ts';

/** Every bucket of the series, ascending, empty ones included. */
export async function readInvocationStats(
  context: ReadContext,
  params: InvocationStatsParams,
): Promise<InvocationStatsRow[]> {
  const { grain } = INVOCATION_INTERVALS[params.interval];
  const series = invocationSeries(context.nowUs, params.interval);
  const prefix = projectPrefix(params.project);
  const scope = functionScope(params.functionId);
  const keys = series.map((bucket) => invocationKey(prefix, scope, grain, bucket));
  const buckets = await context.store.readBuckets(keys);
  return series.map((bucket, i) => {
    const parts = buckets[i] ?? [];
    const state = mergeParts(invocationStats, keys[i] ?? '', parts, context.onUnreadable) ??
      invocationStats.empty();
    return { timestamp: bucket, ...invocationStats.finalize(state) };
  });
}
