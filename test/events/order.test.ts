import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newestFirst, type Ordered } from '../../src/events/order.ts';

describe('newestFirst', () => {
  it('orders by timestamp descending, then id descending, then keeps input order', () => {
    const entries = [
      { timestampUs: 1, id: 'a', n: 0 },
      { timestampUs: 2, id: 'a', n: 1 },
      { timestampUs: 1, id: 'b', n: 2 },
      { timestampUs: 1, id: 'a', n: 3 },
      { timestampUs: 1, id: 'B', n: 4 },
    ];
    expect(entries.toSorted(newestFirst).map((e) => e.n)).toEqual([1, 2, 0, 3, 4]);
  });

  it('compares ids by UTF-16 code units, not by locale', () => {
    const sorted = [
      { timestampUs: 0, id: 'a' },
      { timestampUs: 0, id: 'Z' },
      { timestampUs: 0, id: 'é' },
    ].toSorted(newestFirst);
    expect(sorted.map((e) => e.id)).toEqual(['é', 'a', 'Z']);
  });

  it('is a consistent total preorder', () => {
    const entry = fc.record({
      timestampUs: fc.integer({ min: 0, max: 5 }),
      id: fc.string({ maxLength: 2 }),
    });
    fc.assert(
      fc.property(entry, entry, (a: Ordered, b: Ordered) => {
        expect(Math.sign(newestFirst(a, b)) === -Math.sign(newestFirst(b, a))).toBe(true);
        expect(newestFirst(a, b) === 0).toBe(a.timestampUs === b.timestampUs && a.id === b.id);
      }),
    );
  });
});
