import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { RedisStore } from '../../src/store/redis.ts';
import { describeWithServices } from '../support/services.ts';
import { storeContract } from './contract.ts';

describeWithServices(['redis'], 'RedisStore (TCP) passes the store contract', ({ redis }) => {
  let store: RedisStore | null = null;
  const prefix = `contract:${randomUUID()}`;
  let run = 0;
  beforeAll(async () => {
    store = await RedisStore.connect(redis.url);
  });
  afterAll(() => store?.close());
  storeContract({
    store: () => {
      if (store === null) throw new Error('RedisStore did not connect');
      run += 1;
      return store;
    },
    key: (name, group = 'p') => `${prefix}:{${run}:${group}}:${name}`,
    nowMs: Date.now,
    fencesResume: true,
  });
});
