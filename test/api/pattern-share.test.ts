/**
 * Issue 31, item 5: the costly-pattern gate charges the key that asked. Four keys sending new
 * costly patterns kept every other key's pattern queries waiting (503 or 1.4 s): now each key's
 * matching time is spent from its own share, a key whose share is used up is refused 429, and
 * another key's pattern query is still answered. Matching time runs on an injected clock that
 * advances 4 ms at each reading, so what a pattern costs does not depend on the machine; the
 * request clock stands still, so no share refills.
 */
import { describe, expect, test } from 'vitest';
import { TEST_KEY, TEST_NOW_US, testApp } from './helpers/app.ts';
import { read } from './helpers/http.ts';
import { responseValidator } from './helpers/openapi-validator.ts';

const FLOOD_KEY = 'flood-key-0123456789abcdef';

function edgeLine(i: number): string {
  return JSON.stringify({
    id: `share-${i}`,
    timestamp: TEST_NOW_US - 60_000_000,
    project: 'shareproject',
    metadata: [{
      request: [{
        host: `h${String(i).padStart(3, '0')}.shareproject.example`,
        path: '/rest/v1/t',
      }],
      response: [{ status_code: 200 }],
    }],
  });
}

/** A pattern (not a plain ref: it is matched host by host through the gate) new to the cache. */
const pattern = (name: string) =>
  `/api/endpoints/usage.api-counts?interval=hourly&project=${
    encodeURIComponent(`h0[0-9]+\\.shareproject|${name}`)
  }`;

describe('costly patterns are charged to the key that asked', () => {
  let matchNowMs = 0;
  const app = testApp({
    settings: {
      apiKeys: [TEST_KEY, FLOOD_KEY],
      matchBudgetMs: 2_000,
      rateLimit: {
        perSecond: 1_000,
        burst: 1_000,
        addressFrom: { kind: 'socket' },
        maxAddresses: 100,
        matchMsPerSecond: 1,
      },
    },
    matchClockMs: () => (matchNowMs += 4),
  });
  const check = responseValidator(app.api.document);
  const get = async (path: string, key: string) => {
    const response = await read((p, init) => app.call(p, { ...init, key }), path);
    check(response);
    return response;
  };

  test('a key flooding new costly patterns is refused 429 while another key is answered', async () => {
    const ingested = await read(app.call, '/api/ingest/edge', {
      method: 'POST',
      body: Array.from({ length: 100 }, (_, i) => edgeLine(i)).join('\n'),
    });
    expect(JSON.parse(ingested.body).accepted).toBe(100);

    const flood = Array.from({ length: 10 }, (_, i) => get(pattern(`flood${i}`), FLOOD_KEY));
    const honest = get(pattern('honest'), TEST_KEY);
    const floodStatuses = (await Promise.all(flood)).map((response) => response.status);
    const answered = await honest;
    expect(answered.status, answered.body).toBe(200);
    expect(JSON.parse(answered.body).result[0].total_rest_requests).toBe(100);
    expect(floodStatuses).toContain(429);
    expect(floodStatuses.every((status) => status === 200 || status === 429)).toBe(true);

    // The flooding key's share stays used up; the other key's pattern queries go on.
    const refused = await get(pattern('flood-again'), FLOOD_KEY);
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body).error).toEqual({
      code: 'rate_limited',
      message: expect.stringContaining(
        "this API key's costly project patterns have used its share",
      ),
    });
    expect(Number(refused.headers.get('Retry-After'))).toBeGreaterThanOrEqual(1);
    expect((await get(pattern('honest-again'), TEST_KEY)).status).toBe(200);
    // Refused before it is compiled, even a pattern whose matches are kept already.
    expect((await get(pattern('honest'), FLOOD_KEY)).status).toBe(429);
    // A plain project ref is not charged: the flooding key still gets it.
    const ref = '/api/endpoints/usage.api-counts?interval=hourly&project=shareproject';
    expect((await get(ref, FLOOD_KEY)).status).toBe(200);

    const metrics = await app.metrics.registry.metrics();
    expect(metrics).toMatch(/rate_limited_total\{scope="key",limit="matching"\} [1-9]/);
  });
});
