import { randomUUID } from 'node:crypto';
import { bucketTexts, slotTexts } from '../support/stored-parts.ts';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RedisStore } from '../../src/store/redis.ts';
import { describeWithServices } from '../support/services.ts';
import { storeContract } from './contract.ts';
import { hashReads } from './hash-reads.ts';

/** How many `MULTI`s Redis refused (ACL) since its start, from `INFO commandstats`. */
function multiRefusals(commandStats: string): number {
  return Number(/cmdstat_multi:.*rejected_calls=(\d+)/.exec(commandStats)?.[1] ?? 0);
}

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

  test('a read of many buckets: parts, a key of the layout before parts, and missing keys', async () => {
    if (store === null) throw new Error('RedisStore did not connect');
    const key = (name: string) => `${prefix}:{legacy}:${name}`;
    const client = await createClient({ url: redis.url }).connect();
    try {
      // Version 0.1 kept a bucket as one string; readers take it as the bucket's one part.
      await client.set(key('old'), 'whole state');
      await client.hSet(key('new'), { 't/0': 'part 0', 't/1': 'part 1' });
    } finally {
      await client.close();
    }
    const keys = ['gone', 'old', 'gone too', 'new', 'never'].map(key);
    const buckets = bucketTexts(await store.readBuckets(keys));
    expect(buckets.map((parts) => parts.toSorted())).toEqual([
      [],
      ['whole state'],
      [],
      ['part 0', 'part 1'],
      [],
    ]);
  });

  test('a user refused MULTI is answered by the read script', async () => {
    const admin = await createClient({ url: redis.url }).connect();
    const username = `no-multi-${randomUUID()}`;
    const hash = `${prefix}:{no-multi}:hash`;
    let limited: RedisStore | null = null;
    try {
      await admin.sendCommand(['ACL', 'SETUSER', username, 'on', '>secret', '~*', '&*', '+@all']);
      await admin.sendCommand(['ACL', 'SETUSER', username, '-multi']);
      await admin.hSet(hash, { 't/0': 'part 0', '5 t/0': 'second 5' });
      limited = await RedisStore.connect(redis.url, { access: { username, password: 'secret' } });
      expect(slotTexts(await limited.readSlots([{ key: hash }]))).toEqual([[
        '-=part 0',
        '5=second 5',
      ]]);
      expect(bucketTexts(await limited.readBuckets([hash]))).toEqual([['part 0', 'second 5']]);
      // Refused once, never asked again: each read after the first goes by the script alone.
      const refusedBefore = multiRefusals(await admin.info('commandstats'));
      for (let i = 0; i < 3; i++) await limited.readSlots([{ key: hash }]);
      expect(multiRefusals(await admin.info('commandstats')) - refusedBefore).toBe(0);
    } finally {
      await limited?.close();
      await admin.sendCommand(['ACL', 'DELUSER', username]);
      await admin.close();
    }
  });

  hashReads({
    store: () => {
      if (store === null) throw new Error('RedisStore did not connect');
      return store;
    },
    key: (name) => `${prefix}:{hash-reads}:${name}`,
    write: async (legacy, hash) => {
      const client = await createClient({ url: redis.url }).connect();
      try {
        await client.set(legacy.key, legacy.value);
        await client.hSet(hash.key, hash.fields);
      } finally {
        await client.close();
      }
    },
    commandStats: async () => {
      const client = await createClient({ url: redis.url }).connect();
      try {
        return [await client.info('commandstats')];
      } finally {
        await client.close();
      }
    },
  });
});
