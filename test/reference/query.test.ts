/**
 * The reference evaluator's own parameter reading and time encoding (src/reference/query.ts and
 * time.ts): literal cases from the contract, then differential properties against the implementation's
 * parsers, which the oracle no longer shares. A difference is a bug on one side or the other.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseApiCountsParams } from '../../src/contract/params/api-counts.ts';
import { parseInvocationStatsParams } from '../../src/contract/params/invocation-stats.ts';
import { parseLogsAllParams } from '../../src/contract/params/logs-all.ts';
import { apiCountsQuery, invocationQuery, logsQuery } from '../../src/reference/query.ts';
import { bucketStart, datetimeText, parameterInstant } from '../../src/reference/time.ts';
import { formatDatetime, parseParameterTimestamp } from '../../src/time/timestamp.ts';

const DAY = 86_400_000_000;

describe('reference time', () => {
  it.each([
    ['2026-11-21T10:15:30.5Z', Date.UTC(2026, 10, 21, 10, 15, 30, 500) * 1000],
    ['2026-11-21T10:15:30.1234569Z', Date.UTC(2026, 10, 21, 10, 15, 30, 123) * 1000 + 456],
    ['2026-11-21', Date.UTC(2026, 10, 21) * 1000],
    ['2026-11-21T10:15', Date.UTC(2026, 10, 21, 10, 15) * 1000],
    ['2026-11-21 10:15:30 01:00', Date.UTC(2026, 10, 21, 9, 15, 30) * 1000],
    ['2026-11-21T10:15:30-0130', Date.UTC(2026, 10, 21, 11, 45, 30) * 1000],
    ['2026-11-21T10:15:30+02', Date.UTC(2026, 10, 21, 8, 15, 30) * 1000],
    ['1969-12-31T23:59:59.999999Z', -1],
  ])('reads %s', (text, expected) => {
    expect(parameterInstant(text)).toBe(expected);
  });

  it.each([
    '',
    'yesterday',
    '2026-02-29',
    '2026-11-21T24:00:00Z',
    '2026-11-21T10:15:60Z',
    '2026-11-21Z',
    '2026-11-21T10:15:30.Z',
    '2026-11-21T10:15:30.1234567890Z',
    '2026-11-21T10:15:30 01',
    '2026-11-21T10:15:30+24:00',
    '2256-01-01T00:00:00Z',
    '1600-01-01T00:00:00Z',
  ])('refuses %j', (text) => {
    expect(parameterInstant(text)).toBeNull();
  });

  it('truncates to a grain below and above the epoch, and writes a DATETIME', () => {
    expect(bucketStart(90_500_000, 60_000_000)).toBe(60_000_000);
    expect(bucketStart(-1, 1_000_000)).toBe(-1_000_000);
    expect(bucketStart(3 * DAY - 1, DAY)).toBe(2 * DAY);
    expect(datetimeText(Date.UTC(2026, 10, 21, 10, 15, 30, 999) * 1000 + 999)).toBe(
      '2026-11-21T10:15:30',
    );
  });
});

/** One of `valid` nine times in ten, else one of `invalid`. */
const mostly = (valid: readonly string[], invalid: readonly string[]) =>
  fc.oneof(
    { arbitrary: fc.constantFrom(...valid), weight: 9 },
    { arbitrary: fc.constantFrom(...invalid), weight: 1 },
  );

/** Timestamp-like text: each part valid, out of range, or malformed, in any combination. */
const timestampText = fc.tuple(
  mostly(['2026', '2024', '2000', '1970', '1969', '1685', '2255'], ['2100', '1684', '2256']),
  mostly(['-'], ['/']),
  mostly(['01', '02', '11', '12'], ['00', '13', '1']),
  mostly(['-'], ['.']),
  mostly(['01', '21', '28', '29', '30', '31'], ['00', '32']),
  fc.option(
    fc.tuple(
      mostly(['T', 't', ' '], ['_']),
      mostly(['00', '10', '23'], ['24', '7']),
      mostly([':00', ':59'], [':60', '', ':5']),
      fc.option(mostly([':00', ':30', ':59'], [':60', ':1']), { nil: '' }),
      fc.option(fc.stringMatching(/^\.[0-9]{0,11}$/), { nil: '' }),
      fc.option(
        mostly(['Z', 'z', '+01:00', '-05:30', '+23:59', '+0100', '-01', ' 01:00'], [
          '+24:00',
          '+01:60',
          ' 01',
          ' 0100',
          '+1',
          'ZZ',
          '+01:00Z',
        ]),
        { nil: '' },
      ),
    ).map((parts) => parts.join('')),
    { nil: '' },
  ),
).map((parts) => parts.join(''));

describe('reference time against src/time', () => {
  it('reads every generated timestamp as the implementation does', () => {
    fc.assert(
      fc.property(fc.oneof(timestampText, fc.string({ maxLength: 40 })), (text) => {
        expect(parameterInstant(text), text).toBe(parseParameterTimestamp(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('the generator reaches both outcomes often', () => {
    const texts = fc.sample(timestampText, { numRuns: 5_000, seed: 17 });
    const read = texts.filter((text) => parameterInstant(text) !== null).length;
    expect(read).toBeGreaterThan(1_000);
    expect(texts.length - read).toBeGreaterThan(1_000);
  });

  it('writes every DATETIME as the implementation does', () => {
    fc.assert(
      fc.property(fc.integer({ min: -4_000_000_000_000_000, max: 8_000_000_000_000_000 }), (us) => {
        expect(datetimeText(us)).toBe(formatDatetime(us));
      }),
      { numRuns: 20_000 },
    );
  });
});

/** A query string of the parameters the three endpoints read, each present or not. */
const queryText = fc.tuple(
  fc.option(fc.constantFrom('abc', '', 'a.c', '(', 'x{1000}', 'a'.repeat(257)), { nil: null }),
  fc.option(fc.constantFrom('5min', '15min', '1hr', '1day', '7day', 'hourly', 'daily', '', 'x'), {
    nil: null,
  }),
  fc.option(fc.constantFrom('minutely', ''), { nil: null }),
  fc.option(fc.constantFrom('f1', ''), { nil: null }),
  fc.option(fc.constantFrom('FREE', 'PRO', 'PAYG', 'ENTERPRISE', 'pro', ''), { nil: null }),
  fc.option(fc.constantFrom('2026-11-21', 'nope', '', '2026-11-21T10:15:30+01:00'), { nil: null }),
  fc.option(fc.constantFrom('2026-11-22', 'x', ''), { nil: null }),
).map(([project, interval, extraInterval, fn, tier, start, end]) => {
  const query = new URLSearchParams();
  if (project !== null) query.append('project', project);
  if (interval !== null) query.append('interval', interval);
  if (extraInterval !== null) query.append('interval', extraInterval);
  if (fn !== null) query.append('function_id', fn);
  if (tier !== null) query.append('project_tier', tier);
  if (start !== null) query.append('iso_timestamp_start', start);
  if (end !== null) query.append('iso_timestamp_end', end);
  return query.toString();
});

const refusal = (result: { ok: boolean; error?: { code: string; parameter: string } }) =>
  result.ok ? null : [result.error?.code, result.error?.parameter];

describe('reference parameters against src/contract/params', () => {
  it('functions.invocation-stats: same refusals and same reading', () => {
    fc.assert(
      fc.property(queryText, (text) => {
        const mine = invocationQuery(new URLSearchParams(text));
        const theirs = parseInvocationStatsParams(new URLSearchParams(text));
        expect(refusal(mine), text).toEqual(refusal(theirs));
        if (mine.ok && theirs.ok) expect(mine.query, text).toEqual(theirs.params);
      }),
      { numRuns: 2_000 },
    );
  });

  it('logs.all: same refusals and same reading', () => {
    fc.assert(
      fc.property(queryText, (text) => {
        const mine = logsQuery(new URLSearchParams(text));
        const theirs = parseLogsAllParams(new URLSearchParams(text));
        expect(refusal(mine), text).toEqual(refusal(theirs));
        if (mine.ok && theirs.ok) {
          const { tier: _tier, ...read } = theirs.params;
          expect(mine.query, text).toEqual(read);
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('usage.api-counts: same refusals and the same hosts matched', () => {
    const hosts = ['abc.supabase.co', 'xabcx', 'ac', 'a.c', 'aaaa', ''];
    fc.assert(
      fc.property(queryText, (text) => {
        const mine = apiCountsQuery(new URLSearchParams(text));
        const theirs = parseApiCountsParams(new URLSearchParams(text));
        expect(refusal(mine), text).toEqual(refusal(theirs));
        if (mine.ok && theirs.ok) {
          expect(mine.query.interval, text).toBe(theirs.params.interval);
          expect(hosts.map(mine.query.matches), text).toEqual(
            hosts.map((host) => theirs.params.project.test(host)),
          );
        }
      }),
      { numRuns: 2_000 },
    );
  });

  it('reads the tiers of CONTRACT section 5 and falls back to FREE', () => {
    const retention = (tier: string) => {
      const read = logsQuery({ project: 'p', project_tier: tier });
      return read.ok ? read.query.retentionUs / DAY : null;
    };
    expect(['FREE', 'PRO', 'PAYG', 'ENTERPRISE', 'pro', ''].map(retention)).toEqual([
      1,
      7,
      90,
      90,
      1,
      1,
    ]);
  });
});
