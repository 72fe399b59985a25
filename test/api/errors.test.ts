/**
 * Every error of CONTRACT section 4 with its exact status and code, in the envelope, never a
 * stack trace; authentication before routing.
 */
import { describe, expect, test } from 'vitest';
import { createMetrics } from '../../api/metrics.ts';
import type { RollupStore } from '../../src/store/port.ts';
import { TEST_KEY, TEST_NOW_US, testApp } from './helpers/app.ts';
import { read, type ReadResponse } from './helpers/http.ts';
import { responseValidator } from './helpers/openapi-validator.ts';

const app = testApp();
const check = responseValidator(app.api.document);

async function get(path: string, init: RequestInit & { key?: string | null } = {}) {
  const response = await read(app.call, path, init);
  check(response);
  return response;
}

function expectError(response: ReadResponse, status: number, code: string): string {
  expect(response.status, response.body).toBe(status);
  expect(response.contentType).toBe('application/json; charset=utf-8');
  const body = JSON.parse(response.body) as { error: { code: string; message: string } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(body.error.message).not.toMatch(/\n\s+at /);
  return body.error.message;
}

const INVOCATIONS = '/api/endpoints/functions.invocation-stats';
const LOGS = '/api/endpoints/logs.all';
const COUNTS = '/api/endpoints/usage.api-counts';

describe('400: parameters', () => {
  const cases: [string, string, string][] = [
    [`${INVOCATIONS}?interval=1hr`, 'missing_parameter', 'project'],
    [`${INVOCATIONS}?project=&interval=1hr`, 'missing_parameter', 'project'],
    [`${LOGS}?project_tier=PRO`, 'missing_parameter', 'project'],
    [
      `${LOGS}?project=p&project_tier=PRO&iso_timestamp_start=yesterday`,
      'invalid_parameter',
      'iso_timestamp_start',
    ],
    [
      `${LOGS}?project=p&project_tier=PRO&iso_timestamp_end=2026-13-01`,
      'invalid_parameter',
      'iso_timestamp_end',
    ],
    [`${COUNTS}?interval=daily`, 'missing_parameter', 'project'],
    [`${COUNTS}?project=p`, 'missing_parameter', 'interval'],
    [`${COUNTS}?project=p&interval=weekly`, 'invalid_parameter', 'interval'],
    [`${COUNTS}?project=(abc&interval=daily`, 'invalid_parameter', 'project'],
    [`${COUNTS}?project=${'a'.repeat(257)}&interval=daily`, 'invalid_parameter', 'project'],
  ];
  test.each(cases)('%s -> %s (%s)', async (path, code, parameter) => {
    const message = expectError(await get(path), 400, code);
    expect(message).toContain(`"${parameter}"`);
  });

  test('the message lists the allowed values', async () => {
    const message = expectError(
      await get(`${COUNTS}?project=p&interval=weekly`),
      400,
      'invalid_parameter',
    );
    expect(message).toContain('minutely, hourly, daily, 1hr, 1day, 7day');
  });

  test('unknown parameters are ignored', async () => {
    const response = await get(`${INVOCATIONS}?project=p&interval=1hr&utm_source=x&limit=5`);
    expect(response.status).toBe(200);
  });
});

describe('401: authentication comes first', () => {
  test.each([
    INVOCATIONS,
    '/api/endpoints',
    '/api/endpoints/nope',
    '/api/endpoints/query/00000000-0000-4000-8000-000000000000',
    '/api/nothing-here',
    '/api/ingest/edge',
    '/not-even-api',
  ])('%s without a key is 401', async (path) => {
    const response = await get(path, { key: null });
    expectError(response, 401, 'unauthorized');
    expect(response.headers.get('WWW-Authenticate')).toContain('X-API-KEY');
  });

  test('a wrong key is 401, on a known and an unknown endpoint alike', async () => {
    const known = await get(`${INVOCATIONS}?project=p&interval=1hr`, {
      key: 'wrong-key-0123456789',
    });
    const unknown = await get('/api/endpoints/nope', { key: 'wrong-key-0123456789' });
    expectError(known, 401, 'unauthorized');
    expectError(unknown, 401, 'unauthorized');
    expect(known.body).toBe(unknown.body);
  });

  test('a key that is a prefix or an extension of the right one is refused', async () => {
    for (const key of [TEST_KEY.slice(0, -1), `${TEST_KEY}x`, TEST_KEY.toUpperCase(), '']) {
      expectError(await get(LOGS, { key }), 401, 'unauthorized');
    }
  });

  test('wrong method without a key is 401, not 405', async () => {
    expectError(await get(LOGS, { key: null, method: 'DELETE' }), 401, 'unauthorized');
  });

  test.each(['x-api-key', 'X-Api-Key', 'X-API-KEY', 'x-API-key'])(
    'the header name %s is accepted',
    async (name) => {
      const response = await get(`${LOGS}?project=p&project_tier=FREE`, {
        key: null,
        headers: { [name]: TEST_KEY },
      });
      expect(response.status).toBe(200);
    },
  );

  test('the public routes need no key', async () => {
    for (const path of ['/healthz', '/readyz', '/openapi.json', '/metrics']) {
      expect((await get(path, { key: null })).status, path).toBe(200);
    }
  });
});

describe('404, 405, 414', () => {
  test('unknown endpoint name', async () => {
    const message = expectError(await get('/api/endpoints/nope'), 404, 'not_found');
    expect(message).toContain('GET /api/endpoints');
  });

  test('unknown id under /query/, and an id where a name belongs', async () => {
    expectError(
      await get('/api/endpoints/query/00000000-0000-4000-8000-000000000000'),
      404,
      'not_found',
    );
    const message = expectError(
      await get('/api/endpoints/9da1cf56-a100-4d8b-8b7f-e5ceec992fc3'),
      404,
      'not_found',
    );
    expect(message).toContain('/api/endpoints/query/9da1cf56-a100-4d8b-8b7f-e5ceec992fc3');
  });

  test('the id is matched without regard to letter case', async () => {
    const response = await get(
      '/api/endpoints/query/9DA1CF56-A100-4D8B-8B7F-E5CEEC992FC3?project=p&interval=1hr',
    );
    expect(response.status).toBe(200);
  });

  test('unknown route and unknown source', async () => {
    expectError(await get('/api/nothing-here'), 404, 'not_found');
    expectError(await get('/api/endpoints/query'), 404, 'not_found');
    expectError(await get('/api/ingest/nope', { method: 'POST', body: '{}' }), 404, 'not_found');
  });

  test.each([
    ['POST', LOGS, 'GET, HEAD, OPTIONS'],
    ['DELETE', '/api/endpoints/query/logs.all', 'GET, HEAD, POST, OPTIONS'],
    ['PUT', '/api/endpoints', 'GET, HEAD, OPTIONS'],
    ['GET', '/api/ingest/edge', 'POST, OPTIONS'],
    ['POST', '/healthz', 'GET, HEAD'],
  ])('%s %s is 405 with Allow: %s', async (method, path, allow) => {
    const response = await get(path, { method, ...(method === 'GET' ? {} : { body: '' }) });
    expectError(response, 405, 'method_not_allowed');
    expect(response.headers.get('Allow')).toBe(allow);
  });

  test('a huge URL is 414', async () => {
    const response = await get(`${LOGS}?project=${'a'.repeat(20_000)}&project_tier=PRO`);
    expectError(response, 414, 'uri_too_long');
  });
});

/** A store whose every call answers with `answer()`: a rejection, or a promise never settled. */
function stubStore(answer: () => Promise<never>): RollupStore {
  return {
    commitProject: answer,
    readWatermarks: answer,
    readReaches: answer,
    readParts: answer,
    readBuckets: answer,
    readSlots: answer,
    readOffset: answer,
    advanceOffset: answer,
    updateSortedSet: answer,
    rangeByScore: answer,
    membersSince: answer,
    ping: answer,
    close: () => Promise.resolve(),
  };
}

describe('503 when the store is down, 500 for the unexpected', () => {
  const down = testApp({
    store: stubStore(() => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:6379'))),
  });

  test.each([
    `${INVOCATIONS}?project=p&interval=5min`,
    `${LOGS}?project=p&project_tier=PRO`,
    `${COUNTS}?project=p&interval=daily`,
    '/readyz',
  ])('%s is 503 with Retry-After', async (path) => {
    const response = await read(down.call, path);
    check(response);
    const message = expectError(response, 503, 'unavailable');
    expect(message).not.toContain('6379');
    expect(response.headers.get('Retry-After')).toBe('1');
  });

  test('parameters are still checked first: bad input is 400 even with the store down', async () => {
    expectError(
      await read(down.call, `${COUNTS}?project=p&interval=weekly`),
      400,
      'invalid_parameter',
    );
  });

  test('a store that never answers is 503 after the deadline', async () => {
    const hanging = testApp({
      store: stubStore(() => new Promise<never>(() => {})),
      settings: { storeTimeoutMs: 50 },
    });
    const response = await read(hanging.call, `${INVOCATIONS}?project=p&interval=1hr`);
    expectError(response, 503, 'unavailable');
    expectError(await read(hanging.call, '/readyz'), 503, 'unavailable');
  });

  test('an unexpected failure is 500 internal, generic, without details', async () => {
    const metrics = createMetrics();
    const broken = testApp({
      metrics: {
        ...metrics,
        registry: Object.assign(Object.create(metrics.registry), {
          metrics: () => Promise.reject(new TypeError('secret internal detail')),
        }),
      },
    });
    const response = await read(broken.call, '/metrics');
    const message = expectError(response, 500, 'internal');
    expect(message).not.toContain('secret');
    expect(message).toContain('retry');
  });
});

describe('success headers, CORS, caching', () => {
  test('results are JSON in the envelope with the right cache policy', async () => {
    const stats = await get(`${INVOCATIONS}?project=p&interval=15min`);
    expect(stats.status).toBe(200);
    expect(stats.contentType).toBe('application/json; charset=utf-8');
    expect(JSON.parse(stats.body).result).toHaveLength(16);
    expect(stats.headers.get('Cache-Control')).toBe('private, no-cache');
    const logs = await get(`${LOGS}?project=p&project_tier=PRO`);
    expect(logs.headers.get('Cache-Control')).toBe('no-store');
    expect(JSON.parse(logs.body)).toEqual({ result: [] });
  });

  test('CORS on answers and errors alike', async () => {
    const answer = await get(`${INVOCATIONS}?project=p&interval=15min`);
    const etag = answer.headers.get('ETag') ?? '';
    const responses = [
      await get('/healthz'),
      answer,
      // An answer unchanged: its 304 carries the headers as its 200 does.
      await get(`${INVOCATIONS}?project=p&interval=15min`, { headers: { 'If-None-Match': etag } }),
      await get('/api/endpoints/nope'),
      await get(LOGS, { key: null }),
    ];
    expect(responses.map((response) => response.status)).toEqual([200, 200, 304, 404, 401]);
    // The answers carry their own (the route writes them), the rest get the middleware's: the same.
    const cors = responses.map((response) => [
      response.headers.get('Access-Control-Allow-Origin'),
      response.headers.get('Access-Control-Expose-Headers'),
    ]);
    for (const pair of cors) expect(pair).toEqual(cors[0]);
    expect(cors[0]?.[0]).toBe('*');
    expect(cors[0]?.[1]?.split(',')).toEqual(expect.arrayContaining(['ETag', 'Retry-After']));
  });

  test('the preflight is answered without a key and allows X-API-KEY', async () => {
    const response = await app.call(LOGS, {
      method: 'OPTIONS',
      key: null,
      headers: {
        Origin: 'https://example.com',
        'Access-Control-Request-Method': 'GET',
        'Access-Control-Request-Headers': 'x-api-key',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
    expect(response.headers.get('Access-Control-Allow-Headers')?.toLowerCase()).toContain(
      'x-api-key',
    );
    expect(response.headers.get('Access-Control-Allow-Methods')).toContain('GET');
  });

  test('ETag and If-None-Match: 304 while unchanged, 200 once the rows change', async () => {
    const path = `${INVOCATIONS}?project=etagproject&interval=1hr`;
    const first = await get(path);
    const etag = first.headers.get('ETag');
    expect(etag).toMatch(/^W\/".+"$/);
    const again = await get(path, { headers: { 'If-None-Match': etag ?? '' } });
    expect(again.status).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.get('ETag')).toBe(etag);
    expect((await get(path, { headers: { 'If-None-Match': `"x", ${etag}` } })).status).toBe(304);
    expect((await get(path, { headers: { 'If-None-Match': etag?.slice(2) ?? '' } })).status).toBe(
      304,
    );
    expect((await get(path, { headers: { 'If-None-Match': '*' } })).status).toBe(304);
    expect((await get(path, { headers: { 'If-None-Match': 'W/"other"' } })).status).toBe(200);

    const event = {
      id: 'etag-1',
      timestamp: TEST_NOW_US - 60_000_000,
      metadata: [{
        project_ref: 'etagproject',
        execution_time_ms: 5,
        response: [{ status_code: 200 }],
      }],
    };
    const ingested = await get('/api/ingest/function-edge', {
      method: 'POST',
      body: JSON.stringify(event),
    });
    expect(ingested.status).toBe(202);
    const changed = await get(path, { headers: { 'If-None-Match': etag ?? '' } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('ETag')).not.toBe(etag);
  });

  test("logs.all's ETag names the entries read: 304 while none changes, 200 once one does", async () => {
    const path = `${LOGS}?project=etaglogs&project_tier=PRO`;
    const edge = (id: string, seconds: number, project = 'etaglogs') =>
      JSON.stringify({
        id,
        timestamp: TEST_NOW_US - seconds * 1_000_000,
        project,
        event_message: `GET | 200 | ${id}`,
        metadata: [{ request: [{ host: `${project}.supabase.co`, method: 'GET' }] }],
      });
    const ingest = async (...lines: string[]) => {
      const response = await get('/api/ingest/edge', { method: 'POST', body: lines.join('\n') });
      expect(response.status, response.body).toBe(202);
    };
    const ids = (response: ReadResponse): string[] =>
      JSON.parse(response.body).result.map((row: { id: string }) => row.id);
    // 100 entries, 10 s apart: as many as an answer holds.
    await ingest(...Array.from({ length: 100 }, (_, i) => edge(`logs-etag-${i}`, 100 + 10 * i)));
    const first = await get(path);
    expect(ids(first)).toHaveLength(100);
    const etag = first.headers.get('ETag') ?? '';
    // A tag of the entries read (`v` and 27 characters), not of the body (27).
    expect(etag).toMatch(/^W\/"v[\w-]{27}"$/);
    const again = await get(path, { headers: { 'If-None-Match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('ETag')).toBe(etag);

    // Neither another project's entry nor one older than the 100 read changes the answer.
    await ingest(edge('logs-etag-elsewhere', 50, 'etagother'), edge('logs-etag-oldest', 5_000));
    expect((await get(path, { headers: { 'If-None-Match': etag } })).status).toBe(304);

    // One newer than the oldest read: as many rows, all but the last the same (it takes the
    // place of the oldest).
    await ingest(edge('logs-etag-between', 1_085));
    const changed = await get(path, { headers: { 'If-None-Match': etag } });
    expect(changed.status).toBe(200);
    const now = ids(changed);
    expect(now).toHaveLength(100);
    expect(now.slice(0, 99)).toEqual(ids(first).slice(0, 99));
    expect(now[99]).toBe('logs-etag-between');
    expect(changed.headers.get('ETag')).not.toBe(etag);
  });

  test('HEAD answers the headers without the body', async () => {
    const response = await app.call(`${LOGS}?project=p&project_tier=PRO`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(response.headers.get('ETag')).not.toBeNull();
    expect(await response.text()).toBe('');
  });

  test('the listing shows the effective ids', async () => {
    const overridden = testApp({
      settings: { endpointIds: { 'logs.all': '00000000-0000-4000-8000-0000000000aa' } },
    });
    const listing = await read(overridden.call, '/api/endpoints');
    const ids = (JSON.parse(listing.body).result as { name: string; id: string }[]).map((
      r,
    ) => [r.name, r.id]);
    expect(ids).toEqual([
      ['functions.invocation-stats', '9da1cf56-a100-4d8b-8b7f-e5ceec992fc3'],
      ['logs.all', '00000000-0000-4000-8000-0000000000aa'],
      ['usage.api-counts', '966f33a6-47d1-4797-ac34-623aed8fa98c'],
    ]);
    const byNewId = await read(
      overridden.call,
      '/api/endpoints/query/00000000-0000-4000-8000-0000000000aa?project=p&project_tier=FREE',
    );
    expect(byNewId.status).toBe(200);
    const byOldId = await read(
      overridden.call,
      '/api/endpoints/query/c0d7853c-5f4f-4a57-9f05-fa926b9511aa?project=p&project_tier=FREE',
    );
    expect(byOldId.status).toBe(404);
    responseValidator(overridden.api.document)(byNewId);
  });
});
