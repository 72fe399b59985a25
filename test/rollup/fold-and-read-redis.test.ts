import { createClient } from 'redis';
import { afterAll } from 'vitest';
import type { RollupStore } from '../../src/store/port.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { UpstashStore } from '../../src/store/upstash.ts';
import { describeWithServices } from '../support/services.ts';
import { foldAndReadSuite } from './fold-and-read.ts';

/** The rollup keys are global (the host registry, the offsets): start from an empty database. */
async function flushDatabase(url: string): Promise<void> {
  const client = await createClient({ url }).connect();
  await client.flushDb();
  await client.close();
}

describeWithServices(['redis'], 'fold and read on Redis over TCP', ({ redis }) => {
  let store: RollupStore | null = null;
  afterAll(() => store?.close());
  foldAndReadSuite(async () => {
    await flushDatabase(redis.url);
    store = await RedisStore.connect(redis.url);
    return store;
  });
});

describeWithServices(
  ['redis', 'upstash'],
  'fold and read on Redis over Upstash REST',
  (services) => {
    foldAndReadSuite(async () => {
      await flushDatabase(services.redis.url);
      return new UpstashStore(services.upstash);
    });
  },
);
