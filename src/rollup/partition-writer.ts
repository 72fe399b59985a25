/**
 * Merges the deltas of one stream (a Kafka partition, or the embedded ingest route) into the
 * store, exactly once. The writer is the only one writing its stream's keys while it owns the
 * stream, so it keeps the stored states it has read or written (deserialized, bounded) and reads
 * only what it has not seen. Each flush is one atomic commit guarded by the stream's stored
 * offset: if that offset is not the one this writer last wrote (a crash replay, a consumer that
 * lost the partition, a Redis that lost or rolled back data), nothing is written and the flush
 * fails with {@link OffsetConflictError}; the caller then reopens the writer and resumes from
 * the offset the store holds.
 *
 * A stored state that cannot be read (see {@link ./unreadable.ts}) is reported, copied aside to
 * its quarantine key in the same commit, and replaced by the delta, so one bad key never stops
 * the stream.
 *
 * @example
 * ```ts
 * const writer = new PartitionWriter({ store, stream: 'logs.edge/3', nowUs });
 * const resumeAt = await writer.open(); // null: from the earliest offset
 * await writer.flush(fold.take(), lastOffset + 1);
 * ```
 *
 * @module
 */
import type { RollupStore, SortedSetWrite, StateWrite } from '../store/port.ts';
import type { PendingState, RollupDelta } from './fold.ts';
import { invocationStats } from './invocation-stats.ts';
import {
  HOST_HORIZON_US,
  HOSTS_KEY,
  OFFSETS_KEY,
  QUARANTINE_TTL_US,
  quarantineKey,
} from './keys.ts';
import { DEFAULT_RECENT_LOGS_CAPACITY, RECENT_LOGS_MAX_AGE_US } from './recent-logs.ts';
import { readStateOrReport, type UnreadableReporter } from './unreadable.ts';
import { usageCounts } from './usage-counts.ts';

/** The store's offset for the stream was not the one this writer expected; nothing was written. */
export class OffsetConflictError extends Error {
  constructor(stream: string, expected: number | null) {
    super(
      `stream ${stream}: the stored offset is no longer ${expected ?? 'unset'} (another consumer ` +
        'took over, or the store lost or rolled back data); reopen and resume from the stored offset',
    );
    this.name = 'OffsetConflictError';
  }
}

/** Options of {@link PartitionWriter}. */
export interface PartitionWriterOptions {
  readonly store: RollupStore;
  /** Stream identity, e.g. `logs.edge/3`. */
  readonly stream: string;
  /** The clock, in Unix microseconds. */
  readonly nowUs: () => number;
  /** Entries kept per project ring buffer. Default {@link DEFAULT_RECENT_LOGS_CAPACITY}. */
  readonly recentLogsCapacity?: number;
  /** Stored states kept deserialized between flushes. Default 50,000. */
  readonly cacheLimit?: number;
  /** Told about each stored state that could not be read (and was moved aside). */
  readonly onUnreadable?: UnreadableReporter;
}

/** Marks a key the store was asked for and does not hold. */
const NEW_KEY = Symbol('new key');

/** The stored state of a key, of the delta's kind; null when the text cannot be read. */
function decode(
  key: string,
  pending: PendingState,
  text: string,
  report: UnreadableReporter | undefined,
): PendingState | null {
  const { expireAtMs } = pending;
  if (pending.kind === 'invocation') {
    const state = readStateOrReport(invocationStats, key, text, report);
    return state === null ? null : { kind: 'invocation', state, expireAtMs };
  }
  const state = readStateOrReport(usageCounts, key, text, report);
  return state === null ? null : { kind: 'usage', state, expireAtMs };
}

function serialize(state: PendingState): string {
  return state.kind === 'invocation'
    ? invocationStats.serialize(state.state)
    : usageCounts.serialize(state.state);
}

function mergeInto(stored: PendingState, pending: PendingState): string {
  if (stored.kind === 'invocation' && pending.kind === 'invocation') {
    stored.state = invocationStats.merge(stored.state, pending.state);
    return invocationStats.serialize(stored.state);
  }
  if (stored.kind === 'usage' && pending.kind === 'usage') {
    stored.state = usageCounts.merge(stored.state, pending.state);
    return usageCounts.serialize(stored.state);
  }
  throw new Error(
    `a key holds a ${stored.kind} state but a ${pending.kind} delta was folded for it`,
  );
}

/** Writes one stream's deltas into the store, exactly once. */
export class PartitionWriter {
  readonly #store: RollupStore;
  readonly #stream: string;
  readonly #nowUs: () => number;
  readonly #capacity: number;
  readonly #cacheLimit: number;
  readonly #onUnreadable: UnreadableReporter | undefined;
  readonly #cache = new Map<string, PendingState | typeof NEW_KEY>();
  #offset: number | null = null;
  #opened = false;

  constructor(options: PartitionWriterOptions) {
    this.#store = options.store;
    this.#stream = options.stream;
    this.#nowUs = options.nowUs;
    this.#capacity = options.recentLogsCapacity ?? DEFAULT_RECENT_LOGS_CAPACITY;
    this.#cacheLimit = options.cacheLimit ?? 50_000;
    this.#onUnreadable = options.onUnreadable;
  }

  /** The stream this writer writes. */
  get stream(): string {
    return this.#stream;
  }

  /** The next offset the store holds for this stream, as last read or written. */
  get offset(): number | null {
    return this.#offset;
  }

  /**
   * Forgets every cached state and reads the stream's stored next offset: where consuming must
   * resume (null: nothing stored, resume from the earliest offset).
   */
  async open(): Promise<number | null> {
    this.#cache.clear();
    this.#opened = false;
    this.#offset = await this.#store.readOffset(OFFSETS_KEY, this.#stream);
    this.#opened = true;
    return this.#offset;
  }

  /**
   * Merges `delta` into the stored states and commits it with `nextOffset` (the offset after the
   * last event folded into it). On any failure the cache is dropped: reopen before going on.
   */
  async flush(delta: RollupDelta, nextOffset: number): Promise<void> {
    if (!this.#opened) throw new Error(`stream ${this.#stream}: open() the writer before flushing`);
    try {
      const states = await this.#mergeStates(delta);
      const nowUs = this.#nowUs();
      const sortedSets: SortedSetWrite[] = [];
      for (const [key, members] of delta.logs) {
        sortedSets.push({
          key,
          members,
          mode: 'add',
          keepHighest: this.#capacity,
          dropBelow: nowUs - RECENT_LOGS_MAX_AGE_US,
        });
      }
      if (delta.hosts.size > 0) {
        sortedSets.push({
          key: HOSTS_KEY,
          members: [...delta.hosts].map(([member, score]) => ({ member, score })),
          mode: 'max',
          keepHighest: null,
          dropBelow: nowUs - HOST_HORIZON_US,
        });
      }
      const applied = await this.#store.commit({
        offset: {
          key: OFFSETS_KEY,
          stream: this.#stream,
          expected: this.#offset,
          next: nextOffset,
        },
        states,
        sortedSets,
      });
      if (!applied) throw new OffsetConflictError(this.#stream, this.#offset);
      this.#offset = nextOffset;
      this.#evict();
    } catch (error) {
      this.#cache.clear();
      this.#opened = false;
      throw error;
    }
  }

  async #mergeStates(delta: RollupDelta): Promise<StateWrite[]> {
    const missing: string[] = [];
    for (const key of delta.states.keys()) if (!this.#cache.has(key)) missing.push(key);
    const writes: StateWrite[] = [];
    if (missing.length > 0) {
      const values = await this.#store.getValues(missing);
      const asideUntilMs = Math.floor((this.#nowUs() + QUARANTINE_TTL_US) / 1000);
      missing.forEach((key, i) => {
        const pending = delta.states.get(key);
        const text = values[i] ?? null;
        if (pending === undefined) return;
        const stored = text === null ? NEW_KEY : decode(key, pending, text, this.#onUnreadable);
        if (stored === null && text !== null) {
          // Kept for inspection; the key itself starts again from this delta.
          writes.push({ key: quarantineKey(key), value: text, expireAtMs: asideUntilMs });
        }
        this.#cache.set(key, stored ?? NEW_KEY);
      });
    }
    for (const [key, pending] of delta.states) {
      const stored = this.#cache.get(key);
      // Re-insert so that Map order is least-recently-written first.
      this.#cache.delete(key);
      // A key the store does not hold yet needs no merge: the delta is the state.
      const value = stored === undefined || stored === NEW_KEY
        ? serialize(pending)
        : mergeInto(stored, pending);
      this.#cache.set(key, stored === undefined || stored === NEW_KEY ? pending : stored);
      writes.push({ key, value, expireAtMs: pending.expireAtMs });
    }
    return writes;
  }

  #evict(): void {
    const nowMs = this.#nowUs() / 1000;
    for (const [key, stored] of this.#cache) {
      const live = stored !== NEW_KEY && stored.expireAtMs > nowMs;
      if (this.#cache.size <= this.#cacheLimit && live) break;
      this.#cache.delete(key);
    }
  }
}
