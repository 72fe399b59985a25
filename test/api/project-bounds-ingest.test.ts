/**
 * Issue 12, item 6, on HTTP ingest without Kafka (the embedded default): events beyond their
 * project's bounds are refused in the answer, by line and with the reason, and not folded; the
 * others of the same body are.
 */
import { describe, expect, test } from 'vitest';
import { PROJECT_DAY_BOUNDS } from '../../src/rollup/admission.ts';
import { TEST_NOW_US, testApp } from './helpers/app.ts';

const PROJECT = 'boundedprojectbbbbbb';

function edge(id: string, hosts: readonly string[]): string {
  return JSON.stringify({
    id,
    timestamp: TEST_NOW_US - 1_000_000,
    project: PROJECT,
    event_message: 'GET | 200',
    metadata: [{
      request: hosts.map((host) => ({ method: 'GET', host, path: '/rest/v1/todos' })),
      response: [{ status_code: 200 }],
    }],
  });
}

describe('HTTP ingest beyond a project bound', () => {
  test('the events that would add one host too many are refused by line; the rest folded', async () => {
    const { call } = testApp();
    const lines: string[] = [];
    for (let i = 0; lines.length * 16 < PROJECT_DAY_BOUNDS.hosts; i++) {
      lines.push(
        edge(
          `fill-${i}`,
          Array.from({ length: 16 }, (_, j) => `h${i}-${j}.${PROJECT}.example.com`),
        ),
      );
    }
    // 63 events of 16 hosts: 1,008 > 1,000, so the 63rd is refused; a known host still passes;
    // 8 new hosts fit (1,000), a 9th does not.
    const fresh = (count: number, tag: string) =>
      Array.from({ length: count }, (_, j) => `${tag}-${j}.${PROJECT}.example.com`);
    const body = [
      ...lines,
      edge('known', [`h0-0.${PROJECT}.example.com`]),
      edge('eight', fresh(8, 'eight')),
      edge('one-more', fresh(1, 'one-more')),
    ];
    const answer = await call('/api/ingest/edge', { method: 'POST', body: body.join('\n') });
    expect(answer.status).toBe(202);
    const result = await answer.json() as {
      accepted: number;
      rejected: number;
      errors: { line: number; reason: string }[];
    };
    expect(result.accepted).toBe(body.length - 2);
    expect(result.rejected).toBe(2);
    expect(result.errors.map((error) => error.line)).toEqual([lines.length, body.length]);
    expect(result.errors[0]?.reason).toMatch(
      new RegExp(`^project ${PROJECT} already has 992 distinct request hosts on `),
    );
    // What was folded shows; the refused hosts are not in the registry the API matches against.
    const counts = await call(
      `/api/endpoints/usage.api-counts?project=${PROJECT}&interval=hourly`,
    );
    const rows = (await counts.json() as { result: { total_rest_requests: number }[] }).result;
    expect(rows.reduce((sum, row) => sum + row.total_rest_requests, 0)).toBe(
      (lines.length - 1) * 16 + 1 + 8,
    );
  });
});
