/**
 * Issue 31, host registry churn: an ingest folded by this process adds its (project, host) pairs
 * to the API's view of the registry as it goes, so the next `usage.api-counts` read or projects
 * list neither reloads the whole registry nor misses the new hosts. Observed by counting the
 * registry reads the store serves (never by timing).
 */
import { describe, expect, test } from 'vitest';
import { HOSTS_KEY } from '../../src/rollup/keys.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import type { ScoredMember } from '../../src/store/port.ts';
import { TEST_NOW_US, testApp } from './helpers/app.ts';

/** The embedded store, counting the reads of the host registry. */
class CountingStore extends MemoryStore {
  registryReads = 0;

  override membersSince(key: string, minScore: number): Promise<ScoredMember[]> {
    if (key === HOSTS_KEY) this.registryReads += 1;
    return super.membersSince(key, minScore);
  }
}

function edge(id: string, project: string, host: string): string {
  return JSON.stringify({
    id,
    timestamp: TEST_NOW_US - 1_000_000,
    project,
    event_message: 'GET | 200',
    metadata: [{
      request: [{ method: 'GET', host, path: '/rest/v1/todos' }],
      response: [{ status_code: 200 }],
    }],
  });
}

describe('host registry and direct ingest', () => {
  test('after a direct ingest, reads see its hosts without reading the registry again', async () => {
    const store = new CountingStore({ nowMs: () => Math.floor(TEST_NOW_US / 1000) });
    const { call } = testApp({ store });
    const project = 'churnprojectaaaaaaaa';
    const restRequests = async () => {
      const answer = await call(
        `/api/endpoints/usage.api-counts?project=${project}&interval=hourly`,
      );
      expect(answer.status).toBe(200);
      const { result } = await answer.json() as { result: { total_rest_requests: number }[] };
      return result.reduce((sum, row) => sum + row.total_rest_requests, 0);
    };
    const ingest = async (id: string, host: string, of = project) => {
      const answer = await call('/api/ingest/edge', { method: 'POST', body: edge(id, of, host) });
      expect(await answer.json()).toMatchObject({ accepted: 1, rejected: 0 });
    };
    await ingest('first', `${project}.supabase.co`);
    expect(await restRequests()).toBe(1);
    expect(store.registryReads).toBe(1);
    // A known host, then hosts the view has not seen: each is counted at once.
    for (let i = 0; i < 4; i++) {
      await ingest(
        `more-${i}`,
        i === 0 ? `${project}.supabase.co` : `h${i}.${project}.example.com`,
      );
      expect(await restRequests()).toBe(i + 2);
    }
    expect(store.registryReads).toBe(1);
    // The projects list comes from the same view, with the project just ingested first.
    await ingest('other', 'otherprojectbbbbbbbb.supabase.co', 'otherprojectbbbbbbbb');
    const list = await call('/api/explorer/projects');
    const { projects } = await list.json() as { projects: { project: string }[] };
    expect(projects.map((entry) => entry.project)).toEqual([
      'churnprojectaaaaaaaa',
      'otherprojectbbbbbbbb',
    ]);
    expect(store.registryReads).toBe(1);
  });
});
