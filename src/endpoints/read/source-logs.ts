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
import {
  type SourceLogBytes,
  sourceLogBytes,
  type SourceLogEntry,
  sourceLogEntry,
} from '../../rollup/recent-logs.ts';

export type { SourceLogBytes, SourceLogEntry };

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
  return (await readMembers(store, query)).map(sourceLogEntry);
}

/** The same events, their texts left as the stored bytes (what the SQL engine takes). */
export async function readSourceRows(
  store: RollupStore,
  query: SourceLogsQuery,
): Promise<SourceLogBytes[]> {
  return (await readMembers(store, query)).map(sourceLogBytes);
}

function readMembers(store: RollupStore, query: SourceLogsQuery): Promise<Uint8Array[]> {
  return store.rangeByScore(sourceLogsKey(query.project, query.source), {
    max: query.untilUs,
    minExclusive: query.afterUs,
    limit: query.limit,
  });
}
