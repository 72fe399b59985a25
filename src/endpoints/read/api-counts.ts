/**
 * `usage.api-counts` from the rollups: the request hosts matching the pattern come from the
 * host registry, and each row bucket is summed from the hosts' buckets that cover it exactly
 * from the window start on (the first bucket is usually partial).
 *
 * @module
 */
import {
  bucketSlot,
  bucketSuffix,
  hostScope,
  partAddress,
  projectPrefix,
  usageBucketKey,
} from '../../rollup/keys.ts';
import { mergeParts } from '../../rollup/unreadable.ts';
import { type UsageCounts, usageCounts } from '../../rollup/usage-counts.ts';
import { CLOSE_BRACE } from '../../text/json-chars.ts';
import { GRAIN_US, truncate } from '../../time/grain.ts';
import { USAGE_INTERVALS, usageWindowStart } from '../../time/series.ts';
import { formatDatetime } from '../../time/timestamp.ts';
import type { ApiCountsParams } from '../../contract/params/api-counts.ts';
import type { ApiCountsRow } from '../../contract/rows.ts';
import type { HostMatcher, ReadContext } from './context.ts';
import { cover } from './cover.ts';
import { DEFAULT_MATCH_BUDGET_MS, matchHosts, storeHosts } from './hosts.ts';
import { type AnswerLimits, type RowsJson, writeRows } from './rows-json.ts';
import { readSeconds } from './seconds.ts';

/** Each row bucket's start and its counts, ascending, empty ones included. */
async function readTotals(
  context: ReadContext,
  params: ApiCountsParams,
): Promise<{ readonly rowBuckets: readonly number[]; readonly totals: readonly UsageCounts[] }> {
  const { grain } = USAGE_INTERVALS[params.interval];
  const windowStart = usageWindowStart(context.nowUs, params.interval);
  const matchFromStore: HostMatcher = async (pattern, sinceUs) =>
    await matchHosts(await storeHosts(context, sinceUs), pattern, {
      budgetMs: DEFAULT_MATCH_BUDGET_MS,
    });
  const matched = await (context.matchHosts ?? matchFromStore)(params.project, windowStart);
  if (matched.length === 0) return { rowBuckets: [], totals: [] };

  // Row buckets from the one holding the window start up to the one holding now + skew.
  const rowBuckets: number[] = [];
  const last = truncate(context.nowUs + context.maxFutureSkewUs, grain);
  for (let bucket = truncate(windowStart, grain); bucket <= last; bucket += GRAIN_US[grain]) {
    rowBuckets.push(bucket);
  }
  const scopes = matched.map((entry) => {
    const prefix = projectPrefix(entry.project);
    const host = hostScope(entry.host);
    return (suffix: string) => usageBucketKey(prefix, host, suffix);
  });
  // Coarser buckets by key; seconds (only where the window starts mid-minute) as `seconds.ts`
  // reads them.
  const keys: string[] = [];
  const rowOfKey: number[] = [];
  const seconds: number[] = [];
  const rowOfSecond: number[] = [];
  rowBuckets.forEach((bucket, row) => {
    for (const part of cover(Math.max(bucket, windowStart), bucket + GRAIN_US[grain], grain)) {
      if (part.grain === 'second') {
        seconds.push(part.bucketUs);
        rowOfSecond.push(row);
        continue;
      }
      const suffix = bucketSuffix(part.grain, part.bucketUs);
      for (const scope of scopes) {
        keys.push(scope(suffix));
        rowOfKey.push(row);
      }
    }
  });
  const [buckets, secondParts] = await Promise.all([
    context.store.readBuckets(keys),
    seconds.length === 0
      ? Promise.resolve([])
      : readSeconds(context.store, { scopes, seconds, headCount: usageCounts.headCount }),
  ]);
  const totals = rowBuckets.map(() => usageCounts.empty());
  const add = (row: number, key: string, parts: readonly Uint8Array[]) => {
    const total = totals[row];
    if (parts.length === 0 || total === undefined) return;
    const state = mergeParts(usageCounts, key, parts, context.onUnreadable);
    if (state !== null) usageCounts.merge(total, state);
  };
  buckets.forEach((parts, i) => add(rowOfKey[i] ?? -1, keys[i] ?? '', parts));
  secondParts.forEach((bySecond, s) => {
    bySecond.forEach((parts, i) => {
      const second = seconds[i] as number;
      const key = (scopes[s] as (suffix: string) => string)(bucketSuffix('second', second));
      add(rowOfSecond[i] ?? -1, partAddress(key, bucketSlot('second', second)), parts);
    });
  });
  return { rowBuckets, totals };
}

/** Rows for every bucket holding at least one counted request, ascending. */
export async function readApiCounts(
  context: ReadContext,
  params: ApiCountsParams,
): Promise<ApiCountsRow[]> {
  const { rowBuckets, totals } = await readTotals(context, params);
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

const UTF8 = new TextEncoder();
const TIMESTAMP = UTF8.encode('{"timestamp":"');
const REST = UTF8.encode('","total_rest_requests":');
const STORAGE = UTF8.encode(',"total_storage_requests":');
const AUTH = UTF8.encode(',"total_auth_requests":');
const REALTIME = UTF8.encode(',"total_realtime_requests":');

/**
 * The rows of {@link readApiCounts} (within `limits`) as the UTF-8 bytes of a JSON array, with
 * `before` and `after` around it, each written straight into the answer's bytes (a timestamp's
 * text is ASCII and needs no escape).
 */
export async function readApiCountsJson(
  context: ReadContext,
  params: ApiCountsParams,
  limits: AnswerLimits,
  before: Uint8Array,
  after: Uint8Array,
): Promise<RowsJson> {
  const { rowBuckets, totals } = await readTotals(context, params);
  const counted = totals.flatMap((counts, i) => counts.total === 0 ? [] : [i]);
  return writeRows(limits, before, after, counted.length, (out, row) => {
    const i = counted[row] as number;
    const counts = totals[i] as UsageCounts;
    out.bytes(TIMESTAMP).ascii(formatDatetime(rowBuckets[i] as number))
      .bytes(REST).number(counts.rest).bytes(STORAGE).number(counts.storage)
      .bytes(AUTH).number(counts.auth).bytes(REALTIME).number(counts.realtime).byte(CLOSE_BRACE);
  });
}
