import { describe, expect, test } from 'vitest';
import { Coalescer } from '../../../api/answer/coalesce.ts';

function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<T>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

describe('Coalescer', () => {
  test('concurrent identical requests share one computation', async () => {
    const coalescer = new Coalescer<number>({ nowMs: () => 5_000 });
    let calls = 0;
    const pending = deferred<number>();
    const compute = () => {
      calls += 1;
      return pending.promise;
    };
    const all = Promise.all([coalescer.run('k', compute), coalescer.run('k', compute)]);
    pending.resolve(7);
    expect(await all).toEqual([7, 7]);
    expect(calls).toBe(1);
    expect(await coalescer.run('other', () => Promise.resolve(8))).toBe(8);
  });

  test('a result is reused for its window, then refreshed while the old one answers', async () => {
    let now = 10_100;
    const coalescer = new Coalescer<number>({ nowMs: () => now, windowMs: 1000, staleMs: 200 });
    let calls = 0;
    const refresh = deferred<number>();
    const compute = () => {
      calls += 1;
      return calls === 1 ? Promise.resolve(1) : refresh.promise;
    };
    expect(await coalescer.run('k', compute)).toBe(1);
    now = 11_099;
    expect(await coalescer.run('k', compute)).toBe(1);
    now = 11_100;
    // Expired: a refresh starts, and until it settles the previous result answers.
    expect(await coalescer.run('k', compute)).toBe(1);
    expect(await coalescer.run('k', compute)).toBe(1);
    expect(calls).toBe(2);
    now = 11_300;
    // Past the stale allowance: the caller waits for the refresh in flight.
    const waiting = coalescer.run('k', compute);
    refresh.resolve(2);
    expect(await waiting).toBe(2);
    expect(await coalescer.run('k', compute)).toBe(2);
    expect(calls).toBe(2);
  });

  test('a result older than window and staleness together is never served', async () => {
    let now = 0;
    const coalescer = new Coalescer<number>({ nowMs: () => now, windowMs: 1000, staleMs: 200 });
    let calls = 0;
    const compute = () => Promise.resolve(++calls);
    expect(await coalescer.run('k', compute)).toBe(1);
    now = 1_200;
    expect(await coalescer.run('k', compute)).toBe(2);
  });

  test('a failed refresh drops the old result', async () => {
    let now = 0;
    const coalescer = new Coalescer<number>({ nowMs: () => now, windowMs: 1000, staleMs: 200 });
    expect(await coalescer.run('k', () => Promise.resolve(1))).toBe(1);
    now = 1_000;
    const failing = deferred<number>();
    expect(await coalescer.run('k', () => failing.promise)).toBe(1);
    failing.reject(new Error('store down'));
    await expect(failing.promise).rejects.toThrow('store down');
    expect(await coalescer.run('k', () => Promise.resolve(3))).toBe(3);
  });

  test('without a window only computations in flight are shared', async () => {
    const coalescer = new Coalescer<number>({ nowMs: () => 0, windowMs: 0 });
    let calls = 0;
    const compute = () => Promise.resolve(++calls);
    expect(await coalescer.run('k', compute)).toBe(1);
    expect(await coalescer.run('k', compute)).toBe(2);
  });

  test('a failure is not kept, and invalidate forgets results', async () => {
    const coalescer = new Coalescer<number>({ nowMs: () => 0 });
    await expect(coalescer.run('k', () => Promise.reject(new Error('store down')))).rejects.toThrow(
      'store down',
    );
    expect(await coalescer.run('k', () => Promise.resolve(1))).toBe(1);
    expect(await coalescer.run('k', () => Promise.resolve(2))).toBe(1);
    coalescer.invalidate();
    expect(await coalescer.run('k', () => Promise.resolve(3))).toBe(3);
  });

  test('beyond maxEntries results are computed but not kept', async () => {
    const coalescer = new Coalescer<string>({ nowMs: () => 0, maxEntries: 1 });
    await coalescer.run('a', () => Promise.resolve('a1'));
    expect(await coalescer.run('b', () => Promise.resolve('b1'))).toBe('b1');
    expect(await coalescer.run('b', () => Promise.resolve('b2'))).toBe('b2');
    expect(await coalescer.run('a', () => Promise.resolve('a2'))).toBe('a1');
  });

  test('spreadMs gives keys computed together windows of their own, each a fixed length', async () => {
    let now = 0;
    const coalescer = new Coalescer<number>({
      nowMs: () => now,
      windowMs: 1000,
      staleMs: 0,
      spreadMs: 200,
    });
    const keys = Array.from({ length: 40 }, (_, i) => `key-${i}`);
    let calls = 0;
    const compute = () => Promise.resolve(++calls);
    for (const key of keys) await coalescer.run(key, compute);
    /** How many keys computed again when asked at `at` ms (each asked once, in a fresh run). */
    const refreshedAt = async (at: number) => {
      now = at;
      const before = calls;
      for (const key of keys) await coalescer.run(key, compute);
      return calls - before;
    };
    // No window is shorter than windowMs - spreadMs, none longer than windowMs ...
    expect(await refreshedAt(800)).toBe(0);
    // ... and the keys do not all expire together: some have refreshed by 900 ms.
    const early = await refreshedAt(900);
    expect(early).toBeGreaterThan(0);
    expect(early).toBeLessThan(keys.length);
  });

  test('bad options are named', () => {
    expect(() => new Coalescer({ nowMs: () => 0, spreadMs: -1 })).toThrow("'spreadMs'");
    expect(() => new Coalescer({ nowMs: () => 0, windowMs: -1 })).toThrow("'windowMs'");
    expect(() => new Coalescer({ nowMs: () => 0, staleMs: 0.5 })).toThrow("'staleMs'");
    expect(() => new Coalescer({ nowMs: () => 0, maxEntries: 0 })).toThrow("'maxEntries'");
  });
});
