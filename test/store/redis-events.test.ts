/**
 * `watchRedisEvents` on a real Redis: a connection that is killed and comes back is told as a
 * reconnection (a first connection is not), and nothing is told once unwatched. Redirections are
 * read from node-redis's error channel in the shape its cluster client publishes them (a slot
 * cannot be moved on the shared Redis Cluster the suites use).
 */
import { channel } from 'node:diagnostics_channel';
import { createClient } from 'redis';
import { afterEach, expect, test } from 'vitest';
import { watchRedisEvents } from '../../src/store/redis-events.ts';
import { describeWithServices } from '../support/services.ts';

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

function watch() {
  const told: string[] = [];
  stops.push(watchRedisEvents({
    reconnected: () => told.push('reconnected'),
    redirected: (kind) => told.push(kind),
  }));
  return told;
}

describeWithServices(['redis'], 'watchRedisEvents on a real Redis', ({ redis }) => {
  test('a killed connection that comes back is one reconnection', async () => {
    const told = watch();
    const client = createClient({ url: redis.url });
    client.on('error', () => undefined);
    const admin = createClient({ url: redis.url });
    await Promise.all([client.connect(), admin.connect()]);
    try {
      expect(told).toEqual([]);
      const id = await client.clientId();
      await admin.sendCommand(['CLIENT', 'KILL', 'ID', String(id)]);
      const deadline = Date.now() + 30_000;
      while (told.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(told).toEqual(['reconnected']);
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.destroy();
      await admin.close();
    }
  }, 60_000);
});

test("a cluster's MOVED and ASK are redirections; other errors and a client's are not", () => {
  const told = watch();
  const errors = channel('node-redis:error');
  errors.publish({
    error: new Error('MOVED 3999 127.0.0.1:7002'),
    origin: 'cluster',
    internal: true,
  });
  errors.publish({
    error: new Error('ASK 3999 127.0.0.1:7003'),
    origin: 'cluster',
    internal: true,
  });
  errors.publish({ error: new Error('CLUSTERDOWN'), origin: 'cluster', internal: false });
  errors.publish({ error: new Error('MOVED 1 127.0.0.1:7002'), origin: 'client', internal: false });
  expect(told).toEqual(['moved', 'ask']);
  for (const stop of stops.splice(0)) stop();
  errors.publish({
    error: new Error('MOVED 3999 127.0.0.1:7002'),
    origin: 'cluster',
    internal: true,
  });
  expect(told).toEqual(['moved', 'ask']);
});
