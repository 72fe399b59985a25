/**
 * Live answers (issue 53) in one process on the embedded store, with a clock the test moves:
 * streams of every endpoint (`GET` with `Accept: text/event-stream`) get the answer of the moment
 * first, then each new answer as ingests commit, each whole, equal to the reference evaluator over
 * the events ingested by then, and sent once (never twice the same); a relative window slides with
 * no event; one computation per change however many streams watch; refusals (bad parameters,
 * caps) are the JSON errors of a `GET`; a reader too slow is cut; a stopping API ends its streams.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { EndpointName } from '../../src/contract/registry.ts';
import type { Row } from '../../src/contract/rows.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { generatedStream, queriesFor, validEvents } from '../rollup/fold-and-read.ts';
import { TEST_NOW_US, type TestApp, testApp } from './helpers/app.ts';
import { EventReader } from './helpers/event-stream.ts';
import { matches } from './helpers/http.ts';
import { invocationLine } from '../fixtures/events.ts';

const LIVE = { Accept: 'text/event-stream' };
const SETTINGS = { resultCacheMs: 0, liveCoalesceMs: 250 };

let apps: TestApp[] = [];
afterEach(() => {
  for (const app of apps) app.api.close();
  apps = [];
});

function liveApp(nowUs: () => number, settings = {}): TestApp {
  const app = testApp({ nowUs, settings: { ...SETTINGS, ...settings } });
  apps.push(app);
  return app;
}

async function open(app: TestApp, path: string): Promise<EventReader> {
  const response = await app.call(path, { headers: LIVE });
  expect(response.status, path).toBe(200);
  expect(response.headers.get('Content-Type')).toBe('text/event-stream; charset=utf-8');
  if (response.body === null) throw new Error('a live answer without a body');
  return new EventReader(response.body);
}

function rowsOf(data: string): Row[] {
  return (JSON.parse(data) as { result: Row[] }).result;
}

/** The index of the first of `states` (from `from`) whose reference `data` equals, else -1. */
function stateOf(
  endpoint: EndpointName,
  query: string,
  data: string,
  states: readonly LogEvent[][],
  from: number,
  nowUs: number,
): number {
  for (let i = from; i < states.length; i++) {
    const expected = evaluateEndpoint(endpoint, states[i] ?? [], new URLSearchParams(query), nowUs);
    if (expected.ok && matches(endpoint, rowsOf(data), expected.rows)) return i;
  }
  return -1;
}

describe('live answers on the embedded store', () => {
  test('every endpoint: the answer now, then each change pushed, exact and once', async () => {
    const app = liveApp(() => TEST_NOW_US);
    const stream = generatedStream(TEST_NOW_US, 1_500);
    // One query of each endpoint and interval kind, of the busiest projects.
    const seen = new Set<string>();
    const queries = queriesFor(stream.events, TEST_NOW_US).filter(([endpoint, query]) => {
      const kind = `${endpoint}:${new URLSearchParams(query).get('interval') ?? ''}`;
      if (seen.has(kind)) return false;
      seen.add(kind);
      return true;
    });
    expect(queries.map(([endpoint]) => endpoint)).toEqual(
      expect.arrayContaining(['functions.invocation-stats', 'logs.all', 'usage.api-counts']),
    );
    const readers = await Promise.all(
      queries.map(([endpoint, query]) => open(app, `/api/endpoints/query/${endpoint}?${query}`)),
    );
    // The states the store goes through: after each ingest request.
    const states: LogEvent[][] = [[]];
    const ingested: typeof stream.lines = [];
    for (let part = 0; part < 3; part++) {
      const lines = stream.lines.filter((_, i) => i % 3 === part);
      for (const source of ['edge', 'function-edge'] as const) {
        const ofSource = lines.filter((line) => line.source === source);
        const response = await app.call(`/api/ingest/${source}`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/x-ndjson' },
          body: ofSource.map((line) => line.line).join('\n'),
        });
        expect(response.status).toBe(202);
        ingested.push(...ofSource);
        states.push(validEvents(ingested, TEST_NOW_US));
      }
    }
    const last = states.length - 1;
    // Until no stream has had an event for a second (the pushes of the last ingest are in).
    const total = () => readers.reduce((sum, reader) => sum + reader.events.length, 0);
    for (let before = -1, waited = 0; total() !== before && waited < 20; waited += 1) {
      before = total();
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    for (const [i, [endpoint, query]] of queries.entries()) {
      const reader = readers[i];
      if (reader === undefined) throw new Error('no reader');
      const label = `${endpoint}?${query}`;
      const first = await reader.next();
      expect(stateOf(endpoint, query, first?.data ?? '', states, 0, TEST_NOW_US), label).toBe(0);
      // Each later event: a later state than the one before, its answer whole; until the last.
      let at = 0;
      let previous = first;
      while (at < last) {
        const event = await reader.next(1);
        if (event === null) break;
        expect(event.data, `${label}: the same answer sent twice`).not.toBe(previous?.data);
        expect(event.id).not.toBe(previous?.id);
        const state = stateOf(endpoint, query, event.data, states, at + 1, TEST_NOW_US);
        expect(state, `${label}: a pushed answer of no state after ${at}`).toBeGreaterThan(at);
        at = state;
        previous = event;
      }
      // The last pushed answer is the reference over everything, unless the project's answer
      // did not change in the last states (then the last push equals them too).
      expect(stateOf(endpoint, query, previous?.data ?? '', states, 0, TEST_NOW_US), label)
        .toBeGreaterThanOrEqual(0);
      const final = evaluateEndpoint(
        endpoint,
        states[last] ?? [],
        new URLSearchParams(query),
        TEST_NOW_US,
      );
      expect(final.ok && matches(endpoint, rowsOf(previous?.data ?? ''), final.rows), label).toBe(
        true,
      );
    }
    // Nothing more: the clock stands still and nothing is ingested.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    for (const reader of readers) expect(await reader.next(1)).toBeNull();
    const metrics = await (await app.call('/metrics')).text();
    expect(metrics).toMatch(new RegExp(`^api_live_streams ${queries.length}$`, 'm'));
  }, 60_000);

  test(
    'a relative window slides with no event: the 5min answer changes as its seconds pass',
    async () => {
      let nowUs = TEST_NOW_US;
      const app = liveApp(() => nowUs);
      const project = 'abcdefghijklmnopqrst';
      const line = invocationLine({
        project,
        timestampUs: TEST_NOW_US - 2_000_000,
        executionMs: 12,
      });
      const response = await app.call('/api/ingest/function-edge', { method: 'POST', body: line });
      expect(response.status).toBe(202);
      expect(((await response.json()) as { accepted: number }).accepted).toBe(1);
      const query = `project=${project}&interval=5min`;
      const reader = await open(app, `/api/endpoints/query/functions.invocation-stats?${query}`);
      const first = await reader.next();
      expect(rowsOf(first?.data ?? '[]').length).toBeGreaterThan(0);
      // Five minutes on: the event has left the window, with nothing ingested.
      nowUs += 5 * 60_000_000 + 1_000_000;
      const slid = await reader.next(3_000);
      expect(slid, 'no answer pushed as the window slid').not.toBeNull();
      const events = validEvents([{ source: 'function-edge', line }], TEST_NOW_US);
      const expected = evaluateEndpoint(
        'functions.invocation-stats',
        events,
        new URLSearchParams(query),
        nowUs,
      );
      expect(
        expected.ok &&
          matches('functions.invocation-stats', rowsOf(slid?.data ?? ''), expected.rows),
      )
        .toBe(true);
    },
    20_000,
  );

  test('one computation per change, however many streams watch the answer', async () => {
    const app = liveApp(() => TEST_NOW_US);
    const stream = generatedStream(TEST_NOW_US, 300);
    const [endpoint, query] = queriesFor(stream.events, TEST_NOW_US).find(([name, text]) =>
      name === 'functions.invocation-stats' && text.includes('interval=1day')
    ) ?? ['functions.invocation-stats', ''];
    const readers = await Promise.all(
      Array.from({ length: 40 }, () =>
        open(app, `/api/endpoints/query/${endpoint}?${query}`)),
    );
    for (const reader of readers) expect(await reader.next()).not.toBeNull();
    const response = await app.call('/api/ingest/function-edge', {
      method: 'POST',
      body: stream.lines.filter((line) => line.source === 'function-edge').map((line) => line.line)
        .join('\n'),
    });
    expect(response.status).toBe(202);
    for (const reader of readers) expect(await reader.next(3_000)).not.toBeNull();
    const metrics = await (await app.call('/metrics')).text();
    // The 1day answer slides by the hour: only the signalled commit computed it again.
    expect(metrics).toMatch(/^api_live_recomputes_total\{outcome="ok"\} 1$/m);
    expect(metrics).toMatch(/^api_live_pushes_total 40$/m);
    expect(metrics).toMatch(/^api_live_watched_answers 1$/m);
  }, 20_000);

  test('refusals are the JSON errors of a GET: parameters, caps; a closed stream frees its place', async () => {
    const app = liveApp(() => TEST_NOW_US, { liveMaxStreamsPerKey: 2 });
    const bad = await app.call('/api/endpoints/query/usage.api-counts?project=p', {
      headers: LIVE,
    });
    expect(bad.status).toBe(400);
    expect(bad.headers.get('Content-Type')).toContain('application/json');
    const path = '/api/endpoints/query/logs.all?project=abcdefghijklmnopqrst';
    const first = await open(app, path);
    await open(app, path);
    const third = await app.call(path, { headers: LIVE });
    expect(third.status).toBe(429);
    expect(third.headers.get('Retry-After')).toBe('5');
    expect(((await third.json()) as { error: { message: string } }).error.message).toContain(
      'LIVE_MAX_STREAMS_PER_KEY',
    );
    await first.cancel();
    await open(app, path);
    const metrics = await (await app.call('/metrics')).text();
    expect(metrics).toMatch(/^api_live_refused_total 1$/m);
    expect(metrics).toMatch(/^api_live_ended_total\{reason="client"\} 1$/m);
  });

  test('LIVE_MAX_STREAMS=0 turns live answers off: the JSON answer of a GET', async () => {
    const app = liveApp(() => TEST_NOW_US, { liveMaxStreams: 0 });
    const response = await app.call('/api/endpoints/query/logs.all?project=p', { headers: LIVE });
    expect(response.status).toBe(200);
    expect(response.headers.get('Content-Type')).toContain('application/json');
  });

  test('an idle stream gets a heartbeat each LIVE_HEARTBEAT_MS', async () => {
    const app = liveApp(() => TEST_NOW_US, { liveHeartbeatMs: 1_000 });
    const reader = await open(app, '/api/endpoints/query/logs.all?project=p');
    expect(await reader.next()).not.toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 2_200));
    expect(reader.comments).toBeGreaterThanOrEqual(2);
  });

  test('a stopping API ends its streams', async () => {
    const app = liveApp(() => TEST_NOW_US);
    const reader = await open(app, '/api/endpoints/query/logs.all?project=p');
    expect(await reader.next()).not.toBeNull();
    app.api.close();
    await reader.next(1_000);
    expect(reader.ended).toBe(true);
  });
});
