/**
 * What a consumer does with one partition's batches, apart from Kafka itself: skip what the
 * store already covers, parse, fold, route rejects to the dead-letter topic, and flush through
 * the {@link PartitionWriter} every `flushEvents` events or `flushIntervalMs`, and at the end of
 * every batch. It answers the runner with the next offset to consume from, or with a seek when
 * the store says consuming must resume elsewhere. Kept free of kafkajs so that every branch can
 * be driven by a test.
 *
 * @module
 */
import { parse } from '../src/events/parse.ts';
import type { Source } from '../src/events/types.ts';
import { Fold } from '../src/rollup/fold.ts';
import { OffsetConflictError, PartitionWriter } from '../src/rollup/partition-writer.ts';
import { logPosition } from '../src/rollup/recent-logs.ts';
import type { RollupStore } from '../src/store/port.ts';
import { type DeadLetter, deadLetter } from './dead-letter.ts';

/** A message as the processor needs it (a kafkajs message fits). */
export interface InputMessage {
  readonly offset: string;
  /** Kafka timestamp (producer CreateTime, Unix ms as text), for freshness figures. */
  readonly timestamp?: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
}

/** Options of {@link PartitionProcessor}. */
export interface PartitionProcessorOptions {
  readonly topic: string;
  readonly partition: number;
  readonly source: Source;
  readonly store: RollupStore;
  /** The clock, in Unix microseconds. */
  readonly nowUs: () => number;
  readonly maxFutureSkewUs: number;
  readonly recentLogsCapacity: number;
  readonly flushEvents: number;
  readonly flushIntervalMs: number;
  /** Publishes dead letters; resolves once the broker has them. */
  readonly publishDeadLetters: (letters: DeadLetter[]) => Promise<void>;
  /** The partition's earliest retained offset (where to start when the store has none). */
  readonly earliestOffset: () => Promise<number>;
  /** Reports each flush: events folded, rejects, and how long the store write took. */
  readonly onFlush?: (report: FlushReport) => void;
}

/** Figures of one flush. */
export interface FlushReport {
  readonly stream: string;
  readonly events: number;
  readonly rejected: number;
  readonly durationMs: number;
  /** Earliest Kafka timestamp (ms) of the messages flushed: produce-to-visible is measured from it. */
  readonly oldestProducedMs: number | null;
}

/** The runner's next step for the partition. */
export type BatchOutcome =
  | { readonly kind: 'consumed'; readonly nextOffset: number | null }
  | { readonly kind: 'seek'; readonly offset: number };

/** Folds one partition's messages into the store exactly once. */
export class PartitionProcessor {
  readonly #options: PartitionProcessorOptions;
  readonly #writer: PartitionWriter;
  readonly #stream: string;
  #fold = new Fold();
  #letters: DeadLetter[] = [];
  #rejected = 0;
  #oldestProducedMs: number | null = null;
  /** Next offset to fold; null until the writer is opened. */
  #expected: number | null = null;
  /** Where this processor last asked to seek, to accept a gap Kafka leaves after a seek. */
  #seekedTo: number | null = null;
  #busy = false;

  constructor(options: PartitionProcessorOptions) {
    this.#options = options;
    this.#stream = `${options.topic}/${options.partition}`;
    this.#writer = new PartitionWriter({
      store: options.store,
      stream: this.#stream,
      nowUs: options.nowUs,
      recentLogsCapacity: options.recentLogsCapacity,
    });
  }

  /** The stream this processor writes (`topic/partition`). */
  get stream(): string {
    return this.#stream;
  }

  /** The partition's topic. */
  get topic(): string {
    return this.#options.topic;
  }

  /** The partition number. */
  get partition(): number {
    return this.#options.partition;
  }

  /** Whether a batch is being processed right now. */
  get busy(): boolean {
    return this.#busy;
  }

  /** The next offset this processor has stored (null before its first batch or after a reopen). */
  get offset(): number | null {
    return this.#expected === null ? null : this.#writer.offset;
  }

  /** Forces a re-read of the stored offset before the next batch (after a rebalance). */
  reopen(): void {
    this.#expected = null;
  }

  /**
   * Processes one batch. Messages below the stored offset are skipped; if the batch does not
   * start where the store says consuming must resume, the answer is a seek and nothing is folded.
   */
  async process(
    messages: readonly InputMessage[],
    isRunning: () => boolean,
  ): Promise<BatchOutcome> {
    const first = messages[0];
    if (first === undefined) return { kind: 'consumed', nextOffset: null };
    if (this.#expected === null) {
      const stored = await this.#writer.open();
      this.#expected = stored ?? (await this.#options.earliestOffset());
      this.#seekedTo = null;
    }
    const expected = this.#expected;
    const firstOffset = Number(first.offset);
    if (firstOffset > expected && this.#seekedTo !== expected) {
      this.#seekedTo = expected;
      return { kind: 'seek', offset: expected };
    }
    try {
      let lastFlush = Date.now();
      let last = -1;
      for (const message of messages) {
        const offset = Number(message.offset);
        if (offset < (this.#expected ?? expected)) continue;
        this.#foldMessage(message, offset);
        last = offset;
        const due = this.#fold.size + this.#rejected >= this.#options.flushEvents ||
          Date.now() - lastFlush >= this.#options.flushIntervalMs;
        if (due) {
          await this.#flush(offset + 1);
          lastFlush = Date.now();
        }
        if (!isRunning()) break;
      }
      if (last >= 0 && this.#fold.size + this.#rejected > 0) await this.#flush(last + 1);
      return { kind: 'consumed', nextOffset: this.#expected };
    } catch (error) {
      this.#discardPending();
      this.#expected = null;
      if (error instanceof OffsetConflictError) {
        const stored = await this.#writer.open();
        this.#expected = stored ?? (await this.#options.earliestOffset());
        this.#seekedTo = this.#expected;
        return { kind: 'seek', offset: this.#expected };
      }
      throw error;
    }
  }

  #foldMessage(message: InputMessage, offset: number): void {
    const produced = Number(message.timestamp);
    if (
      Number.isFinite(produced) &&
      (this.#oldestProducedMs === null || produced < this.#oldestProducedMs)
    ) {
      this.#oldestProducedMs = produced;
    }
    const nowUs = this.#options.nowUs();
    const result = message.value === null
      ? {
        ok: false as const,
        rejection: { reason: 'message has no value (a tombstone)', path: '' },
      }
      : parse(message.value, this.#options.source, {
        nowUs,
        maxFutureSkewUs: this.#options.maxFutureSkewUs,
      });
    if (result.ok) {
      this.#fold.add(result.event, logPosition(this.#stream, offset), nowUs);
      return;
    }
    this.#rejected += 1;
    this.#letters.push(deadLetter(message, result.rejection, {
      topic: this.#options.topic,
      partition: this.#options.partition,
      offset: message.offset,
    }));
  }

  async #flush(nextOffset: number): Promise<void> {
    const started = performance.now();
    if (this.#letters.length > 0) {
      await this.#options.publishDeadLetters(this.#letters);
      this.#letters = [];
    }
    const delta = this.#fold.take();
    await this.#writer.flush(delta, nextOffset);
    this.#expected = nextOffset;
    this.#options.onFlush?.({
      stream: this.#stream,
      events: delta.events,
      rejected: this.#rejected,
      durationMs: performance.now() - started,
      oldestProducedMs: this.#oldestProducedMs,
    });
    this.#rejected = 0;
    this.#oldestProducedMs = null;
  }

  #discardPending(): void {
    this.#fold = new Fold();
    this.#letters = [];
    this.#rejected = 0;
    this.#oldestProducedMs = null;
  }
}
