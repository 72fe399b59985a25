/**
 * The sandboxed `logs.all` (`LOGS_ALL_SQL`, docs/API.md "Studio's SQL"): whether a caller's `sql`
 * runs over the sources' tables or is ignored (the default, as the reference system ignores it
 * on an endpoint without sandboxing), and its bounds.
 *
 * @module
 */
import { ConfigError, type Env, integer, text } from './read.ts';

/** The sandbox's bounds unless configured. */
export const DEFAULT_LOGS_SQL = {
  maxBytes: 64 * 1024 * 1024,
  maxConcurrent: 8,
  maxConcurrentPerKey: 4,
  timeoutMs: 5_000,
} as const;

/**
 * The memory SQLite may use for queries that read at most `maxBytes` of events: the events in its
 * binary JSON (about their text's size), as much again for sorting and grouping, and 32 MiB more.
 */
export function engineHeapBytes(maxBytes: number): number {
  return 2 * maxBytes + 32 * 1_048_576;
}

/** The sandbox part of the configuration. */
export interface LogsSqlConfig {
  /** `sandboxed`: `logs.all` runs a caller's `sql`; `ignored`: it answers as without it. */
  readonly logsAllSql: 'ignored' | 'sandboxed';
  /** Most bytes of events one query reads (400 beyond: narrow the time range). */
  readonly logsSqlMaxBytes: number;
  /** Most queries one API process runs at once (429 beyond). */
  readonly logsSqlMaxConcurrent: number;
  /**
   * Most queries of one API key at once (429 beyond): a Studio page asks three at once (its page,
   * chart and badge), so one key's share must hold them.
   */
  readonly logsSqlMaxConcurrentPerKey: number;
  /** Longest a query may run in the engine, in ms (400 beyond). */
  readonly logsSqlTimeoutMs: number;
}

/** Reads and checks `LOGS_ALL_SQL` and `LOGS_SQL_*`. */
export function logsSqlConfig(env: Env): LogsSqlConfig {
  const mode = text(env, 'LOGS_ALL_SQL') ?? 'ignored';
  if (mode !== 'ignored' && mode !== 'sandboxed') {
    throw new ConfigError('LOGS_ALL_SQL', mode, 'ignored (the default) or sandboxed');
  }
  return {
    logsAllSql: mode,
    logsSqlMaxBytes: integer(
      env,
      'LOGS_SQL_MAX_BYTES',
      DEFAULT_LOGS_SQL.maxBytes,
      1024 * 1024,
      1024 * 1024 * 1024,
    ),
    logsSqlMaxConcurrent: integer(
      env,
      'LOGS_SQL_MAX_CONCURRENT',
      DEFAULT_LOGS_SQL.maxConcurrent,
      1,
      64,
    ),
    logsSqlMaxConcurrentPerKey: integer(
      env,
      'LOGS_SQL_MAX_CONCURRENT_PER_KEY',
      DEFAULT_LOGS_SQL.maxConcurrentPerKey,
      1,
      64,
    ),
    logsSqlTimeoutMs: integer(
      env,
      'LOGS_SQL_TIMEOUT_MS',
      DEFAULT_LOGS_SQL.timeoutMs,
      100,
      60_000,
    ),
  };
}
