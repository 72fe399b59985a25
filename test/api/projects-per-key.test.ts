/**
 * Issue 31, tenant memory: one API key may ingest events of a bounded number of distinct
 * projects per UTC day. Events of a project beyond the bound are refused in the answer, by line,
 * with a reason naming the bound; events of projects the key already sent that day, and other
 * keys, go on. What was accepted is what the endpoints count.
 */
import { describe, expect, test, vi } from 'vitest';
import type { IngestSink, SinkOutcome } from '../../api/ingest/sink.ts';
import { StoreFullError } from '../../src/store/memory-budget.ts';
import { TEST_KEY, TEST_NOW_US, testApp } from './helpers/app.ts';

const OTHER_KEY = 'other-key-0123456789abcdef';
const DAY_US = 86_400_000_000;

function edge(id: string, project: string, atUs: number): string {
  return JSON.stringify({
    id,
    timestamp: atUs - 1_000_000,
    project,
    event_message: 'GET | 200',
    metadata: [{
      request: [{ method: 'GET', host: `${project}.supabase.co`, path: '/rest/v1/todos' }],
      response: [{ status_code: 200 }],
    }],
  });
}

interface IngestAnswer {
  accepted: number;
  rejected: number;
  errors: { line: number; reason: string }[];
}

describe('distinct projects per API key and day', () => {
  test('events of projects beyond the bound are refused by line; known projects and other keys go on', async () => {
    let nowUs = TEST_NOW_US;
    const { call, metrics } = testApp({
      nowUs: () => nowUs,
      settings: { apiKeys: [TEST_KEY, OTHER_KEY], ingestMaxProjectsPerKeyPerDay: 3 },
    });
    const ingest = async (key: string, projects: readonly string[]) => {
      const body = projects.map((project, i) => edge(`${project}-${i}-${nowUs}`, project, nowUs));
      const answer = await call('/api/ingest/edge', { method: 'POST', key, body: body.join('\n') });
      expect(answer.status).toBe(202);
      return await answer.json() as IngestAnswer;
    };
    const first = await ingest(TEST_KEY, ['k1', 'k2', 'k1', 'k3', 'k4', 'k5', 'k2']);
    expect([first.accepted, first.rejected]).toEqual([5, 2]);
    expect(first.errors.map((error) => error.line)).toEqual([5, 6]);
    expect(first.errors[0]?.reason).toBe(
      'this API key already sent events of 3 distinct projects today (2026-11-21, UTC), the most ' +
        'one key may per day (INGEST_MAX_PROJECTS_PER_KEY_PER_DAY=3): events of project "k4" ' +
        'are refused until 00:00 UTC; raise the bound or send them with another key',
    );
    // The same key: projects it sent today still pass, a fourth does not; another key has its own.
    const second = await ingest(TEST_KEY, ['k3', 'k6']);
    expect([second.accepted, second.rejected]).toEqual([1, 1]);
    const other = await ingest(OTHER_KEY, ['k4', 'k5', 'k6', 'k7']);
    expect([other.accepted, other.rejected]).toEqual([3, 1]);
    // What was accepted is what is counted.
    const restRequests = async (project: string) => {
      const answer = await call(
        `/api/endpoints/usage.api-counts?project=${project}&interval=daily`,
      );
      const { result } = await answer.json() as { result: { total_rest_requests: number }[] };
      return result.reduce((sum, row) => sum + row.total_rest_requests, 0);
    };
    expect(await Promise.all(['k1', 'k2', 'k3', 'k4', 'k5', 'k6', 'k7'].map(restRequests)))
      .toEqual([2, 2, 2, 1, 1, 1, 0]);
    // A new UTC day (of the server's clock) starts a new count.
    nowUs += DAY_US;
    const tomorrow = await ingest(TEST_KEY, ['k4', 'k5', 'k6']);
    expect([tomorrow.accepted, tomorrow.rejected]).toEqual([3, 0]);
    const exposed = await metrics.registry.metrics();
    expect(exposed).toContain('ingest_refused_events_total{reason="projects_per_key"} 4');
  });

  /** Lets a request run up to its wait for the sink. */
  const settled = () => new Promise((resolve) => setImmediate(resolve));

  /** A direct sink whose every answer the test gives, in order. */
  function heldSink() {
    const pending: { resolve: (outcome: SinkOutcome) => void; reject: (error: Error) => void }[] =
      [];
    const sink: IngestSink = {
      kind: 'direct',
      accept: () => new Promise((resolve, reject) => pending.push({ resolve, reject })),
      close: () => Promise.resolve(),
    };
    return { sink, pending };
  }

  test('a body refused by a full store after its deadline still gives back its projects', async () => {
    // The deadline's clock is frozen: the first body's deadline is moved past by hand, and the
    // second's never fires (on a busy machine its real 1 ms passed before its sink answered).
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const { sink, pending } = heldSink();
      const { call } = testApp({
        sink,
        settings: { ingestMaxProjectsPerKeyPerDay: 1, ingestTimeoutMs: 1 },
      });
      const answer = call('/api/ingest/edge', {
        method: 'POST',
        body: edge('a', 'p', TEST_NOW_US),
      });
      await settled();
      expect(pending).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect((await answer).status).toBe(503);
      pending[0]?.reject(new StoreFullError(10, 10, 1));
      await settled();
      const other = call('/api/ingest/edge', { method: 'POST', body: edge('b', 'q', TEST_NOW_US) });
      await settled();
      expect(pending).toHaveLength(2);
      pending[1]?.resolve({ refused: [], registered: [] });
      expect(await (await other).json()).toMatchObject({ accepted: 1, rejected: 0 });
    } finally {
      vi.useRealTimers();
    }
  });

  test('events refused for the bound are counted once the body was stored, not when it was refused whole', async () => {
    const { sink, pending } = heldSink();
    const { call, metrics } = testApp({ sink, settings: { ingestMaxProjectsPerKeyPerDay: 1 } });
    const body = [edge('a', 'p', TEST_NOW_US), edge('b', 'q', TEST_NOW_US)].join('\n');
    const full = call('/api/ingest/edge', { method: 'POST', body });
    await settled();
    pending[0]?.reject(new StoreFullError(10, 10, 1));
    expect((await full).status).toBe(507);
    const stored = call('/api/ingest/edge', { method: 'POST', body });
    await settled();
    pending[1]?.resolve({ refused: [], registered: [] });
    expect((await stored).status).toBe(202);
    expect(await metrics.registry.metrics()).toContain(
      'ingest_refused_events_total{reason="projects_per_key"} 1',
    );
  });
});
