import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nearestRank } from '../../src/reference/quantile.ts';

const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('nearestRank', () => {
  it.each([
    [range(100), 95, 95],
    [range(100), 99, 99],
    [range(10), 95, 10],
    [range(10), 50, 5],
    [range(20), 95, 19],
    [range(20), 99, 20],
    [range(60), 95, 57],
    [range(1), 99, 1],
    [range(101), 99, 100],
    [range(1000), 95, 950],
    [[], 95, null],
    [[3, 3, 3], 95, 3],
  ])('%#: p%d', (values, percent, expected) => {
    expect(nearestRank(values, percent)).toBe(expected);
  });

  it.each([0, -1, 101, Number.NaN])('refuses percent %d', (percent) => {
    expect(() => nearestRank([1], percent)).toThrow(RangeError);
  });

  it('is v[ceil(q*n)-1] with exact rational arithmetic', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 100_000 }), fc.constantFrom(95, 99), (n, percent) => {
        const values = range(n);
        const rank = nearestRank(values, percent) ?? 0;
        // rank r is the smallest r with r * 100 >= percent * n.
        expect(rank * 100).toBeGreaterThanOrEqual(percent * n);
        expect((rank - 1) * 100).toBeLessThan(percent * n);
      }),
    );
  });
});
