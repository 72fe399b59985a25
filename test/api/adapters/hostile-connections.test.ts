/**
 * Issue 31, on real Node sockets: connections that send nothing cannot take every slot (the
 * server closes them for good once timed out, and one address gets only its share); a client
 * that never reads its answer is cut; a `logs.all` answer is bounded in bytes; and every refusal
 * is counted. Small timeouts keep each test within a few seconds; nothing asserts a duration
 * beyond "it answers" (within 1 s).
 */
import type net from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { createLogger } from '../../../src/logger.ts';
import { serveNode } from '../../../api/adapters/node.ts';
import type { Served, ServerLimits } from '../../../api/adapters/serve.ts';
import type { AppSettings } from '../../../api/app.ts';
import { TEST_KEY, TEST_NOW_US, type TestApp, testApp } from '../helpers/app.ts';
import { holdIdle, statusOf } from '../helpers/raw-http.ts';
import { answerWithHeld, refusedCount, untilTrue } from './hostile-steps.ts';

let served: Served | null = null;
let held: net.Socket[] = [];

afterEach(async () => {
  for (const socket of held) socket.destroy();
  held = [];
  await served?.close();
  served = null;
});

async function start(limits: ServerLimits, settings: Partial<AppSettings> = {}) {
  const app = testApp({ settings });
  served = await serveNode(app.api.fetch, {
    hostname: '127.0.0.1',
    port: 0,
    limits,
    onRefusal: (reason) => app.metrics.countRefused(reason),
    logger: createLogger('silent'),
  });
  return { app, port: Number(new URL(served.url).port), url: served.url };
}

/** Fast timeouts: a silent connection is answered 408 after 300 ms. */
const FAST = { headersTimeoutMs: 300, requestTimeoutMs: 1_000, checkIntervalMs: 50 } as const;

describe('connections that send nothing', () => {
  test('1,100 of them from one address: /healthz answers from another throughout', async () => {
    const { port } = await start(FAST);
    held = await holdIdle(port, 1_100, '127.0.0.2');
    const statuses: number[] = [];
    // 15 rounds, 100 ms apart: before, during and after the 408s (300 ms) and their linger.
    for (let round = 0; round < 15; round++) {
      statuses.push(await statusOf(port, '/healthz'));
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(statuses).toEqual(Array.from({ length: 15 }, () => 200));
  });

  test('with the per-address limit off, those timed out are closed for good and counted', async () => {
    const { app, port } = await start({ ...FAST, maxConnectionsPerAddress: 0 });
    held = await holdIdle(port, 1_100, '127.0.0.2');
    // Each connection was refused at the cap or cut after sending nothing: all are counted. (Asked
    // before any probe: a probe refused at the cap is counted too.)
    const counted = async () =>
      (await refusedCount(app, 'connection_cap')) + (await refusedCount(app, 'no_request'));
    expect(await untilTrue(async () => (await counted()) >= 1_100)).toBe(true);
    expect(await counted()).toBe(1_100);
    // Every slot was taken; once the 408s are out and the sockets closed, a request gets one.
    expect(await untilTrue(async () => (await statusOf(port, '/healthz')) === 200)).toBe(true);
  });
});

describe('the per-address connection limit', () => {
  test('an address over its limit is refused at once; another address is served', async () => {
    const { app, port } = await start({ maxConnectionsPerAddress: 2 });
    held = await holdIdle(port, 2, '127.0.0.2');
    expect(await statusOf(port, '/healthz', '127.0.0.2')).toBe(0);
    expect(await statusOf(port, '/healthz', '127.0.0.1')).toBe(200);
    expect(await refusedCount(app, 'address_cap')).toBe(1);
    // Its own connections closed, the address is served again.
    for (const socket of held) socket.destroy();
    expect(await untilTrue(async () => (await statusOf(port, '/healthz', '127.0.0.2')) === 200))
      .toBe(true);
  });

  test('0 turns it off (behind a trusted proxy every client has its address)', async () => {
    const { port } = await start({ maxConnectionsPerAddress: 0 });
    held = await holdIdle(port, 3, '127.0.0.2');
    expect(await statusOf(port, '/healthz', '127.0.0.2')).toBe(200);
  });
});

const ENTRY_NOTE_CHARS = 120_000;
const ENTRIES = 100;

/** 100 entries of about 120 KiB each in `app`'s store: a `logs.all` answer of about 12 MB. */
async function fillLogs(app: TestApp, project: string): Promise<void> {
  for (let part = 0; part < 2; part++) {
    const lines = Array.from({ length: ENTRIES / 2 }, (_, i) => {
      const n = part * (ENTRIES / 2) + i;
      return JSON.stringify({
        id: `e${n}`,
        timestamp: TEST_NOW_US - 1_000_000 + n,
        project,
        event_message: `GET | 200 | entry ${n}`,
        metadata: [{ note: 'x'.repeat(ENTRY_NOTE_CHARS) }],
      });
    });
    const response = await app.call('/api/ingest/edge', { method: 'POST', body: lines.join('\n') });
    expect(await response.json()).toMatchObject({ accepted: ENTRIES / 2, rejected: 0 });
  }
}

const LOGS_PATH = '/api/endpoints/logs.all?project=slowreader&project_tier=FREE';

describe('answers and slow readers', () => {
  test('a client that never reads is cut after the write timeout; it never gets the whole answer', async () => {
    const { app, port } = await start(
      { writeTimeoutMs: 300, checkIntervalMs: 50 },
      { answerMaxBytes: 64 * 1024 * 1024 },
    );
    await fillLogs(app, 'slowreader');
    const answer = answerWithHeld(port, LOGS_PATH, TEST_KEY);
    held.push(answer.socket);
    expect(await untilTrue(async () => (await refusedCount(app, 'slow_reader')) === 1)).toBe(true);
    const { contentLength, bodyBytes } = await answer.readRest();
    expect(contentLength).toBeGreaterThan(ENTRIES * ENTRY_NOTE_CHARS);
    expect(bodyBytes).toBeLessThan(contentLength);
  });

  test('a client that reads slowly, pausing less than the write timeout, gets the whole answer', async () => {
    // 256 KiB every 100 ms: 12 MB take 5 s or more, longer than the write timeout, so the answer
    // must make visible progress as it is read.
    const { app, port } = await start(
      { writeTimeoutMs: 2_000, checkIntervalMs: 50 },
      { answerMaxBytes: 64 * 1024 * 1024 },
    );
    await fillLogs(app, 'slowreader');
    const answer = answerWithHeld(port, LOGS_PATH, TEST_KEY);
    held.push(answer.socket);
    const { contentLength, bodyBytes } = await answer.readRest({
      stepBytes: 256 * 1024,
      pauseMs: 100,
    });
    expect(bodyBytes).toBe(contentLength);
    expect(await refusedCount(app, 'slow_reader')).toBe(0);
  });

  test('a logs.all answer over the byte limit is cut by whole rows, says so, and stays JSON', async () => {
    const limit = 1024 * 1024;
    const { app, url } = await start({}, { answerMaxBytes: limit });
    await fillLogs(app, 'slowreader');
    const response = await fetch(`${url}${LOGS_PATH}`, { headers: { 'X-API-KEY': TEST_KEY } });
    const body = new Uint8Array(await response.arrayBuffer());
    expect(response.status).toBe(200);
    expect(body.byteLength).toBeLessThanOrEqual(limit);
    const rows: { id: string }[] = JSON.parse(new TextDecoder().decode(body)).result;
    // Newest first: the answer is the first rows of the whole one, each complete.
    expect(rows.map((row) => row.id)).toEqual(
      Array.from({ length: rows.length }, (_, i) => `e${ENTRIES - 1 - i}`),
    );
    expect(rows.length).toBeGreaterThan(0);
    expect(response.headers.get('X-Result-Truncated')).toBe(
      `rows=${rows.length}; max-bytes=${limit}`,
    );
  });

  test('an answer within the limit carries no truncation header', async () => {
    const { app, url } = await start({}, { answerMaxBytes: 64 * 1024 * 1024 });
    await fillLogs(app, 'slowreader');
    const response = await fetch(`${url}${LOGS_PATH}`, { headers: { 'X-API-KEY': TEST_KEY } });
    const rows: unknown[] = (await response.json()).result;
    expect(rows).toHaveLength(ENTRIES);
    expect(response.headers.get('X-Result-Truncated')).toBeNull();
  });
});
