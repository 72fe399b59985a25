import { describe, expect, it } from 'vitest';
import { describeDuration, parseDuration } from '../../src/time/duration.ts';

describe('parseDuration', () => {
  it.each([
    ['1us', 1],
    ['250ms', 250_000],
    ['30s', 30_000_000],
    ['15m', 900_000_000],
    ['1h', 3_600_000_000],
    ['7d', 604_800_000_000],
    ['0s', 0],
  ])('%s', (text, expected) => {
    expect(parseDuration(text)).toBe(expected);
  });

  it.each(['', '1', 'h', '1y', '1.5h', '-1h', ' 1h', '1h ', '1H', '999999999999d'])(
    'rejects %j, naming the accepted forms',
    (text) => {
      expect(() => parseDuration(text)).toThrow(RangeError);
    },
  );
});

describe('describeDuration', () => {
  it.each([
    [12 * 60_000_000, '12 minutes'],
    [300_000_001, '5.1 minutes'],
    [60_000_000, '1 minute'],
    [86_400_000_000, '1 day'],
    [91 * 86_400_000_000, '91 days'],
    [90 * 86_400_000_000 + 1, '90.1 days'],
    [1_500_000, '1.5 seconds'],
    [2_000, '2 milliseconds'],
    [5, '5 microseconds'],
    [1, '1 microsecond'],
  ])('%d us', (value, expected) => {
    expect(describeDuration(value)).toBe(expected);
  });
});
