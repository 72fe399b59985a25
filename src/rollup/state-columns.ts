/**
 * The fold's bucket states in columns: no object per state and no hash map keyed by text while
 * events are folded. A state is a record number; its numbers live in one `Float64Array` (a fixed
 * stride per record), the exact execution times of its quantile sketch in an arena of doubles,
 * and it is found by (scope, bucket), two small integers the fold hands out, in an
 * open-addressing table. Only a sketch past {@link EXACT_LIMIT} values, binned, is an object (a
 * few per flush). At a flush the states are read back as the aggregates' objects, whose stored
 * text is exactly what folding them one by one through `invocationStats.add` and
 * `usageCounts.add` gives: the same operations, in the same order, on the same doubles.
 *
 * Each scope's records form a list in the order they were made, so a flush writes them in the
 * order the fold met them.
 *
 * @example
 * ```ts
 * const columns = new StateColumns();
 * const scope = columns.newScope();
 * const record = columns.record(scope, bucketId);
 * columns.addInvocation(record, 200, 12.5);
 * columns.invocationState(record); // { count: 1, statusClasses: [0, 1, 0, 0, 0], … }
 * columns.reset();
 * ```
 *
 * @module
 */
import { EXACT_LIMIT, type QuantileSketch, quantileSketch } from './quantiles.ts';
import type { InvocationStats } from './invocation-stats.ts';
import type { UsageCounts } from './usage-counts.ts';

/** Doubles per record: the widest state, invocation stats, has 11. */
const STRIDE = 11;
const COUNT = 0;
const ERRORS = 1;
/** Five status classes, 1xx to 5xx, from here on. */
const CLASSES = 2;
const TIMED = 7;
const SUM = 8;
const MIN = 9;
const MAX = 10;
/** Usage counts: the total, then one count per family bit from here on. */
const FAMILY_COUNTS = 1;

/** Integers per record: its bucket, the next record of its scope, its exact values' span. */
const META = 5;
const BUCKET = 0;
const NEXT = 1;
const VALUES_START = 2;
const VALUES_LENGTH = 3;
const VALUES_ROOM = 4;

/** Room for exact values a record is first given; doubled as it fills, up to the limit. */
const FIRST_ROOM = 4;

/** Marks an empty slot of the table and the end of a scope's list. */
const NONE = -1;

/** Accumulators of bucket states, found by (scope, bucket). */
export class StateColumns {
  #records = 0;
  #numbers = new Float64Array(1024 * STRIDE);
  #meta = new Int32Array(1024 * META);
  #values = new Float64Array(4096);
  #valuesUsed = 0;
  /** Sketches past the exact limit, by record. */
  #binned = new Map<number, QuantileSketch>();
  /** First and last record of each scope. */
  #scopeFirst = new Int32Array(256);
  #scopeLast = new Int32Array(256);
  #scopes = 0;
  /** Open addressing: per slot its scope, bucket and record; a power of two of slots. */
  #table = new Int32Array(2048 * 3).fill(NONE);
  #tableMask = 2047;

  /** A new scope (a project's functions, one function, one host), with no record yet. */
  newScope(): number {
    if (this.#scopes === this.#scopeFirst.length) {
      this.#scopeFirst = grownInt32(this.#scopeFirst, this.#scopes * 2);
      this.#scopeLast = grownInt32(this.#scopeLast, this.#scopes * 2);
    }
    this.#scopeFirst[this.#scopes] = NONE;
    this.#scopeLast[this.#scopes] = NONE;
    return this.#scopes++;
  }

  /** The record of `bucket` in `scope`, made empty if there is none. */
  record(scope: number, bucket: number): number {
    const table = this.#table;
    let slot = hashOf(scope, bucket) & this.#tableMask;
    for (;;) {
      const at = slot * 3;
      const found = table[at + 2] as number;
      if (found === NONE) break;
      if (table[at] === scope && table[at + 1] === bucket) return found;
      slot = (slot + 1) & this.#tableMask;
    }
    const record = this.#newRecord(scope, bucket);
    const at = slot * 3;
    table[at] = scope;
    table[at + 1] = bucket;
    table[at + 2] = record;
    if (this.#records * 2 > this.#tableMask) this.#growTable();
    return record;
  }

  /** The first record of `scope` (-1: none); then {@link next}. */
  first(scope: number): number {
    return this.#scopeFirst[scope] ?? NONE;
  }

  /** The record made after `record` in its scope (-1: none). */
  next(record: number): number {
    return this.#meta[record * META + NEXT] ?? NONE;
  }

  /** The bucket of `record`. */
  bucketOf(record: number): number {
    return this.#meta[record * META + BUCKET] ?? NONE;
  }

  /**
   * Folds one invocation into `record`, as `invocationStats.add` does: a status of 400 or more
   * is an error; a status class outside 1xx–5xx is counted nowhere; a time joins sum, min, max
   * (on a tie the newer value, as `a < b ? a : b` gives) and the sketch.
   */
  addInvocation(record: number, statusCode: number | null, executionTimeMs: number | null): void {
    const numbers = this.#numbers;
    const base = record * STRIDE;
    numbers[base + COUNT] = (numbers[base + COUNT] as number) + 1;
    if (statusCode !== null) {
      if (statusCode >= 400) numbers[base + ERRORS] = (numbers[base + ERRORS] as number) + 1;
      const statusClass = Math.floor(statusCode / 100);
      if (statusClass >= 1 && statusClass <= 5) {
        const at = base + CLASSES + statusClass - 1;
        numbers[at] = (numbers[at] as number) + 1;
      }
    }
    if (executionTimeMs === null) return;
    const timed = numbers[base + TIMED] as number;
    numbers[base + TIMED] = timed + 1;
    numbers[base + SUM] = (numbers[base + SUM] as number) + executionTimeMs;
    if (timed === 0) {
      numbers[base + MIN] = executionTimeMs;
      numbers[base + MAX] = executionTimeMs;
    } else {
      const min = numbers[base + MIN] as number;
      const max = numbers[base + MAX] as number;
      numbers[base + MIN] = min < executionTimeMs ? min : executionTimeMs;
      numbers[base + MAX] = max > executionTimeMs ? max : executionTimeMs;
    }
    this.#addTime(record, executionTimeMs);
  }

  /** Counts one request into `record`: the total, and each family whose bit `families` sets. */
  addRequest(record: number, families: number): void {
    const numbers = this.#numbers;
    const base = record * STRIDE;
    numbers[base] = (numbers[base] as number) + 1;
    for (let bit = 0; families >> bit !== 0; bit++) {
      if ((families & (1 << bit)) !== 0) {
        const at = base + FAMILY_COUNTS + bit;
        numbers[at] = (numbers[at] as number) + 1;
      }
    }
  }

  /** The invocation stats folded into `record`, as the aggregate's object. */
  invocationState(record: number): InvocationStats {
    const numbers = this.#numbers;
    const base = record * STRIDE;
    const timedCount = numbers[base + TIMED] as number;
    return {
      count: numbers[base + COUNT] as number,
      errorCount: numbers[base + ERRORS] as number,
      statusClasses: Array.from(numbers.subarray(base + CLASSES, base + CLASSES + 5)),
      timedCount,
      sum: numbers[base + SUM] as number,
      min: timedCount === 0 ? null : numbers[base + MIN] as number,
      max: timedCount === 0 ? null : numbers[base + MAX] as number,
      times: this.#binned.get(record) ?? { kind: 'exact', values: this.#exactValues(record) },
    };
  }

  /** The usage counts folded into `record`, as the aggregate's object (families by bit order). */
  usageState(record: number): UsageCounts {
    const numbers = this.#numbers;
    const base = record * STRIDE;
    return {
      total: numbers[base] as number,
      rest: numbers[base + FAMILY_COUNTS] as number,
      storage: numbers[base + FAMILY_COUNTS + 1] as number,
      auth: numbers[base + FAMILY_COUNTS + 2] as number,
      realtime: numbers[base + FAMILY_COUNTS + 3] as number,
    };
  }

  /** Forgets every record and scope, keeping the room for the next fold. */
  reset(): void {
    this.#numbers.fill(0, 0, this.#records * STRIDE);
    this.#table.fill(NONE);
    this.#records = 0;
    this.#valuesUsed = 0;
    this.#scopes = 0;
    this.#binned.clear();
  }

  #newRecord(scope: number, bucket: number): number {
    const record = this.#records++;
    if (record * STRIDE === this.#numbers.length) {
      const numbers = new Float64Array(this.#numbers.length * 2);
      numbers.set(this.#numbers);
      this.#numbers = numbers;
      this.#meta = grownInt32(this.#meta, this.#meta.length * 2);
    }
    const meta = this.#meta;
    const at = record * META;
    meta[at + BUCKET] = bucket;
    meta[at + NEXT] = NONE;
    meta[at + VALUES_START] = 0;
    meta[at + VALUES_LENGTH] = 0;
    meta[at + VALUES_ROOM] = 0;
    const last = this.#scopeLast[scope] as number;
    if (last === NONE) this.#scopeFirst[scope] = record;
    else meta[last * META + NEXT] = record;
    this.#scopeLast[scope] = record;
    return record;
  }

  /**
   * Adds a time to the record's sketch as `quantileSketch.add` does: inserted after every value
   * not above it while at most {@link EXACT_LIMIT} are held, then binned.
   */
  #addTime(record: number, value: number): void {
    const binned = this.#binned.get(record);
    if (binned !== undefined) {
      quantileSketch.add(binned, value);
      return;
    }
    const meta = this.#meta;
    const at = record * META;
    const length = meta[at + VALUES_LENGTH] as number;
    if (length === EXACT_LIMIT) {
      const values = this.#exactValues(record);
      this.#binned.set(record, quantileSketch.add({ kind: 'exact', values }, value));
      return;
    }
    if (length === meta[at + VALUES_ROOM]) this.#moveValues(record, length);
    const values = this.#values;
    const start = meta[at + VALUES_START] as number;
    let low = start;
    let high = start + length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if ((values[mid] as number) <= value) low = mid + 1;
      else high = mid;
    }
    values.copyWithin(low + 1, low, start + length);
    values[low] = value;
    meta[at + VALUES_LENGTH] = length + 1;
  }

  /** Gives the record's exact values twice the room (at least {@link FIRST_ROOM}) at the arena's end. */
  #moveValues(record: number, length: number): void {
    const meta = this.#meta;
    const at = record * META;
    const room = Math.min(EXACT_LIMIT, Math.max(FIRST_ROOM, length * 2));
    if (this.#valuesUsed + room > this.#values.length) {
      const values = new Float64Array(Math.max(this.#values.length * 2, this.#valuesUsed + room));
      values.set(this.#values.subarray(0, this.#valuesUsed));
      this.#values = values;
    }
    const start = meta[at + VALUES_START] as number;
    this.#values.copyWithin(this.#valuesUsed, start, start + length);
    meta[at + VALUES_START] = this.#valuesUsed;
    meta[at + VALUES_ROOM] = room;
    this.#valuesUsed += room;
  }

  #exactValues(record: number): number[] {
    const at = record * META;
    const start = this.#meta[at + VALUES_START] as number;
    return Array.from(
      this.#values.subarray(start, start + (this.#meta[at + VALUES_LENGTH] as number)),
    );
  }

  #growTable(): void {
    const old = this.#table;
    const slots = (this.#tableMask + 1) * 2;
    this.#table = new Int32Array(slots * 3).fill(NONE);
    this.#tableMask = slots - 1;
    for (let at = 0; at < old.length; at += 3) {
      const record = old[at + 2] as number;
      if (record === NONE) continue;
      const scope = old[at] as number;
      const bucket = old[at + 1] as number;
      let slot = hashOf(scope, bucket) & this.#tableMask;
      while (this.#table[slot * 3 + 2] !== NONE) slot = (slot + 1) & this.#tableMask;
      this.#table[slot * 3] = scope;
      this.#table[slot * 3 + 1] = bucket;
      this.#table[slot * 3 + 2] = record;
    }
  }
}

/** Mixes a (scope, bucket) pair into a table index (Fibonacci hashing of each half). */
function hashOf(scope: number, bucket: number): number {
  const mixed = Math.imul(scope, 0x9e3779b1) ^ Math.imul(bucket + 0x632be5ab, 0x85ebca77);
  return (mixed ^ (mixed >>> 15)) >>> 0;
}

function grownInt32(array: Int32Array<ArrayBuffer>, length: number): Int32Array<ArrayBuffer> {
  const grown = new Int32Array(length);
  grown.set(array);
  return grown;
}
