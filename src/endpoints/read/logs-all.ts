/**
 * `logs.all` from the project's ring buffer: one ranged read, newest first.
 *
 * @module
 */
import { recentLogsKey } from '../../rollup/keys.ts';
import { parseRecentLog } from '../../rollup/recent-logs.ts';
import { readStateOrReport } from '../../rollup/unreadable.ts';
import type { LogsAllParams } from '../../contract/params/logs-all.ts';
import { LOGS_ALL_LIMIT } from '../../contract/registry.ts';
import type { LogRow } from '../../contract/rows.ts';
import type { ReadContext } from './context.ts';

const RECENT_LOG = { deserialize: parseRecentLog };

/** The newest entries (at most 100) within the tier's retention and the requested range. */
export async function readLogsAll(context: ReadContext, params: LogsAllParams): Promise<LogRow[]> {
  const retentionStart = context.nowUs - params.retentionUs;
  const minExclusive = params.startUs === null
    ? retentionStart
    : Math.max(retentionStart, params.startUs);
  const max = params.endUs ?? Number.POSITIVE_INFINITY;
  if (max <= minExclusive) return [];
  const members = await context.store.rangeByScore(recentLogsKey(params.project), {
    max,
    minExclusive,
    limit: LOGS_ALL_LIMIT,
  });
  const key = recentLogsKey(params.project);
  const rows: LogRow[] = [];
  for (const member of members) {
    const entry = readStateOrReport(RECENT_LOG, key, member, context.onUnreadable);
    if (entry === null) continue;
    rows.push({
      id: entry.id,
      timestamp: entry.timestampUs,
      event_message: entry.eventMessage,
      metadata: entry.metadata,
    });
  }
  return rows;
}
