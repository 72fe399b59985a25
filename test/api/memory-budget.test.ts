/**
 * Issue 31, tenant memory: the embedded store has a memory budget (an estimate of what it holds,
 * in bytes). Once a body would take it past the budget, ingest answers 507 with the envelope and
 * folds nothing of that body; everything accepted before is still answered, exactly.
 */
import { describe, expect, test } from 'vitest';
import { directSink } from '../../api/ingest/direct-sink.ts';
import { createMetrics } from '../../api/metrics.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { TEST_NOW_US, testApp } from './helpers/app.ts';
import { read, type ReadResponse } from './helpers/http.ts';
import { responseValidator } from './helpers/openapi-validator.ts';

function edge(id: string, project: string, message = 'GET | 200'): string {
  return JSON.stringify({
    id,
    timestamp: TEST_NOW_US - 1_000_000,
    project,
    event_message: message,
    metadata: [{
      request: [{ method: 'GET', host: `${project}.supabase.co`, path: '/rest/v1/todos' }],
      response: [{ status_code: 200 }],
    }],
  });
}

describe('memory budget of the embedded store', () => {
  test('past the budget a body is refused whole with 507; nothing accepted before is lost', async () => {
    const nowMs = () => Math.floor(TEST_NOW_US / 1000);
    const store = new MemoryStore({ nowMs, maxBytes: 400_000 });
    const app = testApp({
      store,
      sink: directSink({ store, nowUs: () => TEST_NOW_US, recentLogsCapacity: 100, budget: store }),
    });
    const check = responseValidator(app.api.document);
    /** Events accepted per project. */
    const accepted = new Map<string, number>();
    const answers = async () =>
      await Promise.all([...accepted.keys()].map(async (project) => {
        const answer = await app.call(
          `/api/endpoints/usage.api-counts?project=${project}&interval=hourly`,
        );
        const { result } = await answer.json() as { result: { total_rest_requests: number }[] };
        return result.reduce((sum, row) => sum + row.total_rest_requests, 0);
      }));
    // Bodies of 4 events for each of 5 new projects, until one is refused.
    let refused: ReadResponse | null = null;
    let body = 0;
    for (; body < 200 && refused === null; body++) {
      const projects = Array.from({ length: 5 }, (_, i) => `tenant${body}x${i}`);
      const lines = projects.flatMap((project) =>
        Array.from({ length: 4 }, (_, i) => edge(`${project}-${i}`, project))
      );
      const answer = await read(app.call, '/api/ingest/edge', {
        method: 'POST',
        body: lines.join('\n'),
      });
      check(answer);
      if (answer.status === 202) {
        expect(JSON.parse(answer.body)).toMatchObject({ accepted: 20, rejected: 0 });
        for (const project of projects) accepted.set(project, 4);
        continue;
      }
      refused = answer;
      expect(answer.status).toBe(507);
      expect(JSON.parse(answer.body).error).toEqual({
        code: 'insufficient_storage',
        message: expect.stringMatching(
          /^the embedded store holds an estimated \d+ bytes of its budget of 400000 bytes \(MEMORY_STORE_MAX_BYTES\)/,
        ),
      });
      // The refused body folded nothing, not even in part.
      const none = await app.call(
        `/api/endpoints/usage.api-counts?project=${projects[0]}&interval=hourly`,
      );
      expect((await none.json() as { result: unknown[] }).result).toEqual([]);
    }
    expect(refused).not.toBeNull();
    expect(accepted.size).toBeGreaterThan(0);
    const before = await answers();
    expect(before).toEqual([...accepted.values()]);
    // Refused again, and again nothing accepted before is lost.
    const again = await app.call('/api/ingest/edge', {
      method: 'POST',
      body: edge('late', 'late'),
    });
    expect(again.status).toBe(507);
    expect(await answers()).toEqual(before);
    const exposed = await app.metrics.registry.metrics();
    expect(exposed).toMatch(/ingest_refused_events_total\{reason="memory_budget"\} 21\b/);
  });

  test("one project's large bodies drop its own oldest log entries; ingest goes on for everyone", async () => {
    const nowMs = () => Math.floor(TEST_NOW_US / 1000);
    const store = new MemoryStore({ nowMs, maxBytes: 400_000 });
    const metrics = createMetrics();
    const sink = directSink({
      store,
      nowUs: () => TEST_NOW_US,
      recentLogsCapacity: 10_000,
      budget: store,
      onRecentLogsDropped: (entries) => metrics.countRecentLogsDropped(entries),
    });
    const served = testApp({ store, sink, metrics });
    const large = 'x'.repeat(20_000);
    // Ten bodies of 100 KB for one project: two and a half times the budget.
    for (let body = 0; body < 10; body++) {
      const lines = Array.from({ length: 5 }, (_, i) => edge(`flood-${body}-${i}`, 'flood', large));
      const answer = await served.call('/api/ingest/edge', {
        method: 'POST',
        body: lines.join('\n'),
      });
      expect(answer.status).toBe(202);
    }
    const honest = await served.call('/api/ingest/edge', {
      method: 'POST',
      body: edge('honest-1', 'honest'),
    });
    expect(honest.status).toBe(202);
    // Past the budget by no more than the rollups of the last body beyond its text (a few KB).
    expect(store.heldBytes).toBeLessThan(410_000);
    // Every count stays exact; logs.all of the flooding project keeps its newest entries.
    const counted = await served.call(
      '/api/endpoints/usage.api-counts?project=flood&interval=hourly',
    );
    const { result } = await counted.json() as { result: { total_rest_requests: number }[] };
    expect(result.reduce((sum, row) => sum + row.total_rest_requests, 0)).toBe(50);
    const exposed = await metrics.registry.metrics();
    expect(exposed).toMatch(/memory_store_dropped_log_entries_total [1-9]/);
  });
});
