import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { civilFromDays, daysFromCivil, daysInMonth, splitDays } from '../../src/time/civil.ts';

describe('civil calendar', () => {
  it('agrees with Date for every day of years 0..9999', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: daysFromCivil(0, 1, 1), max: daysFromCivil(9999, 12, 31) }),
        (days) => {
          const date = new Date(days * 86_400_000);
          const civil = civilFromDays(days);
          expect(civil).toEqual({
            year: date.getUTCFullYear(),
            month: date.getUTCMonth() + 1,
            day: date.getUTCDate(),
          });
          expect(daysFromCivil(civil.year, civil.month, civil.day)).toBe(days);
        },
      ),
    );
  });

  it.each([[400, 2, 29], [1600, 2, 29], [2000, 2, 29], [2400, 2, 29], [2000, 3, 1], [
    1999,
    12,
    31,
  ]])(
    'reads %d-%d-%d, at and around the last day of a 400-year cycle, as Date does',
    (year, month, day) => {
      const days = Date.UTC(year, month - 1, day) / 86_400_000;
      expect(civilFromDays(days)).toEqual({ year, month, day });
    },
  );

  it.each([
    [2024, 2, 29],
    [2026, 2, 28],
    [2000, 2, 29],
    [2100, 2, 28],
    [2026, 4, 30],
    [2026, 12, 31],
  ])('%d-%d has %d days', (year, month, days) => {
    expect(daysInMonth(year, month)).toBe(days);
  });

  it('splits microseconds into days and a non-negative rest', () => {
    expect(splitDays(86_400_000_001)).toEqual({ days: 1, us: 1 });
    expect(splitDays(-1)).toEqual({ days: -1, us: 86_399_999_999 });
    expect(splitDays(0)).toEqual({ days: 0, us: 0 });
  });
});
