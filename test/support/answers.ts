/**
 * Compares endpoint answers with the reference evaluator's, with the tolerances of CONTRACT
 * section 6 (`tools/same-answer.ts`), as vitest assertions whose failure shows the row.
 *
 * @module
 */
import { expect } from 'vitest';
import type { EndpointName } from '../../src/contract/registry.ts';
import type { InvocationStatsRow, Row } from '../../src/contract/rows.ts';
import { invocationRowMatches } from '../../tools/same-answer.ts';

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
