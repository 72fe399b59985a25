import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { InvocationStatsRow } from '../../src/contract/rows.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { formatTimestamp } from '../../src/time/timestamp.ts';
import { edgeEvent, functionEvent, us } from '../fixtures/events.ts';

const NOW = us('2026-11-21T10:15:30.5Z');
const PROJECT = 'abcdefghijklmnopqrst';

function rows(events: readonly LogEvent[], query: string, now = NOW): InvocationStatsRow[] {
  const result = evaluateEndpoint(
    'functions.invocation-stats',
    events,
    new URLSearchParams(query),
    now,
  );
  if (!result.ok) throw new Error(JSON.stringify(result.error));
  return result.rows;
}

const EMPTY = {
  count: 0,
  error_count: 0,
  min_execution_time: null,
  max_execution_time: null,
  avg_execution_time: null,
  p95_execution_time: null,
  p99_execution_time: null,
};

describe('functions.invocation-stats: series', () => {
  it.each([
    ['5min', 301, '2026-11-21T10:10:30.000000Z', '2026-11-21T10:15:30.000000Z'],
    ['15min', 16, '2026-11-21T10:00:00.000000Z', '2026-11-21T10:15:00.000000Z'],
    ['1hr', 61, '2026-11-21T09:15:00.000000Z', '2026-11-21T10:15:00.000000Z'],
    ['1day', 25, '2026-11-20T10:00:00.000000Z', '2026-11-21T10:00:00.000000Z'],
    ['7day', 8, '2026-11-14T00:00:00.000000Z', '2026-11-21T00:00:00.000000Z'],
    ['fortnight', 25, '2026-11-20T10:00:00.000000Z', '2026-11-21T10:00:00.000000Z'],
    ['1DAY', 25, '2026-11-20T10:00:00.000000Z', '2026-11-21T10:00:00.000000Z'],
  ])('%s: %d rows from %s to %s, all empty without events', (interval, count, first, last) => {
    const result = rows([], `project=${PROJECT}&interval=${interval}`);
    expect(result).toHaveLength(count);
    expect(result[0]?.timestamp).toBe(us(first));
    expect(result.at(-1)?.timestamp).toBe(us(last));
    for (const row of result) expect(row).toEqual({ timestamp: row.timestamp, ...EMPTY });
  });

  it('keeps empty buckets between filled ones, ascending', () => {
    const events = [
      functionEvent({ at: us('2026-11-21T10:02:10Z'), ms: 5 }),
      functionEvent({ at: us('2026-11-21T10:05:59.999999Z'), ms: 7 }),
    ];
    const result = rows(events, `project=${PROJECT}&interval=15min`);
    expect(result.map((r) => r.count)).toEqual([0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(result[2]?.timestamp).toBe(us('2026-11-21T10:02:00.000000Z'));
  });
});

describe('functions.invocation-stats: bounds', () => {
  it.each([
    ['on the first bucket start', '2026-11-21T10:00:00Z', 0],
    ['one microsecond before the first bucket', '2026-11-21T09:59:59.999999Z', null],
    ['on the last bucket start', '2026-11-21T10:15:00Z', 15],
    ['after now, within the last bucket', '2026-11-21T10:15:59.999999Z', 15],
    ['past the last bucket', '2026-11-21T10:16:00Z', null],
  ])('an invocation %s', (_, at, bucket) => {
    const result = rows([functionEvent({ at: us(at) })], `project=${PROJECT}&interval=15min`);
    const counted = result.flatMap((row, index) => (row.count > 0 ? [index] : []));
    expect(counted).toEqual(bucket === null ? [] : [bucket]);
  });

  it('with now exactly on a bucket start, includes span back to that grain', () => {
    const now = us('2026-11-21T10:15:00Z');
    const events = [functionEvent({ at: us('2026-11-21T10:00:00Z') }), functionEvent({ at: now })];
    const result = rows(events, `project=${PROJECT}&interval=15min`, now);
    expect(result.map((r) => r.count).filter((c) => c > 0)).toEqual([1, 1]);
    expect([result[0]?.count, result.at(-1)?.count]).toEqual([1, 1]);
  });
});

describe('functions.invocation-stats: figures', () => {
  it('counts invocations and errors (status >= 400)', () => {
    const event = functionEvent({
      at: us('2026-11-21T10:15:10Z'),
      statuses: [200, 399, 400, 404, 500, null],
    });
    const last = rows([event], `project=${PROJECT}&interval=15min`).at(-1);
    expect([last?.count, last?.error_count]).toEqual([6, 3]);
  });

  it('computes min/max/avg and nearest-rank p95/p99 over 1..100 ms', () => {
    const events = Array.from(
      { length: 100 },
      (_, i) => functionEvent({ at: us('2026-11-21T10:15:10Z') + i, ms: 100 - i }),
    );
    const last = rows(events, `project=${PROJECT}&interval=15min`).at(-1);
    expect(last).toEqual({
      timestamp: us('2026-11-21T10:15:00.000000Z'),
      count: 100,
      error_count: 0,
      min_execution_time: 1,
      max_execution_time: 100,
      avg_execution_time: 50.5,
      p95_execution_time: 95,
      p99_execution_time: 99,
    });
  });

  it('takes p95 and p99 as the maximum for 10 values', () => {
    const events = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3].map((ms) =>
      functionEvent({ at: us('2026-11-21T10:15:10Z'), ms })
    );
    const last = rows(events, `project=${PROJECT}&interval=15min`).at(-1);
    expect([last?.p95_execution_time, last?.p99_execution_time, last?.avg_execution_time]).toEqual([
      9,
      9,
      3.9,
    ]);
  });

  it('counts invocations without an execution time but leaves them out of the figures', () => {
    const events = [
      functionEvent({ at: us('2026-11-21T10:15:10Z'), ms: null }),
      functionEvent({ at: us('2026-11-21T10:15:11Z'), ms: 8 }),
      functionEvent({ at: us('2026-11-21T10:14:10Z'), ms: null }),
    ];
    const result = rows(events, `project=${PROJECT}&interval=15min`);
    expect(result.at(-1)).toMatchObject({ count: 2, min_execution_time: 8, avg_execution_time: 8 });
    expect(result.at(-2)).toEqual({ timestamp: us('2026-11-21T10:14:00Z'), ...EMPTY, count: 1 });
  });

  it('repeats the metadata entry execution time for each of its responses', () => {
    const event = functionEvent({ at: us('2026-11-21T10:15:10Z'), ms: 4, statuses: [200, 500] });
    expect(rows([event], `project=${PROJECT}&interval=15min`).at(-1)).toMatchObject({
      count: 2,
      error_count: 1,
      avg_execution_time: 4,
    });
  });
});

describe('functions.invocation-stats: selection', () => {
  const at = us('2026-11-21T10:15:10Z');
  const events = [
    functionEvent({ at, project: PROJECT, functionId: 'f1' }),
    functionEvent({ at, project: PROJECT, functionId: 'f2' }),
    functionEvent({ at, project: PROJECT, functionId: null }),
    functionEvent({ at, project: 'other' }),
    functionEvent({ at, project: `${PROJECT}x` }),
    functionEvent({
      at,
      metadata: [{ project_ref: 'other', function_id: 'f1', response: [{ status_code: 200 }] }],
    }),
    functionEvent({
      at,
      metadata: [
        { project_ref: PROJECT, function_id: 'f1', response: [{ status_code: 500 }] },
        { project_ref: PROJECT, function_id: 'f1' },
      ],
    }),
    edgeEvent({ at, project: PROJECT }),
  ];

  it.each([
    ['all functions of the project', `project=${PROJECT}&interval=15min`, 4, 1],
    ['an empty function_id', `project=${PROJECT}&interval=15min&function_id=`, 4, 1],
    ['one function', `project=${PROJECT}&interval=15min&function_id=f1`, 2, 1],
    ['another function', `project=${PROJECT}&interval=15min&function_id=f2`, 1, 0],
    ['an unknown function', `project=${PROJECT}&interval=15min&function_id=f9`, 0, 0],
    ['the other project', 'project=other&interval=15min', 2, 0],
    ['a prefix of a ref (equality, not containment)', 'project=abcdefghij&interval=15min', 0, 0],
  ])('%s', (_, query, count, errors) => {
    const last = rows(events, query).at(-1);
    expect([last?.count, last?.error_count]).toEqual([count, errors]);
  });
});

describe('functions.invocation-stats: properties', () => {
  const generatedEvents = (seed: number) => {
    const list: LogEvent[] = [];
    const base = NOW - 2 * 3_600_000_000;
    const random = fc.sample(
      fc.record({
        offset: fc.integer({ min: 0, max: 2 * 3_600_000_000 + 120_000_000 }),
        ms: fc.option(fc.double({ min: 0, max: 5_000, noNaN: true }), { nil: null }),
        status: fc.constantFrom(200, 201, 400, 404, 500, 503),
        fn: fc.constantFrom('f1', 'f2'),
      }),
      { numRuns: 300, seed },
    );
    for (const r of random) {
      list.push(
        functionEvent({ at: base + r.offset, ms: r.ms, statuses: [r.status], functionId: r.fn }),
      );
    }
    return list;
  };

  it('bucket counts sum to the number of invocations in the series range', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.constantFrom('5min', '15min', '1hr', '1day', '7day'),
        (seed, interval) => {
          const events = generatedEvents(seed);
          const result = rows(events, `project=${PROJECT}&interval=${interval}`);
          const first = result[0]?.timestamp ?? 0;
          const last = result.at(-1)?.timestamp ?? 0;
          const width = result.length > 1 ? (result[1]?.timestamp ?? 0) - first : 0;
          const inRange = events.filter((e) =>
            e.timestampUs >= first && e.timestampUs < last + width
          );
          expect(result.reduce((sum, row) => sum + row.count, 0)).toBe(inRange.length);
        },
      ),
      { numRuns: 30 },
    );
  });

  it('has min <= avg <= max and p95 <= p99 <= max in every bucket', () => {
    fc.assert(
      fc.property(fc.integer(), (seed) => {
        for (const row of rows(generatedEvents(seed), `project=${PROJECT}&interval=5min`)) {
          if (row.max_execution_time === null) continue;
          const { min_execution_time: min, max_execution_time: max } = row;
          expect(min).not.toBeNull();
          expect(row.avg_execution_time ?? Number.NaN).toBeGreaterThanOrEqual((min ?? 0) - 1e-9);
          expect(row.avg_execution_time ?? Number.NaN).toBeLessThanOrEqual(max + 1e-9);
          expect(row.p95_execution_time ?? Number.NaN).toBeLessThanOrEqual(
            row.p99_execution_time ?? Number.NaN,
          );
          expect(row.p99_execution_time ?? Number.NaN).toBeLessThanOrEqual(max);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('encodes bucket starts as integers of microseconds since the epoch (a TIMESTAMP)', () => {
    const result = rows([], `project=${PROJECT}&interval=7day`);
    expect(result.map((row) => formatTimestamp(row.timestamp))).toEqual(
      Array.from({ length: 8 }, (_, i) => `2026-11-${14 + i}T00:00:00.000000Z`),
    );
  });
});
