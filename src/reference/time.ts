/**
 * The reference evaluator's own time arithmetic: grains, bucket starts, the DATETIME encoding
 * and the timestamps callers pass. Written from CONTRACT sections 4 and 5 and the parameter forms
 * docs/API.md lists, with the platform's `Date` and regular expressions: it shares no code with
 * `src/time/`, whose hand-written scanner and calendar arithmetic the oracle checks.
 *
 * @module
 */

/** Microseconds in each grain of CONTRACT section 5 (UTC has no leap seconds here). */
export const SECOND_US = 1_000_000;
export const MINUTE_US = 60 * SECOND_US;
export const HOUR_US = 60 * MINUTE_US;
export const DAY_US = 24 * HOUR_US;

/**
 * `trunc(t, g)` of CONTRACT section 5: the start of the grain of width `widthUs` holding `us`.
 *
 * @example
 * ```ts
 * bucketStart(90_500_000, MINUTE_US); // 60_000_000
 * bucketStart(-1, SECOND_US); // -1_000_000
 * ```
 */
export function bucketStart(us: number, widthUs: number): number {
  return Math.floor(us / widthUs) * widthUs;
}

/**
 * A DATETIME of CONTRACT section 4: `YYYY-MM-DDTHH:MM:SS` in UTC, without a zone.
 *
 * @example
 * ```ts
 * datetimeText(1_795_256_130_500_000); // '2026-11-21T10:15:30'
 * ```
 */
export function datetimeText(us: number): string {
  return new Date(Math.floor(us / 1000)).toISOString().slice(0, 19);
}

// Date, then optionally a time (seconds and 1 to 9 fractional digits optional) and a zone:
// `Z`, `±HH`, `±HH:MM`, `±HHMM`, or ` HH:MM` (a `+` that a query string decoded to a space).
const PARAMETER_TIMESTAMP = new RegExp(
  '^(\\d{4})-(\\d{2})-(\\d{2})' +
    '(?:[Tt ](\\d{2}):(\\d{2})(?::(\\d{2})(?:\\.(\\d{1,9}))?)?' +
    '(?:([Zz])|([+-])(\\d{2})(?::?(\\d{2}))?| (\\d{2}):(\\d{2}))?)?$',
);

/** Microseconds since the epoch are exact only within this many (about the years 1685..2255). */
const LIMIT_US = Number.MAX_SAFE_INTEGER;

/**
 * A caller's `iso_timestamp_start` or `iso_timestamp_end` (CONTRACT section 5, docs/API.md) in
 * microseconds, or null when it is not one: RFC 3339, the zone optional (then UTC); also a bare
 * date, a time without seconds, offsets `±HH` and `±HHMM`, and ` HH:MM`. Fractional digits
 * beyond the sixth are dropped.
 *
 * @example
 * ```ts
 * parameterInstant('2026-11-21T10:15:30.5+01:00'); // 1_795_252_530_500_000
 * parameterInstant('2026-02-30'); // null
 * ```
 */
export function parameterInstant(text: string): number | null {
  const match = PARAMETER_TIMESTAMP.exec(text);
  if (match === null) return null;
  const [, year, month, day, hour, minute, second, fraction] = match;
  const [, , , , , , , , utc, sign, zoneHours, zoneMinutes, spaceHours, spaceMinutes] = match;
  const fields = [year, month, day].map(Number);
  const clock = [hour, minute, second].map((part) => Number(part ?? 0));
  const [y = 0, mo = 0, d = 0] = fields;
  const [h = 0, mi = 0, s = 0] = clock;
  if (h > 23 || mi > 59 || s > 59) return null;

  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  if (date.getUTCFullYear() !== y || date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d) {
    return null;
  }
  date.setUTCHours(h, mi, s, 0);

  let offsetMinutes = 0;
  if (utc === undefined && (sign !== undefined || spaceHours !== undefined)) {
    const hours = Number(zoneHours ?? spaceHours);
    const minutes = Number(zoneMinutes ?? spaceMinutes ?? 0);
    if (hours > 23 || minutes > 59) return null;
    offsetMinutes = (sign === '-' ? -1 : 1) * (hours * 60 + minutes);
  }
  const micros = fraction === undefined ? 0 : Number(fraction.slice(0, 6).padEnd(6, '0'));
  const us = (date.getTime() - offsetMinutes * 60_000) * 1000 + micros;
  return Math.abs(us) <= LIMIT_US ? us : null;
}
