/**
 * Time grains: the widths of buckets and of window-start precision, all in UTC.
 *
 * @module
 */

import { DAY_US } from './civil.ts';

/** A bucket width. */
export type Grain = 'second' | 'minute' | 'hour' | 'day';

/** Every grain, finest first. */
export const GRAINS: readonly Grain[] = ['second', 'minute', 'hour', 'day'];

/** Width of each grain in microseconds. UTC has no daylight saving, so a day is always 24 h. */
export const GRAIN_US: Readonly<Record<Grain, number>> = {
  second: 1_000_000,
  minute: 60_000_000,
  hour: 3_600_000_000,
  day: DAY_US,
};

/**
 * `trunc(t, g)` of CONTRACT section 5: the start of the grain containing `us` (integer
 * microseconds since the epoch, UTC). Rounds toward the past, also before 1970. Uses the exact
 * remainder, never a floating division, so the result is exact for every safe integer.
 *
 * @example
 * ```ts
 * truncate(1_795_256_130_123_456, 'minute'); // 1_795_256_100_000_000 (10:15:00Z)
 * truncate(-1, 'second'); // -1_000_000
 * ```
 */
export function truncate(us: number, grain: Grain): number {
  const width = GRAIN_US[grain];
  let rest = us % width;
  if (rest < 0) rest += width;
  return us - rest;
}
