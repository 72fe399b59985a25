/**
 * The sandboxed `logs.all` (`LOGS_ALL_SQL=sandboxed`, issue 50): a caller's `sql` run as the
 * final `SELECT` over the reference system's source tables. The table it reads is the project's
 * ring buffer of that Logflare source within `iso_timestamp_start < timestamp <=
 * iso_timestamp_end`, filtered as the reference system's CTEs filter it, read in one ranged read
 * of at most the buffer's capacity; then the embedded engine runs the query over those rows.
 *
 * @module
 */
import { SANDBOX_TABLES } from '../../logs-sql/sandbox-tables.ts';
import { SqlRefusal } from '../../logs-sql/sql-refusal.ts';
import type { EngineAnswer } from '../../logs-sql/engine.ts';
import type { SqlEngine } from '../../logs-sql/sql-engine.ts';
import type { RollupStore } from '../../store/port.ts';
import { readSourceRows } from './source-logs.ts';

/** One call of the sandboxed `logs.all`. */
export interface SandboxedQuery {
  readonly project: string;
  readonly sql: string;
  /** Only events strictly after this time (µs), or null. */
  readonly startUs: number | null;
  /** Only events at or before this time (µs), or null. */
  readonly endUs: number | null;
}

/** What a sandboxed query reads with. */
export interface SandboxedDeps {
  readonly store: RollupStore;
  /** Now, in Unix microseconds (`current_timestamp()`). */
  readonly nowUs: number;
  /** Most events of one source a project keeps (`RECENT_LOGS_CAPACITY`). */
  readonly capacity: number;
  /** Most bytes of events one query loads into the engine. */
  readonly maxBytes: number;
  /** Most bytes of values one answer carries (the engine stops there). */
  readonly answerMaxBytes: number;
  /** The engine (`EngineThread`: the parser and SQLite on a thread of their own). */
  readonly engine: SqlEngine;
  /** Bounds the store read (its time limit, its failure's answer); default: as it is. */
  readonly guardRead?: <T>(read: Promise<T>) => Promise<T>;
}

/**
 * The rows of `query.sql` over the project's events.
 *
 * @throws {SqlRefusal} when the query is outside the supported subset, fails on a value, or its
 * time range holds more than `maxBytes` of events.
 *
 * @example
 * ```ts
 * await answerSandboxed({ project: 'default', startUs: null, endUs: null,
 *   sql: 'select count(*) as count from auth_logs' }, deps); // { rows: [{ count: 12 }], truncated: false }
 * ```
 */
export async function answerSandboxed(
  query: SandboxedQuery,
  deps: SandboxedDeps,
): Promise<EngineAnswer> {
  const plan = await deps.engine.plan(query.sql, deps.nowUs);
  const source = SANDBOX_TABLES[plan.table];
  if (source === undefined) throw new SqlRefusal(`no table ${plan.table}`);
  const guard = deps.guardRead ?? (<T>(read: Promise<T>) => read);
  const rows = await guard(readSourceRows(deps.store, {
    project: query.project,
    source,
    afterUs: query.startUs ?? 0,
    untilUs: query.endUs ?? Number.MAX_SAFE_INTEGER,
    limit: deps.capacity,
  }));
  let bytes = 0;
  for (const row of rows) bytes += row.json.byteLength;
  if (bytes > deps.maxBytes) {
    throw new SqlRefusal(
      `the events of ${plan.table} in the time range hold ${mib(bytes)} MiB, more than the ` +
        `${
          mib(deps.maxBytes)
        } MiB one query reads: narrow iso_timestamp_start and iso_timestamp_end`,
    );
  }
  return deps.engine.run(plan, rows, deps.answerMaxBytes);
}

function mib(bytes: number): string {
  return (bytes / 1_048_576).toFixed(1);
}
