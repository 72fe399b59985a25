/**
 * Logflare's ingest routes with the events a self-hosted Supabase stack's Vector posts (one
 * fixture per source): every body, key and source form; each event kept or refused alone; Kong's
 * events answering `logs.all` and `usage.api-counts` equal to the reference evaluator.
 */
import { deflateSync, gzipSync } from 'node:zlib';
import { describe, expect, test } from 'vitest';
import type { LogflareSource } from '../../src/events/logflare-sources.ts';
import { VECTOR_SOURCES, vectorFixture } from '../fixtures/supabase/vector-events.ts';
import { parseSourceLog } from '../../src/events/source-log.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { readSourceLogs, type SourceLogEntry } from '../../src/endpoints/read/source-logs.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { SKEW_US, TEST_KEY, TEST_NOW_US, testApp, type TestAppOptions } from './helpers/app.ts';
import { read } from './helpers/http.ts';
import { responseValidator } from './helpers/openapi-validator.ts';

const fixture = vectorFixture;

/** An RFC 3339 UTC time as microseconds, worked out apart from the service's own parser. */
function micros(text: string): number {
  const [, whole = '', fraction = ''] = /^(.*?)(?:\.(\d+))?Z$/.exec(text) ?? [];
  return Date.parse(`${whole}Z`) * 1000 + Number(fraction.slice(0, 6).padEnd(6, '0'));
}

function fresh(options: TestAppOptions = {}) {
  const app = testApp(options);
  const check = responseValidator(app.api.document);
  const post = async (
    path: string,
    body: BodyInit,
    init: { headers?: Record<string, string>; key?: string | null } = {},
  ) => {
    const response = await read(
      (target, request) => app.call(target, { ...request, key: init.key ?? TEST_KEY }),
      path,
      { method: 'POST', body, headers: init.headers ?? {} },
    );
    check(response);
    return response;
  };
  const kept = (source: LogflareSource, project = 'default'): Promise<SourceLogEntry[]> =>
    readSourceLogs(app.store, {
      project,
      source,
      afterUs: 0,
      untilUs: TEST_NOW_US + SKEW_US,
      limit: 1000,
    });
  const get = async (path: string) => {
    const response = await read(app.call, path);
    check(response);
    expect(response.status, response.body).toBe(200);
    return JSON.parse(response.body).result as unknown[];
  };
  return { app, post, kept, get };
}

/** The events that were kept, parsed again from their stored text. */
function storedEvents(source: LogflareSource, entries: readonly SourceLogEntry[]): LogEvent[] {
  return entries.map((entry) => {
    const result = parseSourceLog(entry.text, source, {
      nowUs: TEST_NOW_US,
      maxFutureSkewUs: SKEW_US,
    });
    if (!result.ok) throw new Error(result.rejection.reason);
    return result.event;
  });
}

describe("Vector's events, source by source", () => {
  test.each(VECTOR_SOURCES)('%s: every event kept, normalized', async (source) => {
    const { post, kept } = fresh();
    const events = fixture(source);
    const response = await post(`/api/logs?source_name=${source}`, JSON.stringify(events), {
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.status, response.body).toBe(200);
    expect(JSON.parse(response.body)).toEqual({ message: 'Logged!' });
    const entries = await kept(source);
    expect(entries).toHaveLength(events.length);
    const byMessage = new Map(
      entries.map((entry) => [JSON.parse(entry.text).event_message, entry]),
    );
    for (const event of events) {
      const entry = byMessage.get(event['event_message']);
      expect(entry, String(event['event_message'])).toBeDefined();
      const stored = JSON.parse(entry?.text ?? '{}') as Record<string, unknown>;
      expect(stored['id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(stored['project']).toBe('default');
      expect(stored['timestamp']).toBe(entry?.timestampUs);
      expect(stored['timestamp']).toBe(micros(String(event['timestamp'])));
      expect(stored['metadata']).toEqual(event['metadata']);
      expect(stored['appname']).toBe(event['appname']);
    }
  });

  test('nanosecond timestamps are kept to the microsecond', async () => {
    const { post, kept } = fresh();
    await post(
      '/api/logs?source_name=gotrue.logs.prod',
      JSON.stringify(fixture('gotrue.logs.prod')),
    );
    const [newest] = await kept('gotrue.logs.prod');
    // 2026-11-21T10:14:02.031283512Z
    expect(newest?.timestampUs).toBe(Date.UTC(2026, 10, 21, 10, 14, 2) * 1000 + 31_283);
  });
});

describe('body, key and source forms', () => {
  const events = fixture('postgres.logs');
  const forms: [string, string, Record<string, string>][] = [
    ['a JSON array', JSON.stringify(events), { 'Content-Type': 'application/json' }],
    ['{"batch": [...]}', JSON.stringify({ batch: events }), { 'Content-Type': 'application/json' }],
    ['NDJSON', events.map((event) => JSON.stringify(event)).join('\n'), {
      'Content-Type': 'application/x-ndjson',
    }],
  ];
  test.each(forms)('%s', async (_, body, headers) => {
    const { post, kept } = fresh();
    const response = await post('/api/logs?source_name=postgres.logs', body, { headers });
    expect(response.status, response.body).toBe(200);
    expect(await kept('postgres.logs')).toHaveLength(events.length);
  });

  test('one event object', async () => {
    const { post, kept } = fresh();
    const response = await post('/api/logs?source_name=postgres.logs', JSON.stringify(events[0]));
    expect(response.status, response.body).toBe(200);
    expect(await kept('postgres.logs')).toHaveLength(1);
  });

  test.each(['/logs', '/api/logs', '/api/events'])('the path %s', async (path) => {
    const { post, kept } = fresh();
    const response = await post(`${path}?source_name=postgres.logs`, JSON.stringify(events));
    expect(response.status, response.body).toBe(200);
    expect(await kept('postgres.logs')).toHaveLength(events.length);
  });

  test.each<[string, string, Record<string, string>]>([
    ['source_name', '/api/logs?source_name=postgres.logs', {}],
    ['source', '/api/logs?source=postgres.logs', {}],
    ['X-Source', '/api/logs', { 'X-Source': 'postgres.logs' }],
  ])('the source in %s', async (_, path, headers) => {
    const { post, kept } = fresh();
    const response = await post(path, JSON.stringify(events), { headers });
    expect(response.status, response.body).toBe(200);
    expect(await kept('postgres.logs')).toHaveLength(events.length);
  });

  test('the key as Vector sends it, as a Bearer token and as api_key', async () => {
    const { app, kept } = fresh();
    const body = JSON.stringify(events);
    const sent = [
      app.call('/api/logs?source_name=postgres.logs', {
        method: 'POST',
        body,
        key: null,
        headers: { 'x-api-key': TEST_KEY },
      }),
      app.call('/api/logs?source_name=postgres.logs', {
        method: 'POST',
        body,
        key: null,
        headers: { Authorization: `Bearer ${TEST_KEY}` },
      }),
      app.call(`/api/logs?source_name=postgres.logs&api_key=${TEST_KEY}`, {
        method: 'POST',
        body,
        key: null,
      }),
    ];
    for (const response of await Promise.all(sent)) expect(response.status).toBe(200);
    expect(await kept('postgres.logs')).toHaveLength(3 * events.length);
  });

  test('a wrong key: 401, nothing kept', async () => {
    const { post, kept } = fresh();
    const response = await post('/api/logs?source_name=postgres.logs', JSON.stringify(events), {
      key: 'wrong-key-0123456789abcdef',
    });
    expect(response.status).toBe(401);
    expect(await kept('postgres.logs')).toHaveLength(0);
  });

  test('an unknown source, or none: 401 as Logflare answers, naming the sources', async () => {
    const { post, kept } = fresh();
    const unknown = await post('/api/logs?source_name=nginx.logs', JSON.stringify(events));
    expect(unknown.status).toBe(401);
    expect(JSON.parse(unknown.body).error.message).toContain('gotrue.logs.prod');
    const none = await post('/api/logs', JSON.stringify(events));
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body).error.message).toContain('source_name');
    const cased = await post('/api/logs?source_name=POSTGRES.LOGS', JSON.stringify(events));
    expect(cased.status).toBe(401);
    expect(await kept('postgres.logs')).toHaveLength(0);
  });

  test('GET on an ingest path: 405', async () => {
    const { app } = fresh();
    const response = await app.call('/api/logs?source_name=postgres.logs');
    expect(response.status).toBe(405);
  });
});

describe('compressed bodies', () => {
  const events = fixture('postgres.logs');
  const path = '/api/logs?source_name=postgres.logs';

  test.each<[string, (bytes: Uint8Array) => Buffer]>([
    ['gzip', gzipSync],
    ['x-gzip', gzipSync],
    ['deflate', deflateSync],
  ])('Content-Encoding: %s is decompressed', async (encoding, compress) => {
    const { post, kept } = fresh();
    const body = compress(new TextEncoder().encode(JSON.stringify(events)));
    const response = await post(path, new Uint8Array(body), {
      headers: { 'Content-Encoding': encoding },
    });
    expect(response.status, response.body).toBe(200);
    expect(await kept('postgres.logs')).toHaveLength(events.length);
  });

  test('what does not decompress, or an encoding not decoded: 400, nothing kept', async () => {
    const { post, kept } = fresh();
    const corrupt = await post(path, 'not gzip at all', {
      headers: { 'Content-Encoding': 'gzip' },
    });
    expect(corrupt.status).toBe(400);
    expect(JSON.parse(corrupt.body).error.message).toContain('does not decompress');
    const brotli = await post(path, JSON.stringify(events), {
      headers: { 'Content-Encoding': 'br' },
    });
    expect(brotli.status).toBe(400);
    expect(JSON.parse(brotli.body).error.message).toContain('gzip, deflate or uncompressed');
    for (const encoding of ['constructor', '__proto__', 'toString']) {
      const named = await post(path, '[]', { headers: { 'Content-Encoding': encoding } });
      expect(named.status, encoding).toBe(400);
    }
    expect(await kept('postgres.logs')).toHaveLength(0);
  });

  test('the byte limit holds for what a body inflates to', async () => {
    const { post, kept } = fresh({ settings: { ingestMaxBytes: 64 * 1024 } });
    // 10 KB of gzip that inflates to 10 MB.
    const bomb = gzipSync(new Uint8Array(10 * 1024 * 1024).fill(0x20));
    expect(bomb.byteLength).toBeLessThan(64 * 1024);
    const response = await post(path, bomb, { headers: { 'Content-Encoding': 'gzip' } });
    expect(response.status).toBe(413);
    expect(await kept('postgres.logs')).toHaveLength(0);
  });
});

describe('each event kept or refused alone', () => {
  test('one bad event among good ones: 406 naming it, the others kept', async () => {
    const { post, kept } = fresh();
    const good = fixture('gotrue.logs.prod');
    const batch = [
      good[0],
      'not an event',
      { event_message: 'from the future', timestamp: '2026-11-21T11:15:30Z' },
      good[1],
    ];
    const response = await post('/api/logs?source_name=gotrue.logs.prod', JSON.stringify(batch));
    expect(response.status, response.body).toBe(406);
    const answer = JSON.parse(response.body);
    expect(answer.accepted).toBe(2);
    expect(answer.rejected).toBe(2);
    expect(answer.message).toEqual([
      'event 2: an event must be a JSON object: got string',
      'event 3: timestamp is 60 minutes in the future (allowed skew 5 minutes)',
    ]);
    expect(await kept('gotrue.logs.prod')).toHaveLength(2);
  });

  test('an NDJSON line that is not JSON is refused alone', async () => {
    const { post, kept } = fresh();
    const [event] = fixture('postgREST.logs.prod');
    const body = `${JSON.stringify(event)}\n{"event_message": \n${JSON.stringify(event)}\n`;
    const response = await post('/api/logs?source_name=postgREST.logs.prod', body, {
      headers: { 'Content-Type': 'application/x-ndjson' },
    });
    expect(response.status, response.body).toBe(406);
    expect(JSON.parse(response.body).message[0]).toMatch(/^event 2: not valid JSON/);
    expect(await kept('postgREST.logs.prod')).toHaveLength(2);
  });

  test('an object whose batch is not an array is one event, as Logflare reads it', async () => {
    const { post, kept } = fresh();
    const response = await post(
      '/api/logs?source_name=postgres.logs',
      JSON.stringify({ event_message: 'x', batch: { n: 1 } }),
    );
    expect(response.status, response.body).toBe(200);
    const [entry] = await kept('postgres.logs');
    expect(JSON.parse(entry?.text ?? '{}')).toMatchObject({ event_message: 'x', batch: { n: 1 } });
  });

  test('an array of one object with a batch is that one event, not a batch', async () => {
    const { post, kept } = fresh();
    const body = JSON.stringify([{ event_message: 'outer', batch: [{ event_message: 'inner' }] }]);
    const response = await post('/api/logs?source_name=postgres.logs', body);
    expect(response.status, response.body).toBe(200);
    const entries = await kept('postgres.logs');
    expect(entries.map((entry) => JSON.parse(entry.text).event_message)).toEqual(['outer']);
  });

  test.each([
    ['one object', (deep: string) => deep],
    ['a batch', (deep: string) => `{"batch":[{"event_message":"kept"},${deep}]}`],
    ['NDJSON', (deep: string) => `{"event_message":"kept"}\n${deep}`],
  ])('an event nested far too deep is refused alone (%s)', async (_, body) => {
    const { post } = fresh();
    const deep = `{"event_message":"deep","metadata":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
    const response = await post('/api/logs?source_name=postgres.logs', body(deep));
    expect(response.status, response.body.slice(0, 300)).toBe(406);
    const answer = JSON.parse(response.body);
    expect(answer.message.join()).toContain('must not nest deeper than 32 levels');
    expect(answer.rejected).toBe(1);
  });
});

describe("Kong's events as edge events", () => {
  async function kongStack(options: TestAppOptions = {}, project = 'default') {
    const stack = fresh(options);
    const response = await stack.post(
      '/api/logs?source_name=cloudflare.logs.prod',
      JSON.stringify(fixture('cloudflare.logs.prod')),
    );
    expect(response.status, response.body).toBe(200);
    const events = storedEvents(
      'cloudflare.logs.prod',
      await stack.kept('cloudflare.logs.prod', project),
    );
    return { ...stack, events };
  }

  test.each(
    [
      ['logs.all', 'project=default&project_tier=FREE'],
      ['usage.api-counts', 'project=default&interval=1hr'],
      ['usage.api-counts', 'project=default&interval=1day'],
      ['usage.api-counts', 'project=def&interval=minutely'],
    ] as const,
  )('%s?%s equals the reference evaluator', async (endpoint, query) => {
    const { get, events } = await kongStack();
    expect(events).toHaveLength(4);
    const rows = await get(`/api/endpoints/${endpoint}?${query}`);
    const expected = evaluateEndpoint(endpoint, events, new URLSearchParams(query), TEST_NOW_US);
    expect(expected.ok && expected.rows.length).toBeGreaterThan(0);
    expect(rows).toEqual(expected.ok ? expected.rows : null);
  });

  test('the counts: a request per access and error line, by family of the path without query', async () => {
    const { get } = await kongStack();
    const rows = await get('/api/endpoints/usage.api-counts?project=default&interval=1hr');
    expect(rows).toEqual([{
      timestamp: '2026-11-21T10:14:00',
      total_rest_requests: 1,
      total_storage_requests: 1,
      total_auth_requests: 1,
      total_realtime_requests: 1,
    }]);
  });

  test("logs.all rows carry the warehouse's form of Kong's metadata", async () => {
    const { get } = await kongStack();
    const rows = await get('/api/endpoints/logs.all?project=default') as {
      metadata: unknown;
      event_message: string;
    }[];
    const rest = rows.find((row) => row.event_message.includes('/rest/v1/todos'));
    expect(rest?.metadata).toEqual([{
      request: [{
        headers: [{
          cf_connecting_ip: '172.18.0.1',
          referer: 'http://localhost:3000/',
          user_agent: 'Mozilla/5.0 (X11; Linux x86_64)',
        }],
        method: 'GET',
        path: '/rest/v1/todos',
        search: '?select=*&order=id.asc',
        protocol: 'HTTP/1.1',
      }],
      response: [{ status_code: 200 }],
    }]);
  });

  test('LOGFLARE_PROJECT_REF names the project of events that say default', async () => {
    const ref = 'selfhostedprojectref';
    const { get, events } = await kongStack({ settings: { logflareProjectRef: ref } }, ref);
    expect(events).toHaveLength(4);
    const rows = await get(`/api/endpoints/usage.api-counts?project=${ref}&interval=1hr`);
    expect(rows).toHaveLength(1);
    expect(await get('/api/endpoints/logs.all?project=default')).toEqual([]);
  });
});
