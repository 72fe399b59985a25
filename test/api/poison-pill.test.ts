/**
 * Issue 18, item 1 on the embedded service: a schema-valid `function-edge` event whose execution
 * times add up past the largest double must not make a project's `functions.invocation-stats`
 * unreadable. It is refused at ingest with a reason, and the endpoint keeps answering.
 */
import { expect, test } from 'vitest';
import { parse } from '../../src/events/parse.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { TEST_NOW_US, testApp } from './helpers/app.ts';
import { read } from './helpers/http.ts';

const PROJECT = 'poisonedprojectref00';

function functionEdge(id: string, executionTimeMs: number, responses: number): string {
  return JSON.stringify({
    id,
    timestamp: TEST_NOW_US - 10_000_000,
    metadata: [{
      project_ref: PROJECT,
      function_id: 'f1',
      execution_time_ms: executionTimeMs,
      response: Array.from({ length: responses }, () => ({ status_code: 200 })),
    }],
  });
}

test('an execution time beyond the bound is refused with a reason naming the field', async () => {
  const app = testApp();
  const ingested = await read(app.call, '/api/ingest/function-edge', {
    method: 'POST',
    body: functionEdge('poison', 1e308, 2),
  });
  expect(ingested.status).toBe(202);
  const answer = JSON.parse(ingested.body);
  expect(answer.accepted).toBe(0);
  expect(answer.rejected).toBe(1);
  expect(answer.errors[0].reason).toMatch(/execution_time_ms must be <= \d/);
});

test('after a poison pill, functions.invocation-stats of the project answers every interval', async () => {
  const app = testApp();
  const good = functionEdge('good', 42.5, 1);
  await read(app.call, '/api/ingest/function-edge', {
    method: 'POST',
    body: [functionEdge('poison', 1e308, 2), good].join('\n'),
  });
  for (const interval of ['5min', '15min', '1hr', '1day', '7day']) {
    const query = `project=${PROJECT}&interval=${interval}`;
    const response = await read(app.call, `/api/endpoints/functions.invocation-stats?${query}`);
    expect(response.status, `${interval}: ${response.body}`).toBe(200);
    const rows = JSON.parse(response.body).result;
    const parsed = parse(good, 'function-edge', { nowUs: TEST_NOW_US });
    if (!parsed.ok) throw new Error(parsed.rejection.reason);
    const expected = evaluateEndpoint(
      'functions.invocation-stats',
      [parsed.event],
      new URLSearchParams(query),
      TEST_NOW_US,
    );
    expect(expected.ok && rows).toEqual(expected.ok && expected.rows);
    expect(rows.reduce((sum: number, row: { count: number }) => sum + row.count, 0)).toBe(1);
  }
});

test.each(
  [
    ['edge', { project: 'lone\ud800surrogate', metadata: [] }, '/project'],
    [
      'edge',
      { project: PROJECT, metadata: [{ request: [{ host: 'h\udc00.example', path: '/rest' }] }] },
      '/metadata/0/request/0/host',
    ],
    [
      'function-edge',
      { metadata: [{ project_ref: 'p\ud800', response: [{ status_code: 200 }] }] },
      '/metadata/0/project_ref',
    ],
    [
      'function-edge',
      { metadata: [{ project_ref: PROJECT, function_id: 'f\udfff', response: [{}] }] },
      '/metadata/0/function_id',
    ],
  ] as const,
)(
  'a %s event with a lone surrogate in a key field is refused alone, by its pointer',
  async (source, fields, pointer) => {
    const app = testApp();
    const bad = JSON.stringify({ id: 'bad', timestamp: TEST_NOW_US - 10_000_000, ...fields });
    const good = source === 'edge'
      ? JSON.stringify({
        id: 'good',
        timestamp: TEST_NOW_US - 10_000_000,
        project: PROJECT,
        metadata: [],
      })
      : functionEdge('good', 1, 1);
    const ingested = await read(app.call, `/api/ingest/${source}`, {
      method: 'POST',
      body: [bad, good].join('\n'),
    });
    expect(ingested.status, ingested.body).toBe(202);
    expect(JSON.parse(ingested.body)).toEqual({
      accepted: 1,
      rejected: 1,
      errors: [{
        line: 1,
        reason: `${pointer} must be well-formed Unicode: it holds a lone surrogate`,
      }],
    });
  },
);
