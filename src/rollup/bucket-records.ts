/**
 * Where a fold's states are: the record of {@link StateColumns} of each (scope, bucket), two
 * small integers the fold hands out, found in an open-addressing table with no text key and no
 * object per state; and each scope's records in the order they were made, so a flush writes them
 * in the order the fold met them.
 *
 * @example
 * ```ts
 * const records = new BucketRecords(columns);
 * const scope = records.newScope();
 * const record = records.record(scope, bucketId); // made if there was none
 * for (let r = records.first(scope); r >= 0; r = records.next(r)) records.bucketOf(r);
 * ```
 *
 * @module
 */
import type { StateColumns } from './state-columns.ts';

/** Marks an empty slot of the table and the end of a scope's list. */
const NONE = -1;

/** The records of a fold's (scope, bucket) pairs. */
export class BucketRecords {
  readonly #columns: StateColumns;
  /** Per record: its bucket, and the next record of its scope. */
  #bucket: Int32Array<ArrayBuffer>;
  #next: Int32Array<ArrayBuffer>;
  /** First and last record of each scope. */
  #scopeFirst = new Int32Array(256);
  #scopeLast = new Int32Array(256);
  #scopes = 0;
  /** Per slot its scope, bucket and record; a power of two of slots. */
  #table: Int32Array<ArrayBuffer>;
  #tableMask: number;
  #entries = 0;

  /**
   * The records of a fold whose states are kept in `columns`, which it makes them in; with room
   * for `records` of them before anything grows.
   */
  constructor(columns: StateColumns, records = 256) {
    this.#columns = columns;
    const room = Math.max(16, records);
    this.#bucket = new Int32Array(room);
    this.#next = new Int32Array(room);
    // At most half full: a power of two of at least twice the records.
    const slots = 2 ** Math.ceil(Math.log2(room * 2));
    this.#table = new Int32Array(slots * 3).fill(NONE);
    this.#tableMask = slots - 1;
  }

  /** A new scope (a project's functions, one function, one host), with no record yet. */
  newScope(): number {
    if (this.#scopes === this.#scopeFirst.length) {
      this.#scopeFirst = grown(this.#scopeFirst, this.#scopes * 2);
      this.#scopeLast = grown(this.#scopeLast, this.#scopes * 2);
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
    const record = this.#columns.newRecord();
    this.#link(record, scope, bucket);
    const at = slot * 3;
    table[at] = scope;
    table[at + 1] = bucket;
    table[at + 2] = record;
    this.#entries += 1;
    if (this.#entries * 2 > this.#tableMask) this.#growTable();
    return record;
  }

  /** The first record of `scope` (-1: none); then {@link next}. */
  first(scope: number): number {
    return this.#scopeFirst[scope] ?? NONE;
  }

  /** The record made after `record` in its scope (-1: none). */
  next(record: number): number {
    return this.#next[record] ?? NONE;
  }

  /** The bucket of `record`. */
  bucketOf(record: number): number {
    return this.#bucket[record] ?? NONE;
  }

  #link(record: number, scope: number, bucket: number): void {
    if (record >= this.#bucket.length) {
      this.#bucket = grown(this.#bucket, Math.max(record + 1, this.#bucket.length * 2));
      this.#next = grown(this.#next, this.#bucket.length);
    }
    this.#bucket[record] = bucket;
    this.#next[record] = NONE;
    const last = this.#scopeLast[scope] as number;
    if (last === NONE) this.#scopeFirst[scope] = record;
    else this.#next[last] = record;
    this.#scopeLast[scope] = record;
  }

  #growTable(): void {
    const old = this.#table;
    const slots = (this.#tableMask + 1) * 2;
    const table = new Int32Array(slots * 3).fill(NONE);
    const mask = slots - 1;
    for (let at = 0; at < old.length; at += 3) {
      const record = old[at + 2] as number;
      if (record === NONE) continue;
      const scope = old[at] as number;
      const bucket = old[at + 1] as number;
      let slot = hashOf(scope, bucket) & mask;
      while (table[slot * 3 + 2] !== NONE) slot = (slot + 1) & mask;
      table[slot * 3] = scope;
      table[slot * 3 + 1] = bucket;
      table[slot * 3 + 2] = record;
    }
    this.#table = table;
    this.#tableMask = mask;
  }
}

/** Mixes a (scope, bucket) pair into a table index (Fibonacci hashing of each half). */
function hashOf(scope: number, bucket: number): number {
  const mixed = Math.imul(scope, 0x9e3779b1) ^ Math.imul(bucket + 0x632be5ab, 0x85ebca77);
  return (mixed ^ (mixed >>> 15)) >>> 0;
}

function grown(array: Int32Array<ArrayBuffer>, length: number): Int32Array<ArrayBuffer> {
  const larger = new Int32Array(length);
  larger.set(array);
  return larger;
}
