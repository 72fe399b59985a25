/**
 * `functions.invocation-stats` from the rollups: one stored state per bucket of the series,
 * read in one round trip and finalized.
 *
 * @module
 */
import { invocationStats } from '../../rollup/invocation-stats.ts';
import { functionScope, invocationKey, projectPrefix } from '../../rollup/keys.ts';
import { readStateOrReport } from '../../rollup/unreadable.ts';
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
  const values = await context.store.getValues(keys);
  return series.map((bucket, i) => {
    const text = values[i] ?? null;
    const key = keys[i] ?? '';
    const stored = text === null
      ? null
      : readStateOrReport(invocationStats, key, text, context.onUnreadable);
    const state = stored ?? invocationStats.empty();
    return { timestamp: bucket, ...invocationStats.finalize(state) };
  });
}
