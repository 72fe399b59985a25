/**
 * The read scripts go as `EVALSHA_RO` (answered while Redis pauses writes); a Redis before 7.0
 * has no such command and answers "unknown command". On a Redis of this test's own, with both
 * read-only script commands renamed away, reads must still answer, through `EVALSHA`.
 */
import { bucketTexts } from '../support/stored-parts.ts';
import { rmSync } from 'node:fs';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { RedisStore } from '../../src/store/redis.ts';
import { down, up } from '../../tools/services/lifecycle.ts';
import { serviceDir } from '../../tools/services/paths.ts';
import { redisServerService } from '../../tools/services/redis.ts';
import type { Service } from '../../tools/services/service.ts';
import { freePort } from '../../tools/services/free-port.ts';
import { describeWithServices } from '../support/services.ts';

describeWithServices(['redis-server'], 'RedisStore on a Redis without EVALSHA_RO', () => {
  let redis: Service;
  let store: RedisStore | null = null;

  beforeAll(async () => {
    redis = redisServerService({
      name: 'redis-before-7',
      port: await freePort(),
      extraArgs: ['--rename-command', 'EVALSHA_RO', '', '--rename-command', 'EVAL_RO', ''],
    });
    rmSync(serviceDir(redis.name), { recursive: true, force: true });
    await up(redis, () => undefined);
    store = await RedisStore.connect(redis.address);
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    if (redis !== undefined) await down(redis);
  }, 30_000);

  test('reads with EVALSHA, each time', async () => {
    if (store === null) throw new Error('RedisStore did not connect');
    const client = await createClient({ url: redis.address }).connect();
    try {
      const refused = client.sendCommand(['EVAL_RO', 'return 1', '0']);
      await expect(refused).rejects.toThrow(/unknown command/i);
      await client.hSet('{b}:one', { 't/0': 'part 0', 't/1': 'part 1' });
    } finally {
      await client.close();
    }
    for (let read = 0; read < 2; read++) {
      const buckets = bucketTexts(await store.readBuckets(['{b}:one', '{b}:none']));
      expect(buckets.map((parts) => parts.toSorted())).toEqual([['part 0', 'part 1'], []]);
    }
  });
});
