/**
 * A live answer's subscription lost and regained (issue 53, item 3): signals sent while the API's
 * subscribed connection is down are lost, so when node-redis has it back, every watched answer is
 * computed again and sent where it changed. Here the commits go through a store that sends no
 * signal (as if each were lost), and Redis drops the API's subscribed connection
 * (`CLIENT KILL TYPE pubsub`): the answer that changed meanwhile arrives once it is back.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { RollupStore } from '../../src/store/port.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { describeWithServices } from '../support/services.ts';
import { type TestApp, testApp } from './helpers/app.ts';
import { EventReader } from './helpers/event-stream.ts';
import { invocationLine } from '../fixtures/events.ts';

/** `store`, whose commits signal nothing. */
function silent(store: RollupStore): RollupStore {
  return new Proxy(store, {
    get(target, name) {
      if (name === 'commitProject') {
        return (commit: Parameters<RollupStore['commitProject']>[0]) => {
          const { changes: _, ...unsignalled } = commit;
          return target.commitProject(unsignalled);
        };
      }
      const value: unknown = Reflect.get(target, name);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

describeWithServices(['redis'], 'a live answer after its subscription was lost', ({ redis }) => {
  let store: RedisStore | null = null;
  let app: TestApp | null = null;
  beforeAll(async () => {
    store = await RedisStore.connect(redis.url);
    app = testApp({
      store: silent(store),
      changes: store.changes,
      nowUs: () => Date.now() * 1000,
      settings: { resultCacheMs: 0 },
    });
  });
  afterAll(async () => {
    app?.api.close();
    await store?.close();
  });

  test('is computed again when the subscription is back, and the change sent', async () => {
    if (app === null) throw new Error('no app');
    // The 1day answer is also computed at each minute (its slide, at most a minute): all of what
    // follows happens between two minute boundaries, so only the reconnection can send it.
    while (Date.now() % 60_000 < 1_000 || Date.now() % 60_000 > 40_000) {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const nextMinuteMs = Math.ceil(Date.now() / 60_000) * 60_000;
    const project = `r${randomUUID().replace(/[^a-z]/g, '')}zzzzzzzzzzzzzzzzzzzz`.slice(0, 20);
    const response = await app.call(
      `/api/endpoints/functions.invocation-stats?project=${project}&interval=1day`,
      { headers: { Accept: 'text/event-stream' } },
    );
    expect(response.status).toBe(200);
    if (response.body === null) throw new Error('no body');
    const live = new EventReader(response.body);
    expect(await live.next()).not.toBeNull();
    // Subscribed by now: the watch subscribes as the stream opens.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const line = invocationLine({ project, timestampUs: Date.now() * 1000 - 1_000_000 });
    const ingest = await app.call('/api/ingest/function-edge', { method: 'POST', body: line });
    expect(((await ingest.json()) as { accepted: number }).accepted).toBe(1);
    // No signal: the 1day answer slides by the hour, so nothing is sent.
    expect(await live.next(1_000)).toBeNull();
    const admin = await createClient({ url: redis.url }).connect();
    try {
      await admin.sendCommand(['CLIENT', 'KILL', 'TYPE', 'pubsub']);
    } finally {
      await admin.close();
    }
    const pushed = await live.next(10_000);
    expect(pushed, 'nothing sent after the subscription came back').not.toBeNull();
    expect(pushed?.atMs, 'sent by the slide, not the reconnection').toBeLessThan(nextMinuteMs);
    const rows = JSON.parse(pushed?.data ?? '{"result":[]}').result as { count: number }[];
    expect(rows.reduce((sum, row) => sum + row.count, 0)).toBe(1);
    await live.cancel();
  }, 30_000);
});
