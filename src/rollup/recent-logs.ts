/**
 * The ring buffer of a project's newest edge log entries, as members of a sorted set scored by
 * the entry's timestamp (µs). Among equal timestamps the store orders members by their bytes, so
 * a member starts with the entry id (newest-first reads give ids descending, as the reference
 * evaluator orders ties), then a fixed-width position that keeps duplicates apart (earlier
 * arrival first), then the row payload as JSON (which never contains a NUL byte).
 *
 * @module
 */
import type { EdgeEvent, Json, JsonObject } from '../events/types.ts';
import type { ScoredMember } from '../store/port.ts';

/** Default number of entries kept per project (DESIGN.md section 5: at least 10,000). */
export const DEFAULT_RECENT_LOGS_CAPACITY = 10_000;

/** Oldest entry kept: the longest tier retention (90 days). */
export const RECENT_LOGS_MAX_AGE_US = 90 * 86_400_000_000;

/** A recent log entry as read back. */
export interface RecentLogEntry {
  readonly id: string;
  readonly timestampUs: number;
  readonly eventMessage: string | null;
  readonly metadata: JsonObject[];
}

const SEPARATOR = '\u0000';

/**
 * The sorted-set member of one entry. `position` identifies where the event came from (stream
 * and offset); it only needs to be unique and to sort later-after-earlier within a stream.
 */
export function recentLogMember(event: EdgeEvent, position: string): ScoredMember {
  const payload: Json = [event.id, event.timestampUs, event.eventMessage, event.metadata];
  return {
    score: event.timestampUs,
    member: `${event.id}${SEPARATOR}${position}${SEPARATOR}${JSON.stringify(payload)}`,
  };
}

/** The largest encodable offset: complements stay exact integers of at most 16 digits. */
const MAX_POSITION = Number.MAX_SAFE_INTEGER;

/**
 * Position text of an offset in a stream: the offset's complement at fixed width, so that in
 * the newest-first (descending) reads of the store an earlier arrival sorts first among entries
 * of equal timestamp and id, as {@link ../events/order.ts}'s input-order tie-break says.
 */
export function logPosition(stream: string, offset: number): string {
  return `${String(MAX_POSITION - offset).padStart(16, '0')}@${stream}`;
}

/** Reads an entry back from its member; throws an Error naming a corrupt member. */
export function parseRecentLog(member: string): RecentLogEntry {
  const payloadStart = member.lastIndexOf(SEPARATOR) + 1;
  const payload: unknown = JSON.parse(member.slice(payloadStart));
  if (
    !Array.isArray(payload) || payload.length !== 4 || typeof payload[0] !== 'string' ||
    typeof payload[1] !== 'number'
  ) {
    throw new Error(`recent log member is malformed: ${member.slice(0, 80)}`);
  }
  const [id, timestampUs, eventMessage, metadata] = payload as [
    string,
    number,
    string | null,
    JsonObject[],
  ];
  return { id, timestampUs, eventMessage, metadata };
}
