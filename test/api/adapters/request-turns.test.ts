/**
 * Requests handled a bounded number at a time (api/adapters/request-turns.ts): the others wait in
 * arrival order; a place comes back when a request ends or has held it too long; a waiting
 * request whose client left is passed over; and on a real Node server, a request past the bound
 * is answered once a place is free. The clock and the check's timer are the test's.
 */
import net from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { Registry } from 'prom-client';
import { RequestTurns, requestTurnsMetrics } from '../../../api/adapters/request-turns.ts';
import { serveNode } from '../../../api/adapters/node.ts';
import type { Served } from '../../../api/adapters/serve.ts';
import { createLogger } from '../../../src/logger.ts';
import { until } from '../../support/poll.ts';

/** A request under test: started or not, and ended when the test says. */
interface Held {
  started: boolean;
  end: () => void;
  fail: () => void;
}

function held(): Held & { handle: () => Promise<unknown> } {
  const request: Held & { handle: () => Promise<unknown> } = {
    started: false,
    end: () => {},
    fail: () => {},
    handle: () => {
      request.started = true;
      return new Promise<void>((resolve, reject) => {
        request.end = resolve;
        request.fail = () => reject(new Error('failed'));
      });
    },
  };
  return request;
}

function turnsAt(maxHandling: number, holdMs = 100) {
  const clock = { ms: 0 };
  const checks: Array<{ atMs: number; run: () => void }> = [];
  const turns = new RequestTurns({
    maxHandling,
    holdMs,
    nowMs: () => clock.ms,
    schedule: (run, delayMs) => checks.push({ atMs: clock.ms + delayMs, run }),
  });
  /** Moves the clock to `ms`, running the checks due by then. */
  const advance = (ms: number) => {
    clock.ms = ms;
    for (const check of checks.splice(0)) {
      if (check.atMs <= ms) check.run();
      else checks.push(check);
    }
  };
  return { turns, advance };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

test('at most maxHandling requests are handled at once; the others start in arrival order', async () => {
  const { turns } = turnsAt(2, 1_000);
  const requests = Array.from({ length: 5 }, () => held());
  for (const request of requests) turns.admit({ handle: request.handle, gone: () => false });
  expect(requests.map((r) => r.started)).toEqual([true, true, false, false, false]);
  expect(turns.waiting).toBe(3);
  requests[1]?.end();
  await turn();
  expect(requests.map((r) => r.started)).toEqual([true, true, true, false, false]);
  requests[0]?.fail();
  await turn();
  expect(requests.map((r) => r.started)).toEqual([true, true, true, true, false]);
  expect(turns.waiting).toBe(1);
  expect(turns.admitted).toBe(4);
});

test('a request that holds its place for holdMs stops counting and runs on; the next starts', () => {
  const { turns, advance } = turnsAt(1, 100);
  const slow = held();
  const next = held();
  turns.admit({ handle: slow.handle, gone: () => false });
  turns.admit({ handle: next.handle, gone: () => false });
  advance(99);
  expect(next.started).toBe(false);
  advance(100);
  expect(next.started).toBe(true);
  expect(turns.heldTooLong).toBe(1);
  expect(turns.waiting).toBe(0);
});

test('a waiting request whose client has gone is passed over, never handled', async () => {
  const { turns } = turnsAt(1, 1_000);
  const first = held();
  const left = held();
  const last = held();
  turns.admit({ handle: first.handle, gone: () => false });
  turns.admit({ handle: left.handle, gone: () => true });
  turns.admit({ handle: last.handle, gone: () => false });
  first.end();
  await turn();
  expect([left.started, last.started]).toEqual([false, true]);
});

test('requests of one line take turns among themselves; another line does not wait behind them', async () => {
  const { turns } = turnsAt(1, 1_000);
  const line = {};
  const [a1, a2, b1] = [held(), held(), held()];
  turns.admit({ handle: a1.handle, gone: () => false, line });
  turns.admit({ handle: a2.handle, gone: () => false, line });
  turns.admit({ handle: b1.handle, gone: () => false, line: {} });
  expect(turns.waiting).toBe(2);
  a1.end();
  await turn();
  expect([b1.started, a2.started]).toEqual([true, false]);
  b1.end();
  await turn();
  expect(a2.started).toBe(true);
  expect(turns.waiting).toBe(0);
});

test('a request passed over is told, and the next of its line takes its turn', async () => {
  const { turns } = turnsAt(1, 1_000);
  const line = {};
  const holding = held();
  const left = held();
  const next = held();
  const passed: string[] = [];
  turns.admit({ handle: holding.handle, gone: () => false });
  turns.admit({ handle: left.handle, gone: () => true, passOver: () => passed.push('left'), line });
  turns.admit({ handle: next.handle, gone: () => false, line });
  expect(turns.waiting).toBe(2);
  holding.end();
  await turn();
  expect({ passed, left: left.started, next: next.started }).toEqual({
    passed: ['left'],
    left: false,
    next: true,
  });
  expect(turns.waiting).toBe(0);
});

test('a slow request is counted as held too long even when nobody waited for its place', async () => {
  const { turns, advance } = turnsAt(2, 100);
  const slow = held();
  turns.admit({ handle: slow.handle, gone: () => false });
  advance(250);
  slow.end();
  await turn();
  expect(turns.heldTooLong).toBe(1);
});

test('a handler that throws at once gives its place back', () => {
  const { turns } = turnsAt(1, 1_000);
  const next = held();
  turns.admit({
    handle: () => {
      throw new Error('at once');
    },
    gone: () => false,
  });
  turns.admit({ handle: next.handle, gone: () => false });
  expect(next.started).toBe(true);
});

test('bounds that are not positive integers are refused', () => {
  expect(() => new RequestTurns({ maxHandling: 0, nowMs: () => 0 })).toThrow(/maxHandling/);
  expect(() => new RequestTurns({ holdMs: 1.5, nowMs: () => 0 })).toThrow(/holdMs/);
});

test('the metrics say how many wait and how many held their place too long', async () => {
  const { turns, advance } = turnsAt(1, 100);
  const registry = new Registry();
  requestTurnsMetrics(registry, turns);
  const slow = held();
  turns.admit({ handle: slow.handle, gone: () => false });
  turns.admit({ handle: held().handle, gone: () => false });
  turns.admit({ handle: held().handle, gone: () => false });
  expect(await registry.metrics()).toContain('api_http_requests_waiting 2');
  advance(100);
  const text = await registry.metrics();
  expect(text).toContain('api_http_requests_waiting 1');
  expect(text).toContain('api_http_requests_held_too_long_total 1');
});

let served: Served | null = null;
/** Raw sockets a test opened: ended first, else a failed test's would hold the server open. */
const sockets: net.Socket[] = [];
/** Handlers a test holds back: let go first, so that the server can close. */
const gates = new Map<string, () => void>();
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  for (const open of gates.values()) open();
  gates.clear();
  await served?.close();
  served = null;
});

test('on Node, a request past the bound is answered once the one before it ends', async () => {
  const { turns } = turnsAt(1, 60_000);
  served = await serveNode(
    async (request) => {
      if (new URL(request.url).pathname === '/slow') {
        await new Promise<void>((resolve) => gates.set('/slow', resolve));
      }
      return new Response('done');
    },
    { hostname: '127.0.0.1', port: 0, logger: createLogger('silent'), turns },
  );
  const slow = fetch(`${served.url}/slow`);
  await until(
    'the slow request handled',
    5_000,
    () => Promise.resolve(gates.has('/slow') ? true : null),
  );
  let quickAnswered = false;
  const quick = fetch(`${served.url}/quick`).then(async (response) => {
    quickAnswered = true;
    return await response.text();
  });
  await until(
    'the quick request waiting',
    5_000,
    () => Promise.resolve(turns.waiting === 1 ? true : null),
  );
  expect(quickAnswered).toBe(false);
  gates.get('/slow')?.();
  expect(await quick).toBe('done');
  expect(await (await slow).text()).toBe('done');
});

test('on Node, pipelined requests of one connection wait behind each other, not before others', async () => {
  const order: string[] = [];
  const { turns } = turnsAt(1, 60_000);
  served = await serveNode(
    async (request) => {
      const path = new URL(request.url).pathname;
      order.push(path);
      if (path.startsWith('/a')) await new Promise<void>((resolve) => gates.set(path, resolve));
      return new Response(path);
    },
    { hostname: '127.0.0.1', port: 0, logger: createLogger('silent'), turns },
  );
  const { port } = new URL(served.url);
  const pipelined = net.connect(Number(port), '127.0.0.1');
  sockets.push(pipelined);
  let answers = '';
  pipelined.on('data', (chunk: Buffer) => (answers += chunk.toString()));
  pipelined.write(
    ['/a1', '/a2', '/a3'].map((path) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`).join(''),
  );
  await until(
    'the first pipelined request handled',
    5_000,
    () => Promise.resolve(gates.has('/a1') ? true : null),
  );
  const other = fetch(`${served.url}/b`);
  // The two behind /a1 wait on their connection, /b with the others: three in all.
  await until('three waiting', 5_000, () => Promise.resolve(turns.waiting === 3 ? true : null));
  gates.get('/a1')?.();
  expect(await (await other).text()).toBe('/b');
  await until('/a2 handled', 5_000, () => Promise.resolve(gates.has('/a2') ? true : null));
  gates.get('/a2')?.();
  await until('/a3 handled', 5_000, () => Promise.resolve(gates.has('/a3') ? true : null));
  gates.get('/a3')?.();
  await until(
    'three answers',
    5_000,
    () => Promise.resolve(answers.split('HTTP/1.1 200').length === 4 ? true : null),
  );
  expect(order).toEqual(['/a1', '/b', '/a2', '/a3']);
});
