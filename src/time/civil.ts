/**
 * Proleptic Gregorian calendar arithmetic in UTC, without `Date`: converting between a civil
 * date and a count of days since 1970-01-01. Integer-only, so it is exact and cheap on the
 * hot path of event parsing and row formatting. Algorithms from Howard Hinnant,
 * "chrono-Compatible Low-Level Date Algorithms".
 *
 * @module
 */

/** Microseconds in one day. */
export const DAY_US = 86_400_000_000;

/**
 * Days from 1970-01-01 to the given civil date (negative before it). `month` is 1..12.
 *
 * @example
 * ```ts
 * daysFromCivil(1970, 1, 1); // 0
 * daysFromCivil(2026, 11, 21); // 20778
 * ```
 */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) +
    dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

/** A civil date: `month` 1..12, `day` 1..31. */
export interface CivilDate {
  readonly year: number;
  readonly month: number;
  readonly day: number;
}

/**
 * The civil date of a count of days since 1970-01-01.
 *
 * @example
 * ```ts
 * civilFromDays(20778); // { year: 2026, month: 11, day: 21 }
 * ```
 */
export function civilFromDays(days: number): CivilDate {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) -
    Math.floor(yearOfEra / 100));
  const mp = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return { year, month, day };
}

/**
 * Number of days in a month of the proleptic Gregorian calendar.
 *
 * @example
 * ```ts
 * daysInMonth(2024, 2); // 29
 * daysInMonth(2100, 2); // 28
 * ```
 */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/**
 * Splits integer microseconds into whole days since the epoch and the microseconds into that
 * day (always `0 <= us < DAY_US`, also before 1970). Uses the exact remainder rather than a
 * floating division, which would misround near day boundaries for large values.
 *
 * @example
 * ```ts
 * splitDays(86_400_000_001); // { days: 1, us: 1 }
 * splitDays(-1); // { days: -1, us: 86_399_999_999 }
 * ```
 */
export function splitDays(us: number): { days: number; us: number } {
  let rest = us % DAY_US;
  if (rest < 0) rest += DAY_US;
  return { days: (us - rest) / DAY_US, us: rest };
}
