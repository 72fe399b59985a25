import { describe, expect, test } from 'vitest';
import { ClientBuckets } from '../../../api/limits/client-buckets.ts';
import { TokenBucket } from '../../../api/limits/token-bucket.ts';

describe('TokenBucket', () => {
  test('starts full, takes what it holds, and says how long until a refused cost fits', () => {
    const bucket = new TokenBucket({ perSecond: 2, burst: 3 }, 0);
    expect([bucket.take(1, 0), bucket.take(2, 0)]).toEqual([0, 0]);
    expect(bucket.take(1, 0)).toBe(500);
    expect(bucket.take(1, 499)).toBe(1);
    expect(bucket.take(1, 500)).toBe(0);
  });

  test('refills up to the burst, never beyond; a clock that steps back adds and removes nothing', () => {
    const bucket = new TokenBucket({ perSecond: 10, burst: 5 }, 1_000);
    bucket.take(5, 1_000);
    expect(bucket.tokens(61_000)).toBe(5);
    expect(bucket.tokens(30_000)).toBe(5);
  });

  test('spend goes into debt, which refill pays back before anything is taken', () => {
    const bucket = new TokenBucket({ perSecond: 100, burst: 1_000 }, 0);
    bucket.spend(1_250, 0);
    expect(bucket.tokens(0)).toBe(-250);
    expect(bucket.debtMs(0)).toBe(2_500);
    expect(bucket.debtMs(2_500)).toBe(1);
    expect(bucket.debtMs(2_510)).toBe(0);
  });

  test.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY])('refuses a rate of %s', (perSecond) => {
    expect(() => new TokenBucket({ perSecond, burst: 1 }, 0)).toThrow(
      `'perSecond' must be a positive number: current value is ${perSecond}`,
    );
  });
});

describe('ClientBuckets', () => {
  test('keeps at most maxClients, pushing out the least recently used', () => {
    let evicted = 0;
    const buckets = new ClientBuckets({
      rate: { perSecond: 1, burst: 1 },
      maxClients: 2,
      onEvicted: () => evicted++,
    });
    buckets.get('a', 0).take(1, 0);
    buckets.get('b', 0).take(1, 0);
    // 'a' used again: 'b' is now the least recent.
    expect(buckets.get('a', 0).take(1, 0)).toBe(1_000);
    buckets.get('c', 0);
    expect([buckets.size, evicted]).toEqual([2, 1]);
    expect(buckets.get('a', 0).take(1, 0)).toBe(1_000);
    // 'b' was pushed out: it comes back full.
    expect(buckets.get('b', 0).take(1, 0)).toBe(0);
  });

  test('refuses maxClients 0', () => {
    expect(() => new ClientBuckets({ rate: { perSecond: 1, burst: 1 }, maxClients: 0 })).toThrow(
      "'maxClients' must be a positive integer: current value is 0",
    );
  });
});
