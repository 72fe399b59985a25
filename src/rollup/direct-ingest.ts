/**
 * Folds events straight into the store, without Kafka: the HTTP ingest route of the embedded
 * default (and of a deployment with a store but no broker). Calls are serialized, so the
 * events of one call are visible to the next read as soon as the call resolves.
 *
 * Each process writes its own stream (`ingest/<random id>`), so any number of API processes
 * fold into one store at the same time, each into its own parts of the buckets (see
 * {@link ./partition-writer.ts}). Offsets count the events this process folded; a stream is
 * never replayed, so it keeps no resume offset. A call that fails may have been applied for
 * some of its projects and not others (each project is one atomic commit, its ring-buffer
 * entries included): the caller is told the call failed, as with any write whose answer is lost.
 *
 * @example
 * ```ts
 * const ingest = new DirectIngest({ store, nowUs: () => Date.now() * 1000 });
 * await ingest.fold(events);
 * ```
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { SerialQueue } from '../async/serial-queue.ts';
import type { LogEvent, Rejection } from '../events/types.ts';
import type { MemoryBudget } from '../store/memory-budget.ts';
import type { RollupStore } from '../store/port.ts';
import { Fold } from './fold.ts';
import { hostSightings } from './fold-delta.ts';
import type { RegisteredHost } from './keys.ts';
import { PartitionWriter } from './partition-writer.ts';
import type { UnreadableReporter } from './unreadable.ts';

/** Options of {@link DirectIngest}. */
export interface DirectIngestOptions {
  readonly store: RollupStore;
  /** The clock, in Unix microseconds. */
  readonly nowUs: () => number;
  readonly recentLogsCapacity?: number;
  /** Told about each stored state that could not be read (and was moved aside). */
  readonly onUnreadable?: UnreadableReporter;
  /** How far in the future an accepted event may lie (µs), as the events were parsed with. */
  readonly maxFutureSkewUs?: number;
  /**
   * The store's memory budget, asked for room before each call is folded (the embedded store).
   * Default: none.
   */
  readonly budget?: MemoryBudget;
}

/** An event the store side refused, by its index in the call. */
export interface Refused {
  readonly index: number;
  readonly rejection: Rejection;
}

/** What one {@link DirectIngest.fold} did. */
export interface Folded {
  /** The events refused by their project's bounds, not folded. */
  readonly refused: readonly Refused[];
  /** The (project, host) pairs the call registered, with their newest event time. */
  readonly registered: readonly RegisteredHost[];
}

const FOLDED_NOTHING: Folded = { refused: [], registered: [] };

/** Serialized direct folding into the store. */
export class DirectIngest {
  readonly #writer: PartitionWriter;
  readonly #nowUs: () => number;
  readonly #budget: MemoryBudget | undefined;
  #next = 0;
  #opened = false;
  readonly #queue = new SerialQueue();

  constructor(options: DirectIngestOptions) {
    this.#nowUs = options.nowUs;
    this.#budget = options.budget;
    // One stream per process, so that several API processes sharing a Redis never contend.
    this.#writer = new PartitionWriter({
      store: options.store,
      stream: `ingest/${randomUUID()}`,
      nowUs: options.nowUs,
      ...(options.onUnreadable === undefined ? {} : { onUnreadable: options.onUnreadable }),
      ...(options.recentLogsCapacity === undefined
        ? {}
        : { recentLogsCapacity: options.recentLogsCapacity }),
      ...(options.maxFutureSkewUs === undefined
        ? {}
        : { maxFutureSkewUs: options.maxFutureSkewUs }),
    });
  }

  /**
   * Folds `events` and resolves once they are in the store, with the events refused by their
   * project's bounds (see `admission.ts`; by index in `events`), which are not folded, and the
   * hosts registered. With a budget, the call is folded whole when the text of its events fits
   * within the room left (the budget drops older ring-buffer entries to make it), and refused
   * whole otherwise (`StoreFullError`, nothing folded): its rollups of projects new to the store
   * (about 5 KB of heap each) may take the store past its budget by that much.
   */
  fold(events: readonly LogEvent[]): Promise<Folded> {
    return this.#queue.run(() => this.#foldNow(events));
  }

  async #foldNow(events: readonly LogEvent[]): Promise<Folded> {
    if (events.length === 0) return FOLDED_NOTHING;
    this.#budget?.ensureRoom(textBytes(events));
    if (!this.#opened) {
      // Offsets go on from where this process is: its projects' watermarks are read again.
      await this.#writer.open();
      this.#opened = true;
    }
    await this.#writer.load(events);
    const fold = new Fold(this.#writer.stream);
    const nowUs = this.#nowUs();
    const refused: Refused[] = [];
    events.forEach((event, index) => {
      const folded = this.#writer.fold(fold, event, this.#next, nowUs);
      if (folded.kind === 'refused') {
        refused.push({ index, rejection: folded.rejection });
        return;
      }
      // Nothing is forgotten between the load and here, and no project of a stream that is
      // never replayed holds an offset this process has not reached yet.
      if (folded.kind !== 'folded') {
        throw new Error(`stream ${this.#writer.stream}: an event came back ${folded.kind}`);
      }
      this.#next += 1;
    });
    const delta = fold.take();
    try {
      await this.#writer.flush(delta, this.#next);
    } catch (error) {
      // The writer must be reopened; watermarks are re-read from the store next time.
      this.#opened = false;
      throw error;
    }
    return { refused, registered: hostSightings(delta) };
  }
}

/**
 * What `events` add to a store at least: the text of each entry a ring buffer keeps (one byte a
 * character, as the store's estimate counts).
 */
function textBytes(events: readonly LogEvent[]): number {
  let bytes = 0;
  for (const event of events) {
    if (event.source === 'edge') bytes += event.raw.length;
    else if (event.source === 'logflare') {
      bytes += event.text.length + (event.edge?.raw.length ?? 0);
    }
  }
  return bytes;
}
