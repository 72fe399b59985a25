/**
 * Issue 18, items 6 to 8, on a real Node socket: every refusal of the adapter carries the error
 * envelope and the status RFC 9110 names; a client that cuts off its upload is no server error;
 * a slow request is cut after the configured timeout; connections beyond the cap are refused.
 * Nothing here asserts a duration.
 */
import net from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, test } from 'vitest';
import { serveNode } from '../../../api/adapters/node.ts';
import { INTERNAL_MESSAGE } from '../../../api/errors.ts';
import type { Served, ServerLimits } from '../../../api/adapters/serve.ts';
import { responseValidator } from '../helpers/openapi-validator.ts';
import { TEST_KEY, testApp, type TestAppOptions } from '../helpers/app.ts';
import { exchange, parseResponse } from '../helpers/raw-http.ts';
import { refusedCount } from './hostile-steps.ts';

let served: Served | null = null;

afterEach(async () => {
  await served?.close();
  served = null;
});

/** A logger at debug whose lines are kept, parsed. */
function collectingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter((l) => l !== '')) {
        lines.push(JSON.parse(line));
      }
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, sink), lines };
}

async function start(limits: ServerLimits = {}, settings: TestAppOptions['settings'] = {}) {
  const { logger, lines } = collectingLogger();
  const app = testApp({ logger, settings });
  served = await serveNode(app.api.fetch, {
    hostname: '127.0.0.1',
    port: 0,
    logger,
    limits,
    onRefusal: (reason) => app.metrics.countRefused(reason),
  });
  return { app, lines, port: Number(new URL(served.url).port) };
}

/** Status and body of a raw answer (its headers are asserted where they matter). */
function statusAndBody(raw: string): { status: number; body: unknown } {
  const { status, body } = parseResponse(raw);
  return { status, body };
}

/** Asserts that the OpenAPI document describes the raw answer to `method path`. */
function expectDocumented(raw: string, method: string, path: string): void {
  const check = responseValidator(testApp().api.document);
  const { status } = parseResponse(raw);
  const contentType = /^content-type: (.*)$/im.exec(raw)?.[1]?.trim() ?? null;
  check({ method, path, status, contentType, body: raw.slice(raw.indexOf('\r\n\r\n') + 4) });
}

describe('refusals on the Node adapter', () => {
  test('header fields over the head limit are 431 with the envelope', async () => {
    const { app, port } = await start();
    const raw = await exchange(
      port,
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`,
    );
    expect(statusAndBody(raw)).toEqual({
      status: 431,
      body: {
        error: {
          code: 'request_header_fields_too_large',
          message: expect.stringContaining('larger than 65536 bytes'),
        },
      },
    });
    expectDocumented(raw, 'GET', '/healthz');
    expect(await refusedCount(app, 'head_too_large')).toBe(1);
  });

  test('a URL over the URL limit is 414 with the envelope', async () => {
    const { port } = await start();
    const raw = await exchange(
      port,
      `GET /healthz?${'a'.repeat(10_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expect(statusAndBody(raw)).toMatchObject({
      status: 414,
      body: { error: { code: 'uri_too_long' } },
    });
    expectDocumented(raw, 'GET', '/healthz');
  });

  test('a request without Host is 400 with the envelope', async () => {
    const { port } = await start();
    const raw = await exchange(port, 'GET /healthz HTTP/1.1\r\n\r\n');
    expect(statusAndBody(raw)).toEqual({
      status: 400,
      body: { error: { code: 'bad_request', message: expect.stringContaining('Host') } },
    });
    expectDocumented(raw, 'GET', '/healthz');
  });

  test('a request that is not HTTP is 400 with the envelope and says what to check', async () => {
    const { port } = await start();
    const raw = await exchange(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(parseResponse(raw)).toMatchObject({
      status: 400,
      body: { error: { code: 'bad_request', message: expect.stringContaining('request line') } },
    });
  });
});

describe("the Node parser's own refusals", () => {
  test.each([
    ['OPTIONS *', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n', 'OPTIONS', '/healthz'],
    ['a Host with a space', 'GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n', 'GET', '/healthz'],
    ['a Host with a path', 'GET /healthz HTTP/1.1\r\nHost: x/y\r\n\r\n', 'GET', '/healthz'],
  ])('%s is 400 with the envelope and nosniff', async (_name, request, method, path) => {
    const { app, port } = await start();
    const raw = await exchange(port, request);
    const answer = parseResponse(raw);
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 400,
      body: { error: { code: 'bad_request', message: expect.any(String) } },
    });
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expectDocumented(raw, method, path);
    expect(await refusedCount(app, 'bad_request')).toBe(1);
  });
});

describe('what the adapter answers itself ends the connection', () => {
  // The client asks to keep the connection (no `Connection: close`, no half-close): only the
  // server's word closes it.
  test.each([
    ['a Host with a space', 'GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n'],
    ['OPTIONS *', 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a backslash in the path', 'GET /a\\b HTTP/1.1\r\nHost: x\r\n\r\n'],
  ])('%s: 400 with Connection: close', async (_name, request) => {
    const { port } = await start();
    const answer = parseResponse(await exchange(port, request, { end: false }));
    expect(answer.status).toBe(400);
    expect(answer.headers['connection']).toBe('close');
  });

  test('a handler that fails: 500 with Connection: close, and the error logged', async () => {
    const { logger, lines } = collectingLogger();
    served = await serveNode(() => Promise.reject(new Error('the handler broke')), {
      hostname: '127.0.0.1',
      port: 0,
      logger,
    });
    const port = Number(new URL(served.url).port);
    const answer = parseResponse(
      await exchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', { end: false }),
    );
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ error: { code: 'internal', message: INTERNAL_MESSAGE } });
    expect(answer.headers['connection']).toBe('close');
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 50,
        err: expect.objectContaining({ message: 'the handler broke' }),
      }),
    );
  });
});

describe('every answer says nosniff', () => {
  test.each([
    ['431', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(70_000)}\r\n\r\n`, 431],
    ['400 without Host', 'GET /healthz HTTP/1.1\r\n\r\n', 400],
    ['200 of /healthz', 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 200],
    ['401', 'GET /api/endpoints HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n', 401],
    ['414', `GET /healthz?${'a'.repeat(10_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 414],
  ])('%s', async (_name, request, status) => {
    const { port } = await start();
    const answer = parseResponse(await exchange(port, request));
    expect(answer.status).toBe(status);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });

  test('408', async () => {
    const { port } = await start({ headersTimeoutMs: 300, checkIntervalMs: 50 });
    const answer = parseResponse(await exchange(port, '', { end: false }));
    expect(answer.status).toBe(408);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });
});

describe('a client that cuts off its upload', () => {
  test('is logged at debug, never at error, and not counted as a server error', async () => {
    const { app, lines, port } = await start();
    await exchange(
      port,
      `POST /api/ingest/edge HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${TEST_KEY}\r\n` +
        'Content-Length: 1000\r\n\r\n{"id":',
      { end: false, cutAfterMs: 100 },
    );
    const deadline = Date.now() + 10_000;
    while (!lines.some((line) => line.msg === 'request') && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
    expect(lines).toContainEqual(expect.objectContaining({ level: 20, msg: 'request' }));
    const metrics = await (await app.api.fetch(new Request('http://x/metrics'))).text();
    expect(metrics).not.toMatch(/http_requests_total\{endpoint="ingest",status="5\d\d"\}/);
    expect(metrics).toMatch(/http_requests_total\{endpoint="ingest",status="4\d\d"\} 1/);
  });
});

describe('timeouts and the connection cap', () => {
  test('a body that never finishes is cut after the request timeout, with 408', async () => {
    const { app, port } = await start({ requestTimeoutMs: 300, checkIntervalMs: 50 });
    const raw = await exchange(
      port,
      `POST /api/ingest/edge HTTP/1.1\r\nHost: x\r\nX-API-KEY: ${TEST_KEY}\r\n` +
        'Content-Length: 1000\r\n\r\n{"id":',
      { end: false },
    );
    expect(statusAndBody(raw)).toEqual({
      status: 408,
      body: { error: { code: 'request_timeout', message: expect.stringContaining('300 ms') } },
    });
    expectDocumented(raw, 'POST', '/api/ingest/edge');
    expect(await refusedCount(app, 'request_timeout')).toBe(1);
  });

  test('a connection that sends nothing is answered 408 after the header timeout', async () => {
    const { port } = await start({ headersTimeoutMs: 300, checkIntervalMs: 50 });
    const raw = await exchange(port, '', { end: false });
    expect(statusAndBody(raw)).toMatchObject({
      status: 408,
      body: { error: { code: 'request_timeout' } },
    });
  });

  test('connections beyond the cap are closed at once; those within are served', async () => {
    const { port } = await start({ maxConnections: 2 });
    const held = await Promise.all([1, 2].map(() =>
      new Promise<net.Socket>((resolve) => {
        const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
      })
    ));
    const refused = await exchange(port, 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(refused).toBe('');
    for (const socket of held) socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const served = await exchange(
      port,
      'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(parseResponse(served).status).toBe(200);
  });
});

describe('the rate limit on the Node adapter', () => {
  test('requests without a valid key are limited by the address of their connection', async () => {
    // The app's clock stands still: the bucket never refills.
    const { port } = await start({}, {
      rateLimit: {
        perSecond: 1,
        burst: 2,
        addressFrom: { kind: 'socket' },
        maxAddresses: 10,
        matchMsPerSecond: 100,
      },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 3; i++) {
      const raw = await exchange(
        port,
        'GET /api/endpoints HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      );
      statuses.push(parseResponse(raw).status);
    }
    expect(statuses).toEqual([401, 401, 429]);
  });
});
