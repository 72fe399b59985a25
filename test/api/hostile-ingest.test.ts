/**
 * Issue 18, items 3 to 5: an ingest body is bounded by items and by nesting as well as by bytes,
 * and every size is counted in UTF-8 bytes, on the HTTP path as in the consumers. Figures (time,
 * memory) are measured by `npm run bench:hostile`, never asserted here.
 */
import { describe, expect, test } from 'vitest';
import { EVENT_LIMITS } from '../../src/events/limits.ts';
import { parse } from '../../src/events/parse.ts';
import { TEST_NOW_US, testApp } from './helpers/app.ts';
import { read } from './helpers/http.ts';
import { responseValidator } from './helpers/openapi-validator.ts';

function post(body: string) {
  const app = testApp();
  const check = responseValidator(app.api.document);
  return read(app.call, '/api/ingest/edge', { method: 'POST', body }).then((response) => {
    check(response);
    return response;
  });
}

function edge(id: string, note = ''): string {
  return JSON.stringify({
    id,
    timestamp: TEST_NOW_US - 1_000_000,
    project: 'hostileproject',
    event_message: 'GET | 200',
    metadata: note === '' ? [] : [{ note }],
  });
}

describe('ingest bounded by items', () => {
  test('a JSON array of a million tiny items is refused whole with 413, saying the limit', async () => {
    const response = await post(`[${'0,'.repeat(999_999)}0]`);
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).error).toEqual({
      code: 'payload_too_large',
      message:
        'the body holds more than 10000 events (the limit per request): send fewer per request',
    });
  });

  test('NDJSON of a million tiny lines is refused the same way', async () => {
    const response = await post('{}\n'.repeat(1_000_000));
    expect(response.status).toBe(413);
    expect(JSON.parse(response.body).error.code).toBe('payload_too_large');
  });

  test('up to the limit, every item is validated and answered by position', async () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => (i % 1000 === 0 ? '0' : edge(`e${i}`)));
    const response = await post(`[${lines.join(',')}]`);
    expect(response.status, response.body).toBe(202);
    const answer = JSON.parse(response.body);
    expect([answer.accepted, answer.rejected]).toEqual([9_990, 10]);
    expect(answer.errors[1]).toEqual({
      line: 1001,
      reason: 'the event must be an object: got 0',
    });
  });

  test('array elements are passed on as they were sent, not re-serialized', async () => {
    const app = testApp();
    const sent = `{"id": "spaced",  "timestamp": ${TEST_NOW_US - 1},"project":"hostileproject",
      "metadata": [ ] }`;
    await read(app.call, '/api/ingest/edge', { method: 'POST', body: `[ ${sent} ]` });
    const logs = await read(
      app.call,
      '/api/endpoints/logs.all?project=hostileproject&project_tier=FREE',
    );
    expect(JSON.parse(logs.body).result.map((row: { id: string }) => row.id)).toEqual(['spaced']);
  });
});

describe('ingest bounded by nesting', () => {
  test('an array nested 5,000 deep is 400 invalid_body with the envelope, not 500', async () => {
    const response = await post('['.repeat(5000) + ']'.repeat(5000));
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).error).toEqual({
      code: 'invalid_body',
      message: expect.stringMatching(/^malformed body: it nests deeper than \d+ levels; /),
    });
  });

  test('an event nested too deep inside a well-formed array is rejected alone', async () => {
    let deep = '1';
    for (let i = 0; i < EVENT_LIMITS.maxDepth; i++) deep = `{"a":${deep}}`;
    const nested = `{"id":"deep","timestamp":${
      TEST_NOW_US - 1
    },"project":"p","metadata":[${deep}]}`;
    const response = await post(`[${nested},${edge('fine')}]`);
    expect(response.status).toBe(202);
    expect(JSON.parse(response.body)).toMatchObject({
      accepted: 1,
      rejected: 1,
      errors: [{ line: 1, reason: '/metadata must not nest deeper than 32 levels' }],
    });
  });
});

describe('sizes counted in UTF-8 bytes everywhere', () => {
  // 3 bytes per character in UTF-8, 1 UTF-16 code unit: 120,000 characters are about 360 KB.
  const cjk = edge('cjk', '漢'.repeat(120_000));
  const bytes = new TextEncoder().encode(cjk).byteLength;

  test('an event over 128 KiB of UTF-8 is refused over HTTP as from Kafka', async () => {
    expect(cjk.length).toBeLessThan(EVENT_LIMITS.maxBytes);
    expect(bytes).toBeGreaterThan(EVENT_LIMITS.maxBytes);
    const reason = `event is larger than the limit of ${EVENT_LIMITS.maxBytes} bytes: got ${bytes}`;
    const fromKafka = parse(new TextEncoder().encode(cjk), 'edge', { nowUs: TEST_NOW_US });
    expect(fromKafka.ok ? null : fromKafka.rejection.reason).toBe(reason);
    const fromText = parse(cjk, 'edge', { nowUs: TEST_NOW_US });
    expect(fromText.ok ? null : fromText.rejection.reason).toBe(reason);
    const response = await post(cjk);
    expect(JSON.parse(response.body)).toEqual({
      accepted: 0,
      rejected: 1,
      errors: [{ line: 1, reason }],
    });
  });

  test('an event of many multi-byte characters under the limit is accepted on both paths', () => {
    const fits = edge('fits', '漢'.repeat(10_000));
    expect(parse(fits, 'edge', { nowUs: TEST_NOW_US }).ok).toBe(true);
    expect(parse(new TextEncoder().encode(fits), 'edge', { nowUs: TEST_NOW_US }).ok).toBe(true);
  });
});
