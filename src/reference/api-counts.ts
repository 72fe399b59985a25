/**
 * Exact `usage.api-counts` over raw events, straight from DESIGN section 5.
 *
 * @module
 */

import { familiesOf, type Family } from '../contract/families.ts';
import type { ApiCountsParams } from '../contract/params/api-counts.ts';
import type { ApiCountsRow } from '../contract/rows.ts';
import type { LogEvent } from '../events/types.ts';
import { truncate } from '../time/grain.ts';
import { USAGE_INTERVALS, usageWindowStart } from '../time/series.ts';
import { formatDatetime } from '../time/timestamp.ts';

/**
 * One row per bucket holding at least one counted request, ascending. A request (metadata
 * entry, request entry of an `edge` event) counts when its host is known and the `project`
 * pattern is found in it, and its event's timestamp is at or after `usageWindowStart` (no
 * upper bound: DESIGN gives none). It adds one to each family its path contains; a counted
 * request of no family still makes its bucket's row exist, with zeros.
 *
 * @example
 * ```ts
 * apiCountsRows(events, { project: pattern, interval: 'hourly' }, nowUs);
 * // [{ timestamp, total_rest_requests, total_storage_requests, total_auth_requests,
 * //    total_realtime_requests }, ...]
 * ```
 */
export function apiCountsRows(
  events: readonly LogEvent[],
  params: ApiCountsParams,
  nowUs: number,
): ApiCountsRow[] {
  const grain = USAGE_INTERVALS[params.interval].grain;
  const windowStart = usageWindowStart(nowUs, params.interval);
  const buckets = new Map<number, Record<Family, number>>();

  for (const event of events) {
    if (event.source !== 'edge' || event.timestampUs < windowStart) continue;
    for (const request of event.requests) {
      if (request.host === null || !params.project.test(request.host)) continue;
      const start = truncate(event.timestampUs, grain);
      let counts = buckets.get(start);
      if (counts === undefined) {
        counts = { rest: 0, storage: 0, auth: 0, realtime: 0 };
        buckets.set(start, counts);
      }
      for (const family of familiesOf(request.path)) counts[family]++;
    }
  }

  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([start, counts]) => ({
      timestamp: formatDatetime(start),
      total_rest_requests: counts.rest,
      total_storage_requests: counts.storage,
      total_auth_requests: counts.auth,
      total_realtime_requests: counts.realtime,
    }));
}
