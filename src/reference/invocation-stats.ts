/**
 * Exact `functions.invocation-stats` over raw events, straight from CONTRACT section 5.
 *
 * @module
 */

import type { InvocationStatsRow } from '../contract/rows.ts';
import type { LogEvent } from '../events/types.ts';
import { nearestRank } from './quantile.ts';
import { INVOCATION_INTERVALS, type InvocationQuery } from './query.ts';
import { bucketStart } from './time.ts';

interface Bucket {
  count: number;
  errors: number;
  /** Non-null execution times, in ms. */
  readonly times: number[];
}

/**
 * One row per bucket of the interval's series, ascending, empty buckets included. An
 * invocation (metadata entry, response entry) counts when its `project_ref` equals `project`,
 * its `function_id` equals `functionId` (unless null), and the event's timestamp truncates to
 * a bucket of the series; `error_count` counts `status_code >= 400`. Execution-time figures
 * are over non-null `execution_time_ms`, null when the bucket has none. The average sums the
 * values in ascending order, so the result does not depend on the order of `events`.
 *
 * @example
 * ```ts
 * invocationStatsRows(events, { project: 'p', functionId: null, interval: '15min' }, nowUs);
 * // 16 rows: { timestamp, count, error_count, min_execution_time, ..., p99_execution_time }
 * ```
 */
export function invocationStatsRows(
  events: readonly LogEvent[],
  query: InvocationQuery,
  nowUs: number,
): InvocationStatsRow[] {
  const { spanUs, grainUs } = INVOCATION_INTERVALS[query.interval];
  // CONTRACT section 5: trunc(now - span, grain), then each grain step up to and including trunc(now).
  const series: number[] = [];
  const last = bucketStart(nowUs, grainUs);
  for (let start = bucketStart(nowUs - spanUs, grainUs); start <= last; start += grainUs) {
    series.push(start);
  }
  const buckets = new Map<number, Bucket>();
  for (const start of series) buckets.set(start, { count: 0, errors: 0, times: [] });

  for (const event of events) {
    if (event.source !== 'function-edge') continue;
    const bucket = buckets.get(bucketStart(event.timestampUs, grainUs));
    if (bucket === undefined) continue;
    for (const invocation of event.invocations) {
      if (invocation.projectRef !== query.project) continue;
      if (query.functionId !== null && invocation.functionId !== query.functionId) continue;
      bucket.count++;
      if (invocation.statusCode !== null && invocation.statusCode >= 400) bucket.errors++;
      if (invocation.executionTimeMs !== null) bucket.times.push(invocation.executionTimeMs);
    }
  }

  return series.map((start) => {
    const bucket = buckets.get(start) ?? { count: 0, errors: 0, times: [] };
    const times = bucket.times.toSorted((a, b) => a - b);
    let sum = 0;
    for (const time of times) sum += time;
    return {
      timestamp: start,
      count: bucket.count,
      error_count: bucket.errors,
      min_execution_time: times[0] ?? null,
      max_execution_time: times.at(-1) ?? null,
      avg_execution_time: times.length === 0 ? null : sum / times.length,
      p95_execution_time: nearestRank(times, 95),
      p99_execution_time: nearestRank(times, 99),
    };
  });
}
