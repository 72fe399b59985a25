/**
 * `logs.all` from the project's ring buffer: one ranged read, newest first. Each stored entry
 * holds the event's text; the HTTP answer copies each row's fields out of the entry's bytes
 * ({@link readLogsAllJson}) instead of decoding, parsing, serializing and encoding it again.
 *
 * @module
 */
import { recentLogsKey } from '../../rollup/keys.ts';
import {
  parseRecentLog,
  recentLogHeadLength,
  ROW_EXTRA_BYTES,
  sameEntry,
  writeRecentLogRow,
} from '../../rollup/recent-logs.ts';
import { JsonBytes } from '../../text/json-bytes.ts';
import { CLOSE_BRACKET, COLON, COMMA, OPEN_BRACKET } from '../../text/json-chars.ts';
import { readStateOrReport } from '../../rollup/unreadable.ts';
import type { LogsAllParams } from '../../contract/params/logs-all.ts';
import { LOGS_ALL_LIMIT } from '../../contract/registry.ts';
import type { LogRow } from '../../contract/rows.ts';
import type { ReadContext } from './context.ts';
import type { AnswerLimits, RowsJson } from './rows-json.ts';

const RECENT_LOG = { deserialize: parseRecentLog };

/**
 * The stored entries (at most 100) within the tier's retention and the requested range, each
 * event once. An event written by a version before the row form and written again by this one (a
 * replay of its stream after an upgrade) is held twice, in both forms, side by side in the set's
 * order (the same head, then the form): the second is left out, and as many more are read.
 */
async function readMembers(
  context: ReadContext,
  params: LogsAllParams,
): Promise<Uint8Array[]> {
  const retentionStart = context.nowUs - params.retentionUs;
  const minExclusive = params.startUs === null
    ? retentionStart
    : Math.max(retentionStart, params.startUs);
  const max = params.endUs ?? Number.POSITIVE_INFINITY;
  if (max <= minExclusive) return [];
  let limit = LOGS_ALL_LIMIT;
  for (;;) {
    const members = await context.store.rangeByScore(recentLogsKey(params.project), {
      max,
      minExclusive,
      limit,
    });
    const entries = members.filter((member, i) => i === 0 || !sameEntry(members[i - 1], member));
    if (entries.length >= LOGS_ALL_LIMIT || members.length < limit) {
      return entries.slice(0, LOGS_ALL_LIMIT);
    }
    limit += LOGS_ALL_LIMIT - entries.length;
  }
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

/**
 * What names the entries an answer is written from, in their order: each member's head (the
 * event: `recentLogHeadLength`) and its length, each head preceded by its own length so that no
 * two lists give the same bytes. A member is never changed in place, so the same digest reads the
 * same members, and they write the same rows. About 100 bytes an entry, where a row takes about
 * 1,200: the answer's entity tag hashes this, not the body.
 */
function entriesDigest(members: readonly Uint8Array[]): Uint8Array {
  const digest = new JsonBytes(members.length * 128);
  for (const member of members) {
    const head = recentLogHeadLength(member);
    digest.number(head).byte(COLON)
      .bytes(new Uint8Array(member.buffer, member.byteOffset, head))
      .number(member.length).byte(COMMA);
  }
  return digest.view();
}

/**
 * The rows of {@link readLogsAll} (within `limits`) as the UTF-8 bytes of a JSON array, with
 * `before` and `after` around it, each row's values copied from its stored entry's bytes: no
 * entry is decoded, parsed or encoded again. The rows that would take the answer over
 * `limits.maxBytes` are left out whole. Its digest names the entries read ({@link entriesDigest}).
 */
export async function readLogsAllJson(
  context: ReadContext,
  params: LogsAllParams,
  limits: AnswerLimits,
  before: Uint8Array,
  after: Uint8Array,
): Promise<RowsJson> {
  const key = recentLogsKey(params.project);
  const members = await readMembers(context, params);
  const frameBytes = before.length + 2 + after.length;
  let room = frameBytes;
  let largestRow = 0;
  for (const member of members) {
    room += member.length + ROW_EXTRA_BYTES + 1;
    largestRow = Math.max(largestRow, member.length + ROW_EXTRA_BYTES + 1);
  }
  // Room for what may be sent, and for the one row written before it is known not to fit.
  const out = new Uint8Array(Math.min(room, limits.maxBytes + largestRow + frameBytes));
  out.set(before, 0);
  out[before.length] = OPEN_BRACKET;
  let end = before.length + 1;
  let rows = 0;
  let truncated = false;
  for (const member of members) {
    if (rows === limits.maxRows) break;
    // A row after the first is written one byte on, its comma put before it once it is whole.
    const at = rows === 0 ? end : end + 1;
    const rowEnd = readStateOrReport(
      { deserialize: (bytes: Uint8Array) => writeRecentLogRow(bytes, out, at) },
      key,
      member,
      context.onUnreadable,
    );
    if (rowEnd === null) continue;
    if (rowEnd + 1 + after.length > limits.maxBytes) {
      truncated = true;
      break;
    }
    if (rows > 0) out[end] = COMMA;
    end = rowEnd;
    rows++;
  }
  out[end] = CLOSE_BRACKET;
  out.set(after, end + 1);
  return {
    json: out.subarray(0, end + 1 + after.length),
    rows,
    truncated,
    digest: entriesDigest(members),
  };
}
