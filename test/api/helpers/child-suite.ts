/**
 * The suite run against a child service (Node via `npm start`, or Deno): ingest generated
 * events over HTTP, then compare the endpoints with the reference evaluator at the server's
 * (real) clock, and check the banner and a clean SIGTERM shutdown.
 *
 * @module
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { EndpointName } from '../../../src/contract/registry.ts';
import { generatedStream, queriesFor } from '../../rollup/fold-and-read.ts';
import type { ChildService } from './child.ts';
import { type Call, read } from './http.ts';
import { expectIngestedAnswers } from './ingested-answers.ts';
import { EventReader } from './event-stream.ts';
import {
  recentFixture,
  VECTOR_SOURCES,
  vectorFixture,
} from '../../fixtures/supabase/vector-events.ts';
import { invocationLine } from '../../fixtures/events.ts';
import { countQuery, defaultQuery } from '../../fixtures/supabase/studio-sql.ts';

/**
 * Registers the suite; `every` keeps one query in that many (a representative subset);
 * `sandboxed` says the child runs with `LOGS_ALL_SQL=sandboxed` (else `sql` is ignored).
 */
export function childSuite(
  start: () => Promise<ChildService>,
  every = 1,
  sandboxed = false,
): void {
  let service: ChildService | null = null;
  let call: Call = () => Promise.reject(new Error('the service did not start'));
  const nowUs = Date.now() * 1000;
  const stream = generatedStream(nowUs, 3_000);

  beforeAll(async () => {
    service = await start();
    const { url, key } = service;
    call = (path, init = {}) =>
      fetch(`${url}${path}`, { ...init, headers: { 'X-API-KEY': key, ...init.headers } });
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
  });

  test('the banner shows the URL, the key and a curl per endpoint', () => {
    const output = service?.output() ?? '';
    for (const endpoint of ['functions.invocation-stats', 'logs.all', 'usage.api-counts']) {
      expect(output).toMatch(
        new RegExp(`curl -H 'X-API-KEY: \\S+' '[^']+/api/endpoints/${endpoint}\\?`),
      );
    }
  });

  test('the banner opens with the explorer, whose page and files are served', async () => {
    const output = service?.output() ?? '';
    // The banner's first line (a launcher such as deno task may print its own before it).
    expect(output).toMatch(
      /\nExplorer: http:\/\/\S+\/#endpoint=\S+ .*\nstreaming-endpoints is listening/,
    );
    const page = await fetch(`${service?.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('Content-Security-Policy')).toContain("script-src 'self'");
    const html = await page.text();
    const files = [...html.matchAll(/(?:src|href)="(\/explorer\/[^"]+)"/g)].map((m) => m[1]);
    expect(files.length).toBeGreaterThanOrEqual(4);
    for (const file of files) {
      const answer = await fetch(`${service?.url}${file}`);
      expect(answer.status, file).toBe(200);
      expect((await answer.arrayBuffer()).byteLength, file).toBeGreaterThan(100);
    }
  });

  test('ingested over HTTP, the endpoints answer what the reference says', async () => {
    const queries = queriesFor(stream.events, nowUs).filter((_, i) => i % every === 0) as [
      EndpointName,
      string,
    ][];
    await expectIngestedAnswers(call, stream, queries);
    const unauthorized = await read((path) => fetch(`${service?.url}${path}`), '/api/endpoints');
    expect(unauthorized.status).toBe(401);
  }, 120_000);

  test("Vector's events of every source on Logflare's route, Kong's answered", async () => {
    for (const source of VECTOR_SOURCES) {
      const response = await call(`/api/logs?source_name=${source}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(recentFixture(source, Date.now())),
      });
      expect(response.status, source).toBe(200);
      expect(await response.json(), source).toEqual({ message: 'Logged!' });
    }
    const logs = await call('/api/endpoints/logs.all?project=default');
    const rows = (await logs.json() as { result: { event_message: string }[] }).result;
    expect(rows.map((row) => row.event_message).sort()).toEqual(
      vectorFixture('cloudflare.logs.prod').map((event) => event['event_message']).sort(),
    );
    const counts = await call('/api/endpoints/usage.api-counts?project=default&interval=1hr');
    const totals = (await counts.json() as { result: Record<string, number>[] }).result
      .reduce((sum, row) => sum + (row['total_rest_requests'] ?? 0), 0);
    expect(totals).toBe(1);
    // Studio's badge and log page, through its proxy's request.
    const studio = (sql: string) =>
      call(`/api/endpoints/query/logs.all?${new URLSearchParams({
        project: 'default',
        sql,
        iso_timestamp_start: new Date(Date.now() - 3_600_000).toISOString(),
        iso_timestamp_end: '',
      })}`);
    const count = await studio(countQuery('auth_logs'));
    const page = await studio(defaultQuery('postgres_logs'));
    if (!sandboxed) {
      expect(count.headers.get('X-Ignored-Parameters')).toBe('sql');
      return;
    }
    expect(await count.json()).toEqual({
      result: [{ count: vectorFixture('gotrue.logs.prod').length }],
    });
    const shown = (await page.json() as { result: { event_message: string }[] }).result;
    expect(shown.map((row) => row.event_message)).toEqual(
      vectorFixture('postgres.logs').map((event) => event['event_message']),
    );
  }, 60_000);

  test('answers, their revalidations and errors carry the CORS headers over a real socket', async () => {
    const path = '/api/endpoints/functions.invocation-stats?project=p&interval=5min';
    const answer = await call(path);
    const etag = answer.headers.get('ETag') ?? '';
    expect(JSON.parse(await answer.text()).result).toHaveLength(301);
    const revalidated = await call(path, { headers: { 'If-None-Match': etag } });
    const refused = await fetch(`${service?.url}${path}`);
    for (const [response, status] of [[answer, 200], [revalidated, 304], [refused, 401]] as const) {
      expect(response.status).toBe(status);
      expect(response.headers.get('Access-Control-Allow-Origin')).toBe('*');
      expect(response.headers.get('Access-Control-Expose-Headers')).toContain('ETag');
    }
  });

  let live: EventReader | null = null;
  test('a live answer: the answer now, then the answer after an ingest, pushed', async () => {
    const project = 'childlivetestzzzzzzz';
    const response = await call(
      `/api/endpoints/functions.invocation-stats?project=${project}&interval=1day`,
      { headers: { Accept: 'text/event-stream' } },
    );
    expect(response.status).toBe(200);
    if (response.body === null) throw new Error('no body');
    live = new EventReader(response.body);
    const first = await live.next();
    expect(JSON.parse(first?.data ?? '').result.every((row: { count: number }) => row.count === 0))
      .toBe(true);
    const lines = Array.from(
      { length: 3 },
      () => invocationLine({ project, timestampUs: Date.now() * 1000 - 1_000_000 }),
    );
    const ingest = await call('/api/ingest/function-edge', {
      method: 'POST',
      body: lines.join('\n'),
    });
    expect(ingest.status).toBe(202);
    const pushed = await live.next(5_000);
    const rows = JSON.parse(pushed?.data ?? '{"result":[]}').result as { count: number }[];
    expect(rows.reduce((sum, row) => sum + row.count, 0)).toBe(3);
    // Left open: the process must stop with a stream open (the next test).
  });

  test('SIGTERM stops it cleanly', async () => {
    const output = service?.output() ?? '';
    const pid = Number(/"pid":(\d+)[^\n]*"msg":"listening"/.exec(output)?.[1]);
    expect(pid).toBeGreaterThan(0);
    const code = await service?.stop();
    // A launcher (npm, deno task) killed with its group may end by the signal itself (null or
    // 143); what matters is that the service logged its stop, exited, and reported no failure.
    expect([0, null, 143]).toContain(code);
    const gone = async () => {
      for (let i = 0; i < 100; i++) {
        try {
          process.kill(pid, 0);
        } catch {
          return true;
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return false;
    };
    expect(await gone()).toBe(true);
    expect(service?.output()).toContain('"msg":"stopping"');
    // The live stream left open was ended, not left hanging.
    await live?.next(1_000);
    expect(live?.ended ?? true).toBe(true);
    expect(service?.output()).not.toContain('shutdown');
    service = null;
  }, 30_000);
}
