/**
 * `functions.invocation-stats` from the rollups: every writer's part of each bucket of the
 * series, read in one round trip (the seconds of `5min` as `seconds.ts` reads them), merged and
 * finalized.
 *
 * @module
 */
import {
  finalizeStored,
  invocationStats,
  type InvocationStatsResult,
} from '../../rollup/invocation-stats.ts';
import {
  bucketSlot,
  functionScope,
  invocationBucketKey,
  invocationKey,
  partAddress,
  projectPrefix,
} from '../../rollup/keys.ts';
import { mergeParts, readStateOrReport } from '../../rollup/unreadable.ts';
import type { JsonBytes } from '../../text/json-bytes.ts';
import { CLOSE_BRACE } from '../../text/json-chars.ts';
import { INVOCATION_INTERVALS, invocationSeries } from '../../time/series.ts';
import type { InvocationStatsParams } from '../../contract/params/invocation-stats.ts';
import type { InvocationStatsRow } from '../../contract/rows.ts';
import type { ReadContext } from './context.ts';
import { type AnswerLimits, type RowsJson, writeRows } from './rows-json.ts';
import { readSeconds } from './seconds.ts';
import { ValueDigest } from './value-digest.ts';

/**
 * A bucket's one stored part read as what it finalizes to, in the shape `readStateOrReport` reads
 * with (its `deserialize` is the whole reading).
 */
const FINALIZED = { deserialize: finalizeStored };

/** What an empty bucket finalizes to (most buckets of a `5min` series are empty). */
const EMPTY_RESULT = invocationStats.finalize(invocationStats.empty());

const UTF8 = new TextEncoder();
const TIMESTAMP = UTF8.encode('{"timestamp":');
const COUNT = UTF8.encode(',"count":');
const ERROR_COUNT = UTF8.encode(',"error_count":');
const MIN = UTF8.encode(',"min_execution_time":');
const MAX = UTF8.encode(',"max_execution_time":');
const AVG = UTF8.encode(',"avg_execution_time":');
const P95 = UTF8.encode(',"p95_execution_time":');
const P99 = UTF8.encode(',"p99_execution_time":');
/** The row of an empty bucket after its timestamp. */
const EMPTY_ROW_TAIL = UTF8.encode(
  `,"count":0,"error_count":0,"min_execution_time":null,"max_execution_time":null,` +
    `"avg_execution_time":null,"p95_execution_time":null,"p99_execution_time":null}`,
);

/** A bucket's row, written as `JSON.stringify` writes {@link rowOf}'s object. */
export function writeInvocationStatsRow(
  out: JsonBytes,
  timestamp: number,
  result: InvocationStatsResult,
): void {
  out.bytes(TIMESTAMP).timestamp(timestamp);
  if (result === EMPTY_RESULT) {
    out.bytes(EMPTY_ROW_TAIL);
    return;
  }
  const max = result.max_execution_time;
  out.bytes(COUNT).number(result.count).bytes(ERROR_COUNT).number(result.error_count)
    .bytes(MIN).number(result.min_execution_time).bytes(MAX);
  const maxStart = out.length;
  out.number(max);
  const maxEnd = out.length;
  out.bytes(AVG).number(result.avg_execution_time).bytes(P95);
  // The high quantiles of a small bucket are its maximum: its text, copied.
  const p95 = result.p95_execution_time;
  if (p95 === max) out.again(maxStart, maxEnd);
  else out.number(p95);
  const p99 = result.p99_execution_time;
  out.bytes(P99);
  if (p99 === max) out.again(maxStart, maxEnd);
  else out.number(p99);
  out.byte(CLOSE_BRACE);
}

/**
 * Writes the rows of empty buckets (most of a `5min` series): each as a copy of the last one
 * written with its timestamp's digits written over, where both start on a whole second whose
 * number has as many digits (the buckets of a series do), else whole as
 * {@link writeInvocationStatsRow} writes it. One per answer: it remembers where its last row is.
 */
export class EmptyRowWriter {
  /** Where the last row written starts and ends in the answer's bytes. */
  #start = 0;
  #end = 0;
  /**
   * The digits of the last row's seconds; 0 before the first row, and when its timestamp is not
   * a positive whole second at or below 2^53 µs (as `JsonBytes.timestamp` writes those).
   */
  #digits = 0;

  /** Appends the row of an empty bucket starting at `timestampUs`. */
  write(out: JsonBytes, timestampUs: number): void {
    const start = out.length;
    const seconds = timestampUs / 1_000_000;
    const digits = this.#digits;
    // A timestamp below 2^53 µs is a whole second exactly when this quotient is an integer (no
    // fmod): any remainder moves it more than half a double's step away from one there.
    if (
      digits > 0 && Math.floor(seconds) === seconds && timestampUs <= Number.MAX_SAFE_INTEGER &&
      seconds >= (POWERS_OF_TEN[digits - 1] ?? Infinity) &&
      seconds < (POWERS_OF_TEN[digits] ?? 0)
    ) {
      out.again(this.#start, this.#end).digitsAt(start + TIMESTAMP.length, seconds, digits);
    } else {
      out.bytes(TIMESTAMP).timestamp(timestampUs).bytes(EMPTY_ROW_TAIL);
      // The timestamps `JsonBytes.timestamp` writes as their seconds and six zeros.
      this.#digits = timestampUs > 0 && timestampUs % 1_000_000 === 0 &&
          timestampUs <= Number.MAX_SAFE_INTEGER
        ? String(seconds).length
        : 0;
    }
    this.#start = start;
    this.#end = out.length;
  }
}

/**
 * 10^0 to 10^10, the bounds of a number of seconds with as many digits: a whole second at or below
 * 2^53 µs has at most ten.
 */
const POWERS_OF_TEN = Array.from({ length: 11 }, (_, i) => 10 ** i);

/** Each bucket of the series, ascending, and its statistics ({@link EMPTY_RESULT} when empty). */
async function readResults(
  context: ReadContext,
  params: InvocationStatsParams,
): Promise<{ readonly series: readonly number[]; readonly results: InvocationStatsResult[] }> {
  const { grain } = INVOCATION_INTERVALS[params.interval];
  const series = invocationSeries(context.nowUs, params.interval);
  const prefix = projectPrefix(params.project);
  const scope = functionScope(params.functionId);
  const buckets = grain === 'second'
    ? (await readSeconds(context.store, {
      scopes: [(suffix) => invocationBucketKey(prefix, scope, suffix)],
      seconds: series,
      headCount: invocationStats.headCount,
    }))[0] ?? []
    : await context.store.readBuckets(
      series.map((bucket) => invocationKey(prefix, scope, grain, bucket)),
    );
  const results = series.map((bucket, i) => {
    const parts = buckets[i] ?? [];
    if (parts.length === 0) return EMPTY_RESULT;
    const address = partAddress(
      invocationKey(prefix, scope, grain, bucket),
      bucketSlot(grain, bucket),
    );
    // One writer's part (most buckets): finalized from its stored form, no state built.
    if (parts.length === 1) {
      const only = parts[0] as Uint8Array;
      return readStateOrReport(FINALIZED, address, only, context.onUnreadable) ?? EMPTY_RESULT;
    }
    // Null when no part is readable.
    const state = mergeParts(invocationStats, address, parts, context.onUnreadable);
    return state === null ? EMPTY_RESULT : invocationStats.finalize(state);
  });
  return { series, results };
}

/**
 * The rows of {@link readInvocationStats} (within `limits`) as the UTF-8 bytes of a JSON array,
 * with `before` and `after` around it, each written straight into the answer's bytes.
 */
export async function readInvocationStatsJson(
  context: ReadContext,
  params: InvocationStatsParams,
  limits: AnswerLimits,
  before: Uint8Array,
  after: Uint8Array,
): Promise<RowsJson> {
  const { series, results } = await readResults(context, params);
  const empty = new EmptyRowWriter();
  const rows = writeRows(limits, before, after, series.length, (out, i) => {
    const timestamp = series[i] as number;
    const result = results[i] ?? EMPTY_RESULT;
    if (result === EMPTY_RESULT) empty.write(out, timestamp);
    else writeInvocationStatsRow(out, timestamp, result);
  });
  return { ...rows, digest: digestOf(series, results) };
}

/**
 * The values the rows are written from: the first bucket and how many there are (each row's
 * timestamp follows), then per bucket -1 when it is empty, else its seven values.
 */
function digestOf(
  series: readonly number[],
  results: readonly InvocationStatsResult[],
): Uint8Array {
  let values = 2;
  for (const result of results) values += result === EMPTY_RESULT ? 1 : 7;
  const digest = new ValueDigest(values);
  digest.add(series[0] ?? null).add(series.length);
  for (const result of results) {
    if (result === EMPTY_RESULT) {
      digest.add(-1);
      continue;
    }
    digest.add(result.count).add(result.error_count).add(result.min_execution_time)
      .add(result.max_execution_time).add(result.avg_execution_time)
      .add(result.p95_execution_time).add(result.p99_execution_time);
  }
  return digest.bytes();
}

/** Every bucket of the series, ascending, empty ones included. */
export async function readInvocationStats(
  context: ReadContext,
  params: InvocationStatsParams,
): Promise<InvocationStatsRow[]> {
  const { series, results } = await readResults(context, params);
  return series.map((bucket, i) => rowOf(bucket, results[i] ?? EMPTY_RESULT));
}

/**
 * The row of a bucket, its fields written out: spreading the result took 8% of an API process's
 * CPU answering `5min` without reuse.
 */
function rowOf(timestamp: number, result: InvocationStatsResult): InvocationStatsRow {
  return {
    timestamp,
    count: result.count,
    error_count: result.error_count,
    min_execution_time: result.min_execution_time,
    max_execution_time: result.max_execution_time,
    avg_execution_time: result.avg_execution_time,
    p95_execution_time: result.p95_execution_time,
    p99_execution_time: result.p99_execution_time,
  };
}
