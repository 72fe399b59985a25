/**
 * `POST /api/ingest/{source}`: NDJSON and JSON arrays, per-line rejections with positions,
 * malformed bodies, the size limit, unknown sources, sink failures; events visible to the
 * next read and equal to the reference evaluator.
 */
import { describe, expect, test } from 'vitest';
import type { IngestSink } from '../../api/ingest/sink.ts';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { SKEW_US, TEST_NOW_US, testApp } from './helpers/app.ts';
import { read } from './helpers/http.ts';
import { requestBodyAllowed, responseValidator } from './helpers/openapi-validator.ts';

const PROJECT = 'ingestprojectabcdefg';

function edge(id: string, secondsAgo: number, project = PROJECT): Record<string, unknown> {
  return {
    id,
    timestamp: TEST_NOW_US - secondsAgo * 1_000_000,
    project,
    event_message: `GET | 200 | ${id}`,
    metadata: [{
      request: [{ method: 'GET', host: `${project}.supabase.co`, path: '/rest/v1/todos' }],
      response: [{ status_code: 200 }],
    }],
  };
}

function fresh() {
  const app = testApp();
  const check = responseValidator(app.api.document);
  const post = async (source: string, body: BodyInit, headers: Record<string, string> = {}) => {
    const response = await read(app.call, `/api/ingest/${source}`, {
      method: 'POST',
      body,
      headers,
    });
    check(response);
    return response;
  };
  const get = async (path: string) => {
    const response = await read(app.call, path);
    check(response);
    expect(response.status, response.body).toBe(200);
    return JSON.parse(response.body).result as unknown[];
  };
  return { app, post, get };
}

function events(lines: readonly string[]): LogEvent[] {
  return lines.flatMap((line) => {
    const result = parse(line, 'edge', { nowUs: TEST_NOW_US, maxFutureSkewUs: SKEW_US });
    return result.ok ? [result.event] : [];
  });
}

describe('ingest bodies', () => {
  test('NDJSON: accepted, visible to the next read, equal to the reference', async () => {
    const { post, get } = fresh();
    const lines = [edge('a', 30), edge('b', 20), edge('c', 10)].map((e) => JSON.stringify(e));
    const response = await post('edge', `${lines.join('\r\n')}\n\n`);
    expect(response.status).toBe(202);
    expect(JSON.parse(response.body)).toEqual({ accepted: 3, rejected: 0, errors: [] });
    const logsQuery = `project=${PROJECT}&project_tier=FREE`;
    const logs = await get(`/api/endpoints/logs.all?${logsQuery}`);
    const expected = evaluateEndpoint(
      'logs.all',
      events(lines),
      new URLSearchParams(logsQuery),
      TEST_NOW_US,
    );
    expect(expected.ok && expected.rows.length).toBe(3);
    expect(logs).toEqual(expected.ok ? expected.rows : null);
    const countsQuery = `project=${PROJECT}&interval=minutely`;
    const counts = await get(`/api/endpoints/usage.api-counts?${countsQuery}`);
    const expectedCounts = evaluateEndpoint(
      'usage.api-counts',
      events(lines),
      new URLSearchParams(countsQuery),
      TEST_NOW_US,
    );
    expect(counts).toEqual(expectedCounts.ok ? expectedCounts.rows : null);
  });

  test('a JSON array', async () => {
    const { post, get } = fresh();
    const response = await post('edge', JSON.stringify([edge('a', 5), edge('b', 4)]), {
      'Content-Type': 'application/json',
    });
    expect(JSON.parse(response.body)).toEqual({ accepted: 2, rejected: 0, errors: [] });
    expect(await get(`/api/endpoints/logs.all?project=${PROJECT}&project_tier=FREE`)).toHaveLength(
      2,
    );
  });

  test('one event as a JSON object, compact or pretty-printed, is one event', async () => {
    const { post, get } = fresh();
    const bodies = {
      compact: JSON.stringify(edge('a', 5)),
      pretty: JSON.stringify(edge('b', 4), null, 2),
    };
    for (const [id, body] of Object.entries(bodies)) {
      const response = await post('edge', body, { 'Content-Type': 'application/json' });
      expect(JSON.parse(response.body), id).toEqual({ accepted: 1, rejected: 0, errors: [] });
    }
    expect(await get(`/api/endpoints/logs.all?project=${PROJECT}&project_tier=FREE`)).toHaveLength(
      2,
    );
  });

  test.each([[[]], [[{}]], [{}], [edge('c', 3)], ['s'], [7], [true], [null]])(
    'a JSON body %j: 202 exactly when the document allows it, else 400 invalid_body',
    async (value) => {
      const { app, post } = fresh();
      const allowed = requestBodyAllowed(
        app.api.document,
        'post',
        '/api/ingest/{source}',
        'application/json',
        value,
      );
      const response = await post('edge', JSON.stringify(value), {
        'Content-Type': 'application/json',
      });
      expect(response.status, response.body).toBe(allowed ? 202 : 400);
    },
  );

  test('an empty array is accepted with nothing in it', async () => {
    const { post } = fresh();
    expect(JSON.parse((await post('edge', '[]')).body)).toEqual({
      accepted: 0,
      rejected: 0,
      errors: [],
    });
  });

  test('mixed valid and invalid lines: counts, and the first 10 errors by line number', async () => {
    const { post, get } = fresh();
    const lines: string[] = [];
    const bad: number[] = [];
    for (let i = 1; i <= 30; i++) {
      if (i % 2 === 0) {
        bad.push(i);
        lines.push(
          i % 4 === 0 ? '{"id": "broken' : JSON.stringify({ ...edge(`x${i}`, 5), project: 42 }),
        );
      } else {
        lines.push(JSON.stringify(edge(`ok${i}`, 100 - i)));
      }
    }
    const response = await post('edge', lines.join('\n'));
    expect(response.status).toBe(202);
    const answer = JSON.parse(response.body) as {
      accepted: number;
      rejected: number;
      errors: { line: number; reason: string }[];
    };
    expect(answer.accepted).toBe(15);
    expect(answer.rejected).toBe(15);
    expect(answer.errors.map((error) => error.line)).toEqual(bad.slice(0, 10));
    expect(answer.errors[0]?.reason).toContain('project');
    expect(answer.errors[1]?.reason).toContain('JSON');
    expect(await get(`/api/endpoints/logs.all?project=${PROJECT}&project_tier=FREE`)).toHaveLength(
      15,
    );
  });

  test('array elements are numbered from 1', async () => {
    const { post } = fresh();
    const response = await post('edge', JSON.stringify([edge('a', 5), { id: 'no-timestamp' }, 7]));
    const answer = JSON.parse(response.body);
    expect(answer.accepted).toBe(1);
    expect(answer.errors.map((error: { line: number }) => error.line)).toEqual([2, 3]);
  });

  test('function-edge events feed invocation stats; an edge event sent there is rejected', async () => {
    const { post, get } = fresh();
    const invocation = {
      id: 'f1',
      timestamp: TEST_NOW_US - 30_000_000,
      metadata: [{
        project_ref: PROJECT,
        function_id: 'fn',
        execution_time_ms: 12.5,
        response: [{ status_code: 500 }],
      }],
    };
    const response = await post(
      'function-edge',
      [JSON.stringify(invocation), JSON.stringify(edge('e', 1))].join('\n'),
    );
    const answer = JSON.parse(response.body);
    expect(answer.accepted).toBe(1);
    expect(answer.rejected).toBe(1);
    const rows = await get(
      `/api/endpoints/functions.invocation-stats?project=${PROJECT}&interval=5min`,
    ) as {
      count: number;
      error_count: number;
      p99_execution_time: number | null;
    }[];
    expect(rows).toHaveLength(301);
    expect(rows.reduce((sum, row) => sum + row.count, 0)).toBe(1);
    expect(rows.find((row) => row.count === 1)).toMatchObject({
      error_count: 1,
      p99_execution_time: 12.5,
    });
  });

  test('timestamps too far in the future or too old are rejected with the reason', async () => {
    const { post } = fresh();
    const future = { ...edge('f', 0), timestamp: TEST_NOW_US + 10 * 60_000_000 };
    const old = { ...edge('o', 0), timestamp: TEST_NOW_US - 91 * 86_400_000_000 };
    const answer = JSON.parse(
      (await post('edge', `${JSON.stringify(future)}\n${JSON.stringify(old)}`)).body,
    );
    expect(answer.rejected).toBe(2);
    expect(answer.errors[0].reason).toContain('future');
    expect(answer.errors[1].reason).toContain('old');
  });
});

describe('ingest errors', () => {
  test.each([
    ['', 'empty'],
    ['   \n\n  ', 'empty'],
    ['hello', 'starts with'],
    ['[{"id": 1}', 'JSON array'],
    ['"just a string"', 'starts with'],
  ])('malformed body %j is 400 invalid_body', async (body, hint) => {
    const { post } = fresh();
    const response = await post('edge', body);
    expect(response.status).toBe(400);
    const error = JSON.parse(response.body).error;
    expect(error.code).toBe('invalid_body');
    expect(error.message).toContain(hint);
  });

  test('a body that is not UTF-8 is 400', async () => {
    const { post } = fresh();
    const response = await post('edge', new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).error.code).toBe('invalid_body');
  });

  test('a body over the limit is 413, by Content-Length or by what arrives', async () => {
    const app = testApp({ settings: { ingestMaxBytes: 2048 } });
    const big = JSON.stringify(edge('x', 1)).padEnd(3000, ' ');
    const declared = await read(app.call, '/api/ingest/edge', { method: 'POST', body: big });
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body).error.code).toBe('payload_too_large');
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode(' '.repeat(1000)));
        controller.close();
      },
    });
    const streamed = await read(app.call, '/api/ingest/edge', {
      method: 'POST',
      body: stream,
      // @ts-expect-error: undici needs duplex for a streamed request body; DOM types lack it.
      duplex: 'half',
    });
    expect(streamed.status).toBe(413);
    const fits = await read(app.call, '/api/ingest/edge', {
      method: 'POST',
      body: JSON.stringify(edge('y', 1)),
    });
    expect(fits.status).toBe(202);
  });

  test('an unknown source is 404', async () => {
    const { post } = fresh();
    const response = await post('function_edge', '{}');
    expect(response.status).toBe(404);
    expect(JSON.parse(response.body).error.message).toContain('edge, function-edge');
  });

  test('a failing sink is 503 with Retry-After, and nothing is claimed accepted', async () => {
    const sink: IngestSink = {
      kind: 'kafka',
      accept: () => Promise.reject(new Error('broker down')),
      close: () => Promise.resolve(),
    };
    const app = testApp({ sink });
    const response = await read(app.call, '/api/ingest/edge', {
      method: 'POST',
      body: JSON.stringify(edge('a', 1)),
    });
    expect(response.status).toBe(503);
    expect(response.headers.get('Retry-After')).toBe('1');
    expect(JSON.parse(response.body).error.code).toBe('unavailable');
  });

  test('the metrics count accepted and rejected events', async () => {
    const { app, post } = fresh();
    await post('edge', `${JSON.stringify(edge('a', 1))}\n{"x":1}`);
    const text = await app.metrics.registry.metrics();
    expect(text).toContain('ingest_events_total{source="edge",outcome="accepted"} 1');
    expect(text).toContain('ingest_events_total{source="edge",outcome="rejected"} 1');
    expect(text).toContain('http_requests_total{endpoint="ingest",status="202"} 1');
  });
});
