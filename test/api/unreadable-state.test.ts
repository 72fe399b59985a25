/**
 * Issue 18: a stored state or ring-buffer entry that cannot be read never stops an endpoint.
 * The read answers from everything else, the bad key is logged and counted in `/metrics`.
 */
import { expect, test } from 'vitest';
import {
  functionScope,
  hostMember,
  HOSTS_KEY,
  hostScope,
  invocationKey,
  projectPrefix,
  recentLogsKey,
  usageKey,
  watermarkKey,
} from '../../src/rollup/keys.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { truncate } from '../../src/time/grain.ts';
import { TEST_NOW_US, testApp } from './helpers/app.ts';
import { read } from './helpers/http.ts';

const PROJECT = 'unreadableprojectref';
const HOST = `${PROJECT}.supabase.co`;
const MINUTE_US = 60_000_000;
const NOW_MS = Math.floor(TEST_NOW_US / 1000);

async function seed(store: MemoryStore): Promise<void> {
  const prefix = projectPrefix(PROJECT);
  const tenMinutesAgo = truncate(TEST_NOW_US - 10 * MINUTE_US, 'minute');
  const expireAtMs = NOW_MS + 3_600_000;
  await store.commitProject({
    stream: 'seed',
    watermark: { key: watermarkKey(PROJECT), expected: null, next: 1, expireAtMs },
    parts: [
      {
        key: invocationKey(prefix, functionScope(null), 'minute', tenMinutesAgo),
        value: '{"n":2,"sum":null}',
        expireAtMs,
      },
      {
        key: usageKey(prefix, hostScope(HOST), 'minute', tenMinutesAgo),
        value: '[1,2,3',
        expireAtMs,
      },
    ],
    sortedSets: [
      {
        key: recentLogsKey(PROJECT),
        members: [{ score: TEST_NOW_US - MINUTE_US, member: 'not a ring-buffer entry' }],
        mode: 'add',
        keepHighest: null,
        dropBelow: null,
        expireAtMs: null,
      },
    ],
  });
  await store.updateSortedSet({
    key: HOSTS_KEY,
    members: [{ score: TEST_NOW_US - 10 * MINUTE_US, member: hostMember(PROJECT, HOST) }],
    mode: 'max',
    keepHighest: null,
    dropBelow: null,
    expireAtMs: null,
  });
}

test('an unreadable state or entry is skipped, counted and the endpoint answers 200', async () => {
  const store = new MemoryStore({ nowMs: () => NOW_MS });
  await seed(store);
  const app = testApp({ store });
  const edge = JSON.stringify({
    id: 'good',
    timestamp: TEST_NOW_US - 2 * MINUTE_US,
    project: PROJECT,
    metadata: [{ request: [{ host: HOST, path: '/rest/v1/t' }], response: [{ status_code: 200 }] }],
  });
  const ingested = await read(app.call, '/api/ingest/edge', { method: 'POST', body: edge });
  expect(JSON.parse(ingested.body).accepted).toBe(1);

  const stats = await read(
    app.call,
    `/api/endpoints/functions.invocation-stats?project=${PROJECT}&interval=1hr`,
  );
  expect(stats.status, stats.body).toBe(200);
  expect(JSON.parse(stats.body).result).toHaveLength(61);

  const usage = await read(
    app.call,
    `/api/endpoints/usage.api-counts?project=${PROJECT}&interval=minutely`,
  );
  expect(usage.status, usage.body).toBe(200);
  expect(JSON.parse(usage.body).result).toEqual([
    expect.objectContaining({ total_rest_requests: 1 }),
  ]);

  const logs = await read(app.call, `/api/endpoints/logs.all?project=${PROJECT}&project_tier=PRO`);
  expect(logs.status, logs.body).toBe(200);
  expect(JSON.parse(logs.body).result.map((row: { id: string }) => row.id)).toEqual(['good']);

  const metrics = await read(app.call, '/metrics');
  expect(metrics.body).toMatch(/rollup_unreadable_total\{side="read"\} 3/);
});

test("a state in a newer version's format is answered 503 naming the upgrade, not skipped", async () => {
  const store = new MemoryStore({ nowMs: () => NOW_MS });
  const prefix = projectPrefix(PROJECT);
  const expireAtMs = NOW_MS + 3_600_000;
  await store.commitProject({
    stream: 'seed',
    watermark: { key: watermarkKey(PROJECT), expected: null, next: 1, expireAtMs },
    parts: [{
      key: invocationKey(prefix, functionScope(null), 'minute', truncate(TEST_NOW_US, 'minute')),
      value: '\x1f\x02\x00',
      expireAtMs,
    }],
    sortedSets: [],
  });
  const app = testApp({ store });
  const stats = await read(
    app.call,
    `/api/endpoints/functions.invocation-stats?project=${PROJECT}&interval=1hr`,
  );
  expect(stats.status, stats.body).toBe(503);
  expect(JSON.parse(stats.body).error.message).toContain(
    'cannot read states a newer version of the service wrote',
  );
  expect(stats.headers.get('retry-after')).not.toBeNull();
  const metrics = await read(app.call, '/metrics');
  expect(metrics.body).not.toMatch(/rollup_unreadable_total\{side="read"\} [1-9]/);
});

test("a logs.all entry in a newer version's format is answered 503 too, not skipped", async () => {
  const store = new MemoryStore({ nowMs: () => NOW_MS });
  const timestampUs = TEST_NOW_US - MINUTE_US;
  await store.updateSortedSet({
    key: recentLogsKey(PROJECT),
    members: [{
      score: timestampUs,
      member: `x\u00000000000000000001@s/0\u0000${timestampUs}\u0000\x1e{"id":"x"}`,
    }],
    mode: 'add',
    keepHighest: null,
    dropBelow: null,
    expireAtMs: null,
  });
  const app = testApp({ store });
  const logs = await read(app.call, `/api/endpoints/logs.all?project=${PROJECT}&project_tier=PRO`);
  expect(logs.status, logs.body).toBe(503);
  expect(JSON.parse(logs.body).error.message).toContain(
    'cannot read states a newer version of the service wrote',
  );
  const metrics = await read(app.call, '/metrics');
  expect(metrics.body).not.toMatch(/rollup_unreadable_total\{side="read"\} [1-9]/);
});
