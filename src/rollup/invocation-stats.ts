/**
 * The rollup state of `functions.invocation-stats` for one bucket: invocation and error counts,
 * status-class counts, min/max/sum of execution times and a quantile sketch of them.
 *
 * @module
 */
import type { Invocation } from '../events/types.ts';
import { type Aggregate, countAfter, type StoredState, storedText } from './aggregate.ts';
import {
  fromSerialized,
  quantile,
  type QuantileSketch,
  quantileSketch,
  readSketch,
  writeSketch,
} from './quantiles.ts';
import { SevenBitReader, SevenBitWriter } from '../text/seven-bit.ts';
import { readSketchQuantiles, type TwoQuantiles } from './stored-quantiles.ts';
import { binaryHeadCount, expectFormat, STATE_FORMATS } from './state-format.ts';

/** One bucket's invocation statistics. */
export interface InvocationStats {
  count: number;
  errorCount: number;
  /** Invocations per status class: index 0 for 1xx … index 4 for 5xx. */
  statusClasses: number[];
  /** How many invocations had a non-null execution time. */
  timedCount: number;
  sum: number;
  min: number | null;
  max: number | null;
  times: QuantileSketch;
}

/** What one bucket finalizes to: the numeric columns of an invocation-stats row. */
export interface InvocationStatsResult {
  count: number;
  error_count: number;
  min_execution_time: number | null;
  max_execution_time: number | null;
  avg_execution_time: number | null;
  p95_execution_time: number | null;
  p99_execution_time: number | null;
}

type Serialized = {
  n: number;
  e: number;
  s: number[];
  t: number;
  sum: number;
  min: number | null;
  max: number | null;
  q: unknown;
};

function minOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return a < b ? a : b;
}

function maxOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return a > b ? a : b;
}

const FORMAT = STATE_FORMATS.invocationStatsV1;
const STATUS_CLASSES = 5;
/** Bits of the byte that says which of `min` and `max` follow. */
const HAS_MIN = 1;
const HAS_MAX = 2;
const out = new SevenBitWriter();

/** A state written before the binary form: the JSON text of `Serialized`. */
function fromJson(text: string): InvocationStats {
  const form = JSON.parse(text) as Partial<Serialized> | null;
  if (
    form === null || typeof form !== 'object' || typeof form.n !== 'number' ||
    typeof form.e !== 'number' || !Array.isArray(form.s) || form.s.length !== 5 ||
    typeof form.t !== 'number' || typeof form.sum !== 'number'
  ) {
    throw new Error(`invocation stats state is malformed: ${text.slice(0, 80)}`);
  }
  return {
    count: form.n,
    errorCount: form.e,
    statusClasses: form.s.map(Number),
    timedCount: form.t,
    sum: form.sum,
    min: typeof form.min === 'number' ? form.min : null,
    max: typeof form.max === 'number' ? form.max : null,
    times: fromSerialized(form.q),
  };
}

/** Everything of a binary state before its sketch. */
interface BinaryHead {
  count: number;
  errorCount: number;
  timedCount: number;
  sum: number;
  min: number | null;
  max: number | null;
}

/** Where {@link readHead} puts what it reads when nothing keeps it (one answer's buckets). */
const HEAD: BinaryHead = { count: 0, errorCount: 0, timedCount: 0, sum: 0, min: null, max: null };

/**
 * Reads a binary state's head into `head` from `input` (after its format byte), its status classes
 * into `classes` (or past them, given null).
 */
function readHead(input: SevenBitReader, head: BinaryHead, classes: number[] | null): void {
  head.count = input.unsigned();
  head.errorCount = input.unsigned();
  for (let i = 0; i < STATUS_CLASSES; i++) {
    const value = input.unsigned();
    classes?.push(value);
  }
  head.timedCount = input.unsigned();
  head.sum = input.real();
  const present = input.byte();
  if (present > (HAS_MIN | HAS_MAX)) {
    throw new Error(`invocation stats state has an unknown presence byte: ${present}`);
  }
  head.min = (present & HAS_MIN) === 0 ? null : input.real();
  head.max = (present & HAS_MAX) === 0 ? null : input.real();
}

/**
 * A state in format {@link STATE_FORMATS.invocationStatsV1}: the count (first, for `headCount`),
 * errors, the five status classes and the timed count as unsigned varints; the sum; a byte saying
 * which of min and max follow, then those; then the sketch ({@link writeSketch}).
 */
function fromBinary(stored: StoredState): InvocationStats {
  const input = new SevenBitReader(stored, 1);
  const statusClasses: number[] = [];
  const head: BinaryHead = { count: 0, errorCount: 0, timedCount: 0, sum: 0, min: null, max: null };
  readHead(input, head, statusClasses);
  const times = readSketch(input);
  if (!input.done) throw new Error('invocation stats state has bytes after its sketch');
  const { count, errorCount, timedCount, sum, min, max } = head;
  // In the order `empty` gives them: states of one shape.
  return { count, errorCount, statusClasses, timedCount, sum, min, max, times };
}

/** Where {@link finalizeBinary} reads a sketch's quantiles into. */
const QUANTILES: TwoQuantiles = { low: null, high: null };

/** What a binary state finalizes to, read without building the state (its sketch above all). */
function finalizeBinary(stored: StoredState): InvocationStatsResult {
  const input = new SevenBitReader(stored, 1);
  readHead(input, HEAD, null);
  readSketchQuantiles(input, 0.95, 0.99, QUANTILES);
  if (!input.done) throw new Error('invocation stats state has bytes after its sketch');
  return resultOf(HEAD, QUANTILES.low, QUANTILES.high);
}

/** The result of a state's head and its sketch's p95 and p99: no times when none was timed. */
function resultOf(
  head: BinaryHead,
  p95: number | null,
  p99: number | null,
): InvocationStatsResult {
  const timed = head.timedCount > 0;
  return {
    count: head.count,
    error_count: head.errorCount,
    min_execution_time: head.min,
    max_execution_time: head.max,
    avg_execution_time: timed ? head.sum / head.timedCount : null,
    p95_execution_time: timed ? p95 : null,
    p99_execution_time: timed ? p99 : null,
  };
}

/**
 * What one stored state finalizes to, as `finalize(deserialize(stored))` gives it, with the same
 * errors (the readers of the head and of bins are theirs): a binary state is read straight into its
 * result (a `5min` answer finalizes most of its buckets from one part each, and building each state
 * cost it more than reading it).
 */
export function finalizeStored(stored: StoredState): InvocationStatsResult {
  if (expectFormat(stored, FORMAT, 'invocation stats') === 'json') {
    return invocationStats.finalize(fromJson(storedText(stored)));
  }
  return finalizeBinary(stored);
}

/**
 * Starts a state's stored form ({@link STATE_FORMATS.invocationStatsV1}) with everything before
 * its sketch, the five status classes read from `classes[classesAt]` on; answers the writer,
 * for the sketch ({@link writeSketch}), then its `text()`. For a state kept in columns.
 */
export function writeInvocationHead(
  count: number,
  errorCount: number,
  classes: ArrayLike<number>,
  classesAt: number,
  timedCount: number,
  sum: number,
  min: number | null,
  max: number | null,
): SevenBitWriter {
  out.byte(FORMAT).unsigned(count).unsigned(errorCount);
  for (let i = 0; i < STATUS_CLASSES; i++) out.unsigned(classes[classesAt + i] ?? 0);
  out.unsigned(timedCount).real(sum);
  out.byte((min === null ? 0 : HAS_MIN) | (max === null ? 0 : HAS_MAX));
  if (min !== null) out.real(min);
  if (max !== null) out.real(max);
  return out;
}

/** Invocation statistics as an {@link Aggregate} over invocations. */
export const invocationStats: Aggregate<InvocationStats, Invocation, InvocationStatsResult> = {
  empty: () => ({
    count: 0,
    errorCount: 0,
    statusClasses: [0, 0, 0, 0, 0],
    timedCount: 0,
    sum: 0,
    min: null,
    max: null,
    times: quantileSketch.empty(),
  }),

  add(state, invocation) {
    state.count += 1;
    const status = invocation.statusCode;
    if (status !== null) {
      if (status >= 400) state.errorCount += 1;
      const statusClass = Math.floor(status / 100);
      if (statusClass >= 1 && statusClass <= 5) {
        state.statusClasses[statusClass - 1] = (state.statusClasses[statusClass - 1] ?? 0) + 1;
      }
    }
    const time = invocation.executionTimeMs;
    if (time !== null) {
      state.timedCount += 1;
      state.sum += time;
      state.min = minOf(state.min, time);
      state.max = maxOf(state.max, time);
      state.times = quantileSketch.add(state.times, time);
    }
    return state;
  },

  merge(into, other) {
    into.count += other.count;
    into.errorCount += other.errorCount;
    // In place: a flush merges every bucket it touches into the stored state.
    const classes = into.statusClasses;
    for (let i = 0; i < classes.length; i++) {
      classes[i] = (classes[i] ?? 0) + (other.statusClasses[i] ?? 0);
    }
    into.timedCount += other.timedCount;
    into.sum += other.sum;
    into.min = minOf(into.min, other.min);
    into.max = maxOf(into.max, other.max);
    into.times = quantileSketch.merge(into.times, other.times);
    return into;
  },

  finalize(state) {
    const timed = state.timedCount > 0;
    return resultOf(
      state,
      timed ? quantile(state.times, 0.95) : null,
      timed ? quantile(state.times, 0.99) : null,
    );
  },

  serialize(state) {
    const { count, errorCount, statusClasses, timedCount, sum, min, max } = state;
    writeSketch(
      writeInvocationHead(count, errorCount, statusClasses, 0, timedCount, sum, min, max),
      state.times,
    );
    return out.text();
  },

  deserialize: (stored) =>
    expectFormat(stored, FORMAT, 'invocation stats') === 'json'
      ? fromJson(storedText(stored))
      : fromBinary(stored),

  // A stored state starts with its count (see `serialize`): a minute's state with its sketch
  // costs tens of microseconds to read whole.
  headCount: (head) => binaryHeadCount(head, FORMAT) ?? countAfter(storedText(head), '{"n":'),
};
