/**
 * Whether two answers of one endpoint agree, with the tolerances of CONTRACT section 6: counts,
 * min, max and log rows identical; averages equal up to floating-point summation order; p95/p99
 * exact for buckets of at most 100 values and within 1% above. The tests compare the service's
 * answers with the reference evaluator's this way, and `npm run bench:api` DuckDB's with the
 * API's.
 *
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import type { EndpointName } from '../src/contract/registry.ts';
import type { InvocationStatsRow, Row } from '../src/contract/rows.ts';

/** CONTRACT section 6: p95/p99 are exact for buckets of up to this many values (not imported). */
const EXACT_VALUES = 100;

/** CONTRACT section 6: quantiles of larger buckets are within 1% of the exact nearest rank. */
const QUANTILE_TOLERANCE = 0.01;

function close(actual: number | null, expected: number | null, relative: number): boolean {
  if (actual === null || expected === null) return actual === expected;
  if (actual === expected) return true;
  return Math.abs(actual - expected) <= relative * Math.abs(expected);
}

/** Whether `actual` is `expected`'s bucket within the tolerances above. */
export function invocationRowMatches(
  actual: InvocationStatsRow,
  expected: InvocationStatsRow,
): boolean {
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
 * Where `actual` rows of `endpoint` first differ from `expected` ones (the row count, or a row
 * with both values), or null when they agree.
 *
 * @example
 * ```ts
 * answerDifference('logs.all', [], []); // null
 * answerDifference('logs.all', [], [row]); // '0 rows, expected 1'
 * ```
 */
export function answerDifference(
  endpoint: EndpointName,
  actual: readonly Row[],
  expected: readonly Row[],
): string | null {
  if (actual.length !== expected.length) {
    return `${actual.length} rows, expected ${expected.length}`;
  }
  for (const [i, row] of expected.entries()) {
    const got = actual[i];
    const same = endpoint === 'functions.invocation-stats'
      ? invocationRowMatches(got as InvocationStatsRow, row as InvocationStatsRow)
      : isDeepStrictEqual(got, row);
    if (!same) return `row ${i} is ${JSON.stringify(got)}, expected ${JSON.stringify(row)}`;
  }
  return null;
}
