/**
 * `logs.all` from the project's ring buffer: one ranged read, newest first. Each stored entry
 * is the event's text; the HTTP answer copies each row's fields out of it as JSON text
 * ({@link readLogsAllJson}) instead of parsing and serializing it again.
 *
 * @module
 */
import { recentLogsKey } from '../../rollup/keys.ts';
import { parseRecentLog, recentLogRowJson } from '../../rollup/recent-logs.ts';
import { readStateOrReport } from '../../rollup/unreadable.ts';
import type { LogsAllParams } from '../../contract/params/logs-all.ts';
import { LOGS_ALL_LIMIT } from '../../contract/registry.ts';
import type { LogRow } from '../../contract/rows.ts';
import type { ReadContext } from './context.ts';

const RECENT_LOG = { deserialize: parseRecentLog };
const RECENT_LOG_JSON = { deserialize: recentLogRowJson };

/** The stored entries (at most 100) within the tier's retention and the requested range. */
async function readMembers(context: ReadContext, params: LogsAllParams): Promise<string[]> {
  const retentionStart = context.nowUs - params.retentionUs;
  const minExclusive = params.startUs === null
    ? retentionStart
    : Math.max(retentionStart, params.startUs);
  const max = params.endUs ?? Number.POSITIVE_INFINITY;
  if (max <= minExclusive) return [];
  return await context.store.rangeByScore(recentLogsKey(params.project), {
    max,
    minExclusive,
    limit: LOGS_ALL_LIMIT,
  });
}

/** The newest entries (at most 100) within the tier's retention and the requested range. */
export async function readLogsAll(context: ReadContext, params: LogsAllParams): Promise<LogRow[]> {
  const key = recentLogsKey(params.project);
  const rows: LogRow[] = [];
  for (const member of await readMembers(context, params)) {
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

/** The rows of {@link readLogsAll}, each as its JSON text. */
export async function readLogsAllJson(
  context: ReadContext,
  params: LogsAllParams,
): Promise<string[]> {
  const key = recentLogsKey(params.project);
  const rows: string[] = [];
  for (const member of await readMembers(context, params)) {
    const row = readStateOrReport(RECENT_LOG_JSON, key, member, context.onUnreadable);
    if (row !== null) rows.push(row);
  }
  return rows;
}
