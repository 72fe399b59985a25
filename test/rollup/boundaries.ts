/**
 * Every boundary of CONTRACT section 5, on the rollup path: events 1 µs either side of each
 * interval's first bucket and last bucket, each tier's retention (90 days included), the
 * `logs.all` timestamp bounds and each `usage.api-counts` window start are folded and flushed
 * through partition writers into a store, then read back. Each answer must equal the reference
 * evaluator AND the literal outcome written here, so a boundary moved on both sides at once (the
 * oracle and the rollups) still fails.
 *
 * Run at two instants: in the middle of a second, and exactly on a day boundary (there
 * `trunc(now - span)` is `now - span` itself). Both lie at or after the real clock, so a Redis
 * server, whose expiries follow its own clock, keeps every key written.
 *
 * @module
 */
import { beforeAll, describe, expect, test } from 'vitest';
import type { EndpointName } from '../../src/contract/registry.ts';
import type { ApiCountsRow, InvocationStatsRow, LogRow, Row } from '../../src/contract/rows.ts';
import type { ReadContext } from '../../src/endpoints/read/context.ts';
import { answerEndpoint } from '../../src/endpoints/registry.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import type { RollupStore } from '../../src/store/port.ts';
import { formatTimestamp } from '../../src/time/timestamp.ts';
import { edgeEvent, functionEvent } from '../fixtures/events.ts';
import { expectSameAnswer } from '../support/answers.ts';
import { foldThroughWriters } from './fold-and-read.ts';

const SECOND = 1_000_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/** The read side's allowance for producer clocks ahead of ours (and the parser's). */
const SKEW = 5 * MINUTE;

const floorTo = (us: number, width: number) => Math.floor(us / width) * width;

/** CONTRACT section 5's intervals of `functions.invocation-stats`, written out here, not imported. */
const INVOCATION = [
  { interval: '5min', span: 5 * MINUTE, grain: SECOND, buckets: 301 },
  { interval: '15min', span: 15 * MINUTE, grain: MINUTE, buckets: 16 },
  { interval: '1hr', span: HOUR, grain: MINUTE, buckets: 61 },
  { interval: '1day', span: DAY, grain: HOUR, buckets: 25 },
  { interval: '7day', span: 7 * DAY, grain: DAY, buckets: 8 },
] as const;

/** CONTRACT section 5's tiers of `logs.all` (anything else is FREE). */
const TIERS = [
  ['FREE', DAY],
  ['PRO', 7 * DAY],
  ['PAYG', 90 * DAY],
  ['ENTERPRISE', 90 * DAY],
  ['TEAM', DAY],
  ['', DAY],
] as const;

/**
 * CONTRACT section 5's `usage.api-counts` windows and the precision their start is rounded down to; the last
 * three are the names today's Supabase Studio sends.
 */
const USAGE = [
  { interval: 'minutely', window: HOUR, grain: MINUTE, precision: SECOND },
  { interval: 'hourly', window: HOUR, grain: HOUR, precision: SECOND },
  { interval: 'daily', window: 7 * DAY, grain: DAY, precision: MINUTE },
  { interval: '1hr', window: HOUR, grain: MINUTE, precision: SECOND },
  { interval: '1day', window: DAY, grain: HOUR, precision: MINUTE },
  { interval: '7day', window: 7 * DAY, grain: DAY, precision: MINUTE },
] as const;

/**
 * How many requests `usageEvents` sends at each instant: powers of two, so a row's count tells
 * exactly which instants it holds.
 */
const USAGE_WEIGHT = {
  beforeStart: 1,
  start: 2,
  windowStart: 4,
  now: 8,
  future: 16,
  firstBucketEnd: 32,
  secondBucket: 64,
} as const;

/**
 * The events of one invocation interval, each in a project of its own, with an execution time
 * that names it: 1 and 2 in the first bucket, 3 and 4 in the last; 100 and 200 just outside.
 */
function invocationEvents(nowUs: number): LogEvent[] {
  return INVOCATION.flatMap(({ interval, span, grain }) => {
    const project = `inv${interval}`;
    const first = floorTo(nowUs - span, grain);
    const last = floorTo(nowUs, grain);
    const at = (us: number, ms: number) => functionEvent({ at: us, project, ms, functionId: 'f' });
    const events = [at(first - 1, 100), at(first, 1), at(first + 1, 2), at(nowUs, 3)];
    // The last bucket ends after now: its future part counts, the next bucket does not (both
    // only where a producer's clock may be that far ahead).
    if (last + grain - 1 <= nowUs + SKEW) events.push(at(last + grain - 1, 4));
    if (last + grain <= nowUs + SKEW) events.push(at(last + grain, 200));
    return events;
  });
}

/** One edge project: for each retention, an entry on its limit and one 1 µs inside it. */
function logsEvents(nowUs: number): LogEvent[] {
  const entry = (id: string, at: number) => edgeEvent({ at, id, project: 'logsboundaryproject' });
  return [
    ...[1, 7, 90].flatMap((days) => [
      entry(`${days}d-limit`, nowUs - days * DAY),
      entry(`${days}d-inside`, nowUs - days * DAY + 1),
    ]),
    entry('now', nowUs),
    entry('future', nowUs + SKEW),
    // The bounds of iso_timestamp_start (strictly after) and iso_timestamp_end (at or before).
    entry('start', nowUs - 2 * HOUR),
    entry('after-start', nowUs - 2 * HOUR + 1),
    entry('end', nowUs - HOUR),
    entry('after-end', nowUs - HOUR + 1),
  ];
}

/**
 * The requests of one usage interval, in a project of its own ({@link USAGE_WEIGHT}): 1 µs before
 * the window start, at it, at exactly `now - window` (at or after the rounded-down start), at now,
 * in the future, 1 µs before the end of the first (usually partial) bucket and at the start of the
 * second. Every request is one of `/rest`: each sum names what was counted.
 */
function usageEvents(nowUs: number): LogEvent[] {
  return USAGE.flatMap(({ interval, window, grain, precision }) => {
    const project = `use${interval}`.padEnd(20, 'x');
    const start = floorTo(nowUs - window, precision);
    const secondBucket = floorTo(start, grain) + grain;
    const at = (us: number, requests: number) =>
      edgeEvent({
        at: us,
        project,
        requests: Array.from({ length: requests }, () => ({
          host: `${project}.supabase.co`,
          path: '/rest/v1/t',
        })),
      });
    return [
      at(start - 1, USAGE_WEIGHT.beforeStart),
      at(start, USAGE_WEIGHT.start),
      at(nowUs - window, USAGE_WEIGHT.windowStart),
      at(nowUs, USAGE_WEIGHT.now),
      at(nowUs + SKEW, USAGE_WEIGHT.future),
      at(secondBucket - 1, USAGE_WEIGHT.firstBucketEnd),
      at(secondBucket, USAGE_WEIGHT.secondBucket),
    ];
  });
}

async function answer(
  store: RollupStore,
  nowUs: number,
  events: readonly LogEvent[],
  endpoint: EndpointName,
  query: string,
): Promise<Row[]> {
  const context: ReadContext = { store, nowUs, maxFutureSkewUs: SKEW };
  const actual = await answerEndpoint(endpoint, new URLSearchParams(query), context);
  const expected = evaluateEndpoint(endpoint, events, new URLSearchParams(query), nowUs);
  if (!actual.ok || !expected.ok) throw new Error(`${endpoint}?${query} refused`);
  expectSameAnswer(endpoint, actual.rows, expected.rows, `${endpoint}?${query}`);
  return actual.rows;
}

function boundaryCases(open: () => Promise<RollupStore>, name: string, instant: () => number) {
  describe(name, () => {
    const nowUs = instant();
    const events = [...invocationEvents(nowUs), ...logsEvents(nowUs), ...usageEvents(nowUs)];
    let store: RollupStore;

    beforeAll(async () => {
      store = await open();
      await foldThroughWriters(store, events, nowUs, 2);
    }, 60_000);

    test.each(INVOCATION)(
      'functions.invocation-stats $interval: the first bucket starts at trunc(now - span), the last holds now',
      async ({ interval, span, grain, buckets }) => {
        for (const fn of ['', '&function_id=f']) {
          const query = `project=inv${interval}&interval=${interval}${fn}`;
          const rows = await answer(store, nowUs, events, 'functions.invocation-stats', query);
          const stats = rows as InvocationStatsRow[];
          expect(stats.map((row) => row.timestamp)).toEqual(
            Array.from({ length: buckets }, (_, i) => floorTo(nowUs - span, grain) + i * grain),
          );
          const first = stats[0];
          const last = stats.at(-1);
          expect([first?.count, first?.min_execution_time, first?.max_execution_time]).toEqual([
            2,
            1,
            2,
          ]);
          const future = floorTo(nowUs, grain) + grain - 1 <= nowUs + SKEW;
          expect([last?.count, last?.max_execution_time]).toEqual(future ? [2, 4] : [1, 3]);
          expect(stats.reduce((sum, row) => sum + row.count, 0)).toBe(future ? 4 : 3);
        }
      },
    );

    test.each(TIERS)(
      'logs.all project_tier=%j keeps entries strictly newer than now - %d µs',
      async (tier, retention) => {
        const query = `project=logsboundaryproject&project_tier=${tier}`;
        const rows = await answer(store, nowUs, events, 'logs.all', query) as LogRow[];
        const days = retention / DAY;
        const kept = rows.map((row) => row.id);
        expect(kept).toContain(`${days}d-inside`);
        expect(kept).not.toContain(`${days}d-limit`);
        expect(kept.slice(0, 2)).toEqual(['future', 'now']);
        expect(kept).toHaveLength(
          { 1: 7, 7: 9, 90: 11 }[days] ?? Number.NaN,
        );
      },
    );

    test('logs.all: iso_timestamp_start is exclusive, iso_timestamp_end inclusive', async () => {
      const iso = (us: number) => encodeURIComponent(formatTimestamp(us));
      const query = `project=logsboundaryproject&project_tier=PRO` +
        `&iso_timestamp_start=${iso(nowUs - 2 * HOUR)}&iso_timestamp_end=${iso(nowUs - HOUR)}`;
      const rows = await answer(store, nowUs, events, 'logs.all', query) as LogRow[];
      expect(rows.map((row) => row.id)).toEqual(['end', 'after-start']);
    });

    test.each(USAGE)(
      'usage.api-counts $interval: counts from the window start rounded down, none before; the first bucket ends where the second starts',
      async ({ interval, window, grain, precision }) => {
        const project = `use${interval}`.padEnd(20, 'x');
        const query = `project=${project}&interval=${interval}`;
        const rows = await answer(store, nowUs, events, 'usage.api-counts', query);
        const counts = rows as ApiCountsRow[];
        const { beforeStart, start, windowStart, firstBucketEnd, secondBucket } = USAGE_WEIGHT;
        expect(counts.reduce((sum, row) => sum + row.total_rest_requests, 0)).toBe(
          Object.values(USAGE_WEIGHT).reduce((sum, weight) => sum + weight, 0) - beforeStart,
        );
        const first = floorTo(floorTo(nowUs - window, precision), grain);
        const datetime = (us: number) => formatTimestamp(us).slice(0, 19);
        expect(counts[0]).toMatchObject({
          timestamp: datetime(first),
          total_rest_requests: start + windowStart + firstBucketEnd,
        });
        expect(counts[1]?.timestamp).toBe(datetime(first + grain));
        expect((counts[1]?.total_rest_requests ?? 0) & secondBucket).toBe(secondBucket);
      },
    );
  });
}

/**
 * Registers the boundary cases for a store made by `open` (which may clear a shared server).
 */
export function boundarySuite(open: () => Promise<RollupStore>): void {
  const realNow = () => floorTo(Date.now() * 1000, SECOND) + SECOND;
  boundaryCases(open, 'now in the middle of a second', () => realNow() + SECOND / 2);
  boundaryCases(open, 'now exactly on a day boundary', () => floorTo(realNow(), DAY) + DAY);
}
