/**
 * Issue 31, item 5: a token bucket per API key, and per client address for requests without a
 * valid key, answering 429 `rate_limited` with `Retry-After` once a bucket is empty. The
 * buckets run on the app's injected clock: refill is shown by moving it, never by waiting.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, test } from 'vitest';
import { createMetrics } from '../../api/metrics.ts';
import type { RateLimitConfig } from '../../src/config.ts';
import { TEST_KEY, TEST_NOW_US, testApp } from './helpers/app.ts';
import { read, type ReadResponse } from './helpers/http.ts';
import { responseValidator } from './helpers/openapi-validator.ts';

const OTHER_KEY = 'other-key-0123456789abcdef';

/** 2 requests a second, 3 at once; addresses from the socket. */
const LIMITS: RateLimitConfig = {
  perSecond: 2,
  burst: 3,
  addressFrom: { kind: 'socket' },
  maxAddresses: 100,
  matchMsPerSecond: 100,
};

function limitedApp(rateLimit: RateLimitConfig | null = LIMITS) {
  let nowUs = TEST_NOW_US;
  const lines: string[] = [];
  const logger = pino(
    { level: 'trace' },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  const metrics = createMetrics();
  const app = testApp({
    nowUs: () => nowUs,
    metrics,
    logger,
    settings: { apiKeys: [TEST_KEY, OTHER_KEY], rateLimit },
  });
  const check = responseValidator(app.api.document);
  return {
    app,
    lines,
    advanceMs: (ms: number) => (nowUs += ms * 1000),
    get: async (path: string, init: RequestInit & { key?: string | null } = {}) => {
      const response = await read(app.call, path, init);
      check(response);
      return response;
    },
    /** A request from `address`, handed as an adapter hands it. */
    from: async (address: string, path = '/api/endpoints', headers: HeadersInit = {}) => {
      const request = new Request(`http://api.test${path}`, { headers });
      const response = await app.api.fetch(request, { remoteAddress: address });
      return { status: response.status, headers: response.headers, body: await response.text() };
    },
  };
}

function expectRateLimited(response: Pick<ReadResponse, 'status' | 'body' | 'headers'>) {
  expect(response.status, response.body).toBe(429);
  expect(JSON.parse(response.body)).toEqual({
    error: { code: 'rate_limited', message: expect.stringContaining('retry after 1 s') },
  });
  expect(response.headers.get('Retry-After')).toBe('1');
}

const statuses = async (count: number, send: () => Promise<{ status: number }>) => {
  const answered: number[] = [];
  for (let i = 0; i < count; i++) answered.push((await send()).status);
  return answered;
};

describe('per API key', () => {
  test('the burst is answered, the next request is 429 rate_limited with Retry-After', async () => {
    const { get } = limitedApp();
    expect(await statuses(3, () => get('/api/endpoints'))).toEqual([200, 200, 200]);
    expectRateLimited(await get('/api/endpoints'));
  });

  test('the bucket refills at the configured rate on the injected clock', async () => {
    const { get, advanceMs } = limitedApp();
    await statuses(3, () => get('/api/endpoints'));
    advanceMs(499);
    expect((await get('/api/endpoints')).status).toBe(429);
    advanceMs(1);
    expect((await get('/api/endpoints')).status).toBe(200);
    expect((await get('/api/endpoints')).status).toBe(429);
    advanceMs(60_000);
    // Refilled to the burst, never beyond it.
    expect(await statuses(4, () => get('/api/endpoints'))).toEqual([200, 200, 200, 429]);
  });

  test('keys are independent: one key emptied, another is answered', async () => {
    const { get } = limitedApp();
    await statuses(4, () => get('/api/endpoints'));
    expect((await get('/api/endpoints')).status).toBe(429);
    expect((await get('/api/endpoints', { key: OTHER_KEY })).status).toBe(200);
  });

  test('a key is one bucket whichever way it is sent', async () => {
    const { get } = limitedApp();
    await get('/api/endpoints');
    await get(`/api/endpoints?api_key=${TEST_KEY}`, { key: null });
    await get('/api/endpoints', { key: null, headers: { Authorization: `Bearer ${TEST_KEY}` } });
    expect((await get('/api/endpoints')).status).toBe(429);
  });

  test('a keyed client is limited by its key, not its address', async () => {
    const { from } = limitedApp();
    const keyed = { 'X-API-KEY': TEST_KEY };
    expect(await statuses(3, () => from('198.51.100.1', '/api/endpoints', keyed))).toEqual([
      200,
      200,
      200,
    ]);
    // The same key from another address shares the bucket; the address itself is untouched.
    expectRateLimited(await from('198.51.100.2', '/api/endpoints', keyed));
    expect((await from('198.51.100.1')).status).toBe(401);
  });

  test('the key never reaches a log line, even when refused', async () => {
    const { get, lines } = limitedApp();
    await statuses(4, () => get(`/api/endpoints?api_key=${TEST_KEY}`, { key: null }));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(TEST_KEY);
  });
});

describe('per client address, for requests without a valid key', () => {
  test('unauthenticated requests are limited per address: 401 until the burst is used, then 429', async () => {
    const { from } = limitedApp();
    expect(await statuses(3, () => from('198.51.100.7'))).toEqual([401, 401, 401]);
    expectRateLimited(await from('198.51.100.7'));
    expect((await from('198.51.100.8')).status).toBe(401);
    expect((await from('2001:db8::8')).status).toBe(401);
  });

  test('an IPv6 client is limited by its /64; an IPv4 one seen through a dual-stack socket by its IPv4 address', async () => {
    const { from } = limitedApp();
    const rotated = ['2001:db8:0:1::1', '2001:db8:0:1::2', '2001:db8:0:1:ffff::3'];
    expect(await statuses(3, () => from(rotated.shift() ?? ''))).toEqual([401, 401, 401]);
    expect((await from('2001:db8:0:1:abcd::9')).status).toBe(429);
    expect((await from('2001:db8:0:2::1')).status).toBe(401);
    await statuses(3, () => from('198.51.100.30'));
    expect((await from('::ffff:198.51.100.30')).status).toBe(429);
  });

  test('liveness probes (/healthz, /health) are never limited', async () => {
    const { from } = limitedApp();
    for (const path of ['/healthz', '/health']) {
      expect(await statuses(5, () => from('198.51.100.9', path)), path).toEqual([
        200,
        200,
        200,
        200,
        200,
      ]);
    }
  });

  test('readiness and scrapes (/readyz, /metrics), which cost a store call or every series, are limited by address', async () => {
    const { from } = limitedApp();
    for (const path of ['/readyz', '/metrics']) {
      expect(await statuses(4, () => from(`198.51.100.${path.length}`, path)), path).toEqual([
        200,
        200,
        200,
        429,
      ]);
    }
  });

  test('behind a proxy: the address is the last one of the configured header', async () => {
    const { from } = limitedApp({
      ...LIMITS,
      addressFrom: { kind: 'header', name: 'X-Forwarded-For' },
    });
    const via = (chain: string) => from('10.0.0.1', '/api/endpoints', { 'X-Forwarded-For': chain });
    // What the client wrote to the left of the proxy's entry does not give it a new bucket.
    expect(await statuses(3, () => via(`192.0.2.${Math.random()}, 198.51.100.20`))).toEqual([
      401,
      401,
      401,
    ]);
    expect((await via('198.51.100.20')).status).toBe(429);
    // Another client behind the same proxy has its own bucket.
    expect((await via('198.51.100.21')).status).toBe(401);
  });

  test('behind a proxy that appends the port: one client on many ports has one bucket', async () => {
    const { from } = limitedApp({
      ...LIMITS,
      addressFrom: { kind: 'header', name: 'X-Forwarded-For' },
    });
    let port = 40_000;
    const via = (address: string) =>
      from('10.0.0.1', '/api/endpoints', {
        'X-Forwarded-For': address.replace('PORT', `${port++}`),
      });
    expect(await statuses(3, () => via('198.51.100.22:PORT'))).toEqual([401, 401, 401]);
    expect((await via('198.51.100.22:PORT')).status).toBe(429);
    expect(await statuses(3, () => via('[2001:db8:0:7::1]:PORT'))).toEqual([401, 401, 401]);
    expect((await via('[2001:db8:0:7::2]:PORT')).status).toBe(429);
  });

  test('per-address limiting off: requests without a key are never limited', async () => {
    const { from } = limitedApp({ ...LIMITS, addressFrom: { kind: 'off' } });
    expect(await statuses(6, () => from('198.51.100.7'))).toEqual([401, 401, 401, 401, 401, 401]);
  });

  test('the buckets of addresses are bounded: the least recently seen is dropped', async () => {
    const { from, app } = limitedApp({ ...LIMITS, maxAddresses: 2 });
    await statuses(4, () => from('198.51.100.1'));
    expect((await from('198.51.100.1')).status).toBe(429);
    // Two other addresses push it out: it starts again from a full bucket.
    await from('198.51.100.2');
    await from('198.51.100.3');
    expect((await from('198.51.100.1')).status).toBe(401);
    const text = await app.metrics.registry.metrics();
    expect(text).toContain('rate_limit_evictions_total 2');
  });
});

describe('configuration', () => {
  test('off: nothing is limited', async () => {
    const { get } = limitedApp(null);
    expect(await statuses(10, () => get('/api/endpoints'))).toEqual(Array(10).fill(200));
  });

  test('/metrics counts refusals by scope and limit, never by key or address', async () => {
    const { get, from, app } = limitedApp();
    await statuses(5, () => get('/api/endpoints'));
    await statuses(4, () => from('198.51.100.7'));
    const text = await app.metrics.registry.metrics();
    expect(text).toContain('rate_limited_total{scope="key",limit="requests"} 2');
    expect(text).toContain('rate_limited_total{scope="address",limit="requests"} 1');
    expect(text).toContain('http_requests_total{endpoint="rate_limited",status="429"} 3');
    expect(text).not.toContain(TEST_KEY);
    expect(text).not.toContain('198.51.100.7');
  });
});
