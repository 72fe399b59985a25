import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GRAIN_US } from '../../src/time/grain.ts';
import {
  INVOCATION_INTERVALS,
  type InvocationInterval,
  invocationSeries,
  isInvocationInterval,
  isUsageInterval,
  USAGE_INTERVALS,
  usageWindowStart,
} from '../../src/time/series.ts';
import { formatTimestamp } from '../../src/time/timestamp.ts';
import { us } from '../fixtures/events.ts';

const NOW = us('2026-11-21T10:15:30.5Z');
const ON_MINUTE = us('2026-11-21T10:15:00Z');
const MIDNIGHT = us('2026-11-21T00:00:00Z');

describe('invocationSeries', () => {
  it.each(
    [
      [NOW, '5min', 301, '2026-11-21T10:10:30.000000Z', '2026-11-21T10:15:30.000000Z'],
      [NOW, '15min', 16, '2026-11-21T10:00:00.000000Z', '2026-11-21T10:15:00.000000Z'],
      [NOW, '1hr', 61, '2026-11-21T09:15:00.000000Z', '2026-11-21T10:15:00.000000Z'],
      [NOW, '1day', 25, '2026-11-20T10:00:00.000000Z', '2026-11-21T10:00:00.000000Z'],
      [NOW, '7day', 8, '2026-11-14T00:00:00.000000Z', '2026-11-21T00:00:00.000000Z'],
      // now exactly on a bucket start: that bucket is the last one, and span back is the first.
      [ON_MINUTE, '15min', 16, '2026-11-21T10:00:00.000000Z', '2026-11-21T10:15:00.000000Z'],
      [ON_MINUTE, '5min', 301, '2026-11-21T10:10:00.000000Z', '2026-11-21T10:15:00.000000Z'],
      [MIDNIGHT, '7day', 8, '2026-11-14T00:00:00.000000Z', '2026-11-21T00:00:00.000000Z'],
      [MIDNIGHT - 1, '7day', 8, '2026-11-13T00:00:00.000000Z', '2026-11-20T00:00:00.000000Z'],
      [MIDNIGHT, '1day', 25, '2026-11-20T00:00:00.000000Z', '2026-11-21T00:00:00.000000Z'],
    ] as const,
  )('now %d, %s: %d buckets from %s to %s', (now, interval, count, first, last) => {
    const series = invocationSeries(now, interval);
    expect(series).toHaveLength(count);
    expect(formatTimestamp(series[0] ?? Number.NaN)).toBe(first);
    expect(formatTimestamp(series.at(-1) ?? Number.NaN)).toBe(last);
  });

  it('always has the documented bucket count, ascending by one grain, ending at trunc(now)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: us('2200-01-01T00:00:00Z') }),
        fc.constantFrom(...(Object.keys(INVOCATION_INTERVALS) as InvocationInterval[])),
        (now, interval) => {
          const spec = INVOCATION_INTERVALS[interval];
          const series = invocationSeries(now, interval);
          expect(series).toHaveLength(spec.buckets);
          const step = GRAIN_US[spec.grain];
          series.forEach((bucket, index) => {
            if (index > 0) expect(bucket - (series[index - 1] ?? 0)).toBe(step);
          });
          const last = series.at(-1) ?? Number.NaN;
          expect(last).toBeLessThanOrEqual(now);
          expect(now - last).toBeLessThan(step);
        },
      ),
    );
  });

  it('declares bucket counts 301/16/61/25/8', () => {
    expect(Object.values(INVOCATION_INTERVALS).map((spec) => spec.buckets)).toEqual([
      301,
      16,
      61,
      25,
      8,
    ]);
  });
});

describe('usageWindowStart', () => {
  it.each(
    [
      [NOW, 'minutely', '2026-11-21T09:15:30.000000Z'],
      [NOW, 'hourly', '2026-11-21T09:15:30.000000Z'],
      [NOW, 'daily', '2026-11-14T10:15:00.000000Z'],
      [NOW, '1hr', '2026-11-21T09:15:30.000000Z'],
      [NOW, '1day', '2026-11-20T10:15:00.000000Z'],
      [NOW, '7day', '2026-11-14T10:15:00.000000Z'],
      [us('2026-11-21T10:15:30Z'), 'minutely', '2026-11-21T09:15:30.000000Z'],
      [us('2026-11-21T10:15:30.999999Z'), 'hourly', '2026-11-21T09:15:30.000000Z'],
      [us('2026-11-21T10:15:59.999999Z'), 'daily', '2026-11-14T10:15:00.000000Z'],
      [us('2026-11-21T10:15:59.999999Z'), '1day', '2026-11-20T10:15:00.000000Z'],
    ] as const,
  )('now %d, %s: %s', (now, interval, expected) => {
    expect(formatTimestamp(usageWindowStart(now, interval))).toBe(expected);
  });

  it('is now - window rounded down to the precision, never later', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: us('2200-01-01T00:00:00Z') }),
        fc.constantFrom(...(Object.keys(USAGE_INTERVALS) as (keyof typeof USAGE_INTERVALS)[])),
        (now, interval) => {
          const spec = USAGE_INTERVALS[interval];
          const start = usageWindowStart(now, interval);
          expect(start).toBeLessThanOrEqual(now - spec.windowUs);
          expect(now - spec.windowUs - start).toBeLessThan(GRAIN_US[spec.precision]);
        },
      ),
    );
  });
});

describe('USAGE_INTERVALS', () => {
  it("answers Studio's 1hr exactly as minutely and its 7day exactly as daily", () => {
    expect(USAGE_INTERVALS['1hr']).toEqual(USAGE_INTERVALS.minutely);
    expect(USAGE_INTERVALS['7day']).toEqual(USAGE_INTERVALS.daily);
  });

  it('reads 1day as the last 24 hours by hour, from a window start at minute precision', () => {
    expect(USAGE_INTERVALS['1day']).toEqual({
      windowUs: 24 * GRAIN_US.hour,
      grain: 'hour',
      precision: 'minute',
    });
  });
});

describe('interval guards', () => {
  it.each(['5min', '15min', '1hr', '1day', '7day'])('%s is an invocation interval', (value) => {
    expect(isInvocationInterval(value)).toBe(true);
  });
  it.each(['', '1DAY', 'toString', '__proto__', 'minutely'])('%j is not', (value) => {
    expect(isInvocationInterval(value)).toBe(false);
  });
  it.each(['minutely', 'hourly', 'daily', '1hr', '1day', '7day'])(
    '%s is a usage interval',
    (value) => {
      expect(isUsageInterval(value)).toBe(true);
    },
  );
  it.each(['', 'weekly', 'Daily', 'constructor', '1DAY', '5min'])('%j is not', (value) => {
    expect(isUsageInterval(value)).toBe(false);
  });
});
