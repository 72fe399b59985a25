/**
 * An invocation-stats row's JSON, written straight as bytes, is byte for byte what
 * `JSON.stringify` writes for the row, for any numbers (non-finite ones, -0 and extremes too); so
 * are the rows of empty buckets written as copies of the one before, in any series.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  EmptyRowWriter,
  writeInvocationStatsRow,
} from '../../../src/endpoints/read/invocation-stats.ts';
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

/** The row of a bucket of `count` invocations, none of them timed. */
function untimed(timestamp: number, count: number): InvocationStatsRow {
  return {
    timestamp,
    count,
    error_count: 0,
    min_execution_time: null,
    max_execution_time: null,
    avg_execution_time: null,
    p95_execution_time: null,
    p99_execution_time: null,
  };
}

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
        const row = untimed(timestamp, count);
        expect(rowJson(row)).toBe(JSON.stringify(row));
      }),
    );
  });

  test('empty rows written as copies of the one before are what JSON.stringify writes', () => {
    const empty = (timestamp: number) => untimed(timestamp, 0);
    // Runs of whole seconds across a change of digit count, other timestamps between them, and
    // rows of counted buckets between empty ones.
    const second = fc.integer({ min: 1, max: 9_007_199_254 }).map((s) => s * 1_000_000);
    const run = fc.tuple(second, fc.integer({ min: 1, max: 12 }), fc.constantFrom(1, 60, 3_600))
      .map(([start, length, step]) =>
        Array.from({ length }, (_, i) => start + i * step * 1_000_000)
      );
    const row = fc.oneof(
      run.map((timestamps) => timestamps.map(empty)),
      anyNumber.map((timestamp) => [empty(timestamp)]),
      // After a timestamp of zero or below, whose text is not its seconds and six zeros.
      fc.constantFrom([0, 5e6], [-0, 5e6], [-1e6, 10e6], [-5e6, 5e6])
        .map((timestamps) => timestamps.map(empty)),
      // Across a change of digit count, one way and the other.
      fc.constantFrom([999_999_998, 999_999_999, 1_000_000_000], [1_000_000_000, 999_999_999])
        .map((seconds) => seconds.map((s) => empty(s * 1_000_000))),
      // Carries across several digits, a second twice, and back down.
      fc.constantFrom([1_795_099_999, 1_795_100_000, 1_795_100_000, 1_795_000_001, 1_794_999_999])
        .map((seconds) => seconds.map((s) => empty(s * 1_000_000))),
      fc.record({ timestamp: second, count: fc.integer({ min: 1 }) }).map((
        { timestamp, count },
      ) => [
        untimed(timestamp, count),
      ]),
    );
    fc.assert(
      fc.property(fc.array(row, { maxLength: 12 }), (groups) => {
        const rows = groups.flat();
        const out = new JsonBytes(16).byte(0x5b);
        const emptyRows = new EmptyRowWriter();
        rows.forEach(({ timestamp, ...result }, i) => {
          if (i > 0) out.byte(0x2c);
          if (result.count === 0) emptyRows.write(out, timestamp);
          else writeInvocationStatsRow(out, timestamp, result);
        });
        out.byte(0x5d);
        expect(new TextDecoder().decode(out.view())).toBe(JSON.stringify(rows));
      }),
      { numRuns: 2_000 },
    );
  });
});
