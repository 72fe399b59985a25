/**
 * The query-engine baseline of `npm run bench:api`: DuckDB (an embedded columnar engine, in
 * this process) answering each endpoint's query in SQL over the same raw events on every call,
 * as the reference system answers its saved queries over stored logs.
 *
 * The events are loaded once, as the reference system stores them: one row per event with its
 * timestamp as a TIMESTAMP and `metadata` as nested records (DuckDB's JSON reader infers their
 * types from every row). Each call then runs the endpoint's SQL, which is CONTRACT section 5
 * written for DuckDB: unnest the metadata and request or response entries, filter by project
 * and window, group by bucket. Its quantiles are DuckDB's `quantile_disc`, not nearest-rank;
 * only the counts are compared with the reference evaluator (a check, printed, that the SQL
 * means what the endpoint means).
 *
 * @module
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance, type DuckDBValue } from '@duckdb/node-api';
import type { EndpointName } from '../../../src/contract/registry.ts';
import type { LogEvent } from '../../../src/events/types.ts';
import { type BaselineLimits, type BaselineResult, timeCalls } from './baseline.ts';

/** One call: the SQL and its parameters, for one query string at one `now`. */
interface Call {
  readonly sql: string;
  readonly values: Record<string, DuckDBValue>;
}

const INVOCATION_INTERVALS: Readonly<Record<string, { span: string; grain: string }>> = {
  '5min': { span: '5 minutes', grain: 'second' },
  '15min': { span: '15 minutes', grain: 'minute' },
  '1hr': { span: '1 hour', grain: 'minute' },
  '1day': { span: '1 day', grain: 'hour' },
  '7day': { span: '7 days', grain: 'day' },
};

const TIERS: Readonly<Record<string, string>> = {
  FREE: '1 day',
  PRO: '7 days',
  PAYG: '90 days',
  ENTERPRISE: '90 days',
};

/** The window, its buckets, and the precision of its start (CONTRACT section 5's deviation). */
const USAGE_INTERVALS: Readonly<
  Record<string, { span: string; grain: string; precision: string }>
> = {
  minutely: { span: '60 minutes', grain: 'minute', precision: 'second' },
  hourly: { span: '1 hour', grain: 'hour', precision: 'second' },
  daily: { span: '7 days', grain: 'day', precision: 'minute' },
};

const NOW = 'make_timestamp($now::BIGINT)';

function invocationStatsCall(query: URLSearchParams, nowUs: number): Call {
  const { span, grain } = INVOCATION_INTERVALS[query.get('interval') ?? ''] ??
    { span: '1 day', grain: 'hour' };
  return {
    sql: `
      WITH invocations AS (
        SELECT date_trunc('${grain}', f.timestamp) AS bucket,
               m.execution_time_ms AS time, r.status_code AS status
        FROM function_edge AS f, unnest(f.metadata) AS u(m), unnest(m.response) AS v(r)
        WHERE m.project_ref = $project AND ($function = '' OR m.function_id = $function)
          AND f.timestamp >= date_trunc('${grain}', ${NOW} - INTERVAL '${span}')
      )
      SELECT s.bucket AS timestamp, count(i.bucket) AS count,
             count(*) FILTER (WHERE i.status >= 400) AS error_count,
             min(i.time) AS min_execution_time, max(i.time) AS max_execution_time,
             avg(i.time) AS avg_execution_time,
             quantile_disc(i.time, 0.95) AS p95_execution_time,
             quantile_disc(i.time, 0.99) AS p99_execution_time
      FROM range(date_trunc('${grain}', ${NOW} - INTERVAL '${span}'),
                 date_trunc('${grain}', ${NOW}) + INTERVAL '1 ${grain}',
                 INTERVAL '1 ${grain}') AS s(bucket)
      LEFT JOIN invocations AS i ON i.bucket = s.bucket
      GROUP BY s.bucket ORDER BY s.bucket`,
    values: {
      project: query.get('project') ?? '',
      function: query.get('function_id') ?? '',
      now: nowUs,
    },
  };
}

function logsAllCall(query: URLSearchParams, nowUs: number): Call {
  const retention = TIERS[query.get('project_tier') ?? ''] ?? '1 day';
  return {
    sql: `
      SELECT id, timestamp, event_message, to_json(metadata) AS metadata
      FROM edge
      WHERE project = $project AND timestamp > ${NOW} - INTERVAL '${retention}'
      ORDER BY timestamp DESC, id DESC LIMIT 100`,
    values: { project: query.get('project') ?? '', now: nowUs },
  };
}

function apiCountsCall(query: URLSearchParams, nowUs: number): Call {
  const { span, grain, precision } = USAGE_INTERVALS[query.get('interval') ?? ''] ??
    { span: '7 days', grain: 'day', precision: 'minute' };
  return {
    sql: `
      WITH requests AS (
        SELECT e.timestamp,
               coalesce(nullif(r.host, ''), regexp_extract(r.url, '^[a-z]+://([^/?#:]*)', 1)) AS host,
               coalesce(r.path, regexp_extract(r.url, '^[a-z]+://[^/?#]*([^?#]*)', 1)) AS path
        FROM edge AS e, unnest(e.metadata) AS u(m), unnest(m.request) AS v(r)
        WHERE e.timestamp >= date_trunc('${precision}', ${NOW} - INTERVAL '${span}')
      )
      SELECT date_trunc('${grain}', timestamp) AS timestamp,
             count(*) FILTER (WHERE contains(path, '/rest')) AS total_rest_requests,
             count(*) FILTER (WHERE contains(path, '/storage')) AS total_storage_requests,
             count(*) FILTER (WHERE contains(path, '/auth')) AS total_auth_requests,
             count(*) FILTER (WHERE contains(path, '/realtime')) AS total_realtime_requests
      FROM requests WHERE regexp_matches(host, $pattern)
      GROUP BY 1 ORDER BY 1`,
    values: { pattern: query.get('project') ?? '', now: nowUs },
  };
}

const CALLS: Readonly<Record<EndpointName, (query: URLSearchParams, nowUs: number) => Call>> = {
  'functions.invocation-stats': invocationStatsCall,
  'logs.all': logsAllCall,
  'usage.api-counts': apiCountsCall,
};

/** DuckDB loaded with the events, answering the endpoints' SQL on every call. */
export class DuckDbBaseline {
  readonly #connection: DuckDBConnection;

  private constructor(connection: DuckDBConnection) {
    this.#connection = connection;
  }

  /** Loads `events` into an in-memory database (two tables, as the reference system keeps). */
  static async load(events: readonly LogEvent[]): Promise<DuckDbBaseline> {
    const directory = mkdtempSync(join(tmpdir(), 'bench-duckdb-'));
    try {
      // Written line by line: a million events are more text than one string may hold.
      const files = {
        edge: openSync(join(directory, 'edge.ndjson'), 'w'),
        'function-edge': openSync(join(directory, 'function-edge.ndjson'), 'w'),
      };
      for (const event of events) {
        const row = {
          id: event.id,
          ts: event.timestampUs,
          project: event.project,
          event_message: event.eventMessage,
          metadata: event.metadata,
        };
        writeSync(files[event.source], `${JSON.stringify(row)}\n`);
      }
      closeSync(files.edge);
      closeSync(files['function-edge']);
      const instance = await DuckDBInstance.create(':memory:');
      const connection = await instance.connect();
      for (const [table, file] of [['edge', 'edge'], ['function_edge', 'function-edge']]) {
        await connection.run(`
          CREATE TABLE ${table} AS
          SELECT id, make_timestamp(ts) AS timestamp, project, event_message, metadata
          FROM read_json('${join(directory, `${file}.ndjson`)}',
                         format = 'newline_delimited', sample_size = -1)`);
      }
      return new DuckDbBaseline(connection);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }

  /** The rows of one call, as JSON values. */
  async rows(
    endpoint: EndpointName,
    query: string,
    nowUs: number,
  ): Promise<Record<string, unknown>[]> {
    const call = CALLS[endpoint](new URLSearchParams(query), nowUs);
    const reader = await this.#connection.runAndReadAll(call.sql, call.values);
    return reader.getRowObjectsJson();
  }

  /** Times the calls of `queries` (taken in turn), as {@link ./baseline.ts} times the evaluator. */
  time(
    endpoint: EndpointName,
    queries: readonly string[],
    limits: BaselineLimits,
  ): Promise<BaselineResult> {
    return timeCalls(queries, limits, (query) => this.rows(endpoint, query, limits.nowUs));
  }
}
