/**
 * What a consumer does with one partition's batches, apart from Kafka itself: skip what the
 * store already covers, parse, fold, route rejects to the dead-letter topic, and write the folded
 * delta through the {@link PartitionWriter}. It answers the runner with the next offset to consume
 * from, or with a seek when the store says consuming must resume elsewhere. Kept free of kafkajs
 * so that every branch can be driven by a test.
 *
 * Writes are pipelined: a batch is folded and its flush started, and the answer does not wait
 * for the store. While one flush is under way, whatever is folded meanwhile waits and goes out
 * as the next flush the moment the first one lands (so under load flushes grow, and the store
 * and this process work at the same time instead of taking turns), but no sooner than
 * `flushLingerMs` after the last one started, unless it is full or the consumer stops (so at a
 * live rate a flush is not a commit per project for every few events). At most one flush per
 * partition is in flight, flushes land in offset order, and folding waits once `flushEvents`
 * events are pending, which bounds memory. A failed flush voids everything folded after the
 * stored offset: the next batch (or {@link PartitionProcessor.resume}, when no batch comes)
 * re-reads the stored offset and asks for a seek there, so nothing is lost or counted twice.
 *
 * @module
 */
import { SerialQueue } from '../src/async/serial-queue.ts';
import { DEFAULT_FLUSH_BYTES, DEFAULT_FLUSH_LINGER_MS } from '../src/config/defaults.ts';
import { OffsetConflictError } from '../src/rollup/offset-conflict.ts';
import { PartitionWriter, type Verdict } from '../src/rollup/partition-writer.ts';
import { type InputMessage, type ParsedMessage, parseMessage } from './input-message.ts';
import { eventsOf, parsedFrom } from './parsed-batch.ts';
import { LogStart } from './log-start.ts';
import { FlushPacer } from './flush-pacer.ts';

/** The messages {@link PartitionProcessor.process} takes. */
export type { InputMessage };
export type { BatchOutcome, FlushReport, PartitionProcessorOptions } from './processor-options.ts';
import type { BatchOutcome, PartitionProcessorOptions } from './processor-options.ts';
import { RetentionGap } from './retention-gap.ts';
import { emptyPending, type Pending, reject, writePending } from './pending-work.ts';
import { widenProducedSpan } from './produced-span.ts';

/** Folds one partition's messages into the store exactly once. */
export class PartitionProcessor {
  readonly #options: PartitionProcessorOptions;
  readonly #writer: PartitionWriter;
  readonly #stream: string;
  #pending: Pending;
  /** Next offset to fold; null until the stored offset has been read (again). */
  #expected: number | null = null;
  /** Seeks back over a gap once, then folds on, reporting what retention deleted. */
  readonly #gap: RetentionGap;
  /** The flush under way; it never rejects (a failure lands in `#failure`). */
  #inFlight: Promise<void> | null = null;
  /** When the next flush goes out (`flushLingerMs`). */
  readonly #pacer: FlushPacer;
  /** Why the last flush failed, until the stream is reopened. */
  #failure: unknown = null;
  /** Set by {@link reopen}: the stored offset must be read again before the next batch. */
  #stale = false;
  /** Serializes `process`, `cover` and `resume`. */
  readonly #turns = new SerialQueue();

  constructor(options: PartitionProcessorOptions) {
    this.#options = options;
    this.#stream = `${options.topic}/${options.partition}`;
    this.#pending = emptyPending(this.#stream);
    this.#pacer = new FlushPacer(options.flushLingerMs ?? DEFAULT_FLUSH_LINGER_MS, options.nowUs);
    this.#gap = new RetentionGap({ ...options, passOver: (to) => this.#passOver(to) });
    const start = new LogStart({ ...options, onStart: options.onLogStart });
    this.#writer = new PartitionWriter({
      onEarliestStart: (logStart, knownStored) => start.started(logStart, knownStored),
      store: options.store,
      stream: this.#stream,
      nowUs: options.nowUs,
      earliestOffset: options.earliestOffset,
      recentLogsCapacity: options.recentLogsCapacity,
      maxFutureSkewUs: options.maxFutureSkewUs,
      ...(options.cacheLimit === undefined ? {} : { cacheLimit: options.cacheLimit }),
      ...(options.partsBudget === undefined ? {} : { partsBudget: options.partsBudget }),
      ...(options.onUnreadable === undefined ? {} : { onUnreadable: options.onUnreadable }),
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

  /** Whether a batch, a recovery or a flush is under way right now. */
  get busy(): boolean {
    return this.#turns.size > 0 || this.#inFlight !== null;
  }

  /** Whether a flush failed and no batch or recovery has re-read the stored offset since. */
  get failed(): boolean {
    return this.#failure !== null;
  }

  /** The next offset this processor has stored (null before its first batch or after a reopen). */
  get offset(): number | null {
    return this.#stale || this.#expected === null ? null : this.#writer.offset;
  }

  /**
   * The partition's stored resume offset (null: none): where a new owner would resume. Read from
   * the store, through the writer, which knows where it is kept.
   */
  storedOffset(): Promise<number | null> {
    return this.#writer.storedOffset();
  }

  /** Forces a re-read of the stored offset before the next batch (after a rebalance). */
  reopen(): void {
    // A flag rather than clearing `#expected`, which a batch under way would set again.
    this.#stale = true;
  }

  /**
   * Compares what this processor wrote with what the store holds (see
   * {@link PartitionWriter.verify}); on a difference, the next {@link resume} or batch re-reads
   * from where the store needs it.
   */
  async verify(): Promise<Verdict> {
    const verdict = await this.#writer.verify();
    if (!verdict.consistent) this.reopen();
    return verdict;
  }

  /**
   * Processes one batch. Messages below the stored offset are skipped; if the batch does not
   * start where the store says consuming must resume, the answer is a seek and nothing is folded;
   * if the stored offset is beyond `partitionEnd` (the partition's high watermark, as the fetch
   * saw it), the answer is `ahead` and nothing is folded or skipped. `through` is the offset
   * after the last record the fetch returned, when records with nothing to fold (of an aborted
   * transaction, a transaction's markers) follow the last message: the stored offset covers them
   * too. Resolves once the batch is folded and its flush started, not when the flush lands.
   */
  process(
    messages: readonly InputMessage[],
    isRunning: () => boolean,
    partitionEnd?: number,
    through?: number,
  ): Promise<BatchOutcome> {
    return this.#turns.run(async () => {
      try {
        return await this.#process(messages, isRunning, partitionEnd, through);
      } catch (error) {
        // A message may have been taken into the pending work and not folded: nothing pending is
        // written (as after a failed flush), and the next batch re-reads the stored offset.
        this.#failure ??= error;
        throw error;
      }
    });
  }

  /**
   * Where consuming must resume, when this processor has not read the stored offset since it
   * was created or reopened, or its last flush failed: re-reads the stored offset (the earliest
   * retained one when none is stored) and answers it. Null when the processor is on track.
   * Used on partition assignment, so a partition resumes where the store says even when Kafka
   * has nothing new for it, and for a failed partition that gets no new batch.
   */
  resume(): Promise<number | null> {
    return this.#turns.run(async () => {
      if (!this.#stale && this.#expected !== null && this.#failure === null) return null;
      return await this.#reopenFromStore();
    });
  }

  /** Resolves once nothing is being written (on shutdown, after the last batch). */
  async drain(): Promise<void> {
    while (this.#inFlight !== null) {
      this.#pacer.cut();
      await this.#inFlight;
    }
  }

  async #process(
    messages: readonly InputMessage[],
    isRunning: () => boolean,
    partitionEnd: number | undefined,
    through: number | undefined,
  ): Promise<BatchOutcome> {
    const first = messages[0];
    if (first === undefined) return { kind: 'consumed', nextOffset: null };
    if (this.#failure !== null || this.#stale || this.#expected === null) {
      await this.#reopenFromStore();
    }
    const expected = this.#expected ?? 0;
    // Kafka answers a fetch beyond the end from the earliest offset: every message would look
    // already held and be skipped.
    if (partitionEnd !== undefined && expected > partitionEnd) {
      return { kind: 'ahead', stored: expected, end: partitionEnd };
    }
    if ((await this.#gap.judge(expected, Number(first.offset))) === 'seek') {
      return { kind: 'seek', offset: expected };
    }
    for (let index = 0; index < messages.length; index++) {
      const message = messages[index] as InputMessage;
      const offset = Number(message.offset);
      if (offset < (this.#expected ?? expected)) continue;
      const item = { message, offset, result: parseMessage(message, this.#options) };
      if (!this.#foldLoaded(item)) {
        // Its project (or its day's keys) is not loaded: what the rest of the batch needs is read
        // with it, in one round, and the rest is folded from its parse.
        return await this.#foldLoadingRest(
          [item, ...parsedFrom(messages, index + 1, this.#options)],
          isRunning,
          through,
        );
      }
      this.#expected = offset + 1;
      // Awaited only when full: an await per message would let a landing flush start the next
      // one with a few events (and cost a promise each).
      if (this.#full()) await this.#makeRoom();
      const stop = this.#stopAfter(isRunning);
      if (stop !== null) return stop;
    }
    return this.#batchEnd(through);
  }

  /**
   * Loads what judging the `parsed` messages needs, then folds them in order: the tail of a batch
   * from its first message whose project the writer did not know. A store that holds less than
   * this stream committed (a failover) answers a seek to where it now says.
   */
  async #foldLoadingRest(
    parsed: readonly ParsedMessage[],
    isRunning: () => boolean,
    through: number | undefined,
  ): Promise<BatchOutcome> {
    try {
      await this.#writer.load(eventsOf(parsed));
    } catch (error) {
      if (!(error instanceof OffsetConflictError)) throw error;
      this.#options.onFlushError?.(error);
      return { kind: 'seek', offset: await this.#reopenFromStore() };
    }
    for (const item of parsed) {
      if (!this.#foldLoaded(item)) await this.#foldLoading(item);
      this.#expected = item.offset + 1;
      if (this.#full()) await this.#makeRoom();
      const stop = this.#stopAfter(isRunning);
      if (stop !== null) return stop;
    }
    return this.#batchEnd(through);
  }

  /**
   * The batch's outcome when it ends at the message just folded (a flush failed, or the consumer
   * is stopping), else null.
   */
  #stopAfter(isRunning: () => boolean): BatchOutcome | null {
    // A failed flush voids this batch too: the next one re-reads the stored offset.
    if (this.#failure !== null) return { kind: 'consumed', nextOffset: null };
    if (isRunning()) return null;
    this.#startFlush(true);
    return { kind: 'consumed', nextOffset: this.#expected };
  }

  /** Ends a folded batch: covers `through`, starts its flush, answers where to consume from. */
  #batchEnd(through: number | undefined): BatchOutcome {
    if (through !== undefined) this.#coverThrough(through);
    this.#startFlush();
    return { kind: 'consumed', nextOffset: this.#expected };
  }

  /**
   * Covers the records from `first` to before `through`, which a fetch returned with nothing to
   * fold (an aborted transaction's records, a transaction's markers; Kafka hands none of them to
   * a reader of committed records): the stored offset moves past them, so the partition's lag
   * reaches 0 and no restart reads them again. Ignored unless they start where this processor
   * is (otherwise the next batch seeks there).
   */
  cover(first: number, through: number): Promise<void> {
    return this.#turns.run(async () => {
      if (this.#failure !== null || this.#stale || this.#expected === null) {
        await this.#reopenFromStore();
      }
      if (first > (this.#expected ?? 0)) return;
      this.#coverThrough(through);
      this.#startFlush();
    });
  }

  /** Stores `logStart` as the resume offset, past offsets retention deleted (reported once). */
  async #passOver(logStart: number): Promise<void> {
    this.#coverThrough(logStart);
    this.#startFlush(true);
    await this.drain();
    if (this.#failure !== null) throw this.#failure;
  }

  /** Moves the pending offset to `through` when it is beyond what was folded. */
  #coverThrough(through: number): void {
    if (this.#expected === null || through <= this.#expected) return;
    this.#expected = through;
    this.#pending.nextOffset = through;
  }

  /** Waits for the flush under way, drops everything not written, reads the stored offset. */
  async #reopenFromStore(): Promise<number> {
    await this.drain();
    this.#pending = emptyPending(this.#stream);
    this.#failure = null;
    this.#expected = null;
    // A reopen() from here on asks for yet another read.
    this.#stale = false;
    let offset: number;
    try {
      offset = await this.#writer.open().catch((error: unknown) => {
        // The store lost what this stream committed (a failover): the open lowered where the
        // stream resumes and said so; the next open resumes there.
        if (!(error instanceof OffsetConflictError)) throw error;
        this.#options.onFlushError?.(error);
        return this.#writer.open();
      });
    } catch (error) {
      // Marked failed, so that the one-second check asks again even if no batch ever comes.
      this.#failure = error;
      throw error;
    }
    this.#expected = offset;
    // Not a gap to accept: a batch fetched before the seek there may still arrive; it is refused.
    this.#gap.forget();
    return offset;
  }

  #pendingEvents(): number {
    return this.#pending.fold.size + this.#pending.rejected;
  }

  /** Whether what is pending has reached `flushEvents` or `flushBytes`. */
  #full(): boolean {
    return this.#pendingEvents() >= this.#options.flushEvents ||
      this.#pending.bytes >= (this.#options.flushBytes ?? DEFAULT_FLUSH_BYTES);
  }

  /** Waits until what is pending fits under both bounds again (or a flush failed). */
  async #makeRoom(): Promise<void> {
    while (this.#full() && this.#failure === null) {
      this.#startFlush(true);
      // A lingering flush, cut short, takes what is pending: folding goes on while it writes.
      await (this.#pacer.lingering ?? this.#inFlight);
    }
  }

  /**
   * Folds one parsed message, unless its project already holds it (a replay after a crash or a
   * rewind: the project's watermark is past it); a rejected one becomes a dead letter. False, and
   * nothing done, when the writer lacks what judging it needs ({@link #foldLoading}). Synchronous:
   * an async call per message would cost a promise and a microtask turn.
   */
  #foldLoaded({ message, offset, result }: ParsedMessage): boolean {
    const pending = this.#pending;
    const folded = result.ok
      ? this.#writer.fold(pending.fold, result.event, offset, this.#options.nowUs())
      : null;
    if (folded?.kind === 'unloaded') return false;
    widenProducedSpan(pending, message.timestamp);
    pending.nextOffset = offset + 1;
    pending.bytes += message.value?.length ?? 0;
    if (!result.ok) reject(pending, message, result.rejection, this.#options);
    else if (folded?.kind === 'held') pending.skipped += 1;
    else if (folded?.kind === 'refused') {
      reject(pending, message, folded.rejection, this.#options);
    }
    return true;
  }

  /**
   * Loads what judging a message the writer could not fold needs, and folds it. Asked again
   * after every load: a flush that lands while this message waits may make the writer forget
   * what was just read, and hands the pending work over to a new one.
   */
  async #foldLoading(item: ParsedMessage): Promise<void> {
    const { result } = item;
    for (let loads = 0; loads < 3; loads++) {
      if (result.ok) await this.#writer.load([result.event]);
      if (this.#foldLoaded(item)) return;
    }
    throw new Error(
      `stream ${this.#stream}: the writer keeps forgetting project ` +
        `${result.ok ? result.event.project : ''} (its cache limit is too small for one ` +
        "batch's projects)",
    );
  }

  /**
   * Hands what is pending to the writer, unless a flush is under way (it chains this one). Not
   * `urgent`, the flush first waits out what is left of its linger (see {@link FlushPacer}).
   */
  #startFlush(urgent = false): void {
    if (this.#inFlight !== null) {
      // A linger under way ends now; a write under way is followed by a flush that does not.
      if (urgent) this.#pacer.hurry();
      return;
    }
    if (this.#failure !== null || this.#pending.nextOffset === null) return;
    let flush: Promise<void>;
    try {
      const waitMs = this.#pacer.waitMs(this.#full(), urgent);
      flush = this.#pacer.schedule(waitMs, () => this.#takePending())
        .then((pending) => this.#write(pending));
    } catch (error) {
      // The clock failed: nothing was taken, and the failure is the flush's, as a store's is.
      flush = Promise.reject(error);
    }
    this.#inFlight = flush.then(
      () => {
        this.#inFlight = null;
        this.#startFlush(this.#pacer.urgent);
      },
      (error: unknown) => {
        this.#inFlight = null;
        this.#failure = error;
        // A reporter that throws must not make the flush reject: drain() awaits it.
        try {
          this.#options.onFlushError?.(error);
        } catch {
          // The failure itself is kept, and resuming reads the stored offset again.
        }
      },
    );
  }

  /** Takes what is pending; null when nothing is, or a failure came first (it is not written). */
  #takePending(): Pending | null {
    const pending = this.#pending;
    if (this.#failure !== null || pending.nextOffset === null) return null;
    // The clock first: if it throws, the work stays pending, and is voided with the failure.
    this.#pacer.took();
    this.#pending = emptyPending(this.#stream);
    return pending;
  }

  /** Writes `pending` (nothing when null), its dead letters first, and reports the flush. */
  async #write(pending: Pending | null): Promise<void> {
    if (pending !== null) await writePending(pending, this.#writer, this.#stream, this.#options);
  }
}
