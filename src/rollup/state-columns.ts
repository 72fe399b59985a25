/**
 * Bucket states in columns: no object per state. A state is a record number; its numbers live in
 * one `Float64Array` (a fixed stride per record) and the exact execution times of its quantile
 * sketch in an arena of doubles, in rooms of a few sizes that are reused once freed. Only a
 * sketch past {@link EXACT_LIMIT} values, binned, is an object (a few hot buckets). Every
 * operation is the aggregates' own, on the same doubles in the same order, so a state's stored
 * text is byte for byte what `invocationStats` and `usageCounts` write for the same values
 * folded and merged one by one: folding (`add`), merging one state into another (`merge`, the
 * receiving state's values first among equal ones), writing the stored text and loading it back.
 *
 * A fold keeps its delta in one instance ({@link ./bucket-records.ts} finds a bucket's record), a
 * writer the stream's parts in another, between flushes.
 *
 * @example
 * ```ts
 * const columns = new StateColumns();
 * const record = columns.newRecord();
 * columns.addInvocation(record, 200, 12.5);
 * columns.text(record, 'invocation'); // the stored form, as invocationStats.serialize writes it
 * columns.free(record);
 * ```
 *
 * @module
 */
import {
  EXACT_LIMIT,
  type QuantileSketch,
  quantileSketch,
  writeExactSketch,
  writeSketch,
} from './quantiles.ts';
import { type InvocationStats, writeInvocationHead } from './invocation-stats.ts';
import { type UsageCounts, usageCountsText } from './usage-counts.ts';

/** The aggregate a record holds: invocation stats, or usage counts. */
export type StateKind = 'invocation' | 'usage';

/** Doubles per record: invocation stats' eleven numbers, and when the key may be forgotten. */
const STRIDE = 12;
const COUNT = 0;
const ERRORS = 1;
/** Five status classes, 1xx to 5xx, from here on. */
const CLASSES = 2;
const TIMED = 7;
const SUM = 8;
/** Min and max are NaN while no time is folded (null in the aggregate's object). */
const MIN = 9;
const MAX = 10;
const EXPIRY = 11;
/** Usage counts: the total, then one count per family bit from here on. */
const FAMILY_COUNTS = 1;
const FAMILIES = 4;

/** Integers per record: where its exact values are, how many, and the room they have. */
const META = 3;
const VALUES_START = 0;
const VALUES_LENGTH = 1;
const VALUES_ROOM = 2;

/** The sizes of a record's room for exact values, doubling, up to the limit. */
const ROOMS = [4, 8, 16, 32, 64, EXACT_LIMIT] as const;

/** Below this many records' room, columns are never {@link StateColumns.wasteful}. */
const MIN_COMPACTED = 4096;

/** Accumulators of bucket states. */
export class StateColumns {
  #records = 0;
  #numbers: Float64Array<ArrayBuffer>;
  #meta: Int32Array<ArrayBuffer>;
  /** Records freed, to be used again. */
  readonly #freeRecords: number[] = [];
  #values = new Float64Array(1024);
  #valuesUsed = 0;
  /** Doubles of the arena in rooms that records hold. */
  #roomsInUse = 0;
  /** Rooms freed, by their index in {@link ROOMS}. */
  readonly #freeRooms: number[][] = ROOMS.map(() => []);
  /** Sketches kept as objects (binned, or exact as an older version wrote them), by record. */
  readonly #sketches = new Map<number, QuantileSketch>();

  /** Columns with room for `records` records before they grow (they grow as needed). */
  constructor(records = 256) {
    const room = Math.max(16, records);
    this.#numbers = new Float64Array(room * STRIDE);
    this.#meta = new Int32Array(room * META);
  }

  /** How many records are in use. */
  get size(): number {
    return this.#records - this.#freeRecords.length;
  }

  /**
   * Whether most of the room these columns took is free (records freed, rooms of exact values
   * freed): typed arrays never shrink, so a holder that freed most of its records copies the
   * rest into new columns ({@link copy}) to give the memory back.
   */
  get wasteful(): boolean {
    const records = this.#numbers.length / STRIDE;
    return (records > MIN_COMPACTED && this.size * 4 < records) ||
      (this.#values.length > MIN_COMPACTED * EXACT_LIMIT &&
        this.#roomsInUse * 4 < this.#values.length);
  }

  /** Room for how many records the columns hold now (for tests and tools). */
  get capacity(): number {
    return this.#numbers.length / STRIDE;
  }

  /** Room for how many exact values the arena holds now (for tests and tools). */
  get arenaCapacity(): number {
    return this.#values.length;
  }

  /** Doubles of the arena ever handed out as rooms, free ones included (for tests and tools). */
  get arenaUsed(): number {
    return this.#valuesUsed;
  }

  /** A record of no values (every count 0, no time), for either aggregate. */
  newRecord(): number {
    let record = this.#freeRecords.pop();
    if (record === undefined) {
      record = this.#records++;
      if (record * STRIDE === this.#numbers.length) this.#grow();
    }
    const base = record * STRIDE;
    this.#numbers.fill(0, base, base + STRIDE);
    this.#numbers[base + MIN] = Number.NaN;
    this.#numbers[base + MAX] = Number.NaN;
    this.#meta.fill(0, record * META, record * META + META);
    return record;
  }

  /** Gives `record` up; its room is used again. */
  free(record: number): void {
    this.#releaseValues(record);
    this.#sketches.delete(record);
    this.#freeRecords.push(record);
  }

  /** When the key of `record`'s state may be forgotten (Unix ms), as {@link setExpiry} said. */
  expiryOf(record: number): number {
    return this.#numbers[record * STRIDE + EXPIRY] as number;
  }

  setExpiry(record: number, expireAtMs: number): void {
    this.#numbers[record * STRIDE + EXPIRY] = expireAtMs;
  }

  /**
   * Folds one invocation into `record`, as `invocationStats.add` does: a status of 400 or more
   * is an error; a status class outside 1xx–5xx is counted nowhere; a time joins sum, min, max
   * (on a tie the newer value, as `a < b ? a : b` gives; NaN, no time yet, gives the time) and
   * the sketch.
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
    numbers[base + TIMED] = (numbers[base + TIMED] as number) + 1;
    numbers[base + SUM] = (numbers[base + SUM] as number) + executionTimeMs;
    const min = numbers[base + MIN] as number;
    const max = numbers[base + MAX] as number;
    numbers[base + MIN] = min < executionTimeMs ? min : executionTimeMs;
    numbers[base + MAX] = max > executionTimeMs ? max : executionTimeMs;
    const sketch = this.#sketches.get(record);
    if (sketch !== undefined) {
      this.#sketches.set(record, quantileSketch.add(sketch, executionTimeMs));
    } else if (this.#meta[record * META + VALUES_LENGTH] === EXACT_LIMIT) {
      const exact: QuantileSketch = { kind: 'exact', values: this.#exactValues(record) };
      this.#releaseValues(record);
      this.#sketches.set(record, quantileSketch.add(exact, executionTimeMs));
    } else this.#insertTime(record, executionTimeMs);
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

  /**
   * Merges `from`'s record `other` into `record`, as the aggregate's `merge(record, other)`:
   * `record`'s exact values come first among equal ones. `other` is left as it was.
   */
  merge(record: number, kind: StateKind, from: StateColumns, other: number): void {
    const into = this.#numbers;
    const base = record * STRIDE;
    const numbers = from.#numbers;
    const otherBase = other * STRIDE;
    const counted = kind === 'invocation' ? SUM + 1 : FAMILY_COUNTS + FAMILIES;
    for (let i = 0; i < counted; i++) {
      into[base + i] = (into[base + i] as number) + (numbers[otherBase + i] as number);
    }
    if (kind === 'usage') return;
    const min = into[base + MIN] as number;
    const max = into[base + MAX] as number;
    const otherMin = numbers[otherBase + MIN] as number;
    const otherMax = numbers[otherBase + MAX] as number;
    // minOf and maxOf of two nullable numbers: a null (NaN) side gives the other.
    if (!Number.isNaN(otherMin)) into[base + MIN] = min < otherMin ? min : otherMin;
    if (!Number.isNaN(otherMax)) into[base + MAX] = max > otherMax ? max : otherMax;
    this.#mergeTimes(record, from, other);
  }

  /**
   * Makes `record` hold what `from`'s record `other` holds. A sketch kept as an object (binned) is
   * shared, not copied: a later fold or merge into `record` changes it, so `other` must not be
   * read afterwards (a delta's records are read once, at its flush).
   */
  copy(record: number, from: StateColumns, other: number): void {
    this.#numbers.set(
      from.#numbers.subarray(other * STRIDE, other * STRIDE + STRIDE),
      record * STRIDE,
    );
    this.#releaseValues(record);
    this.#sketches.delete(record);
    const sketch = from.#sketches.get(other);
    if (sketch !== undefined) this.#sketches.set(record, sketch);
    else from.#copyValuesTo(other, this, record);
  }

  /** Makes `record` hold `state`, as its aggregate read it from the store (kept, not copied). */
  load(record: number, kind: StateKind, state: InvocationStats | UsageCounts): void {
    const numbers = this.#numbers;
    const base = record * STRIDE;
    if (kind === 'usage') {
      const { total, rest, storage, auth, realtime } = state as UsageCounts;
      numbers.set([total, rest, storage, auth, realtime], base);
      return;
    }
    const stats = state as InvocationStats;
    numbers[base + COUNT] = stats.count;
    numbers[base + ERRORS] = stats.errorCount;
    for (let i = 0; i < 5; i++) numbers[base + CLASSES + i] = stats.statusClasses[i] ?? 0;
    numbers[base + TIMED] = stats.timedCount;
    numbers[base + SUM] = stats.sum;
    numbers[base + MIN] = stats.min ?? Number.NaN;
    numbers[base + MAX] = stats.max ?? Number.NaN;
    this.#releaseValues(record);
    this.#sketches.delete(record);
    const { times } = stats;
    if (times.kind === 'exact' && times.values.length <= EXACT_LIMIT) {
      this.#setValues(record, times.values, 0, times.values.length);
    } else this.#sketches.set(record, times);
  }

  /** The stored text of `record`, as the aggregate of `kind` serializes the same state. */
  text(record: number, kind: StateKind): string {
    const numbers = this.#numbers;
    const base = record * STRIDE;
    if (kind === 'usage') {
      return usageCountsText(
        numbers[base] as number,
        numbers[base + FAMILY_COUNTS] as number,
        numbers[base + FAMILY_COUNTS + 1] as number,
        numbers[base + FAMILY_COUNTS + 2] as number,
        numbers[base + FAMILY_COUNTS + 3] as number,
      );
    }
    const min = numbers[base + MIN] as number;
    const max = numbers[base + MAX] as number;
    const out = writeInvocationHead(
      numbers[base + COUNT] as number,
      numbers[base + ERRORS] as number,
      numbers,
      base + CLASSES,
      numbers[base + TIMED] as number,
      numbers[base + SUM] as number,
      Number.isNaN(min) ? null : min,
      Number.isNaN(max) ? null : max,
    );
    const sketch = this.#sketches.get(record);
    if (sketch !== undefined) writeSketch(out, sketch);
    else {
      const at = record * META;
      const start = this.#meta[at + VALUES_START] as number;
      writeExactSketch(out, this.#values, start, this.#meta[at + VALUES_LENGTH] as number);
    }
    return out.text();
  }

  #grow(): void {
    const numbers = new Float64Array(this.#numbers.length * 2);
    numbers.set(this.#numbers);
    this.#numbers = numbers;
    const meta = new Int32Array(this.#meta.length * 2);
    meta.set(this.#meta);
    this.#meta = meta;
  }

  /**
   * Merges the times of `from`'s record `other` into `record`'s sketch, as `quantileSketch.merge`:
   * two exact lists that fit in one are merged from the back (equal values of `other` after
   * `record`'s); otherwise through the sketches' objects, which bin.
   */
  #mergeTimes(record: number, from: StateColumns, other: number): void {
    const meta = this.#meta;
    const at = record * META;
    const length = meta[at + VALUES_LENGTH] as number;
    const otherLength = from.#meta[other * META + VALUES_LENGTH] as number;
    const sketch = this.#sketches.get(record);
    const otherSketch = from.#sketches.get(other);
    if (sketch === undefined && otherSketch === undefined && length + otherLength <= EXACT_LIMIT) {
      if (otherLength === 0) return;
      if (length + otherLength > (meta[at + VALUES_ROOM] as number)) {
        this.#moveValues(record, length + otherLength);
      }
      const values = this.#values;
      const start = meta[at + VALUES_START] as number;
      const theirs = from.#values;
      const theirStart = from.#meta[other * META + VALUES_START] as number;
      let i = length - 1;
      let j = otherLength - 1;
      for (let k = length + otherLength - 1; j >= 0; k--) {
        const y = theirs[theirStart + j] as number;
        if (i >= 0 && (values[start + i] as number) > y) {
          values[start + k] = values[start + i] as number;
          i--;
        } else {
          values[start + k] = y;
          j--;
        }
      }
      meta[at + VALUES_LENGTH] = length + otherLength;
      return;
    }
    const into = sketch ?? { kind: 'exact', values: this.#exactValues(record) };
    const merged = quantileSketch.merge(
      into,
      otherSketch ?? { kind: 'exact', values: from.#exactValues(other) },
    );
    this.#releaseValues(record);
    this.#sketches.set(record, merged);
  }

  /** Inserts a time after every exact value not above it (as `insertSorted`). */
  #insertTime(record: number, value: number): void {
    const meta = this.#meta;
    const at = record * META;
    const length = meta[at + VALUES_LENGTH] as number;
    if (length === meta[at + VALUES_ROOM]) this.#moveValues(record, length + 1);
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

  /** Makes `record`'s exact values `values[start…start+length)`. */
  #setValues(record: number, values: ArrayLike<number>, start: number, length: number): void {
    if (length === 0) return;
    this.#moveValues(record, length);
    const to = this.#meta[record * META + VALUES_START] as number;
    for (let i = 0; i < length; i++) this.#values[to + i] = values[start + i] as number;
    this.#meta[record * META + VALUES_LENGTH] = length;
  }

  #copyValuesTo(record: number, to: StateColumns, toRecord: number): void {
    const at = record * META;
    const start = this.#meta[at + VALUES_START] as number;
    to.#setValues(toRecord, this.#values, start, this.#meta[at + VALUES_LENGTH] as number);
  }

  /** Gives the record's exact values a room for at least `needed`, keeping those it has. */
  #moveValues(record: number, needed: number): void {
    const meta = this.#meta;
    const at = record * META;
    const kind = ROOMS.findIndex((room) => room >= needed);
    const room = ROOMS[kind] as number;
    let to = this.#freeRooms[kind]?.pop();
    if (to === undefined) {
      if (this.#valuesUsed + room > this.#values.length) {
        const values = new Float64Array(this.#values.length * 2 + room);
        values.set(this.#values.subarray(0, this.#valuesUsed));
        this.#values = values;
      }
      to = this.#valuesUsed;
      this.#valuesUsed += room;
    }
    const start = meta[at + VALUES_START] as number;
    const length = meta[at + VALUES_LENGTH] as number;
    this.#values.copyWithin(to, start, start + length);
    this.#releaseValues(record);
    meta[at + VALUES_START] = to;
    meta[at + VALUES_LENGTH] = length;
    meta[at + VALUES_ROOM] = room;
    this.#roomsInUse += room;
  }

  /** Frees the record's room for exact values (it holds none after). */
  #releaseValues(record: number): void {
    const meta = this.#meta;
    const at = record * META;
    const room = meta[at + VALUES_ROOM] as number;
    if (room > 0) {
      this.#freeRooms[ROOMS.indexOf(room as (typeof ROOMS)[number])]?.push(
        meta[at + VALUES_START] as number,
      );
      this.#roomsInUse -= room;
    }
    meta[at + VALUES_START] = 0;
    meta[at + VALUES_LENGTH] = 0;
    meta[at + VALUES_ROOM] = 0;
  }

  #exactValues(record: number): number[] {
    const at = record * META;
    const start = this.#meta[at + VALUES_START] as number;
    return Array.from(
      this.#values.subarray(start, start + (this.#meta[at + VALUES_LENGTH] as number)),
    );
  }
}
