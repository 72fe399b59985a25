/**
 * The time ranges of the time-bucketed endpoints (CONTRACT section 5): the bucket series of
 * `functions.invocation-stats` and the window of `usage.api-counts`.
 *
 * @module
 */

import { type Grain, GRAIN_US, truncate } from './grain.ts';

/** One `interval` of `functions.invocation-stats`. */
export interface InvocationIntervalSpec {
  /** How far back the series reaches from now, in microseconds. */
  readonly spanUs: number;
  /** Bucket width. */
  readonly grain: Grain;
  /** Length of the series: always `spanUs / GRAIN_US[grain] + 1`. */
  readonly buckets: number;
}

/** The `interval` values of `functions.invocation-stats`, from CONTRACT section 5. */
export const INVOCATION_INTERVALS = {
  '5min': { spanUs: 5 * GRAIN_US.minute, grain: 'second', buckets: 301 },
  '15min': { spanUs: 15 * GRAIN_US.minute, grain: 'minute', buckets: 16 },
  '1hr': { spanUs: GRAIN_US.hour, grain: 'minute', buckets: 61 },
  '1day': { spanUs: GRAIN_US.day, grain: 'hour', buckets: 25 },
  '7day': { spanUs: 7 * GRAIN_US.day, grain: 'day', buckets: 8 },
} as const satisfies Record<string, InvocationIntervalSpec>;

/** An `interval` value of `functions.invocation-stats`. */
export type InvocationInterval = keyof typeof INVOCATION_INTERVALS;

/**
 * Whether a string is an `interval` value of `functions.invocation-stats`.
 *
 * @example
 * ```ts
 * isInvocationInterval('1hr'); // true
 * isInvocationInterval('constructor'); // false
 * ```
 */
export function isInvocationInterval(value: string): value is InvocationInterval {
  return Object.hasOwn(INVOCATION_INTERVALS, value);
}

/** The interval any unknown `interval` value behaves as. */
export const DEFAULT_INVOCATION_INTERVAL: InvocationInterval = '1day';

/**
 * Bucket starts of `functions.invocation-stats`, ascending: `trunc(now - span, grain)`, then
 * each grain step up to and including `trunc(now, grain)`. Since every span is a whole number
 * of grains, the length is always that of the interval's `buckets` (301/16/61/25/8).
 *
 * @example
 * ```ts
 * // now = 2026-11-21T10:15:30Z
 * invocationSeries(1_795_256_130_000_000, '15min');
 * // [10:00:00Z, 10:01:00Z, ..., 10:15:00Z] as microseconds: 16 buckets
 * ```
 */
export function invocationSeries(nowUs: number, interval: InvocationInterval): number[] {
  const spec: InvocationIntervalSpec = INVOCATION_INTERVALS[interval];
  const step = GRAIN_US[spec.grain];
  const first = truncate(nowUs - spec.spanUs, spec.grain);
  const last = truncate(nowUs, spec.grain);
  const series: number[] = [];
  for (let bucket = first; bucket <= last; bucket += step) series.push(bucket);
  return series;
}

/** One `interval` of `usage.api-counts`. */
export interface UsageIntervalSpec {
  /** How far back the window reaches from now, in microseconds. */
  readonly windowUs: number;
  /** Bucket width. */
  readonly grain: Grain;
  /** The window start is rounded down to this grain (a documented deviation, CONTRACT section 5). */
  readonly precision: Grain;
}

/** `minutely`: the last 60 minutes by minute, from a window start at second precision. */
const LAST_HOUR_BY_MINUTE = {
  windowUs: 60 * GRAIN_US.minute,
  grain: 'minute',
  precision: 'second',
} as const satisfies UsageIntervalSpec;

/** `daily`: the last 7 days by day, from a window start at minute precision. */
const LAST_WEEK_BY_DAY = {
  windowUs: 7 * GRAIN_US.day,
  grain: 'day',
  precision: 'minute',
} as const satisfies UsageIntervalSpec;

/**
 * The `interval` values of `usage.api-counts`. The last three are the names today's Supabase
 * Studio sends (its usage chart's "last hour", "last 24 hours", "last 7 days"):
 * `1hr` and `7day` are the same entries as `minutely` and `daily`, so they answer exactly alike.
 */
export const USAGE_INTERVALS = {
  minutely: LAST_HOUR_BY_MINUTE,
  hourly: { windowUs: GRAIN_US.hour, grain: 'hour', precision: 'second' },
  daily: LAST_WEEK_BY_DAY,
  '1hr': LAST_HOUR_BY_MINUTE,
  // Minute precision, as `daily`: the partial first hour is summed from minute buckets, since
  // seconds are kept only an hour.
  '1day': { windowUs: GRAIN_US.day, grain: 'hour', precision: 'minute' },
  '7day': LAST_WEEK_BY_DAY,
} as const satisfies Record<string, UsageIntervalSpec>;

/** An `interval` value of `usage.api-counts`. */
export type UsageInterval = keyof typeof USAGE_INTERVALS;

/**
 * Whether a string is an `interval` value of `usage.api-counts`.
 *
 * @example
 * ```ts
 * isUsageInterval('daily'); // true
 * isUsageInterval('weekly'); // false
 * ```
 */
export function isUsageInterval(value: string): value is UsageInterval {
  return Object.hasOwn(USAGE_INTERVALS, value);
}

/**
 * The first instant counted by `usage.api-counts`: `now - window`, rounded down to the
 * interval's precision (second for `minutely`, `hourly` and `1hr`, minute for `daily`, `1day` and
 * `7day`). A request counts when its timestamp is at or after this instant.
 *
 * @example
 * ```ts
 * // now = 2026-11-21T10:15:30.5Z
 * usageWindowStart(1_795_256_130_500_000, 'minutely'); // 09:15:30Z
 * usageWindowStart(1_795_256_130_500_000, 'daily'); // 2026-11-14T10:15:00Z
 * usageWindowStart(1_795_256_130_500_000, '1day'); // 2026-11-20T10:15:00Z
 * ```
 */
export function usageWindowStart(nowUs: number, interval: UsageInterval): number {
  const spec: UsageIntervalSpec = USAGE_INTERVALS[interval];
  return truncate(nowUs - spec.windowUs, spec.precision);
}
