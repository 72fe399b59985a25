import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GRAIN_US, GRAINS, truncate } from '../../src/time/grain.ts';
import { us } from '../fixtures/events.ts';

describe('truncate', () => {
  it.each(
    [
      ['2026-11-21T10:15:30.123456Z', 'second', '2026-11-21T10:15:30Z'],
      ['2026-11-21T10:15:30.123456Z', 'minute', '2026-11-21T10:15:00Z'],
      ['2026-11-21T10:15:30.123456Z', 'hour', '2026-11-21T10:00:00Z'],
      ['2026-11-21T10:15:30.123456Z', 'day', '2026-11-21T00:00:00Z'],
      ['2026-11-21T10:00:00Z', 'hour', '2026-11-21T10:00:00Z'],
      ['2026-11-21T09:59:59.999999Z', 'hour', '2026-11-21T09:00:00Z'],
      ['2026-11-21T00:00:00Z', 'day', '2026-11-21T00:00:00Z'],
      ['2026-11-20T23:59:59.999999Z', 'day', '2026-11-20T00:00:00Z'],
      ['1969-12-31T23:59:59.999999Z', 'second', '1969-12-31T23:59:59Z'],
    ] as const,
  )('%s to the %s', (at, grain, expected) => {
    expect(truncate(us(at), grain)).toBe(us(expected));
  });

  it('is the largest multiple of the grain at or before the instant, for every safe integer', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
        fc.constantFrom(...GRAINS),
        (value, grain) => {
          const start = truncate(value, grain);
          expect(start).toBeLessThanOrEqual(value);
          expect(value - start).toBeLessThan(GRAIN_US[grain]);
          expect(start % GRAIN_US[grain] === 0).toBe(true);
          expect(truncate(start, grain)).toBe(start);
        },
      ),
    );
  });

  it('is exact one microsecond before a boundary of a large instant', () => {
    // A floating division would round (k * width - 1) / width up to k here.
    const boundary = 8_000_000_000 * GRAIN_US.second;
    expect(truncate(boundary - 1, 'second')).toBe(boundary - GRAIN_US.second);
  });
});
