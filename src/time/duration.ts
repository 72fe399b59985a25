/**
 * Human durations for command-line flags and configuration: `500ms`, `30s`, `15m`, `1h`, `7d`.
 *
 * @module
 */
import { GRAIN_US } from './grain.ts';

const UNIT_US: Readonly<Record<string, number>> = {
  us: 1,
  ms: 1_000,
  s: GRAIN_US.second,
  m: GRAIN_US.minute,
  h: GRAIN_US.hour,
  d: GRAIN_US.day,
};

/**
 * Parses a duration (a non-negative integer followed by `us`, `ms`, `s`, `m`, `h` or `d`) into
 * microseconds.
 *
 * @throws {RangeError} naming the accepted forms when the text is not such a duration.
 *
 * @example
 * ```ts
 * parseDuration('1h'); // 3_600_000_000
 * parseDuration('90s'); // 90_000_000
 * ```
 */
export function parseDuration(text: string): number {
  const match = /^(\d{1,12})(us|ms|s|m|h|d)$/.exec(text);
  const unit = match?.[2] === undefined ? undefined : UNIT_US[match[2]];
  if (match === null || unit === undefined) {
    throw new RangeError(
      `a duration must be an integer followed by us, ms, s, m, h or d (e.g. 15m, 1h, 7d): got ${
        JSON.stringify(text)
      }`,
    );
  }
  const us = Number(match[1]) * unit;
  if (!Number.isSafeInteger(us)) {
    throw new RangeError(`a duration must be at most ${Number.MAX_SAFE_INTEGER} us: got ${text}`);
  }
  return us;
}

const DESCRIBED_UNITS: readonly (readonly [string, number])[] = [
  ['day', GRAIN_US.day],
  ['hour', GRAIN_US.hour],
  ['minute', GRAIN_US.minute],
  ['second', GRAIN_US.second],
  ['millisecond', 1_000],
];

/**
 * A duration in words for messages: the largest unit that fits, with at most one decimal,
 * rounded up (so a value just over a limit never reads as equal to it).
 *
 * @example
 * ```ts
 * describeDuration(12 * 60_000_000); // '12 minutes'
 * describeDuration(300_000_001); // '5.1 minutes'
 * describeDuration(86_400_000_000); // '1 day'
 * ```
 */
export function describeDuration(us: number): string {
  for (const [name, width] of DESCRIBED_UNITS) {
    if (us >= width) {
      const value = Math.ceil((us / width) * 10) / 10;
      return `${value} ${name}${value === 1 ? '' : 's'}`;
    }
  }
  return `${Math.ceil(us)} microsecond${us === 1 ? '' : 's'}`;
}
