/**
 * An invocation-stats row's JSON, written straight as bytes, is byte for byte what
 * `JSON.stringify` writes for the row, for any numbers (non-finite ones, -0 and extremes too).
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { writeInvocationStatsRow } from '../../../src/endpoints/read/invocation-stats.ts';
import { JsonBytes } from '../../../src/text/json-bytes.ts';
import type { InvocationStatsRow } from '../../../src/contract/rows.ts';

const anyNumber = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, Number.MAX_SAFE_INTEGER, 1e21, 1e-7, 5e-324),
  // Bucket starts: whole seconds in microseconds, up to and past the safe integers.
  fc.integer({ min: -9_007_199_254, max: 9_007_199_254 }).map((seconds) => seconds * 1_000_000),
  fc.integer({ min: 1, max: 1e6 }).map((seconds) => seconds * 1e16),
);
const nullable = fc.option(anyNumber, { nil: null });

/** The row as the read side writes it. */
function rowJson({ timestamp, ...result }: InvocationStatsRow): string {
  const out = new JsonBytes(64);
  writeInvocationStatsRow(out, timestamp, result);
  return new TextDecoder().decode(out.view());
}

describe('an invocation-stats row as JSON bytes', () => {
  test('is what JSON.stringify writes, in the order the read side builds rows', () => {
    fc.assert(
      fc.property(
        fc.record({
          timestamp: anyNumber,
          count: anyNumber,
          error_count: anyNumber,
          min_execution_time: nullable,
          max_execution_time: nullable,
          avg_execution_time: nullable,
          p95_execution_time: nullable,
          p99_execution_time: nullable,
        }),
        (row: InvocationStatsRow) => {
          expect(rowJson(row)).toBe(JSON.stringify(row));
        },
      ),
      { numRuns: 2_000 },
    );
  });

  test('a row with nothing timed, at any timestamp', () => {
    fc.assert(
      fc.property(anyNumber, fc.constantFrom(0, -0), (timestamp, count) => {
        const row: InvocationStatsRow = {
          timestamp,
          count,
          error_count: 0,
          min_execution_time: null,
          max_execution_time: null,
          avg_execution_time: null,
          p95_execution_time: null,
          p99_execution_time: null,
        };
        expect(rowJson(row)).toBe(JSON.stringify(row));
      }),
    );
  });
});
