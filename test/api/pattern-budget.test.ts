/**
 * Issue 18, item 2: matching a caller's pattern against the registered hosts must never freeze
 * the server. Hosts are bounded by length wherever they come from, matching yields to other
 * requests, and a pattern that would take more than its budget gets a clear 400. Durations are
 * not asserted: the test checks the order in which answers arrive, and the outcome.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { serveNode } from '../../api/adapters/node.ts';
import type { Served } from '../../api/adapters/serve.ts';
import { MAX_PROGRAM_SIZE } from '../../src/contract/params/api-counts.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { EVENT_LIMITS } from '../../src/events/limits.ts';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { TEST_KEY, TEST_NOW_US, testApp } from './helpers/app.ts';
import { read } from './helpers/http.ts';

/** Unicode letter classes repeated to the 256-character limit: 28,002 RE2 instructions. */
const ADVERSARIAL = '\\pL{1000}'.repeat(28);
/**
 * The costliest program accepted (1,000 instructions): tens of milliseconds per long host, so
 * 100 of them take seconds, over the budget.
 */
const COSTLY = `\\pL{${MAX_PROGRAM_SIZE - 2}}`;

function edgeLine(id: string, request: Record<string, string>, project = 'budgetproject'): string {
  return JSON.stringify({
    id,
    timestamp: TEST_NOW_US - 60_000_000,
    project,
    metadata: [{ request: [{ path: '/rest/v1/t', ...request }], response: [{ status_code: 200 }] }],
  });
}

test('a host taken from request.url is bounded like request.host', async () => {
  const app = testApp();
  const long = `${'a'.repeat(EVENT_LIMITS.hostLength)}.example`;
  const ingested = await read(app.call, '/api/ingest/edge', {
    method: 'POST',
    body: [
      edgeLine('long-url', { url: `https://${long}/rest/v1/t` }),
      edgeLine('short-url', { url: 'https://budgetproject.example/rest/v1/t' }),
    ].join('\n'),
  });
  expect(JSON.parse(ingested.body)).toEqual({
    accepted: 1,
    rejected: 1,
    errors: [{
      line: 1,
      reason: `/metadata/0/request/0/url must have a host of at most ${EVENT_LIMITS.hostLength} ` +
        `characters: got ${long.length}`,
    }],
  });
});

describe('an adversarial pattern against many long hosts', () => {
  const app = testApp({
    // Room for /healthz, asked 100 ms into the match, on a loaded machine (at 500 ms it came back
    // after the pattern's 400 under a load average of 16), and still well under what matching
    // COSTLY against the 100 hosts takes (4.2 s on the build machine), so that the budget ends it.
    settings: { matchBudgetMs: 2_000 },
  });
  const events: LogEvent[] = [];
  let served: Served;

  beforeAll(async () => {
    const lines = Array.from({ length: 100 }, (_, i) => {
      const host = `${String(i).padStart(3, '0')}${'ab'.repeat(495)}.budgetproject.example`;
      return edgeLine(`long-${i}`, { host });
    });
    const ingested = await read(app.call, '/api/ingest/edge', {
      method: 'POST',
      body: lines.join('\n'),
    });
    expect(JSON.parse(ingested.body).accepted).toBe(100);
    for (const line of lines) {
      const result = parse(line, 'edge', { nowUs: TEST_NOW_US });
      if (result.ok) events.push(result.event);
    }
    served = await serveNode(app.api.fetch, {
      hostname: '127.0.0.1',
      port: 0,
      logger: createLogger('silent'),
    });
  });

  afterAll(async () => {
    await served?.close();
  });

  const get = (path: string) =>
    fetch(`${served.url}${path}`, { headers: { 'X-API-KEY': TEST_KEY } }).then(async (r) => ({
      status: r.status,
      body: await r.text(),
    }));

  test('a pattern of 28,002 instructions is refused before it is matched', async () => {
    const query = `interval=hourly&project=${encodeURIComponent(ADVERSARIAL)}`;
    const answer = await get(`/api/endpoints/usage.api-counts?${query}`);
    expect(answer.status, answer.body).toBe(400);
    expect(JSON.parse(answer.body).error).toEqual({
      code: 'invalid_parameter',
      message: expect.stringContaining(
        `; this one compiles to 28002 RE2 instructions, over the limit of ${MAX_PROGRAM_SIZE}: ` +
          'use fewer or smaller counted repetitions ({n}); got ',
      ),
    });
    const reference = evaluateEndpoint(
      'usage.api-counts',
      events,
      new URLSearchParams(query),
      TEST_NOW_US,
    );
    expect(reference.ok ? null : reference.error).toEqual({
      code: 'invalid_parameter',
      parameter: 'project',
    });
  });

  test(
    '/healthz is answered while a costly pattern is matched, and the pattern gets a clear 400',
    async () => {
      const order: string[] = [];
      const heavy = get(
        `/api/endpoints/usage.api-counts?interval=hourly&project=${encodeURIComponent(COSTLY)}`,
      ).then((answer) => {
        order.push('pattern');
        return answer;
      });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const health = get('/healthz').then((answer) => {
        order.push('healthz');
        return answer;
      });
      const [pattern, healthz] = await Promise.all([heavy, health]);
      expect(healthz.status).toBe(200);
      expect(order).toEqual(['healthz', 'pattern']);
      expect(pattern.status, pattern.body).toBe(400);
      expect(JSON.parse(pattern.body).error).toEqual({
        code: 'invalid_parameter',
        message: expect.stringMatching(
          /^invalid parameter "project": matching this pattern against the 100 registered hosts took longer than the budget of 2000 ms; /,
        ),
      });
    },
    60_000,
  );

  test('an ordinary pattern against the same hosts is answered exactly', async () => {
    const query = 'interval=hourly&project=00.ab';
    const answer = await get(`/api/endpoints/usage.api-counts?${query}`);
    expect(answer.status, answer.body).toBe(200);
    const expected = evaluateEndpoint(
      'usage.api-counts',
      events,
      new URLSearchParams(query),
      TEST_NOW_US,
    );
    expect(expected.ok && JSON.parse(answer.body).result).toEqual(expected.ok && expected.rows);
    expect(JSON.parse(answer.body).result[0].total_rest_requests).toBe(10);
  });
});
