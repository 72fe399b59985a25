/**
 * Exact `usage.api-counts` over raw events, straight from CONTRACT section 5.
 *
 * @module
 */

import type { ApiCountsRow } from '../contract/rows.ts';
import type { LogEvent } from '../events/types.ts';
import { type ApiCountsQuery, USAGE_INTERVALS } from './query.ts';
import { bucketStart, datetimeText } from './time.ts';

type Family = 'rest' | 'storage' | 'auth' | 'realtime';

/** CONTRACT section 5: a request counts toward each family whose text its path contains. */
const FAMILY_TEXT: readonly (readonly [Family, string])[] = [
  ['rest', '/rest'],
  ['storage', '/storage'],
  ['auth', '/auth'],
  ['realtime', '/realtime'],
];

/**
 * One row per bucket holding at least one counted request, ascending. A request (metadata
 * entry, request entry of an `edge` event) counts when its host is known and the `project`
 * pattern is found in it, and its event's timestamp is at or after the window start, `now -
 * window` rounded down to the interval's precision (no upper bound: CONTRACT section 5.3 gives none). It adds one to each family its path contains; a counted
 * request of no family still makes its bucket's row exist, with zeros.
 *
 * @example
 * ```ts
 * apiCountsRows(events, { matches: (host) => host.includes('ref'), interval: 'hourly' }, nowUs);
 * // [{ timestamp, total_rest_requests, total_storage_requests, total_auth_requests,
 * //    total_realtime_requests }, ...]
 * ```
 */
export function apiCountsRows(
  events: readonly LogEvent[],
  query: ApiCountsQuery,
  nowUs: number,
): ApiCountsRow[] {
  const { windowUs, grainUs, precisionUs } = USAGE_INTERVALS[query.interval];
  const windowStart = bucketStart(nowUs - windowUs, precisionUs);
  const buckets = new Map<number, Record<Family, number>>();

  for (const event of events) {
    if (event.source !== 'edge' || event.timestampUs < windowStart) continue;
    for (const request of event.requests) {
      if (request.host === null || !query.matches(request.host)) continue;
      const start = bucketStart(event.timestampUs, grainUs);
      let counts = buckets.get(start);
      if (counts === undefined) {
        counts = { rest: 0, storage: 0, auth: 0, realtime: 0 };
        buckets.set(start, counts);
      }
      for (const [family, text] of FAMILY_TEXT) {
        if (request.path !== null && request.path.includes(text)) counts[family]++;
      }
    }
  }

  return [...buckets.entries()]
    .sort(([a], [b]) => a - b)
    .map(([start, counts]) => ({
      timestamp: datetimeText(start),
      total_rest_requests: counts.rest,
      total_storage_requests: counts.storage,
      total_auth_requests: counts.auth,
      total_realtime_requests: counts.realtime,
    }));
}
