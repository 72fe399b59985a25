/**
 * A project's newest events of one Logflare source (CONTRACT section 3.1), from its ring buffer:
 * one ranged read, newest first, each event as it was normalized at ingest. What Studio's log
 * pages are to be answered from.
 *
 * @module
 */
import type { LogflareSource } from '../../events/logflare-sources.ts';
import { sourceLogsKey } from '../../rollup/keys.ts';
import type { RollupStore } from '../../store/port.ts';

/** One kept event of a source. */
export interface SourceLogEntry {
  readonly id: string;
  readonly timestampUs: number;
  /** The event as normalized at ingest (JSON text). */
  readonly text: string;
}

/** What to read. */
export interface SourceLogsQuery {
  readonly project: string;
  readonly source: LogflareSource;
  /** Only events strictly after this time (µs). */
  readonly afterUs: number;
  /** Only events at or before this time (µs). */
  readonly untilUs: number;
  /** At most this many, newest first. */
  readonly limit: number;
}

const NUL = 0;
const DECODER = new TextDecoder();

/**
 * The entry of a stored member (`id NUL position NUL timestamp NUL text`, see `recent-logs.ts`);
 * throws an Error naming a corrupt member. Only the id may hold a NUL (JSON text never does), so
 * the last three NULs are the separators.
 */
export function sourceLogEntry(member: Uint8Array): SourceLogEntry {
  const textNul = member.lastIndexOf(NUL);
  const timestampNul = textNul <= 0 ? -1 : member.lastIndexOf(NUL, textNul - 1);
  const positionNul = timestampNul <= 0 ? -1 : member.lastIndexOf(NUL, timestampNul - 1);
  const timestamp = DECODER.decode(member.subarray(timestampNul + 1, textNul));
  if (positionNul < 0 || !/^-?\d{1,16}$/.test(timestamp)) {
    throw new Error(`source log member is malformed: ${DECODER.decode(member.subarray(0, 80))}`);
  }
  return {
    id: DECODER.decode(member.subarray(0, positionNul)),
    timestampUs: Number(timestamp),
    text: DECODER.decode(member.subarray(textNul + 1)),
  };
}

/**
 * The newest events of `query.source` in `query.project` within its range.
 *
 * @example
 * ```ts
 * await readSourceLogs(store, { project: 'default', source: 'gotrue.logs.prod', afterUs: 0,
 *   untilUs: nowUs, limit: 100 });
 * // [{ id: '…', timestampUs: 1795256130123456, text: '{"event_message":…}' }, …]
 * ```
 */
export async function readSourceLogs(
  store: RollupStore,
  query: SourceLogsQuery,
): Promise<SourceLogEntry[]> {
  const members = await store.rangeByScore(sourceLogsKey(query.project, query.source), {
    max: query.untilUs,
    minExclusive: query.afterUs,
    limit: query.limit,
  });
  return members.map(sourceLogEntry);
}
