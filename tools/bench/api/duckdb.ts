/**
 * The query-engine baseline of `npm run bench:api`: DuckDB (an embedded columnar engine, in
 * this process) answering each endpoint in SQL on every call, set up as a DuckDB user would
 * set it up for these queries.
 *
 * The events are loaded once (the caller reports how long that took) into three typed tables,
 * each sorted so that a call's filter skips most row groups by their min/max (DuckDB's zone
 * maps; an ART index is not used for filters that match thousands of rows):
 *
 * - `invocations`: one row per invocation (metadata entry, response entry) of a `function-edge`
 *   event: project, function id, timestamp, execution time, status; sorted by project, time;
 * - `requests`: one row per request (metadata entry, request entry) of an `edge` event: host,
 *   path, timestamp; sorted by host, time; beside it `hosts`, its distinct hosts, so that a
 *   pattern is matched once per host, not once per request;
 * - `logs`: one row per `edge` event with the row fields of `logs.all` (id, timestamp,
 *   message, `metadata` as JSON text); sorted by project, time.
 *
 * Host and path are derived from each request as the service derives them (`parse`). Each call
 * runs a statement prepared once per connection, whose SQL is CONTRACT section 5 and builds the
 * whole answer, `{"result": [...]}`, as JSON text: DuckDB answers in the API's body, which
 * `npm run bench:api` compares with the API's answer to the same request.
 *
 * @module
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type DuckDBConnection,
  DuckDBInstance,
  type DuckDBPreparedStatement,
  type DuckDBValue,
} from '@duckdb/node-api';
import { parseApiCountsParams } from '../../../src/contract/params/api-counts.ts';
import type { ParamResult } from '../../../src/contract/params/common.ts';
import { parseInvocationStatsParams } from '../../../src/contract/params/invocation-stats.ts';
import { parseLogsAllParams } from '../../../src/contract/params/logs-all.ts';
import { type EndpointName, LOGS_ALL_LIMIT } from '../../../src/contract/registry.ts';
import type { Row } from '../../../src/contract/rows.ts';
import { type LogEvent, type RollupEvent, rollupEventOf } from '../../../src/events/types.ts';
import { truncate } from '../../../src/time/grain.ts';
import {
  INVOCATION_INTERVALS,
  USAGE_INTERVALS,
  usageWindowStart,
} from '../../../src/time/series.ts';
import { answerDifference } from '../../same-answer.ts';
import { type BaselineLimits, type BaselineResult, timeCalls } from './baseline.ts';

/** An answer of the API to compare DuckDB's with: the request's query, its body, its `now`. */
export interface AnswerAt {
  readonly query: string;
  readonly body: string;
  readonly nowUs: number;
}

/** One call: its SQL (prepared once per connection) and the values bound to it. */
interface Call {
  readonly sql: string;
  readonly values: Record<string, DuckDBValue>;
}

/** The query's parameters, or an error naming the one refused (the API would answer 400). */
function accepted<T>(result: ParamResult<T>, query: URLSearchParams): T {
  if (!result.ok) {
    throw new Error(`the DuckDB baseline refuses ${query}: ${JSON.stringify(result.error)}`);
  }
  return result.params;
}

const at = (name: string) => `make_timestamp($${name}::BIGINT)`;

function invocationStatsCall(query: URLSearchParams, nowUs: number): Call {
  const params = accepted(parseInvocationStatsParams(query), query);
  const { spanUs, grain } = INVOCATION_INTERVALS[params.interval];
  const step = `INTERVAL 1 ${grain}`;
  return {
    sql: `
      WITH stats AS (
        SELECT date_trunc('${grain}', timestamp) AS bucket, count(*) AS count,
               count(*) FILTER (WHERE status >= 400) AS error_count,
               min(execution_time) AS min_time, max(execution_time) AS max_time,
               avg(execution_time) AS avg_time,
               quantile_disc(execution_time, 0.95) AS p95_time,
               quantile_disc(execution_time, 0.99) AS p99_time
        FROM invocations
        WHERE project = $project AND ($function IS NULL OR function_id = $function)
          AND timestamp >= ${at('first')} AND timestamp < ${at('last')} + ${step}
        GROUP BY bucket
      ),
      series AS (SELECT bucket FROM range(${at('first')}, ${
      at('last')
    } + ${step}, ${step}) AS s(bucket))
      SELECT json_object('result', coalesce(to_json(list(json_object(
               'timestamp', epoch_us(series.bucket), 'count', coalesce(count, 0),
               'error_count', coalesce(error_count, 0),
               'min_execution_time', min_time, 'max_execution_time', max_time,
               'avg_execution_time', avg_time,
               'p95_execution_time', p95_time, 'p99_execution_time', p99_time)
             ORDER BY series.bucket)), '[]'::JSON))
      FROM series LEFT JOIN stats ON stats.bucket = series.bucket`,
    values: {
      project: params.project,
      function: params.functionId,
      first: truncate(nowUs - spanUs, grain),
      last: truncate(nowUs, grain),
    },
  };
}

function logsAllCall(query: URLSearchParams, nowUs: number): Call {
  const params = accepted(parseLogsAllParams(query), query);
  return {
    sql: `
      WITH newest AS (
        SELECT id, timestamp, event_message, metadata FROM logs
        WHERE project = $project AND timestamp > ${at('oldest')}
          AND ($start IS NULL OR timestamp > ${at('start')})
          AND ($end IS NULL OR timestamp <= ${at('end')})
        ORDER BY timestamp DESC, id DESC LIMIT ${LOGS_ALL_LIMIT}
      )
      SELECT json_object('result', coalesce(to_json(list(json_object(
               'id', id, 'timestamp', epoch_us(timestamp), 'event_message', event_message,
               'metadata', metadata)
             ORDER BY timestamp DESC, id DESC)), '[]'::JSON))
      FROM newest`,
    values: {
      project: params.project,
      oldest: nowUs - params.retentionUs,
      start: params.startUs,
      end: params.endUs,
    },
  };
}

function apiCountsCall(query: URLSearchParams, nowUs: number): Call {
  const params = accepted(parseApiCountsParams(query), query);
  const { grain } = USAGE_INTERVALS[params.interval];
  const count = (text: string) => `count(*) FILTER (WHERE contains(path, '${text}'))`;
  return {
    sql: `
      WITH counted AS (
        SELECT date_trunc('${grain}', timestamp) AS bucket,
               ${count('/rest')} AS rest, ${count('/storage')} AS storage,
               ${count('/auth')} AS auth, ${count('/realtime')} AS realtime
        FROM requests
        WHERE host IN (SELECT host FROM hosts WHERE regexp_matches(host, $pattern))
          AND timestamp >= ${at('start')}
        GROUP BY bucket
      )
      SELECT json_object('result', coalesce(to_json(list(json_object(
               'timestamp', strftime(bucket, '%Y-%m-%dT%H:%M:%S'),
               'total_rest_requests', rest, 'total_storage_requests', storage,
               'total_auth_requests', auth, 'total_realtime_requests', realtime)
             ORDER BY bucket)), '[]'::JSON))
      FROM counted`,
    values: {
      pattern: params.project.source,
      start: usageWindowStart(nowUs, params.interval),
    },
  };
}

const CALLS: Readonly<Record<EndpointName, (query: URLSearchParams, nowUs: number) => Call>> = {
  'functions.invocation-stats': invocationStatsCall,
  'logs.all': logsAllCall,
  'usage.api-counts': apiCountsCall,
};

/** Each table: its columns (as `read_json` types them) and its sort order. */
const TABLES = {
  invocations: {
    columns: {
      project: 'VARCHAR',
      function_id: 'VARCHAR',
      ts: 'BIGINT',
      execution_time: 'DOUBLE',
      status: 'INTEGER',
    },
    order: 'project, timestamp',
  },
  requests: {
    columns: { host: 'VARCHAR', path: 'VARCHAR', ts: 'BIGINT' },
    order: 'host, timestamp',
  },
  logs: {
    columns: {
      project: 'VARCHAR',
      id: 'VARCHAR',
      ts: 'BIGINT',
      event_message: 'VARCHAR',
      metadata: 'JSON',
    },
    order: 'project, timestamp',
  },
} as const;

type Table = keyof typeof TABLES;

/** The rows of each table for one event, as JSON lines. */
function* rowsOf(event: RollupEvent): Generator<[Table, string]> {
  const ts = event.timestampUs;
  if (event.source === 'function-edge') {
    for (const invocation of event.invocations) {
      yield [
        'invocations',
        JSON.stringify({
          project: invocation.projectRef,
          function_id: invocation.functionId,
          ts,
          execution_time: invocation.executionTimeMs,
          status: invocation.statusCode,
        }),
      ];
    }
    return;
  }
  for (const { host, path } of event.requests) {
    yield ['requests', JSON.stringify({ host, path, ts })];
  }
  yield [
    'logs',
    JSON.stringify({
      project: event.project,
      id: event.id,
      ts,
      event_message: event.eventMessage,
      metadata: event.metadata,
    }),
  ];
}

/** Writes each table's rows as newline-delimited JSON into `directory`, in large writes. */
function writeTables(directory: string, events: readonly LogEvent[]): void {
  const files = new Map<Table, { fd: number; pending: string[]; size: number }>();
  const flush = (file: { fd: number; pending: string[]; size: number }) => {
    writeSync(file.fd, file.pending.join(''));
    file.pending = [];
    file.size = 0;
  };
  for (const table of Object.keys(TABLES) as Table[]) {
    files.set(table, {
      fd: openSync(join(directory, `${table}.ndjson`), 'w'),
      pending: [],
      size: 0,
    });
  }
  try {
    for (const logEvent of events) {
      const event = rollupEventOf(logEvent);
      if (event === null) continue;
      for (const [table, line] of rowsOf(event)) {
        const file = files.get(table);
        if (file === undefined) continue;
        file.pending.push(line, '\n');
        file.size += line.length + 1;
        if (file.size > 4_000_000) flush(file);
      }
    }
    for (const file of files.values()) flush(file);
  } finally {
    for (const file of files.values()) closeSync(file.fd);
  }
}

/** DuckDB loaded with the events, answering each endpoint's SQL on every call. */
export class DuckDbBaseline {
  readonly #instance: DuckDBInstance;
  /** One connection per concurrent caller, each with the statements it prepared, by SQL. */
  readonly #callers: {
    connection: DuckDBConnection;
    prepared: Map<string, DuckDBPreparedStatement>;
  }[] = [];

  private constructor(instance: DuckDBInstance) {
    this.#instance = instance;
  }

  /** Loads `events` into the typed, sorted tables of an in-memory database. */
  static async load(events: readonly LogEvent[]): Promise<DuckDbBaseline> {
    const directory = mkdtempSync(join(tmpdir(), 'bench-duckdb-'));
    try {
      writeTables(directory, events);
      const instance = await DuckDBInstance.create(':memory:');
      const connection = await instance.connect();
      for (const [table, { columns, order }] of Object.entries(TABLES)) {
        const names = Object.keys(columns).filter((name) => name !== 'ts');
        await connection.run(`
          CREATE TABLE ${table} AS
          SELECT ${names.join(', ')}, make_timestamp(ts) AS timestamp
          FROM read_json('${join(directory, `${table}.ndjson`)}',
                         format = 'newline_delimited', columns = ${
          JSON.stringify(columns).replaceAll('"', "'")
        })
          ORDER BY ${order}`);
      }
      await connection.run(
        'CREATE TABLE hosts AS SELECT DISTINCT host FROM requests WHERE host IS NOT NULL',
      );
      connection.closeSync();
      return new DuckDbBaseline(instance);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  }

  /** The answer's body (`{"result": [...]}`) to `query` at `nowUs`, on the caller's connection. */
  async answer(endpoint: EndpointName, query: string, nowUs: number, caller = 0): Promise<string> {
    const call = CALLS[endpoint](new URLSearchParams(query), nowUs);
    while (this.#callers.length <= caller) {
      this.#callers.push({ connection: await this.#instance.connect(), prepared: new Map() });
    }
    const own = this.#callers[caller];
    if (own === undefined) throw new Error(`no connection for caller ${caller}`);
    const { connection, prepared } = own;
    let statement = prepared.get(call.sql);
    if (statement === undefined) {
      statement = await connection.prepare(call.sql);
      prepared.set(call.sql, statement);
    }
    statement.bind(call.values);
    const reader = await statement.runAndReadAll();
    const body = reader.getRows()[0]?.[0];
    if (typeof body !== 'string') throw new Error(`DuckDB answered ${String(body)} to ${query}`);
    return body;
  }

  /**
   * Answers each of `answers`' queries at its `now` and compares the rows with the API's
   * (`tools/same-answer.ts`); throws, naming the queries and their first difference, when any
   * differs.
   */
  async check(endpoint: EndpointName, answers: readonly AnswerAt[]): Promise<void> {
    const differences: string[] = [];
    for (const { query, body, nowUs } of answers) {
      const ours = await this.answer(endpoint, query, nowUs);
      const difference = answerDifference(
        endpoint,
        (JSON.parse(ours) as { result: Row[] }).result,
        (JSON.parse(body) as { result: Row[] }).result,
      );
      if (difference !== null) differences.push(`${query} at ${nowUs} µs: ${difference}`);
    }
    if (differences.length > 0) {
      throw new Error(
        `DuckDB's answers differ from the API's for ${differences.length} of ${answers.length} ` +
          `${endpoint} queries:\n${differences.slice(0, 5).join('\n')}`,
      );
    }
  }

  /**
   * Times the calls of `queries` (taken in turn) from `limits.callers` concurrent callers, each
   * on its own connection (its statements prepared before timing starts), as
   * {@link ./baseline.ts} times the evaluator.
   */
  async time(
    endpoint: EndpointName,
    queries: readonly string[],
    limits: BaselineLimits,
  ): Promise<BaselineResult> {
    const callers = Array.from({ length: limits.callers ?? 1 }, (_, caller) => caller);
    const first = queries[0] ?? '';
    await Promise.all(callers.map((caller) => this.answer(endpoint, first, limits.nowUs, caller)));
    return await timeCalls(
      queries,
      limits,
      (query, caller) => this.answer(endpoint, query, limits.nowUs, caller),
    );
  }

  /** Closes every connection and the database. */
  close(): void {
    for (const { connection } of this.#callers) connection.closeSync();
    this.#instance.closeSync();
  }
}
