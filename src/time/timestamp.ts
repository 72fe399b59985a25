/**
 * Timestamps as integer microseconds since the Unix epoch (UTC): parsing RFC 3339 text from
 * producers and callers, and formatting the one output form of the API.
 *
 * Parsing is a hand-written scanner (no regular expression, no `Date`), because it runs on
 * every ingested event. Decisions:
 * - Fractional seconds may have 1 to 9 digits; digits beyond the sixth are truncated (not
 *   rounded), so a nanosecond timestamp lands in the same microsecond, second and bucket as
 *   the instant it names.
 * - The date/time separator may be `T`, `t` or a space (RFC 3339 section 5.6 note); `Z` may be
 *   lower case. `-00:00` is taken as UTC.
 * - A leap second (`:60`) is rejected: no calendar arithmetic here can represent it.
 * - Years 0000..9999 are syntactically accepted, but a result must be a safe integer of
 *   microseconds (up to the year 2255), otherwise it is rejected.
 *
 * @module
 */

import { civilFromDays, DAY_US, daysFromCivil, daysInMonth, splitDays } from './civil.ts';

const DIGIT_0 = 48;

/** What the scanner accepts beyond strict RFC 3339. */
interface Leniency {
  /** A value without a zone is UTC. */
  readonly zoneOptional: boolean;
  /** `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM`, offsets `+HHMM`, `+HH`, and ` HH:MM` (a decoded `+`). */
  readonly shortForms: boolean;
}

const STRICT: Leniency = { zoneOptional: false, shortForms: false };
const PARAMETER: Leniency = { zoneOptional: true, shortForms: true };

/**
 * Parses an RFC 3339 timestamp with a zone (`Z` or `±hh:mm`) into integer microseconds since
 * the epoch. Returns null for anything else, including a missing zone, an impossible date
 * (`2026-02-30`), more than 9 fractional digits, or a value beyond safe-integer microseconds.
 *
 * @example
 * ```ts
 * parseTimestamp('2026-11-21T10:15:30.123456Z'); // 1795256130123456
 * parseTimestamp('2026-11-21T11:15:30.123456789+01:00'); // 1795256130123456 (truncated)
 * parseTimestamp('2026-11-21T10:15:30'); // null: no zone
 * ```
 */
export function parseTimestamp(text: string): number | null {
  return scan(text, STRICT);
}

/**
 * Parses a timestamp given as an API parameter (`logs.all`'s `iso_timestamp_start` and
 * `iso_timestamp_end`). As the reference system's cast does, a value without a zone is taken
 * as UTC; a date alone is midnight UTC, and seconds may be omitted. Offsets may be `±hh:mm`,
 * `±hhmm` or `±hh`; because a query string decodes `+` as a space, `2026-11-21T10:15:00 01:00`
 * is read as `+01:00`.
 *
 * @example
 * ```ts
 * parseParameterTimestamp('2026-11-21T10:15:00'); // 1795255500000000 (UTC)
 * parseParameterTimestamp('2026-11-21'); // 1795219200000000
 * parseParameterTimestamp('yesterday'); // null
 * ```
 */
export function parseParameterTimestamp(text: string): number | null {
  return scan(text, PARAMETER);
}

/**
 * Formats integer microseconds as RFC 3339 UTC with `Z` and exactly 6 fractional digits, the
 * only timestamp form the API returns.
 *
 * @throws {RangeError} when `us` is not a safe integer (safe integers span the years 1684..2255).
 *
 * @example
 * ```ts
 * formatTimestamp(1795255500000000); // '2026-11-21T10:05:00.000000Z'
 * formatTimestamp(0); // '1970-01-01T00:00:00.000000Z'
 * ```
 */
export function formatTimestamp(us: number): string {
  if (!Number.isSafeInteger(us)) {
    throw new RangeError(`formatTimestamp expects a safe integer of microseconds: got ${us}`);
  }
  const split = splitDays(us);
  const date = civilFromDays(split.days);
  const inDay = split.us;
  const hour = Math.floor(inDay / 3_600_000_000);
  const minute = Math.floor(inDay / 60_000_000) % 60;
  const second = Math.floor(inDay / 1_000_000) % 60;
  const micro = inDay % 1_000_000;
  return `${pad(date.year, 4)}-${pad(date.month, 2)}-${pad(date.day, 2)}T${pad(hour, 2)}:${
    pad(minute, 2)
  }:${pad(second, 2)}.${pad(micro, 6)}Z`;
}

/**
 * A DATETIME value as the reference system's warehouse returns it: `YYYY-MM-DDTHH:MM:SS` in UTC,
 * without a zone and without fractional seconds (truncated).
 *
 * @example
 * ```ts
 * formatDatetime(1_795_256_130_123_456); // '2026-11-21T10:15:30'
 * ```
 */
export function formatDatetime(us: number): string {
  return formatTimestamp(us).slice(0, 19);
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}

/** Reads `count` decimal digits at `at`; -1 when any is missing or not a digit. */
function digitsAt(text: string, at: number, count: number): number {
  let value = 0;
  for (let i = 0; i < count; i++) {
    // charCodeAt past the end is NaN, which fails the range test below.
    const digit = text.charCodeAt(at + i) - DIGIT_0;
    if (!(digit >= 0 && digit <= 9)) return -1;
    value = value * 10 + digit;
  }
  return value;
}

function scan(text: string, rules: Leniency): number | null {
  const length = text.length;
  if (length < 10 || length > 40) return null;
  const year = digitsAt(text, 0, 4);
  const month = digitsAt(text, 5, 2);
  const day = digitsAt(text, 8, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (text[4] !== '-' || text[7] !== '-') return null;
  const days = daysFromCivil(year, month, day);
  if (length === 10) {
    const midnight = days * DAY_US;
    return rules.shortForms && rules.zoneOptional && Number.isSafeInteger(midnight)
      ? midnight
      : null;
  }

  const separator = text[10];
  if (separator !== 'T' && separator !== 't' && separator !== ' ') return null;
  const hour = digitsAt(text, 11, 2);
  const minute = digitsAt(text, 14, 2);
  if (hour < 0 || hour > 23 || text[13] !== ':' || minute < 0 || minute > 59) return null;
  let second = 0;
  let fractionUs = 0;
  let at = 16;
  if (text[16] === ':') {
    second = digitsAt(text, 17, 2);
    if (second < 0 || second > 59) return null;
    at = 19;
    if (text[19] === '.') {
      const start = 20;
      let end = start;
      while (end < length && isDigit(text.charCodeAt(end))) end++;
      const count = end - start;
      if (count < 1 || count > 9) return null;
      const kept = count < 6 ? count : 6;
      fractionUs = digitsAt(text, start, kept) * 10 ** (6 - kept);
      at = end;
    }
  } else if (!rules.shortForms) {
    return null;
  }

  const offsetSeconds = scanZone(text, at, rules);
  if (offsetSeconds === null) return null;
  const us = ((days * 86_400 + hour * 3_600 + minute * 60 + second) - offsetSeconds) * 1_000_000 +
    fractionUs;
  return Number.isSafeInteger(us) ? us : null;
}

function isDigit(code: number): boolean {
  return code >= DIGIT_0 && code <= DIGIT_0 + 9;
}

/** The zone offset in seconds east of UTC, or null when the rest of the text is not a zone. */
function scanZone(text: string, at: number, rules: Leniency): number | null {
  const length = text.length;
  if (at === length) return rules.zoneOptional ? 0 : null;
  const sign = text[at];
  if (sign === 'Z' || sign === 'z') return at + 1 === length ? 0 : null;
  const decodedPlus = rules.shortForms && sign === ' ';
  if (sign !== '+' && sign !== '-' && !decodedPlus) return null;
  const hours = digitsAt(text, at + 1, 2);
  if (hours < 0 || hours > 23) return null;
  let minutes: number;
  if (at + 3 === length && rules.shortForms && !decodedPlus) {
    minutes = 0;
  } else if (text[at + 3] === ':' && at + 6 === length) {
    minutes = digitsAt(text, at + 4, 2);
  } else if (at + 5 === length && rules.shortForms && !decodedPlus) {
    minutes = digitsAt(text, at + 3, 2);
  } else {
    return null;
  }
  if (minutes < 0 || minutes > 59) return null;
  const offset = hours * 3_600 + minutes * 60;
  return sign === '-' ? -offset : offset;
}
