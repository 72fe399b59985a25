import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatTimestamp,
  parseParameterTimestamp,
  parseTimestamp,
} from '../../src/time/timestamp.ts';

/** Independent oracle: Date for the millisecond part, plus the extra microseconds. */
const utc = (iso: string, extraUs = 0) => Date.parse(iso) * 1000 + extraUs;

describe('parseTimestamp (RFC 3339 with a zone)', () => {
  it.each([
    ['2026-11-21T10:15:30.123456Z', utc('2026-11-21T10:15:30.123Z', 456)],
    ['2026-11-21T10:15:30Z', utc('2026-11-21T10:15:30Z')],
    ['2026-11-21T10:15:30.1Z', utc('2026-11-21T10:15:30.100Z')],
    ['2026-11-21T10:15:30.12Z', utc('2026-11-21T10:15:30.120Z')],
    ['2026-11-21T10:15:30.123Z', utc('2026-11-21T10:15:30.123Z')],
    ['2026-11-21T10:15:30.1234567Z', utc('2026-11-21T10:15:30.123Z', 456)],
    ['2026-11-21T10:15:30.123456789Z', utc('2026-11-21T10:15:30.123Z', 456)],
    ['2026-11-21T10:15:30.999999999Z', utc('2026-11-21T10:15:30.999Z', 999)],
    ['2026-11-21T11:15:30.123456+01:00', utc('2026-11-21T10:15:30.123Z', 456)],
    ['2026-11-21T04:45:30.5-05:30', utc('2026-11-21T10:15:30.500Z')],
    ['2026-11-21T00:15:30+14:00', utc('2026-11-20T10:15:30Z')],
    ['2026-11-21T10:15:30-00:00', utc('2026-11-21T10:15:30Z')],
    ['2026-11-21t10:15:30z', utc('2026-11-21T10:15:30Z')],
    ['2026-11-21 10:15:30Z', utc('2026-11-21T10:15:30Z')],
    ['2024-02-29T00:00:00Z', utc('2024-02-29T00:00:00Z')],
    ['2000-02-29T23:59:59.999999Z', utc('2000-02-29T23:59:59.999Z', 999)],
    ['1970-01-01T00:00:00Z', 0],
    ['1969-12-31T23:59:59.999999Z', -1],
    ['2255-06-05T23:47:34.740991Z', Number.MAX_SAFE_INTEGER],
  ])('%s', (text, expected) => {
    expect(parseTimestamp(text)).toBe(expected);
  });

  it.each([
    ['empty', ''],
    ['words', 'yesterday'],
    ['no zone', '2026-11-21T10:15:30'],
    ['no zone, fraction', '2026-11-21T10:15:30.123456'],
    ['date only', '2026-11-21'],
    ['no seconds', '2026-11-21T10:15Z'],
    ['30 February', '2026-02-30T00:00:00Z'],
    ['29 February, common year', '2026-02-29T00:00:00Z'],
    ['29 February, century', '2100-02-29T00:00:00Z'],
    ['31 November', '2026-11-31T00:00:00Z'],
    ['month 13', '2026-13-01T00:00:00Z'],
    ['month 0', '2026-00-01T00:00:00Z'],
    ['day 0', '2026-11-00T00:00:00Z'],
    ['hour 24', '2026-11-21T24:00:00Z'],
    ['minute 60', '2026-11-21T10:60:00Z'],
    ['leap second', '2016-12-31T23:59:60Z'],
    ['dot without digits', '2026-11-21T10:15:30.Z'],
    ['10 fractional digits', '2026-11-21T10:15:30.1234567890Z'],
    ['offset without colon', '2026-11-21T10:15:30+0100'],
    ['offset hours only', '2026-11-21T10:15:30+01'],
    ['offset hour 24', '2026-11-21T10:15:30+24:00'],
    ['offset minute 60', '2026-11-21T10:15:30+01:60'],
    ['trailing space', '2026-11-21T10:15:30Z '],
    ['leading space', ' 2026-11-21T10:15:30Z'],
    ['bad separator', '2026-11-21X10:15:30Z'],
    ['signed year', '+2026-11-21T10:15:30Z'],
    ['one-digit month', '2026-1-21T10:15:30Z'],
    ['slashes', '2026/11/21T10:15:30Z'],
    ['beyond safe microseconds', '2255-06-05T23:47:34.740992Z'],
    ['year 9999', '9999-12-31T23:59:59Z'],
    ['numeric string', '1795256130123456'],
    ['letters in digits', '2026-1a-21T10:15:30Z'],
  ])('rejects %s', (_, text) => {
    expect(parseTimestamp(text)).toBeNull();
  });
});

describe('parseParameterTimestamp (API parameters: no zone = UTC)', () => {
  it.each([
    ['2026-11-21T10:15:30Z', utc('2026-11-21T10:15:30Z')],
    ['2026-11-21T10:15:30', utc('2026-11-21T10:15:30Z')],
    ['2026-11-21T10:15:30.123456', utc('2026-11-21T10:15:30.123Z', 456)],
    ['2026-11-21 10:15:30', utc('2026-11-21T10:15:30Z')],
    ['2026-11-21T10:15', utc('2026-11-21T10:15:00Z')],
    ['2026-11-21', utc('2026-11-21T00:00:00Z')],
    ['2026-11-21T11:15:30+01:00', utc('2026-11-21T10:15:30Z')],
    ['2026-11-21T11:15:30+0100', utc('2026-11-21T10:15:30Z')],
    ['2026-11-21T11:15:30+01', utc('2026-11-21T10:15:30Z')],
    ['2026-11-21T09:15:30-01', utc('2026-11-21T10:15:30Z')],
    // A `+` decoded from a query string as a space.
    ['2026-11-21T11:15:30 01:00', utc('2026-11-21T10:15:30Z')],
  ])('%s', (text, expected) => {
    expect(parseParameterTimestamp(text)).toBe(expected);
  });

  it.each([
    '',
    'yesterday',
    'now',
    '2026-11-21T',
    '2026-11-21T10',
    '1795256130',
    '2026-02-30',
    '2026-11-21T10:15:30 01',
    '21/11/2026',
    // A bare date beyond safe-integer microseconds (found by test/reference/query.test.ts).
    '2256-01-01',
    '1684-01-01',
    // Every 30-day month has 30 days.
    '2026-04-31',
    '2026-06-31',
    '2026-09-31',
    '2026-11-31T10:00',
    // Letters where digits belong, with the separators in place.
    'abcd-11-21',
    '2026-11-21Tab:15:00Z',
    '2026-11-21T10:ab:00Z',
    '2026-11-21T10:15:30+ab:00',
    '2026-11-21T10:15:30+01:ab',
    '2026-11-21T10:15:30+01ab',
    // Anything after a complete zone.
    '2026-11-21T10:15:30+01:00x',
    '2026-11-21T10:15:30+01001',
    '2026-11-21T10:15:30 01:00x',
  ])('rejects %j', (text) => {
    expect(parseParameterTimestamp(text)).toBeNull();
  });
});

describe('formatTimestamp', () => {
  it.each([
    [0, '1970-01-01T00:00:00.000000Z'],
    [utc('2026-11-21T10:15:30.123Z', 456), '2026-11-21T10:15:30.123456Z'],
    [utc('2026-11-21T10:15:00Z'), '2026-11-21T10:15:00.000000Z'],
    [-1, '1969-12-31T23:59:59.999999Z'],
    [utc('2024-02-29T23:59:59.999Z', 999), '2024-02-29T23:59:59.999999Z'],
  ])('%d -> %s', (value, expected) => {
    expect(formatTimestamp(value)).toBe(expected);
  });

  it.each([1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53, -(2 ** 53)])(
    'refuses %d, naming the value',
    (value) => {
      expect(() => formatTimestamp(value)).toThrow(
        `formatTimestamp expects a safe integer of microseconds: got ${value}`,
      );
    },
  );

  it('round-trips with parseTimestamp and agrees with Date on the milliseconds', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }),
        (value) => {
          const text = formatTimestamp(value);
          expect(parseTimestamp(text)).toBe(value);
          expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
          const ms = Math.floor(value / 1000);
          if (Math.abs(ms) < 8.64e15) {
            expect(text.slice(0, 23)).toBe(new Date(ms).toISOString().slice(0, 23));
          }
        },
      ),
    );
  });
});
