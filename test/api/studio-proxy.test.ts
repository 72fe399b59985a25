/**
 * Today's Supabase Studio as a client. Its self-hosted analytics proxy (in its public source)
 * turns each call of the browser, GET or POST, into one request to the analytics service:
 *
 * - `GET {PROJECT_ANALYTICS_URL}endpoints/query/{name}`, where the analytics URL ends in `/api/`;
 * - the query string: `project` set to the project ref first, then every parameter of the
 *   browser's call (its query string for a GET, its JSON body for a POST), each set once;
 * - the headers `x-api-key`, `Content-Type: application/json` and `Accept: application/json`;
 * - a 2xx body goes back to the browser unchanged; any other status becomes a 500 whose body
 *   carries only `error.message` from the service's body (or a generic text when there is none).
 *
 * The proxy is played here from that description (no code of it is copied) against the service
 * on Redis with a fixed clock, for the three endpoints with the parameters Studio sends: its
 * usage chart's `1hr`, `1day` and `7day`, its function reports' intervals, and its log views'
 * `sql` with a time range. Every answer the browser would get is compared with the reference
 * evaluator over the same events, and every refusal must reach the browser as a message that
 * says what to change.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Service } from '../../service/start.ts';
import { loadConfig } from '../../src/config.ts';
import type { EndpointName } from '../../src/contract/registry.ts';
import type { Row } from '../../src/contract/rows.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { generatedStream } from '../rollup/fold-and-read.ts';
import { expectSameAnswer } from '../support/answers.ts';
import { startReadyService } from '../support/service.ts';
import { describeWithServices, redisDatabaseUrl } from '../support/services.ts';
import { TEST_KEY } from './helpers/app.ts';
import { type Call, ingestLines } from './helpers/http.ts';
import { responseValidator } from './helpers/openapi-validator.ts';

/** A Redis database of this suite's own, emptied first (rollup keys are global). */
const DATABASE = 12;
const MINUTE_US = 60_000_000;

/** What the browser gets back from Studio's proxy. */
interface ProxyAnswer {
  readonly status: number;
  readonly body: { readonly result?: Row[]; readonly error?: { readonly message: string } };
  /** The query string the proxy sent to the service. */
  readonly sent: URLSearchParams;
}

/** One call of Studio's browser to its proxy. */
interface StudioCall {
  /** The endpoint name in the proxy's path (any text: the browser may ask for any). */
  readonly name: string;
  readonly ref: string;
  /** The browser's method: a GET forwards its query string, a POST its JSON body. */
  readonly method: 'GET' | 'POST';
  readonly params: Readonly<Record<string, string>>;
}

/** A call of one of the endpoints. */
interface EndpointCall extends StudioCall {
  readonly name: EndpointName;
}

/** The parameters as the proxy receives them: parsed from the query string, or the JSON body. */
function received(call: StudioCall): Record<string, string> {
  return call.method === 'GET'
    ? Object.fromEntries(new URLSearchParams(call.params))
    : JSON.parse(JSON.stringify(call.params)) as Record<string, string>;
}

function errorMessage(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || !('error' in body)) return null;
  const error: unknown = body.error;
  if (typeof error !== 'object' || error === null || !('message' in error)) return null;
  return typeof error.message === 'string' ? error.message : null;
}

/** Studio's self-hosted proxy, as the module comment describes it. */
async function throughStudioProxy(
  analyticsUrl: string,
  key: string,
  call: StudioCall,
): Promise<ProxyAnswer> {
  const url = new URL(`${analyticsUrl}endpoints/query/${call.name}`);
  url.searchParams.set('project', call.ref);
  for (const [name, value] of Object.entries(received(call))) url.searchParams.set(name, value);
  const response = await fetch(url, {
    method: 'GET',
    headers: { 'x-api-key': key, 'Content-Type': 'application/json', Accept: 'application/json' },
  });
  const body: unknown = await response.json();
  if (response.ok) {
    return { status: 200, body: body as ProxyAnswer['body'], sent: url.searchParams };
  }
  const message = errorMessage(body) ??
    `Failed to retrieve analytics data: ${response.statusText}`;
  return { status: 500, body: { error: { message } }, sent: url.searchParams };
}

/** The projects with the most events of each kind, most active first. */
function busiestProjects(events: readonly LogEvent[]): { edge: string[]; functions: string[] } {
  const edge = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const event of events) {
    if (event.source === 'edge') edge.set(event.project, (edge.get(event.project) ?? 0) + 1);
    else if (event.source === 'function-edge') {
      for (const { projectRef } of event.invocations) {
        functions.set(projectRef, (functions.get(projectRef) ?? 0) + 1);
      }
    }
  }
  const top = (counts: Map<string, number>) =>
    [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([project]) => project);
  return { edge: top(edge), functions: top(functions) };
}

/** A function id the project ran, for Studio's per-function reports. */
function functionOf(events: readonly LogEvent[], project: string): string {
  for (const event of events) {
    if (event.source !== 'function-edge') continue;
    const found = event.invocations.find((invocation) =>
      invocation.projectRef === project && invocation.functionId !== null
    );
    if (found?.functionId) return found.functionId;
  }
  throw new Error(`no function of ${project}`);
}

/** Studio's timestamps: `Date.prototype.toISOString`, milliseconds and `Z`. */
function isoOf(us: number): string {
  return new Date(Math.floor(us / 1000)).toISOString();
}

describeWithServices(['redis'], "Supabase Studio's proxy against the service on Redis", ({
  redis,
}) => {
  const nowUs = Date.now() * 1000;
  const stream = generatedStream(nowUs, 3_000);
  const projects = busiestProjects(stream.events);
  let service: Service | null = null;
  let analyticsUrl = '';

  beforeAll(async () => {
    const url = redisDatabaseUrl(redis.url, DATABASE);
    const client = await createClient({ url }).connect();
    await client.flushDb();
    await client.close();
    const config = loadConfig({ REDIS_URL: url, API_KEYS: TEST_KEY, PORT: '0' });
    let call: Call;
    ({ service, call } = await startReadyService(config, 'studio-proxy', TEST_KEY, () => nowUs));
    analyticsUrl = `${service.url}/api/`;
    const check = responseValidator(await (await call('/openapi.json')).json());
    const totals = await ingestLines(call, stream.lines, check);
    expect(totals.accepted).toBe(stream.events.length);
  }, 120_000);

  afterAll(async () => {
    await service?.stop();
  });

  /** Asks through the proxy and expects the reference's rows, as the browser would get them. */
  async function expectReferenceRows(call: EndpointCall): Promise<number> {
    const answer = await throughStudioProxy(analyticsUrl, TEST_KEY, call);
    const label = `${call.method} ${call.name}?${answer.sent}`;
    expect(answer.status, `${label}: ${JSON.stringify(answer.body).slice(0, 300)}`).toBe(200);
    const expected = evaluateEndpoint(call.name, stream.events, answer.sent, nowUs);
    if (!expected.ok) throw new Error(`${label}: the reference refuses it`);
    expect(Array.isArray(answer.body.result), `${label}: no result`).toBe(true);
    expectSameAnswer(call.name, answer.body.result ?? [], expected.rows, label);
    return expected.rows.length;
  }

  /** The same parameters through the proxy's GET and its POST. */
  const bothMethods = (call: Omit<EndpointCall, 'method'>): EndpointCall[] => [
    { ...call, method: 'GET' },
    { ...call, method: 'POST' },
  ];

  test.each(['1hr', '1day', '7day'])(
    'the usage chart, interval=%s: the rows of the reference, through GET and POST',
    async (interval) => {
      let rows = 0;
      for (const ref of projects.edge) {
        for (const call of bothMethods({ name: 'usage.api-counts', ref, params: { interval } })) {
          rows += await expectReferenceRows(call);
        }
      }
      expect(rows).toBeGreaterThan(0);
    },
    60_000,
  );

  test.each(['5min', '15min', '1hr', '1day', '7day'])(
    'the function reports, interval=%s, of a project and of one function',
    async (interval) => {
      for (const ref of projects.functions) {
        const perFunction = { interval, function_id: functionOf(stream.events, ref) };
        for (
          const call of [
            ...bothMethods({ name: 'functions.invocation-stats', ref, params: { interval } }),
            ...bothMethods({ name: 'functions.invocation-stats', ref, params: perFunction }),
          ]
        ) {
          await expectReferenceRows(call);
        }
      }
    },
    60_000,
  );

  test('the log views: logs.all with sql (ignored) and a time range', async () => {
    const sql = 'select id, timestamp, event_message from edge_logs order by timestamp desc';
    const ranges: Record<string, string>[] = [
      { sql },
      {
        sql,
        iso_timestamp_start: isoOf(nowUs - 3 * 60 * MINUTE_US),
        iso_timestamp_end: isoOf(nowUs - 2 * MINUTE_US),
      },
      { sql, iso_timestamp_start: isoOf(nowUs - 5 * MINUTE_US), project_tier: 'PRO' },
    ];
    let rows = 0;
    for (const ref of projects.edge) {
      for (const params of ranges) {
        for (const call of bothMethods({ name: 'logs.all', ref, params })) {
          rows += await expectReferenceRows(call);
        }
      }
    }
    expect(rows).toBeGreaterThan(0);
  }, 60_000);

  test.each([
    {
      call: { name: 'usage.api-counts', params: { interval: '30day' } },
      says: ['"interval"', 'minutely, hourly, daily, 1hr, 1day, 7day', '"30day"'],
    },
    {
      call: { name: 'logs.all', params: { iso_timestamp_start: 'yesterday' } },
      says: ['"iso_timestamp_start"', '"yesterday"'],
    },
    {
      call: { name: 'usage.api-counts', params: { interval: '1day' } },
      key: 'not-the-key-0123456789',
      says: ['X-API-KEY', 'not one of the configured API keys', 'API_KEYS'],
    },
    {
      call: { name: 'usage.api-count', params: { interval: '1day' } },
      says: ['"usage.api-count"', 'GET /api/endpoints'],
    },
  ] as { call: Pick<StudioCall, 'name' | 'params'>; key?: string; says: string[] }[])(
    'a refusal reaches the browser as its message: $says',
    async ({ call, key, says }) => {
      const answer = await throughStudioProxy(analyticsUrl, key ?? TEST_KEY, {
        ...call,
        ref: projects.edge[0] ?? '',
        method: 'GET',
      });
      expect(answer.status).toBe(500);
      const message = answer.body.error?.message ?? '';
      expect(message).not.toContain('Failed to retrieve analytics data');
      for (const text of says) expect(message).toContain(text);
    },
  );
});
