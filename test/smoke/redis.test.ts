/**
 * The real Redis path over TCP with node-redis v5: plain commands, a Lua script, a transaction.
 */
import { randomBytes } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { describeWithServices } from '../support/services.ts';

describeWithServices(['redis'], 'redis smoke (node-redis over TCP)', ({ redis }) => {
  const prefix = `smoke:redis:${Date.now()}-${randomBytes(3).toString('hex')}:`;
  const client = createClient({ url: redis.url });

  beforeAll(async () => {
    await client.connect();
  });

  afterAll(async () => {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length > 0) await client.del(keys);
    await client.close();
  });

  test('SET then GET round-trips a UTF-8 value', async () => {
    const value = JSON.stringify({ project: 'abcdefghijklmnopqrst', note: 'héllo ✓' });
    expect(await client.set(`${prefix}string`, value)).toBe('OK');
    expect(await client.get(`${prefix}string`)).toBe(value);
  });

  test('EVAL runs a Lua script with keys and arguments', async () => {
    const script = `
      local total = redis.call('INCRBY', KEYS[1], ARGV[1])
      redis.call('SET', KEYS[2], ARGV[2])
      return { total, redis.call('GET', KEYS[2]) }`;
    const keys = [`${prefix}counter`, `${prefix}label`];
    expect(await client.eval(script, { keys, arguments: ['5', 'five'] })).toEqual([5, 'five']);
    expect(await client.eval(script, { keys, arguments: ['3', 'eight'] })).toEqual([8, 'eight']);
  });

  test('MULTI applies all of its commands, and none when one is rejected', async () => {
    const key = `${prefix}tx`;
    expect(await client.multi().set(key, '1').incrBy(key, 41).get(key).exec()).toEqual([
      'OK',
      42,
      '42',
    ]);

    const aborted = client.multi().set(key, 'overwritten').addCommand(['NO-SUCH-COMMAND']);
    await expect(aborted.exec()).rejects.toThrow();
    expect(await client.get(key)).toBe('42');
  });
});
