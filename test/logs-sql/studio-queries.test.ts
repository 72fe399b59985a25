/**
 * The sandboxed `logs.all` (`LOGS_ALL_SQL=sandboxed`) with the SQL a self-hosted Studio sends,
 * through the request its proxy makes (`GET /api/endpoints/query/logs.all?project=…&sql=…&
 * iso_timestamp_start=…&iso_timestamp_end=…`), over events posted to Logflare's ingest route:
 * every log page with and without its search and filters, the badge's count, the chart at each
 * grain, a log's detail, paging across a page boundary and the Explorer's templates, each against
 * an evaluation of the same events written apart from the service; then what it refuses, and its
 * bounds.
 */
import { beforeAll, describe, expect, test } from 'vitest';
import {
  chartConditions,
  chartQuery,
  countQuery,
  defaultQuery,
  EXPLORER_SEARCHES,
  EXPLORER_TEMPLATES,
  pgCronCountQuery,
  pgCronQuery,
  singleLogQuery,
  type StudioFilters,
  type StudioTable,
  supavisorQuery,
} from '../fixtures/supabase/studio-sql.ts';
import { TEST_KEY, TEST_NOW_US, type TestApp, testApp } from '../api/helpers/app.ts';
import { read } from '../api/helpers/http.ts';
import {
  at,
  posted,
  records,
  safeInt,
  SOURCE_OF,
  type StudioEvent,
  studioEvents,
  tableRows,
} from './studio-events.ts';

const PER_TABLE = 150;
/** One event of each table every 30 s: 75 minutes of each. */
const STEP_US = 30_000_000;
const events = studioEvents(TEST_NOW_US - 2_000_000, PER_TABLE, STEP_US);
const TABLES = Object.keys(SOURCE_OF) as StudioTable[];

function iso(us: number): string {
  return new Date(Math.floor(us / 1000)).toISOString();
}

/** Studio's default range, "Last hour". */
const HOUR_AGO = iso(TEST_NOW_US - 3_600_000_000);
const HOUR_AGO_US = Math.floor((TEST_NOW_US - 3_600_000_000) / 1000) * 1000;

async function postAll(app: TestApp, all: readonly StudioEvent[]): Promise<void> {
  for (const table of new Set(all.map((e) => e.table))) {
    const body = JSON.stringify(all.filter((e) => e.table === table).map(posted));
    const response = await app.call(`/api/logs?source_name=${SOURCE_OF[table]}`, {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.status, await response.clone().text()).toBe(200);
  }
}

function sandboxed(settings: Record<string, number> = {}): TestApp {
  return testApp({ settings: { logsAllSql: 'sandboxed', ...settings } });
}

/** The request Studio's self-hosted proxy makes. */
function studioPath(sql: string, start: string, end = ''): string {
  const params = new URLSearchParams({ project: 'default', sql });
  params.set('iso_timestamp_start', start);
  params.set('iso_timestamp_end', end);
  return `/api/endpoints/query/logs.all?${params}`;
}

async function ask(app: TestApp, sql: string, start = HOUR_AGO, end = '') {
  const response = await read(app.call, studioPath(sql, start, end));
  return { ...response, json: JSON.parse(response.body) as Record<string, unknown> };
}

async function rowsOf(app: TestApp, sql: string, start = HOUR_AGO, end = '') {
  const answer = await ask(app, sql, start, end);
  expect(answer.status, answer.body).toBe(200);
  return answer.json.result as Record<string, unknown>[];
}

// ---- The evaluation apart from the service ----

type Predicate = (e: StudioEvent) => boolean;

const status = (e: StudioEvent, path: string) => at(e, path) as number | null;
const between = (value: number | null, low: number, high: number) =>
  value !== null && value >= low && value <= high;

const AUTH_ERROR: Predicate = (e) =>
  ['error', 'fatal'].includes(String(at(e, 'level') ?? '')) ||
  (safeInt(at(e, 'status')) ?? 0) >= 500;
const AUTH_WARNING: Predicate = (e) =>
  at(e, 'level') === 'warning' || between(safeInt(at(e, 'status')) ?? 0, 400, 499);

/** Each filter key's meaning, by table. */
const FILTERS: Partial<Record<StudioTable, Record<string, Predicate>>> = {
  edge_logs: {
    'status_code.error': (e) => between(status(e, 'response.status_code'), 500, 599),
    'status_code.warning': (e) => between(status(e, 'response.status_code'), 400, 499),
    'method.get': (e) => at(e, 'request.method') === 'GET',
    'method.post': (e) => at(e, 'request.method') === 'POST',
    'product.storage': (e) => String(at(e, 'request.path')).startsWith('/storage/'),
    'product.database': (e) =>
      String(at(e, 'request.path')).startsWith('/rest/') ||
      String(at(e, 'request.path')).startsWith('/graphql/'),
  },
  postgres_logs: {
    'severity.error': (e) =>
      ['ERROR', 'FATAL', 'PANIC'].includes(String(at(e, 'parsed.error_severity'))),
    'severity.log': (e) => at(e, 'parsed.error_severity') === 'LOG',
  },
  function_logs: { 'severity.error': (e) => at(e, 'level') === 'error' },
  auth_logs: {
    'severity.error': AUTH_ERROR,
    'severity.info': (e) => !AUTH_ERROR(e) && !AUTH_WARNING(e),
    'endpoints.signup': (e) => /\/signup|\/invite|\/verify/.test(String(at(e, 'path'))),
  },
};

/** Studio's filters as one predicate: groups ANDed, keys within a group ORed. */
function matches(table: StudioTable, filters: StudioFilters): Predicate {
  const groups = new Map<string, Predicate[]>();
  for (const [key, value] of Object.entries(filters)) {
    if (value === '' || value === false) continue;
    const predicate: Predicate | undefined = key === 'search_query'
      ? (e) => new RegExp(String(value)).test(e.event_message)
      : FILTERS[table]?.[key];
    if (predicate === undefined) throw new Error(`no predicate for ${table} ${key}`);
    const root = key.split('.')[0] as string;
    groups.set(root, [...(groups.get(root) ?? []), predicate]);
  }
  return (e) => [...groups.values()].every((group) => group.some((p) => p(e)));
}

/** The row of a log page. */
function pageRow(table: StudioTable, e: StudioEvent): Record<string, unknown> {
  const base = { id: e.id, timestamp: e.timestampUs, event_message: e.event_message };
  switch (table) {
    case 'edge_logs':
      return {
        ...base,
        method: at(e, 'request.method'),
        path: at(e, 'request.path'),
        search: at(e, 'request.search'),
        status_code: at(e, 'response.status_code'),
      };
    case 'postgres_logs':
      return {
        ...base,
        error_severity: at(e, 'parsed.error_severity'),
        detail: at(e, 'parsed.detail'),
        hint: at(e, 'parsed.hint'),
      };
    case 'function_logs':
      return {
        ...base,
        event_type: at(e, 'event_type'),
        function_id: at(e, 'function_id'),
        execution_id: at(e, 'execution_id'),
        level: at(e, 'level'),
      };
    case 'auth_logs':
      return {
        ...base,
        level: at(e, 'level'),
        status: at(e, 'status'),
        path: at(e, 'path'),
        msg: at(e, 'msg'),
        error: at(e, 'error'),
      };
    default:
      return base;
  }
}

function expectedPage(
  table: StudioTable,
  filters: StudioFilters,
  startUs: number | null,
  endUs: number | null,
  limit = 100,
): Record<string, unknown>[] {
  // function_edge_logs' self-hosted query leaves out the search and filters.
  const keep = table === 'function_edge_logs' ? () => true : matches(table, filters);
  return tableRows(events, table, startUs, endUs).filter(keep).slice(0, limit).map((e) =>
    pageRow(table, e)
  );
}

const byJson = (a: unknown, b: unknown) => JSON.stringify(a) < JSON.stringify(b) ? -1 : 1;

// ---- The tests ----

describe('Studio: the sandboxed logs.all answers its queries', () => {
  const app = sandboxed();
  beforeAll(() => postAll(app, events));

  const cases: [StudioTable, StudioFilters][] = [
    ...TABLES.map((table): [StudioTable, StudioFilters] => [table, {}]),
    ...TABLES.map((
      table,
    ): [StudioTable, StudioFilters] => [table, { search_query: 'rror|COMMIT' }]),
    ['edge_logs', { 'status_code.error': true, 'status_code.warning': true, 'method.get': true }],
    ['edge_logs', { search_query: 'rror', 'product.storage': true, 'product.database': true }],
    ['postgres_logs', { 'severity.error': true }],
    ['postgres_logs', { 'severity.log': true, search_query: "it's" }],
    ['function_logs', { 'severity.error': true }],
    ['auth_logs', { 'severity.error': true }],
    ['auth_logs', { 'severity.info': true, 'endpoints.signup': true }],
  ];

  test.each(cases)('the log page of %s with %j', async (table, filters) => {
    const rows = await rowsOf(app, defaultQuery(table, filters));
    expect(rows).toEqual(expectedPage(table, filters, HOUR_AGO_US, null));
  });

  test.each(cases)("the badge's count of %s with %j", async (table, filters) => {
    const since = TEST_NOW_US - 20 * 60_000_000;
    const rows = await rowsOf(app, countQuery(table, filters), iso(since));
    const expected = tableRows(events, table, Math.floor(since / 1000) * 1000, null)
      .filter(matches(table, filters)).length;
    expect(rows).toEqual([{ count: expected }]);
  });

  const grains = ['minute', 'hour', 'day'] as const;
  const charts = TABLES.flatMap((table) =>
    grains.map((grain): [StudioTable, (typeof grains)[number]] => [table, grain])
  );
  test.each(charts)(
    'the chart of %s by %s',
    async (table, trunc) => {
      const grainUs = { minute: 60e6, hour: 3600e6, day: 86_400e6 }[trunc];
      const offsetUs = TEST_NOW_US - 90 * 60_000_000;
      const sql = chartQuery(table, trunc, iso(offsetUs));
      const rows = await rowsOf(app, sql, iso(TEST_NOW_US - 2 * 3_600_000_000));
      const { error, warning } = chartPredicates(table);
      const buckets = new Map<number, Record<string, number>>();
      for (const e of tableRows(events, table, null, null)) {
        if (e.timestampUs <= Math.floor(offsetUs / 1000) * 1000) continue;
        const start = Math.floor(e.timestampUs / grainUs) * grainUs;
        const bucket = buckets.get(start) ??
          { timestamp: start, ok_count: 0, error_count: 0, warning_count: 0 };
        if (error(e)) bucket.error_count = (bucket.error_count ?? 0) + 1;
        if (warning(e)) bucket.warning_count = (bucket.warning_count ?? 0) + 1;
        if (!error(e) && !warning(e)) bucket.ok_count = (bucket.ok_count ?? 0) + 1;
        buckets.set(start, bucket);
      }
      expect(rows).toEqual(
        [...buckets.values()].sort((a, b) => (a.timestamp ?? 0) - (b.timestamp ?? 0)),
      );
      expect(chartConditions(table)).toBeDefined();
    },
  );

  test.each(TABLES)("a log's detail in %s, metadata in the warehouse's form", async (table) => {
    const event = tableRows(events, table, null, null)[7] as StudioEvent;
    const rows = await rowsOf(app, singleLogQuery(table, event.id), '', '');
    expect(rows).toEqual([{
      id: event.id,
      timestamp: event.timestampUs,
      event_message: event.event_message,
      metadata: records(event.metadata),
    }]);
  });

  test('paging: each next page ends at the last row of the one before, as Studio asks', async () => {
    // Studio moves iso_timestamp_end to the last row's millisecond; the range keeps what is at or
    // before it, in microseconds, as the reference system's CTEs do: the last row is not asked
    // again, and a row later in the same millisecond is not seen on the next page either.
    let end = '';
    let pages = 0;
    for (; pages < 10; pages++) {
      const rows = await rowsOf(app, defaultQuery('edge_logs', {}, 40), HOUR_AGO, end);
      const endUs = end === '' ? null : Date.parse(end) * 1000;
      expect(rows).toEqual(expectedPage('edge_logs', {}, HOUR_AGO_US, endUs, 40));
      if (rows.length === 0) break;
      const last = rows.at(-1) as Record<string, unknown>;
      // Studio: dayjs.utc(Number(lastRow.timestamp / 1000)).toISOString()
      end = new Date(Math.floor(Number(last.timestamp) / 1000)).toISOString();
    }
    expect(pages).toBeGreaterThan(2);
  });

  test('Explorer: Commits By User', async () => {
    const rows = await rowsOf(app, EXPLORER_TEMPLATES['Commits By User']);
    const counts = new Map<unknown, number>();
    for (const e of tableRows(events, 'postgres_logs', HOUR_AGO_US, null)) {
      if (!e.event_message.includes('COMMIT')) continue;
      const user = at(e, 'parsed.user_name');
      counts.set(user, (counts.get(user) ?? 0) + 1);
    }
    expect(rows.sort(byJson)).toEqual(
      [...counts].map(([user_name, count]) => ({ user_name, count })).sort(byJson),
    );
  });

  test('Explorer: 500 Request Codes', async () => {
    const rows = await rowsOf(app, EXPLORER_TEMPLATES['500 Request Codes']);
    const expected = tableRows(events, 'edge_logs', HOUR_AGO_US, null)
      .filter((e) => (status(e, 'response.status_code') ?? 0) >= 500)
      .slice(0, 100)
      .map((e) => ({
        timestamp: e.timestampUs,
        event_message: e.event_message,
        status_code: at(e, 'response.status_code'),
      }));
    expect(rows).toEqual(expected);
  });

  test('Explorer: Top Paths and Error Count by User', async () => {
    const paths = new Map<string, number>();
    for (const e of tableRows(events, 'edge_logs', HOUR_AGO_US, null)) {
      const path = String(at(e, 'request.path'));
      paths.set(path, (paths.get(path) ?? 0) + 1);
    }
    const top = await rowsOf(app, EXPLORER_TEMPLATES['Top Paths']);
    expect(top.map((row) => row.c)).toEqual(
      [...top.map((row) => row.c)].sort((a, b) => Number(b) - Number(a)),
    );
    expect(top.sort(byJson)).toEqual(
      [...paths].map(([path, c]) => ({ path, params: null, c })).sort(byJson),
    );
    const errors = new Map<string, number>();
    for (const e of tableRows(events, 'postgres_logs', HOUR_AGO_US, null)) {
      const severity = String(at(e, 'parsed.error_severity'));
      if (!['ERROR', 'FATAL', 'PANIC'].includes(severity)) continue;
      const key = JSON.stringify([at(e, 'parsed.user_name'), severity]);
      errors.set(key, (errors.get(key) ?? 0) + 1);
    }
    const byUser = await rowsOf(app, EXPLORER_TEMPLATES['Error Count by User']);
    expect(byUser.sort(byJson)).toEqual(
      [...errors].map(([key, count]) => {
        const [user_name, error_severity] = JSON.parse(key) as [string, string];
        return { count, user_name, error_severity };
      }).sort(byJson),
    );
  });

  test('Explorer: Auth Endpoint Events (RE2 alternation with an empty branch)', async () => {
    const since = TEST_NOW_US - 30 * 60_000_000;
    const rows = await rowsOf(app, EXPLORER_TEMPLATES['Auth Endpoint Events'], iso(since));
    const expected = tableRows(events, 'auth_logs', Math.floor(since / 1000) * 1000, null)
      .filter((e) => /level.{3}(info|warning||error|fatal)/.test(e.event_message))
      .map((e) => ({ timestamp: e.timestampUs, event_message: e.event_message }));
    expect(expected.length).toBeLessThan(100);
    expect(rows.sort(byJson)).toEqual(expected.sort(byJson));
  });

  test.each(
    [
      ['REST Requests', 'Unrecognized name: path'],
      ['Storage Object Requests', 'Unrecognized name: path'],
      ['Storage Egress Requests', 'Unrecognized name: path'],
      ['Auth Audit Logs', 'Table not found in CTE: (auth_audit_logs)'],
    ] as const,
  )('Explorer: %s is refused, naming why', async (name, message) => {
    const answer = await ask(app, EXPLORER_TEMPLATES[name]);
    expect(answer.status).toBe(400);
    const error = answer.json.error as { code: string; message: string };
    expect(error.code).toBe('bad_request');
    expect(error.message.startsWith(message), error.message).toBe(true);
  });

  test('Explorer: Metadata IP and Requests by Geography (left joins of unnest)', async () => {
    const inRange = tableRows(events, 'edge_logs', HOUR_AGO_US, null);
    const ips = await rowsOf(app, EXPLORER_TEMPLATES['Metadata IP']);
    expect(ips.sort(byJson)).toEqual(
      inRange.filter((e) => at(e, 'request.headers.x_real_ip') !== null)
        .map((e) => ({ timestamp: e.timestampUs, x_real_ip: at(e, 'request.headers.x_real_ip') }))
        .sort(byJson),
    );
    const countries = new Map<unknown, number>();
    for (const e of inRange) {
      const country = at(e, 'request.cf.country');
      countries.set(country, (countries.get(country) ?? 0) + 1);
    }
    const geography = await rowsOf(app, EXPLORER_TEMPLATES['Requests by Geography']);
    const counts = geography.map((row) => Number(row.count));
    expect(counts).toEqual([...counts].sort((a, b) => b - a));
    expect(geography.sort(byJson)).toEqual(
      [...countries].map(([country, count]) => ({ country, count })).sort(byJson),
    );
  });

  test('Explorer: Slow Response Time and Errors (database)', async () => {
    const slow = await rowsOf(app, EXPLORER_TEMPLATES['Slow Response Time']);
    expect(slow).toEqual(
      tableRows(events, 'edge_logs', HOUR_AGO_US, null)
        .filter((e) => Number(at(e, 'response.origin_time')) > 1000).slice(0, 100)
        .map((e) => ({
          timestamp: e.timestampUs,
          event_message: e.event_message,
          origin_time: at(e, 'response.origin_time'),
        })),
    );
    const errors = await rowsOf(app, EXPLORER_TEMPLATES.Errors);
    expect(errors).toEqual(
      tableRows(events, 'postgres_logs', HOUR_AGO_US, null)
        .filter((e) => ['ERROR', 'FATAL', 'PANIC'].includes(String(at(e, 'parsed.error_severity'))))
        .slice(0, 100)
        .map((e) => ({
          timestamp: e.timestampUs,
          error_severity: at(e, 'parsed.error_severity'),
          event_message: e.event_message,
        })),
    );
  });

  test('Explorer: Storage Top Cache Misses', async () => {
    const misses = new Map<string, number>();
    for (const e of tableRows(events, 'edge_logs', HOUR_AGO_US, null)) {
      const path = String(at(e, 'request.path'));
      const status = String(at(e, 'response.headers.cf_cache_status'));
      if (!path.startsWith('/storage/v1/object') || at(e, 'request.method') !== 'GET') continue;
      if (!['MISS', 'NONE/UNKNOWN', 'EXPIRED', 'BYPASS', 'DYNAMIC'].includes(status)) continue;
      misses.set(path, (misses.get(path) ?? 0) + 1);
    }
    const rows = await rowsOf(app, EXPLORER_TEMPLATES['Storage Top Cache Misses']);
    expect(rows.sort(byJson)).toEqual(
      [...misses].map(([path, count]) => ({ path, search: null, count })).sort(byJson),
    );
  });

  test.each(Object.entries(EXPLORER_SEARCHES))(
    "Explorer's simple template %s: a search on the log page",
    async (_, [table, search]) => {
      const rows = await rowsOf(app, defaultQuery(table, { search_query: search }));
      expect(rows).toEqual(expectedPage(table, { search_query: search }, HOUR_AGO_US, null));
    },
  );

  test("the cron jobs' page and badge: postgres_logs with Studio's cron condition", async () => {
    const cron = (e: StudioEvent) =>
      at(e, 'parsed.application_name') === 'pg_cron' || e.event_message.includes('cron job');
    const inRange = tableRows(events, 'postgres_logs', HOUR_AGO_US, null).filter(cron);
    expect(await rowsOf(app, pgCronQuery())).toEqual(
      inRange.slice(0, 100).map((e) => ({
        id: e.id,
        timestamp: e.timestampUs,
        event_message: e.event_message,
        error_severity: at(e, 'parsed.error_severity'),
        query: at(e, 'parsed.query'),
      })),
    );
    expect(await rowsOf(app, pgCronCountQuery())).toEqual([{ count: inRange.length }]);
  });

  test("a source the reference system's sandbox does not define is refused as it refuses it", async () => {
    const answer = await ask(app, supavisorQuery());
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.json)).toContain('Table not found in CTE: (supavisor_logs)');
  });
});

function chartPredicates(table: StudioTable): { error: Predicate; warning: Predicate } {
  const code = (e: StudioEvent) => status(e, 'response.status_code') ?? 0;
  switch (table) {
    case 'edge_logs':
    case 'function_edge_logs':
      return { error: (e) => code(e) >= 500, warning: (e) => code(e) >= 400 && code(e) < 500 };
    case 'postgres_logs':
      return {
        error: (e) => ['ERROR', 'FATAL', 'PANIC'].includes(String(at(e, 'parsed.error_severity'))),
        warning: (e) => at(e, 'parsed.error_severity') === 'WARNING',
      };
    case 'auth_logs':
      return { error: AUTH_ERROR, warning: AUTH_WARNING };
    case 'function_logs':
      return {
        error: (e) => ['error', 'fatal'].includes(String(at(e, 'level'))),
        warning: (e) => at(e, 'level') === 'warning',
      };
    default:
      return { error: () => false, warning: () => false };
  }
}

describe('Studio: what the sandbox refuses, with a message naming it', () => {
  const app = sandboxed();
  beforeAll(() => postAll(app, events.filter((e) => e.table === 'edge_logs')));

  test.each([
    ['select a.id from edge_logs a cross join postgres_logs b', 'a join of two tables'],
    ['select a.id from edge_logs a, edge_logs b, edge_logs c', 'a join of two tables'],
    ['with recursive r as (select 1 as n) select n from r', 'WITH is not supported'],
    [
      'select external_query("x", "select 1") as x from edge_logs',
      'the function external_query is not allowed',
    ],
    ['select * from edge_logs', 'restricted wildcard'],
    ['select e.* from edge_logs e', 'restricted wildcard'],
    ['drop table edge_logs', 'a Drop statement'],
    ['insert into edge_logs (id) values ("x")', 'a Insert statement'],
    ['select id from edge_logs; select id from edge_logs', 'one SELECT statement; it holds 2'],
    ['select id from users', 'Table not found in CTE: (users)'],
    ['select id from (select id from edge_logs)', 'a subquery in FROM'],
    ['select id from edge_logs where id in (select id from edge_logs)', 'a subquery'],
    ['select id from edge_logs union all select id from edge_logs', 'UNION, INTERSECT or EXCEPT'],
    [
      "select id from edge_logs where regexp_contains(event_message, '(')",
      'Cannot parse regular expression',
    ],
    ['select cast(event_message as int64) as n from edge_logs', 'Bad int64 value'],
    [
      "select id from edge_logs where timestamp > 'yesterday'",
      'could not cast literal "yesterday" to TIMESTAMP',
    ],
    ['select id from', 'sql does not parse as BigQuery SQL'],
    ['select count(*) over () as n from edge_logs', 'count(…) OVER'],
  ])('%s', async (sql, message) => {
    const answer = await ask(app, sql);
    expect(answer.status, answer.body).toBe(400);
    const error = answer.json.error as { code: string; message: string };
    expect(error.code).toBe('bad_request');
    expect(error.message).toContain(message);
  });
});

describe('Studio: the sandbox is off unless switched on, and bounded when on', () => {
  test('without LOGS_ALL_SQL=sandboxed, sql is ignored as the reference system ignores it', async () => {
    const app = testApp();
    const response = await read(
      app.call,
      `/api/endpoints/query/logs.all?project=default&sql=${encodeURIComponent('select 1')}`,
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('X-Ignored-Parameters')).toBe('sql');
  });

  test('at most 1,000 rows, the cut said in X-Result-Truncated', async () => {
    const app = sandboxed();
    const many = studioEvents(TEST_NOW_US - 2_000_000, 1_100, 1_000_000)
      .filter((e) => e.table === 'realtime_logs');
    await postAll(app, many);
    const answer = await ask(app, 'select id from realtime_logs order by timestamp desc');
    expect(answer.status).toBe(200);
    expect((answer.json.result as unknown[]).length).toBe(1000);
    expect(answer.headers.get('X-Result-Truncated')).toMatch(/^rows=1000; max-bytes=\d+$/);
  });

  test('a time range holding more bytes than a query may read is refused: narrow it', async () => {
    const app = sandboxed({ logsSqlMaxBytes: 10_000 });
    await postAll(app, events.filter((e) => e.table === 'auth_logs'));
    const answer = await ask(app, 'select count(*) as n from auth_logs');
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.json)).toContain(
      'narrow iso_timestamp_start and iso_timestamp_end',
    );
    const narrow = await ask(app, 'select count(*) as n from auth_logs', iso(TEST_NOW_US - 60e6));
    expect(narrow.status, narrow.body).toBe(200);
  });

  test('a query past LOGS_SQL_TIMEOUT_MS is refused; the API answers meanwhile; the next query runs', async () => {
    const app = sandboxed({ logsSqlTimeoutMs: 300 });
    // SQLite's LIKE tries each start of the 5,000 `a`s: about 1e8 steps a row.
    const slow = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => ({
      ...(events.find((e) => e.table === 'realtime_logs') as StudioEvent),
      id: `slow-${i}`,
      timestampUs: TEST_NOW_US - 10_000_000 - i,
      event_message: 'a'.repeat(30_000),
    }));
    await postAll(app, slow);
    const order: string[] = [];
    const running = ask(
      app,
      `select count(*) as n from realtime_logs where event_message like '%${'a'.repeat(5_000)}b'`,
    ).then((answer) => {
      order.push('slow');
      return answer;
    });
    const health = await app.call('/healthz');
    order.push('health');
    expect(health.status).toBe(200);
    const answer = await running;
    expect(order).toEqual(['health', 'slow']);
    expect(answer.status, answer.body).toBe(400);
    expect(JSON.stringify(answer.json)).toContain('ran longer than its limit of 300 ms');
    const next = await ask(app, 'select count(*) as n from realtime_logs');
    expect(next.status, next.body).toBe(200);
    expect(next.json).toEqual({ result: [{ n: 8 }] });
    const metrics = await app.metrics.registry.metrics();
    expect(metrics).toContain('logs_sql_queries_total{outcome="timed_out"} 1');
    expect(metrics).toContain('logs_sql_queries_total{outcome="answered"} 1');
    app.api.close();
  });

  test('a text that makes the parser fail inside itself is refused, and the next one parses', async () => {
    const app = sandboxed();
    await postAll(app, events.filter((e) => e.table === 'auth_logs'));
    const deep = await ask(app, `select ${Array(1200).fill('1').join('+')} as x from auth_logs`);
    expect(deep.status, deep.body).toBe(400);
    expect(JSON.stringify(deep.json)).toContain('nest its expressions less deeply');
    const next = await ask(app, 'select count(*) as n from auth_logs', '');
    expect(next.status, next.body).toBe(200);
    expect(next.json).toEqual({ result: [{ n: PER_TABLE }] });
    app.api.close();
  });

  test('a query needing more memory than the engine has is refused; the engine starts afresh', async () => {
    // 4 MiB of events a query: SQLite may use 40 MiB. A time limit far from what the query takes.
    const app = sandboxed({ logsSqlMaxBytes: 4_194_304, logsSqlTimeoutMs: 60_000 });
    const long = Array.from({ length: 100 }, (_, i) => ({
      ...(events.find((e) => e.table === 'realtime_logs') as StudioEvent),
      id: `long-${i}`,
      timestampUs: TEST_NOW_US - 10_000_000 - i,
      event_message: `${i}${'m'.repeat(30_000)}`,
    }));
    await postAll(app, long);
    // 100 rows of 26 columns of 30 KB sorted: 78 MB for SQLite's sorter, no function called.
    const columns = 'abcdefghijklmnopqrstuvwxyz'.split('').map((c) => `event_message as ${c}`);
    const answer = await ask(app, `select ${columns.join(', ')} from realtime_logs order by a`);
    expect(answer.status, answer.body.slice(0, 300)).toBe(400);
    expect(JSON.stringify(answer.json)).toContain('needs more memory than the engine has (40 MiB)');
    const next = await ask(app, 'select count(*) as n from realtime_logs');
    expect(next.json).toEqual({ result: [{ n: 100 }] });
    app.api.close();
  });

  test('LF-ENDPOINT-REDACT-PII: true redacts the addresses in the rows of a query', async () => {
    const app = sandboxed();
    const event = {
      ...(events.find((e) => e.table === 'auth_logs') as StudioEvent),
      event_message: 'login from 203.0.113.7',
      metadata: { remote_addr: '2001:db8::1', nested: { ip: '198.51.100.2' } },
    };
    await postAll(app, [event]);
    const sql = 'select event_message, metadata from auth_logs';
    const redacted = await read(app.call, studioPath(sql, ''), {
      headers: { 'LF-ENDPOINT-REDACT-PII': 'true' },
    });
    expect(JSON.parse(redacted.body)).toEqual({
      result: [{
        event_message: 'login from REDACTED',
        metadata: [{ remote_addr: 'REDACTED', nested: [{ ip: 'REDACTED' }] }],
      }],
    });
    const plain = await ask(app, sql, '');
    expect(JSON.stringify(plain.json)).toContain('203.0.113.7');
    app.api.close();
  });

  test("one API key's queries beyond its share are answered 429; another key's still run", async () => {
    const other = 'other-key-0123456789abcdef';
    const app = testApp({
      settings: {
        logsAllSql: 'sandboxed',
        logsSqlMaxConcurrentPerKey: 1,
        apiKeys: [TEST_KEY, other],
      },
    });
    const path = studioPath('select count(*) as n from edge_logs', HOUR_AGO);
    const [first, second, third] = await Promise.all([
      read(app.call, path),
      read(app.call, path),
      read((target, init) => app.call(target, { ...init, key: other }), path),
    ]);
    expect([first.status, second.status, third.status]).toEqual([200, 429, 200]);
    expect(JSON.parse(second.body).error.message).toContain('of this API key are running');
    app.api.close();
  });

  test('queries beyond the process bound are answered 429, not queued', async () => {
    const app = sandboxed({ logsSqlMaxConcurrent: 1 });
    const sql = 'select count(*) as n from edge_logs';
    const [first, second] = await Promise.all([
      read(app.call, studioPath(sql, HOUR_AGO)),
      read(app.call, studioPath(sql, HOUR_AGO)),
    ]);
    expect(first.status).toBe(200);
    expect(second.status).toBe(429);
    expect(second.headers.get('Retry-After')).toBe('1');
    expect(await app.metrics.registry.metrics()).toContain(
      'logs_sql_queries_total{outcome="busy"} 1',
    );
    expect((await read(app.call, studioPath(sql, HOUR_AGO))).status).toBe(200);
  });
});
