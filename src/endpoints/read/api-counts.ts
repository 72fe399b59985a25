/**
 * `usage.api-counts` from the rollups: the request hosts matching the pattern come from the
 * host registry, and each row bucket is summed from the hosts' buckets that cover it exactly
 * from the window start on (the first bucket is usually partial).
 *
 * @module
 */
import { hostScope, projectPrefix, usageKey } from '../../rollup/keys.ts';
import { mergeParts } from '../../rollup/unreadable.ts';
import { usageCounts } from '../../rollup/usage-counts.ts';
import { GRAIN_US, truncate } from '../../time/grain.ts';
import { USAGE_INTERVALS, usageWindowStart } from '../../time/series.ts';
import { formatDatetime } from '../../time/timestamp.ts';
import type { ApiCountsParams } from '../../contract/params/api-counts.ts';
import type { ApiCountsRow } from '../../contract/rows.ts';
import type { HostMatcher, ReadContext } from './context.ts';
import { cover } from './cover.ts';
import { DEFAULT_MATCH_BUDGET_MS, matchHosts, storeHosts } from './hosts.ts';

/** Rows for every bucket holding at least one counted request, ascending. */
export async function readApiCounts(
  context: ReadContext,
  params: ApiCountsParams,
): Promise<ApiCountsRow[]> {
  const { grain } = USAGE_INTERVALS[params.interval];
  const windowStart = usageWindowStart(context.nowUs, params.interval);
  const matchFromStore: HostMatcher = async (pattern, sinceUs) =>
    await matchHosts(await storeHosts(context, sinceUs), pattern, {
      budgetMs: DEFAULT_MATCH_BUDGET_MS,
    });
  const matched = await (context.matchHosts ?? matchFromStore)(params.project, windowStart);
  if (matched.length === 0) return [];

  // Row buckets from the one holding the window start up to the one holding now + skew.
  const rowBuckets: number[] = [];
  const last = truncate(context.nowUs + context.maxFutureSkewUs, grain);
  for (let bucket = truncate(windowStart, grain); bucket <= last; bucket += GRAIN_US[grain]) {
    rowBuckets.push(bucket);
  }
  const keys: string[] = [];
  const rowOfKey: number[] = [];
  rowBuckets.forEach((bucket, row) => {
    const parts = cover(Math.max(bucket, windowStart), bucket + GRAIN_US[grain], grain);
    for (const entry of matched) {
      const prefix = projectPrefix(entry.project);
      const host = hostScope(entry.host);
      for (const part of parts) {
        keys.push(usageKey(prefix, host, part.grain, part.bucketUs));
        rowOfKey.push(row);
      }
    }
  });
  const buckets = await context.store.readBuckets(keys);
  const totals = rowBuckets.map(() => usageCounts.empty());
  buckets.forEach((parts, i) => {
    const row = totals[rowOfKey[i] ?? -1];
    if (parts.length === 0 || row === undefined) return;
    const state = mergeParts(usageCounts, keys[i] ?? '', parts, context.onUnreadable);
    if (state !== null) usageCounts.merge(row, state);
  });
  const rows: ApiCountsRow[] = [];
  totals.forEach((counts, i) => {
    const bucket = rowBuckets[i];
    if (counts.total === 0 || bucket === undefined) return;
    rows.push({
      timestamp: formatDatetime(bucket),
      total_rest_requests: counts.rest,
      total_storage_requests: counts.storage,
      total_auth_requests: counts.auth,
      total_realtime_requests: counts.realtime,
    });
  });
  return rows;
}
