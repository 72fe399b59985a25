/**
 * The Upstash REST path: `@upstash/redis` (its default base64 response encoding included)
 * against the REST endpoint, and the protocol details the client relies on.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from '@upstash/redis';
import { afterAll, expect, test } from 'vitest';
import { describeWithServices } from '../support/services.ts';

describeWithServices(['upstash'], 'upstash REST smoke (@upstash/redis)', ({ upstash }) => {
  const prefix = `smoke:upstash:${Date.now()}-${randomBytes(3).toString('hex')}:`;
  const redis = new Redis({ url: upstash.url, token: upstash.token, enableTelemetry: false });

  /** A raw protocol request, for what the client hides (status codes, encodings). */
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${upstash.url}${path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${upstash.token}`,
        'content-type': 'application/json',
        ...headers,
      },
      body: JSON.stringify(body),
    });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  });

  test('set and get strings and JSON values', async () => {
    expect(await redis.set(`${prefix}text`, 'héllo ✓')).toBe('OK');
    expect(await redis.get(`${prefix}text`)).toBe('héllo ✓');
    await redis.set(`${prefix}json`, { project: 'abcdefghijklmnopqrst', count: 3 });
    expect(await redis.get(`${prefix}json`)).toEqual({ project: 'abcdefghijklmnopqrst', count: 3 });
    expect(await redis.get(`${prefix}absent`)).toBeNull();
  });

  test('hset then hgetall returns the fields as an object', async () => {
    expect(await redis.hset(`${prefix}hash`, { name: 'edge', visits: 3 })).toBe(2);
    expect(await redis.hgetall(`${prefix}hash`)).toEqual({ name: 'edge', visits: 3 });
  });

  test('incrby counts', async () => {
    expect(await redis.incrby(`${prefix}counter`, 5)).toBe(5);
    expect(await redis.incrby(`${prefix}counter`, 37)).toBe(42);
  });

  test('a pipeline answers every command in order', async () => {
    const results = await redis.pipeline()
      .set(`${prefix}p`, 1)
      .incr(`${prefix}p`)
      .get(`${prefix}p`)
      .hset(`${prefix}ph`, { a: 'x' })
      .hgetall(`${prefix}ph`)
      .exec();
    expect(results).toEqual(['OK', 2, 2, 1, { a: 'x' }]);
  });

  test('multi runs a transaction, and reports per-command errors when asked', async () => {
    const key = `${prefix}tx`;
    expect(await redis.multi().set(key, 10).incrby(key, 5).get(key).exec()).toEqual(['OK', 15, 15]);

    const withError = await redis.multi().set(`${key}:text`, 'abc').incr(`${key}:text`).get(key)
      .exec({ keepErrors: true });
    expect(withError[0]).toEqual({ result: 'OK', error: undefined });
    expect(withError[1]?.error).toMatch(/not an integer/);
    expect(withError[2]).toEqual({ result: 15, error: undefined });
  });

  test('multi-exec is atomic: a command rejected while queuing aborts the whole transaction', async () => {
    const key = `${prefix}atomic`;
    await redis.set(key, 'before');
    const response = await post('/multi-exec', [['SET', key, 'after'], ['INCR']]);
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: expect.stringMatching(/EXECABORT|wrong number of arguments/),
    });
    expect(await redis.get(key)).toBe('before');
  });

  test('concurrent transactions never interleave on the shared connection', async () => {
    const key = `${prefix}concurrent`;
    const answers = await Promise.all(
      Array.from(
        { length: 40 },
        () =>
          post('/multi-exec', [['INCR', key], ['GET', key]]).then((response) =>
            response.json() as Promise<[{ result: number }, { result: string }]>
          ),
      ),
    );
    // Inside each transaction, GET sees exactly its own INCR: nothing ran in between.
    for (const [incr, get] of answers) expect(get.result).toBe(String(incr.result));
    expect(answers.map(([incr]) => incr.result).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 40 }, (_, i) => i + 1),
    );
  });

  test('path commands, and errors as 400 with the Redis message', async () => {
    await redis.set(`${prefix}path`, 'via path');
    const response = await fetch(`${upstash.url}/get/${encodeURIComponent(`${prefix}path`)}`, {
      headers: { authorization: `Bearer ${upstash.token}` },
    });
    expect(await response.json()).toEqual({ result: 'via path' });
    const failing = await post('/', ['EVAL', "return redis.error_reply('boom')", '0']);
    expect(failing.status).toBe(400);
    expect(await failing.json()).toEqual({ error: expect.stringMatching(/boom$/) });
    await expect(redis.eval("return redis.error_reply('boom')", [], [])).rejects.toThrow(/boom/);
  });

  test('eval runs a Lua script with keys and arguments', async () => {
    const script = `
      local total = redis.call('INCRBY', KEYS[1], ARGV[1])
      redis.call('SET', KEYS[2], ARGV[2])
      return { total, redis.call('GET', KEYS[2]) }`;
    const keys = [`${prefix}lua:counter`, `${prefix}lua:label`];
    expect(await redis.eval(script, keys, ['5', 'five'])).toEqual([5, 'five']);
    expect(await redis.eval(script, keys, ['3', 'eight'])).toEqual([8, 'eight']);
  });

  test('zadd and zrange with scores', async () => {
    const key = `${prefix}zset`;
    expect(await redis.zadd(key, { score: 2.5, member: 'b' }, { score: 1, member: 'a' })).toBe(2);
    expect(await redis.zrange(key, 0, -1, { withScores: true })).toEqual(['a', 1, 'b', 2.5]);
    expect(await redis.zrange(key, 0, -1)).toEqual(['a', 'b']);
  });

  test('results are base64 when asked (Upstash-Encoding: base64), plain otherwise', async () => {
    const key = `${prefix}encoded`;
    await redis.set(key, 'héllo ✓');
    const plain = await post('/', ['MGET', key, `${prefix}absent`]);
    expect(await plain.json()).toEqual({ result: ['héllo ✓', null] });
    const encoded = await post('/', ['MGET', key, `${prefix}absent`], {
      'upstash-encoding': 'base64',
    });
    expect(await encoded.json()).toEqual({
      result: [Buffer.from('héllo ✓').toString('base64'), null],
    });
    const pipelined = await post('/pipeline', [['GET', key], ['STRLEN', key], ['INCR', key]], {
      'upstash-encoding': 'base64',
    });
    expect(await pipelined.json()).toEqual([
      { result: Buffer.from('héllo ✓').toString('base64') },
      { result: Buffer.byteLength('héllo ✓') },
      { error: expect.stringMatching(/not an integer/) },
    ]);
  });

  test('a wrong or missing token is refused on every route', async () => {
    const intruder = new Redis({ url: upstash.url, token: 'wrong-token', enableTelemetry: false });
    await expect(intruder.get(`${prefix}text`)).rejects.toThrow(/Unauthorized/);
    for (const path of ['/', '/pipeline', '/multi-exec', '/get/x']) {
      const response = await fetch(`${upstash.url}${path}`, {
        method: 'POST',
        body: JSON.stringify([['PING']]),
      });
      expect([path, response.status]).toEqual([path, 401]);
    }
  });
});
