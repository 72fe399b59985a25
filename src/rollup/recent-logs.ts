/**
 * The ring buffer of a project's newest edge log entries, as members of a sorted set scored by
 * the entry's timestamp (µs). Among equal timestamps the store orders members by their bytes, so
 * a member starts with the entry id (newest-first reads give ids descending, as the reference
 * evaluator orders ties), then a fixed-width position that keeps duplicates apart (earlier
 * arrival first), then the timestamp and the event's JSON text as received (JSON text never
 * holds a raw NUL, so the last NUL ends the timestamp).
 *
 * @module
 */
import { MAX_EVENT_AGE_US } from '../events/limits.ts';
import type { EdgeEvent, Json, JsonObject } from '../events/types.ts';
import type { ScoredMember } from '../store/port.ts';
import { OPEN_BRACKET, QUOTE } from '../text/json-chars.ts';
import { topLevelFields } from '../text/json-fields.ts';

/** Default number of entries kept per project (DESIGN.md section 5: at least 10,000). */
export const DEFAULT_RECENT_LOGS_CAPACITY = 10_000;

/** Oldest entry kept: the longest tier retention (90 days). */
export const RECENT_LOGS_MAX_AGE_US = MAX_EVENT_AGE_US;

/** A recent log entry as read back. */
export interface RecentLogEntry {
  readonly id: string;
  readonly timestampUs: number;
  readonly eventMessage: string | null;
  readonly metadata: JsonObject[];
}

const SEPARATOR = '\u0000';

/** The largest encodable offset: complements stay exact integers of at most 16 digits. */
const MAX_POSITION = Number.MAX_SAFE_INTEGER;

/**
 * The sorted-set member of one entry. `position` identifies where the event came from, see
 * {@link logPosition}: unique per event, and the same each time the event is written again (a
 * replay of its stream), which is what lets a replayed stream write entries outside its commits.
 */
export function recentLogMember(event: EdgeEvent, position: string): ScoredMember {
  const { id, timestampUs, raw } = event;
  return {
    score: timestampUs,
    member: `${id}${SEPARATOR}${position}${SEPARATOR}${timestampUs}${SEPARATOR}${raw}`,
  };
}

/**
 * Position text of an offset in a stream: the offset's complement at fixed width, so that in
 * the newest-first (descending) reads of the store an earlier arrival sorts first among entries
 * of equal timestamp and id, as `src/events/order.ts`'s input-order tie-break says.
 */
export function logPosition(stream: string, offset: number): string {
  return `${String(MAX_POSITION - offset).padStart(16, '0')}@${stream}`;
}

function isEdgeShaped(
  value: unknown,
): value is { id: string; event_message?: Json; metadata: JsonObject[] } {
  if (value === null || typeof value !== 'object') return false;
  const { id, metadata } = value as { id?: unknown; metadata?: unknown };
  return typeof id === 'string' && Array.isArray(metadata);
}

/**
 * Where a member's last two separators lie: before its timestamp and before its event text (-1
 * when absent). Only the id may hold a NUL, so a member with exactly three has them second and
 * third. They are searched from the front, which V8 does many times faster than from the back
 * (0.05 against 0.8 µs over a ~1.2 KB member); an id with a NUL falls back to the back.
 */
function separators(member: string): { timestampStart: number; rawStart: number } {
  const first = member.indexOf(SEPARATOR);
  const second = first === -1 ? -1 : member.indexOf(SEPARATOR, first + 1);
  const third = second === -1 ? -1 : member.indexOf(SEPARATOR, second + 1);
  if (third !== -1 && member.indexOf(SEPARATOR, third + 1) === -1) {
    return { timestampStart: second, rawStart: third };
  }
  const rawStart = member.lastIndexOf(SEPARATOR);
  return { timestampStart: member.lastIndexOf(SEPARATOR, rawStart - 1), rawStart };
}

/** Reads an entry back from its member; throws an Error naming a corrupt member. */
export function parseRecentLog(member: string): RecentLogEntry {
  const { timestampStart, rawStart } = separators(member);
  const timestampUs = Number(member.slice(timestampStart + 1, rawStart));
  const event: unknown = rawStart > 0 ? JSON.parse(member.slice(rawStart + 1)) : null;
  if (timestampStart < 0 || !Number.isSafeInteger(timestampUs) || !isEdgeShaped(event)) {
    throw new Error(`recent log member is malformed: ${member.slice(0, 80)}`);
  }
  const message = event.event_message;
  return {
    id: event.id,
    timestampUs,
    eventMessage: typeof message === 'string' ? message : null,
    metadata: event.metadata,
  };
}

const ROW_FIELDS = ['id', 'event_message', 'metadata'];

/**
 * The `logs.all` row of a member as JSON text, copied from the stored event's text without
 * parsing it: `{"id":…,"timestamp":…,"event_message":…,"metadata":…}`, the same row
 * {@link parseRecentLog} reads (an `event_message` that is not a string is null). Throws an Error
 * naming a corrupt member, as {@link parseRecentLog} does.
 *
 * @example
 * ```ts
 * recentLogRowJson(recentLogMember(event, position));
 * // '{"id":"a","timestamp":1795256130000000,"event_message":"GET","metadata":[…]}'
 * ```
 */
export function recentLogRowJson(member: string): string {
  const { timestampStart, rawStart } = separators(member);
  const timestamp = member.slice(timestampStart + 1, rawStart);
  const spans = rawStart > 0 ? topLevelFields(member, rawStart + 1, ROW_FIELDS) : null;
  const id = spans?.get('id');
  const metadata = spans?.get('metadata');
  if (
    timestampStart < 0 || !/^-?\d{1,16}$/.test(timestamp) ||
    !Number.isSafeInteger(Number(timestamp)) || id === undefined || metadata === undefined ||
    member.charCodeAt(id.start) !== QUOTE || member.charCodeAt(metadata.start) !== OPEN_BRACKET
  ) {
    throw new Error(`recent log member is malformed: ${member.slice(0, 80)}`);
  }
  const message = spans?.get('event_message');
  const messageText = message !== undefined && member.charCodeAt(message.start) === QUOTE
    ? member.slice(message.start, message.end)
    : 'null';
  return `{"id":${member.slice(id.start, id.end)},"timestamp":${Number(timestamp)},` +
    `"event_message":${messageText},"metadata":${member.slice(metadata.start, metadata.end)}}`;
}
