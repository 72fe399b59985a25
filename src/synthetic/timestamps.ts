/**
 * The timestamp forms producers send (CONTRACT section 3), rendered as JSON text: mostly
 * microsecond RFC 3339 in UTC, sometimes milliseconds, nanoseconds, no fraction, a zone
 * offset, or an integer of microseconds.
 *
 * @module
 */

import { formatTimestamp } from '../time/timestamp.ts';
import type { Random } from './random.ts';

const OFFSETS: readonly (readonly [string, number])[] = [
  ['+01:00', 60],
  ['+05:30', 330],
  ['-08:00', -480],
  ['+09:00', 540],
  ['-03:00', -180],
];

/**
 * The JSON text of a `timestamp` value for instant `us`: an integer with probability
 * `integerShare`, else a string in one of the RFC 3339 forms. Parsing the result gives `us`
 * truncated to the precision of the form (milliseconds or seconds for the shorter forms).
 *
 * @example
 * ```ts
 * timestampJson(new Random(1), 1_795_256_130_123_456, 1); // '1795256130123456'
 * timestampJson(new Random(1), 1_795_256_130_123_456, 0); // e.g. '"2026-11-21T10:15:30.123456Z"'
 * ```
 */
export function timestampJson(random: Random, us: number, integerShare: number): string {
  if (random.chance(integerShare)) return String(us);
  const roll = random.next();
  if (roll < 0.85) return `"${formatTimestamp(us)}"`;
  if (roll < 0.9) return `"${formatTimestamp(us).slice(0, 23)}Z"`;
  if (roll < 0.94) {
    const nanos = String(random.int(1000)).padStart(3, '0');
    return `"${formatTimestamp(us).slice(0, 26)}${nanos}Z"`;
  }
  if (roll < 0.96) return `"${formatTimestamp(us).slice(0, 19)}Z"`;
  const [zone, minutes] = random.pick(OFFSETS);
  return `"${formatTimestamp(us + minutes * 60_000_000).slice(0, 26)}${zone}"`;
}
