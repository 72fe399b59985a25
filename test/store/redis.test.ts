import { randomUUID } from 'node:crypto';
import { bucketTexts, slotTexts } from '../support/stored-parts.ts';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RedisStore } from '../../src/store/redis.ts';
import { describeWithServices } from '../support/services.ts';
import { storeContract } from './contract.ts';
import { hashReads } from './hash-reads.ts';

/** An admin connection of the tests. */
type Admin = Awaited<ReturnType<ReturnType<typeof createClient>['connect']>>;

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

  /**
   * Runs `body` with a store logged in as a user of its own, made with the ACL `rules` (and
   * deleted after), and an admin connection.
   */
  async function asUser(
    name: string,
    rules: readonly string[],
    body: (store: RedisStore, admin: Admin, username: string) => Promise<void>,
  ): Promise<void> {
    const admin = await createClient({ url: redis.url }).connect();
    const username = `${name}-${randomUUID()}`;
    let limited: RedisStore | null = null;
    try {
      await admin.sendCommand(['ACL', 'SETUSER', username, 'on', '>secret', ...rules]);
      limited = await RedisStore.connect(redis.url, { access: { username, password: 'secret' } });
      await body(limited, admin, username);
    } finally {
      await limited?.close();
      await admin.sendCommand(['ACL', 'DELUSER', username]);
      await admin.close();
    }
  }

  test('a user refused MULTI is answered by the read script', async () => {
    const hash = `${prefix}:{no-multi}:hash`;
    await asUser('no-multi', ['~*', '&*', '+@all', '-multi'], async (limited, admin) => {
      await admin.hSet(hash, { 't/0': 'part 0', '5 t/0': 'second 5' });
      const refusedBefore = multiRefusals(await admin.info('commandstats'));
      expect(slotTexts(await limited.readSlots([{ key: hash }]))).toEqual([[
        '-=part 0',
        '5=second 5',
      ]]);
      expect(bucketTexts(await limited.readBuckets([hash]))).toEqual([['part 0', 'second 5']]);
      // Refused once, never asked again: each read after the first goes by the script alone.
      const refusedFirst = multiRefusals(await admin.info('commandstats'));
      expect(refusedFirst - refusedBefore, 'the first read asked for a transaction').toBe(1);
      for (let i = 0; i < 3; i++) await limited.readSlots([{ key: hash }]);
      expect(multiRefusals(await admin.info('commandstats')) - refusedFirst).toBe(0);
    });
  });

  test('a key a user may not read does not turn transactions off', async () => {
    const allowed = `${prefix}:{one-key}:allowed`;
    await asUser('one-key', [`~${allowed}`, '+@all'], async (limited, admin, username) => {
      await admin.hSet(allowed, { 't/0': 'part 0' });
      await expect(limited.readSlots([{ key: `${prefix}:{one-key}:refused` }])).rejects.toThrow();
      expect(slotTexts(await limited.readSlots([{ key: allowed }]))).toEqual([['-=part 0']]);
      // The user's connection's last command (`CLIENT LIST`'s `cmd`): the read was a transaction.
      const clients = String(await admin.sendCommand(['CLIENT', 'LIST'])).split('\n')
        .filter((line) => line.includes(` user=${username} `));
      expect(clients).toHaveLength(1);
      expect(clients[0]).toMatch(/ cmd=exec /);
    });
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
