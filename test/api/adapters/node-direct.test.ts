/**
 * A live answer on a real Node socket, written by the adapter straight to the connection
 * (api/adapters/node-direct.ts, api/direct-body.ts): the head as the app's middleware left it,
 * each answer as it changes, a client that leaves ends its stream, and a client that stops reading
 * is cut once what waits for it passes the bound (nothing held for it after).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { serveNode } from '../../../api/adapters/node.ts';
import { writeDirect } from '../../../api/adapters/node-direct.ts';
import { mayOfferDirect, offerDirect, offeringDirect } from '../../../api/direct-body.ts';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Served } from '../../../api/adapters/serve.ts';
import { createLogger } from '../../../src/logger.ts';
import { TEST_KEY, TEST_NOW_US, type TestApp, testApp } from '../helpers/app.ts';
import { EventReader } from '../helpers/event-stream.ts';
import { until } from '../../support/poll.ts';

const PROJECT = 'abcdefghijklmnopqrst';
const LOGS = `/api/endpoints/logs.all?project=${PROJECT}`;

let served: Served | null = null;
let app: TestApp | null = null;
afterEach(async () => {
  app?.api.close();
  await served?.close();
  served = null;
  app = null;
});

async function start(settings = {}): Promise<{ app: TestApp; url: string }> {
  const started = testApp({ settings: { resultCacheMs: 0, liveCoalesceMs: 250, ...settings } });
  app = started;
  served = await serveNode(started.api.fetch, {
    hostname: '127.0.0.1',
    port: 0,
    logger: createLogger('silent'),
  });
  return { app: started, url: served.url };
}

let sequence = 0;
/** An edge event of `PROJECT` whose message is `size` bytes (logs.all answers carry it). */
function edgeLine(size: number): string {
  sequence += 1;
  return JSON.stringify({
    id: `direct-${sequence}`,
    timestamp: TEST_NOW_US - 1_000_000,
    project: PROJECT,
    event_message: `${sequence} ${'x'.repeat(size)}`,
    metadata: [{
      request: [{ host: `${PROJECT}.supabase.co`, path: '/rest/v1/todos' }],
      response: [{ status_code: 200 }],
    }],
  });
}

async function ingest(into: TestApp, size: number): Promise<void> {
  const response = await into.call('/api/ingest/edge', { method: 'POST', body: edgeLine(size) });
  expect(response.status).toBe(202);
}

async function metricsOf(of: TestApp): Promise<string> {
  return await (await of.call('/metrics')).text();
}

describe('a live answer written to the Node socket', () => {
  test('the head as the middleware left it, then each new answer; a client that leaves ends it', async () => {
    const { app, url } = await start();
    const response = await fetch(`${url}${LOGS}`, {
      headers: { 'X-API-KEY': TEST_KEY, Accept: 'text/event-stream', Origin: 'http://x.test' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-store');
    // Set by the CORS middleware after the route answered.
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    if (response.body === null) throw new Error('no body');
    const reader = new EventReader(response.body);
    expect((await reader.next())?.data).toBe('{"result":[]}');
    // Told before the first answer: clients of a stopped process come back spread over 9 s.
    expect(reader.retryMs).toBeGreaterThanOrEqual(1_000);
    expect(reader.retryMs).toBeLessThan(10_000);
    await ingest(app, 10);
    const pushed = await reader.next();
    expect(pushed?.data).toContain(`"${sequence} xxxxxxxxxx"`);
    await reader.cancel();
    await until(
      'the stream to end',
      5_000,
      async () => /^api_live_streams 0$/m.test(await metricsOf(app)) ? true : null,
    );
    expect(await metricsOf(app)).toMatch(/^api_live_ended_total\{reason="client"\} 1$/m);
  });

  test('a client that stops reading is cut past the bound', async () => {
    // A bound of 2 x 64 KiB; each answer is about 100 x 4 KiB.
    const { app, url } = await start({ answerMaxBytes: 64 * 1024, liveCoalesceMs: 1 });
    const { port } = new URL(url);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      `GET ${LOGS} HTTP/1.1\r\nHost: api.test\r\nX-API-KEY: ${TEST_KEY}\r\n` +
        'Accept: text/event-stream\r\n\r\n',
    );
    let closed = false;
    socket.once('close', () => (closed = true));
    socket.once('data', () => socket.pause());
    // Answers pile up in the kernel's buffers first, then in the process: each ingest is a push.
    for (let i = 0; i < 400; i++) {
      await ingest(app, 4_000);
      if (/^api_live_ended_total\{reason="slow_reader"\} 1$/m.test(await metricsOf(app))) break;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(await metricsOf(app)).toMatch(/^api_live_ended_total\{reason="slow_reader"\} 1$/m);
    expect(await metricsOf(app)).toMatch(/^api_live_streams 0$/m);
    socket.resume();
    await until('the connection to close', 5_000, () => Promise.resolve(closed ? true : null));
  }, 60_000);
});

describe('which responses the adapter writes itself', () => {
  test("the live route's answer is marked, through the app's middleware", async () => {
    const { app } = await start();
    const response = await app.call(LOGS, { headers: { Accept: 'text/event-stream' } });
    expect(response.status).toBe(200);
    expect(mayOfferDirect(response)).toBe(true);
    await response.body?.cancel();
    const plain = await app.call(LOGS);
    expect(mayOfferDirect(plain)).toBe(false);
  });

  test('a marked response with an offered body is written by its source, not read', () => {
    const attached: unknown[] = [];
    const body = new ReadableStream<Uint8Array>();
    offerDirect(body, { attach: (sink) => attached.push(sink), gone: () => undefined });
    const response = offeringDirect(
      new Response(body, { headers: { 'Content-Type': 'text/event-stream; charset=utf-8' } }),
    );
    const outgoing = new ServerResponse(new IncomingMessage(new net.Socket()));
    expect(writeDirect(response, outgoing)).toBe(RESPONSE_ALREADY_SENT);
    expect(attached).toHaveLength(1);
    expect(outgoing.headersSent).toBe(true);
  });
});

describe('a response that is not a live answer', () => {
  test('is handed back without its body or headers read (reading them would copy them)', () => {
    const read: string[] = [];
    // Even one whose type is a live answer's: only the live route's responses are looked into.
    const response = new Response('data: {}\n\n', {
      headers: { 'Content-Type': 'text/event-stream; charset=utf-8' },
    });
    for (const name of ['body', 'headers']) {
      Object.defineProperty(response, name, {
        get() {
          read.push(name);
          return null;
        },
      });
    }
    const outgoing = new ServerResponse(new IncomingMessage(new net.Socket()));
    expect(writeDirect(response, outgoing)).toBe(response);
    expect(read).toEqual([]);
  });
});
