/**
 * Compares endpoint answers with the reference evaluator's, with the tolerances of CONTRACT
 * section 6: counts, min, max and log rows identical; averages equal up to floating-point
 * summation order; p95/p99 exact for buckets of at most 100 values and within 1% above.
 *
 * @module
 */
import { expect } from 'vitest';
import type { EndpointName } from '../../src/contract/registry.ts';
import type { InvocationStatsRow, Row } from '../../src/contract/rows.ts';

/** CONTRACT section 6: p95/p99 are exact for buckets of up to this many values (not imported). */
const EXACT_VALUES = 100;

/** CONTRACT section 6: quantiles of larger buckets are within 1% of the exact nearest rank. */
export const QUANTILE_TOLERANCE = 0.01;

function close(actual: number | null, expected: number | null, relative: number): boolean {
  if (actual === null || expected === null) return actual === expected;
  if (actual === expected) return true;
  return Math.abs(actual - expected) <= relative * Math.abs(expected);
}

function invocationRowMatches(actual: InvocationStatsRow, expected: InvocationStatsRow): boolean {
  const quantileTolerance = expected.count <= EXACT_VALUES ? 0 : QUANTILE_TOLERANCE;
  return actual.timestamp === expected.timestamp && actual.count === expected.count &&
    actual.error_count === expected.error_count &&
    actual.min_execution_time === expected.min_execution_time &&
    actual.max_execution_time === expected.max_execution_time &&
    close(actual.avg_execution_time, expected.avg_execution_time, 1e-9) &&
    close(actual.p95_execution_time, expected.p95_execution_time, quantileTolerance) &&
    close(actual.p99_execution_time, expected.p99_execution_time, quantileTolerance);
}

/**
 * Asserts that `actual` rows answer `endpoint` as `expected` (the reference) does. `label`
 * names the query in the failure message.
 */
export function expectSameAnswer(
  endpoint: EndpointName,
  actual: readonly Row[],
  expected: readonly Row[],
  label: string,
): void {
  if (endpoint !== 'functions.invocation-stats') {
    expect(actual, label).toEqual(expected);
    return;
  }
  expect(actual.length, `${label}: row count`).toBe(expected.length);
  expected.forEach((row, i) => {
    const got = actual[i] as InvocationStatsRow;
    if (!invocationRowMatches(got, row as InvocationStatsRow)) {
      expect(got, `${label}: row ${i}`).toEqual(row);
    }
  });
}
