/**
 * Exact `logs.all` over raw events, straight from DESIGN section 5.
 *
 * @module
 */

import type { LogsAllParams } from '../contract/params/logs-all.ts';
import { LOGS_ALL_LIMIT } from '../contract/registry.ts';
import type { LogRow } from '../contract/rows.ts';
import { newestFirst } from '../events/order.ts';
import type { EdgeEvent, LogEvent } from '../events/types.ts';

/**
 * The newest `edge` entries of the project, at most 100: those strictly newer than
 * `now - retention`, strictly after `startUs` and at or before `endUs` (when given). Order:
 * newest first; equal timestamps by id descending, then in input order (`newestFirst`).
 *
 * @example
 * ```ts
 * logsAllRows(events, { project: 'p', tier: 'FREE', retentionUs: 86_400_000_000,
 *   startUs: null, endUs: null }, nowUs);
 * // [{ id, timestamp, event_message, metadata }, ...] newest first
 * ```
 */
export function logsAllRows(
  events: readonly LogEvent[],
  params: LogsAllParams,
  nowUs: number,
): LogRow[] {
  const oldestExcluded = nowUs - params.retentionUs;
  const selected: EdgeEvent[] = [];
  for (const event of events) {
    if (event.source !== 'edge' || event.project !== params.project) continue;
    const at = event.timestampUs;
    if (at <= oldestExcluded) continue;
    if (params.startUs !== null && at <= params.startUs) continue;
    if (params.endUs !== null && at > params.endUs) continue;
    selected.push(event);
  }
  // Array.prototype.sort is stable, which gives the input-order tie-break.
  selected.sort(newestFirst);
  return selected.slice(0, LOGS_ALL_LIMIT).map((event) => ({
    id: event.id,
    timestamp: event.timestampUs,
    event_message: event.eventMessage,
    metadata: event.metadata,
  }));
}
