/**
 * Exact `logs.all` over raw events, straight from CONTRACT section 5.
 *
 * @module
 */

import type { LogRow } from '../contract/rows.ts';
import type { EdgeEvent, LogEvent } from '../events/types.ts';
import type { LogsQuery } from './query.ts';

/** CONTRACT section 5: at most 100 rows. */
const LOGS_ALL_ROWS = 100;

/** Descending by timestamp, then by id in UTF-8 byte order (that of code points) descending. */
function newestFirst(a: EdgeEvent, b: EdgeEvent): number {
  if (a.timestampUs !== b.timestampUs) return b.timestampUs - a.timestampUs;
  const x = [...a.id].map((character) => character.codePointAt(0) ?? 0);
  const y = [...b.id].map((character) => character.codePointAt(0) ?? 0);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return (y[i] ?? 0) - (x[i] ?? 0);
  }
  return y.length - x.length;
}

/**
 * The newest `edge` entries of the project, at most 100: those strictly newer than
 * `now - retention`, strictly after `startUs` and at or before `endUs` (when given). Order:
 * newest first; equal timestamps by id descending, then in input order.
 *
 * @example
 * ```ts
 * logsAllRows(events, { project: 'p', retentionUs: 86_400_000_000, startUs: null,
 *   endUs: null }, nowUs);
 * // [{ id, timestamp, event_message, metadata }, ...] newest first
 * ```
 */
export function logsAllRows(
  events: readonly LogEvent[],
  query: LogsQuery,
  nowUs: number,
): LogRow[] {
  const oldestExcluded = nowUs - query.retentionUs;
  const selected: EdgeEvent[] = [];
  for (const event of events) {
    if (event.source !== 'edge' || event.project !== query.project) continue;
    const at = event.timestampUs;
    if (at <= oldestExcluded) continue;
    if (query.startUs !== null && at <= query.startUs) continue;
    if (query.endUs !== null && at > query.endUs) continue;
    selected.push(event);
  }
  // Array.prototype.sort is stable, which gives the input-order tie-break.
  selected.sort(newestFirst);
  return selected.slice(0, LOGS_ALL_ROWS).map((event) => ({
    id: event.id,
    timestamp: event.timestampUs,
    event_message: event.eventMessage,
    metadata: event.metadata,
  }));
}
