/**
 * Wire compatibility with the reference system's query endpoints (CONTRACT section 4, issue 11):
 * the paths, auth forms and parameter rules its clients rely on, and the value encodings of the
 * fields they read. Every response is checked against the OpenAPI document as well.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { beforeAll, describe, expect, test } from 'vitest';
import { ENDPOINTS } from '../../src/contract/registry.ts';
import type { ApiCountsRow } from '../../src/contract/rows.ts';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { TEST_KEY, TEST_NOW_US, testApp } from './helpers/app.ts';
import { read } from './helpers/http.ts';
import { responseValidator } from './helpers/openapi-validator.ts';

const PROJECT = 'compatprojectref0000';
const MINUTE_US = 60_000_000;
const STATS_ID = ENDPOINTS.find((record) => record.name === 'functions.invocation-stats')?.id;

const LINES = {
  edge: [0, 1, 2].map((i) =>
    JSON.stringify({
      id: `edge-${i}`,
      timestamp: TEST_NOW_US - (i + 1) * MINUTE_US,
      project: PROJECT,
      event_message: `GET | 200 | 203.0.113.${i} | https://${PROJECT}.supabase.co/rest/v1/t`,
      metadata: [{
        request: [{ host: `${PROJECT}.supabase.co`, path: '/rest/v1/t' }],
        response: [{ status_code: 200 }],
      }],
    })
  ),
  'function-edge': [0, 1].map((i) =>
    JSON.stringify({
      id: `fn-${i}`,
      timestamp: TEST_NOW_US - (i + 1) * MINUTE_US,
      metadata: [{
        project_ref: PROJECT,
        function_id: 'hello',
        execution_time_ms: 10 + i,
        response: [{ status_code: 200 }],
      }],
    })
  ),
} as const;

describe("the reference system's clients, against the embedded service", () => {
  const logLines: string[] = [];
  const logger = pino(
    { level: 'trace' },
    new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    }),
  );
  const app = testApp({ logger });
  const check = responseValidator(app.api.document);
  const events: LogEvent[] = [];

  /** A request without the test key unless `key` says how to send one. */
  const call = async (path: string, init: RequestInit = {}) => {
    const response = await read(
      (p, i) => app.call(p, { ...i, key: null }),
      path,
      init,
    );
    check(response);
    return response;
  };
  const bearer = { headers: { Authorization: `Bearer ${TEST_KEY}` } };

  beforeAll(async () => {
    for (const [source, lines] of Object.entries(LINES)) {
      const response = await read(app.call, `/api/ingest/${source}`, {
        method: 'POST',
        body: lines.join('\n'),
      });
      expect(JSON.parse(response.body).accepted).toBe(lines.length);
      for (const line of lines) {
        const result = parse(line, source === 'edge' ? 'edge' : 'function-edge', {
          nowUs: TEST_NOW_US,
        });
        if (result.ok) events.push(result.event);
      }
    }
  });

  describe('auth: the three forms and their precedence', () => {
    const path = `/api/endpoints/query/logs.all?project=${PROJECT}&project_tier=PRO`;

    test.each([
      ['Authorization: Bearer', bearer, path],
      ['X-API-KEY', { headers: { 'X-API-KEY': TEST_KEY } }, path],
      ['x-api-key in lower case', { headers: { 'x-api-key': TEST_KEY } }, path],
      ['the api_key query parameter', {}, `${path}&api_key=${TEST_KEY}`],
    ])('%s is accepted', async (_form, init, target) => {
      expect((await call(target, init)).status).toBe(200);
    });

    test('a wrong Bearer token is refused even beside a right X-API-KEY (Bearer comes first)', async () => {
      const response = await call(path, {
        headers: { Authorization: 'Bearer not-the-key-0000000000', 'X-API-KEY': TEST_KEY },
      });
      expect(response.status).toBe(401);
      expect(JSON.parse(response.body).error.message).toContain('Authorization: Bearer');
    });

    test('an Authorization header that is not a Bearer token is no key, whatever follows', async () => {
      const response = await call(path, {
        headers: { Authorization: `Basic ${TEST_KEY}`, 'X-API-KEY': TEST_KEY },
      });
      expect(response.status).toBe(401);
    });

    test('a wrong X-API-KEY is refused even beside a right api_key parameter', async () => {
      const response = await call(`${path}&api_key=${TEST_KEY}`, {
        headers: { 'X-API-KEY': 'not-the-key-0000000000' },
      });
      expect(response.status).toBe(401);
    });

    test('no key: 401 before anything, also for paths that do not exist', async () => {
      for (const target of [path, '/api/endpoints/query/nothing', '/endpoints/query/logs.all']) {
        const response = await call(target);
        expect(response.status, target).toBe(401);
      }
    });

    test('/health and /healthz answer without a key', async () => {
      for (const target of ['/health', '/healthz']) {
        const response = await call(target);
        expect(response.status, target).toBe(200);
        expect(JSON.parse(response.body)).toEqual({ status: 'ok' });
      }
    });

    test('a key sent in the URL reaches no log line, right or wrong', async () => {
      const secret = 'wrong-key-in-the-url-0123456789';
      await call(`${path}&api_key=${secret}`);
      await call(`${path}&api_key=${TEST_KEY}`);
      await call(`/api/endpoints/query/nothing?api_key=${TEST_KEY}`);
      const text = logLines.join('');
      expect(logLines.length).toBeGreaterThan(0);
      expect(text).not.toContain(secret);
      expect(text).not.toContain(TEST_KEY);
    });
  });

  describe('paths', () => {
    const query = `project=${PROJECT}&interval=1hr`;
    test.each([
      ['GET', `/api/endpoints/query/functions.invocation-stats?${query}`],
      ['GET', `/api/endpoints/query/${STATS_ID}?${query}`],
      ['GET', `/api/endpoints/functions.invocation-stats?${query}`],
      ['GET', `/endpoints/query/functions.invocation-stats?${query}`],
      ['GET', `/endpoints/query/${STATS_ID}?${query}`],
      ['GET', `/api/endpoints/query/name/functions.invocation-stats?${query}`],
      ['POST', `/api/endpoints/query/${STATS_ID}?${query}`],
      ['POST', `/api/endpoints/query/functions.invocation-stats?${query}`],
    ])('%s %s answers the same rows', async (method, target) => {
      const response = await call(target, { method, ...bearer });
      expect(response.status, response.body).toBe(200);
      const expected = evaluateEndpoint(
        'functions.invocation-stats',
        events,
        new URLSearchParams(query),
        TEST_NOW_US,
      );
      expect(JSON.parse(response.body).result).toEqual(expected.ok ? expected.rows : null);
    });
  });

  describe('parameters', () => {
    const rowsOf = async (target: string, init: RequestInit = {}) => {
      const response = await call(target, { ...bearer, ...init, headers: bearer.headers });
      expect(response.status, response.body).toBe(200);
      return { rows: JSON.parse(response.body).result, headers: response.headers };
    };

    test('a POST body of strings is read, and wins over the query string', async () => {
      const { rows } = await rowsOf(
        '/api/endpoints/query/functions.invocation-stats?interval=7day',
        {
          method: 'POST',
          body: JSON.stringify({ project: PROJECT, interval: '15min' }),
        },
      );
      expect(rows).toHaveLength(16);
    });

    test('a POST body that is not an object of strings is 400 invalid_body', async () => {
      for (const body of ['[1]', '{"interval": 5}', 'not json']) {
        const response = await call(`/api/endpoints/query/logs.all?project=${PROJECT}`, {
          method: 'POST',
          body,
          ...bearer,
        });
        expect(response.status, body).toBe(400);
        expect(JSON.parse(response.body).error.code).toBe('invalid_body');
      }
    });

    test('a repeated parameter takes its last value', async () => {
      const { rows } = await rowsOf(
        `/api/endpoints/query/functions.invocation-stats?project=x&project=${PROJECT}&interval=7day&interval=15min`,
      );
      expect(rows).toHaveLength(16);
      expect(rows.reduce((sum: number, row: { count: number }) => sum + row.count, 0)).toBe(2);
    });

    test('sql and lql are ignored, and the response says so', async () => {
      const { rows, headers } = await rowsOf(
        `/api/endpoints/query/logs.all?project=${PROJECT}&project_tier=PRO&sql=select%201&lql=`,
      );
      expect(rows).toHaveLength(3);
      expect(headers.get('X-Ignored-Parameters')).toBe('sql, lql');
    });

    test('an absent interval of invocation-stats is 1day; an absent project_tier is FREE', async () => {
      const stats = await rowsOf(
        `/api/endpoints/query/functions.invocation-stats?project=${PROJECT}`,
      );
      expect(stats.rows).toHaveLength(25);
      const logs = await rowsOf(`/api/endpoints/query/logs.all?project=${PROJECT}`);
      expect(logs.rows.map((row: { id: string }) => row.id)).toEqual([
        'edge-0',
        'edge-1',
        'edge-2',
      ]);
    });

    test('a missing project is still 400 (a deliberate deviation)', async () => {
      const response = await call('/api/endpoints/query/logs.all?project_tier=PRO', bearer);
      expect(response.status).toBe(400);
      expect(JSON.parse(response.body).error).toMatchObject({ code: 'missing_parameter' });
    });
  });

  describe('value encodings of the fields clients read', () => {
    test('invocation-stats: timestamp an integer of microseconds; counts integers; null kept', async () => {
      const response = await call(
        `/api/endpoints/query/functions.invocation-stats?project=${PROJECT}&interval=15min`,
        bearer,
      );
      const rows = JSON.parse(response.body).result;
      const filled = rows.filter((row: { count: number }) => row.count > 0);
      expect(filled).toHaveLength(2);
      for (const row of rows) {
        expect(Number.isSafeInteger(row.timestamp)).toBe(true);
        expect(row.timestamp % MINUTE_US).toBe(0);
      }
      const empty = rows.find((row: { count: number }) => row.count === 0);
      expect(empty).toMatchObject({ p95_execution_time: null, avg_execution_time: null });
      // Studio turns a microsecond timestamp into a date by dividing by 1000.
      expect(new Date(filled[0].timestamp / 1000).toISOString()).toMatch(/^2026-11-21T10:1\d:00/);
    });

    test('logs.all: timestamp an integer of microseconds, the event time itself', async () => {
      const response = await call(`/api/endpoints/query/logs.all?project=${PROJECT}`, bearer);
      expect(JSON.parse(response.body).result.map((row: { timestamp: number }) => row.timestamp))
        .toEqual([1, 2, 3].map((i) => TEST_NOW_US - i * MINUTE_US));
    });

    test('usage.api-counts: timestamp a YYYY-MM-DDTHH:MM:SS string in UTC without zone', async () => {
      const response = await call(
        `/api/endpoints/query/usage.api-counts?project=${PROJECT}&interval=hourly`,
        bearer,
      );
      expect(JSON.parse(response.body).result).toEqual([{
        timestamp: '2026-11-21T10:00:00',
        total_rest_requests: 3,
        total_storage_requests: 0,
        total_auth_requests: 0,
        total_realtime_requests: 0,
      }]);
    });
  });

  describe("Supabase Studio's self-hosted proxy, as its public source builds the requests", () => {
    // apps/studio/lib/api/self-hosted/logs.ts: always GET /api/endpoints/query/<name>, the key in
    // x-api-key, every parameter in the query string (a browser POST body is turned into it).
    const studio = {
      headers: {
        'x-api-key': TEST_KEY,
        'Content-Type': 'application/json',
        Accept: 'application/json',
      },
    };
    const get = async (name: string, params: Record<string, string>) => {
      const response = await call(
        `/api/endpoints/query/${name}?${new URLSearchParams({ project: PROJECT, ...params })}`,
        studio,
      );
      expect(response.status, response.body).toBe(200);
      return JSON.parse(response.body).result;
    };

    test('logs.all with sql and a time range; "load older" from the last row, µs to ms', async () => {
      // useLogsPreview: sql, iso_timestamp_start, iso_timestamp_end.
      const start = new Date((TEST_NOW_US - 60 * MINUTE_US) / 1000).toISOString();
      const end = new Date(TEST_NOW_US / 1000).toISOString();
      const page = await get('logs.all', {
        sql: 'select id, timestamp, event_message, metadata from edge_logs limit 2',
        iso_timestamp_start: start,
        iso_timestamp_end: end,
      });
      expect(page.map((row: { id: string }) => row.id)).toEqual(['edge-0', 'edge-1', 'edge-2']);
      for (const row of page) {
        expect(Object.keys(row).sort()).toEqual(['event_message', 'id', 'metadata', 'timestamp']);
        // Logs.utils isUnixMicro: String(timestamp).length === 16.
        expect(String(row.timestamp)).toHaveLength(16);
      }
      // The next iso_timestamp_end: dayjs.utc(Number(lastRow.timestamp / 1000)).
      const older = new Date(Number(page[1].timestamp / 1000)).toISOString();
      const next = await get('logs.all', { iso_timestamp_start: start, iso_timestamp_end: older });
      // Milliseconds cut the row's microseconds: the row already shown is not shown again.
      expect(next.map((row: { id: string }) => row.id)).toEqual(['edge-2']);
    });

    test('usage.api-counts as Studio sums it (older Studio intervals)', async () => {
      // project-log-stats-query: reads timestamp and the four totals, summed with sumBy.
      const rows = await get('usage.api-counts', { interval: 'hourly' });
      const total = (rows as ApiCountsRow[]).reduce(
        (sum, row) =>
          sum + row.total_rest_requests + row.total_auth_requests + row.total_storage_requests +
          row.total_realtime_requests,
        0,
      );
      expect(total).toBe(3);
    });

    test('functions.invocation-stats as older Studio asked it: an empty interval and function_id', async () => {
      // functions-inv-stats-query: ?interval=&function_id= ; the page reads count, the mean of
      // avg_execution_time, and timestamp as 16-digit microseconds.
      const rows = await get('functions.invocation-stats', { interval: '', function_id: '' });
      expect(rows).toHaveLength(25);
      const filled = rows.filter((row: { count: number }) => row.count > 0);
      expect(filled.reduce((sum: number, row: { count: number }) => sum + row.count, 0)).toBe(2);
      expect(filled[0].avg_execution_time).toBe(10.5);
      for (const row of rows) expect(String(row.timestamp)).toHaveLength(16);
    });
  });

  test('the CORS preflight allows the headers clients send', async () => {
    const response = await app.api.fetch(
      new Request(`http://api.test/api/endpoints/query/logs.all`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://studio.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization, lf-endpoint-redact-pii',
        },
      }),
    );
    expect(response.status).toBe(204);
    const allowed = (response.headers.get('Access-Control-Allow-Headers') ?? '').toLowerCase();
    for (
      const header of ['authorization', 'x-api-key', 'lf-endpoint-labels', 'lf-endpoint-redact-pii']
    ) {
      expect(allowed).toContain(header);
    }
    expect(response.headers.get('Access-Control-Allow-Methods')).toContain('POST');
  });
});
