/**
 * A pattern that makes backtracking engines take exponential time, `(a+)+$`, against hosts of
 * a thousand `a`s that do not end the way it wants: answered (RE2, linear time) and correct.
 * Time is not asserted here; `npm run bench:api` measures.
 */
import { expect, test } from 'vitest';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { TEST_NOW_US, testApp } from './helpers/app.ts';
import { read } from './helpers/http.ts';

test('(a+)+$ against long hosts is answered, and equals the reference', async () => {
  const app = testApp();
  const lines: string[] = [];
  for (let i = 0; i < 200; i++) {
    const host = i % 50 === 0 ? `${'b'.repeat(20)}${'a'.repeat(1000)}` : `${i}${'a'.repeat(1000)}!`;
    lines.push(JSON.stringify({
      id: `evil-${i}`,
      timestamp: TEST_NOW_US - (i + 1) * 1_000_000,
      project: `project${i % 7}`,
      metadata: [{ request: [{ host, path: '/rest/v1/x' }], response: [{ status_code: 200 }] }],
    }));
  }
  const ingested = await read(app.call, '/api/ingest/edge', {
    method: 'POST',
    body: lines.join('\n'),
  });
  expect(JSON.parse(ingested.body).accepted).toBe(200);
  const events: LogEvent[] = lines.flatMap((line) => {
    const result = parse(line, 'edge', { nowUs: TEST_NOW_US });
    return result.ok ? [result.event] : [];
  });
  for (
    const query of ['project=(a%2B)%2B%24&interval=minutely', 'project=(a%2B)%2B!&interval=hourly']
  ) {
    const response = await read(app.call, `/api/endpoints/usage.api-counts?${query}`);
    expect(response.status).toBe(200);
    const expected = evaluateEndpoint(
      'usage.api-counts',
      events,
      new URLSearchParams(query),
      TEST_NOW_US,
    );
    expect(expected.ok).toBe(true);
    const rows = JSON.parse(response.body).result;
    expect(rows).toEqual(expected.ok ? expected.rows : null);
    expect(rows.length).toBeGreaterThan(0);
  }
});
