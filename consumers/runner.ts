/**
 * The Kafka side of the consumers: a kafkajs consumer group over the source topics that hands
 * each partition's batches to its {@link PartitionProcessor} and turns the answers into kafkajs
 * calls (resolve and commit, or seek). Kafka's committed offsets only say how far the group got;
 * where to resume is always the offset stored in the store with the rollups.
 *
 * @example
 * ```ts
 * const runner = new ConsumerRunner({ kafka, store, groupId: 'rollups', ... });
 * await runner.start();
 * process.once('SIGTERM', () => runner.stop());
 * ```
 *
 * @module
 */
import type { Admin, Consumer, EachBatchPayload, Producer } from 'kafkajs';
import { STREAM_SOURCES, type StreamSource } from '../src/events/types.ts';
import { undecodableReason } from '../src/kafka/codecs/undecodable.ts';
import { publishDeadLetters } from './dead-letter.ts';
import { kafkaClients } from './kafka-clients.ts';
import type { PartitionLag } from './metrics.ts';
import { PartitionProcessor } from './partition-processor.ts';
import {
  partitionEnd,
  type PartitionEnds,
  partitionOffsets,
  topicOffsets,
} from './topic-offsets.ts';
import {
  type ConsumerRunnerOptions,
  UNDECODABLE_RETRY_MS,
  type UndecodableReport,
} from './runner-options.ts';

/** What a runner is given and what it reports (see `runner-options.ts`). */
export type { AheadReport, ConsumerRunnerOptions, UndecodableReport } from './runner-options.ts';
import { OffsetConflictError } from '../src/rollup/offset-conflict.ts';

/** Pause before a failed batch is fetched again. */
const RETRY_PAUSE_MS = 500;

/** Runs the consumer group until {@link ConsumerRunner.stop}. */
export class ConsumerRunner {
  readonly #options: ConsumerRunnerOptions;
  readonly #consumer: Consumer;
  readonly #producer: Producer;
  readonly #admin: Admin;
  readonly #processors = new Map<string, PartitionProcessor>();
  /** Partitions paused because their stored offset is beyond their end (see `onAhead`). */
  readonly #ahead = new Map<string, PartitionProcessor>();
  /** Partitions paused at a batch they cannot decode, with when they were last fetched (ms). */
  readonly #undecodable = new Map<string, { processor: PartitionProcessor; fetchedMs: number }>();
  /** Processors of partitions that moved away, until their last flush has landed. */
  readonly #retired = new Set<PartitionProcessor>();
  readonly #sourceOfTopic: Map<string, StreamSource>;
  #stopping: Promise<void> | null = null;
  /** Settles the first join: {@link ConsumerRunner.start} waits for it. */
  #firstJoin: { resolve(): void; reject(error: Error): void } | null = null;
  #offsetCheck: ReturnType<typeof setInterval> | null = null;
  /** Whether a stored-offset check is under way (see {@link #checkStoredOffsetsAlone}). */
  #checkingOffsets = false;

  constructor(options: ConsumerRunnerOptions) {
    this.#options = options;
    this.#sourceOfTopic = new Map(
      STREAM_SOURCES.map((source) => [options.topics[source], source]),
    );
    ({ consumer: this.#consumer, producer: this.#producer, admin: this.#admin } = kafkaClients(
      options,
    ));
  }

  /**
   * Connects, joins the group and starts consuming; resolves once the group was joined, and
   * rejects if the group stopped for good before (kafkajs rejoins by itself after an error it
   * retries, such as a coordinator still loading on a fresh broker) or the runner was stopped.
   */
  async start(): Promise<void> {
    const joined = new Promise<void>((resolve, reject) => {
      this.#firstJoin = { resolve, reject };
    });
    // Settled elsewhere when nobody waits (a stop while connecting).
    joined.catch(() => undefined);
    await Promise.all([this.#consumer.connect(), this.#producer.connect(), this.#admin.connect()]);
    this.#listen();
    await this.#consumer.subscribe({
      topics: STREAM_SOURCES.map((source) => this.#options.topics[source]),
      fromBeginning: true,
    });
    await this.#consumer.run({
      partitionsConsumedConcurrently: this.#options.concurrency,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.#eachBatch(payload),
    });
    this.#offsetCheck = setInterval(
      () => void this.#checkStoredOffsetsAlone(),
      this.#options.offsetCheckMs ?? 1_000,
    );
    await joined;
  }

  /**
   * Follows the group: joins (each resumes every partition), empty fetches, heartbeats, crashes.
   */
  #listen(): void {
    // After any rebalance, a partition may come back after another member wrote it: re-read the
    // stored offsets before folding again.
    this.#consumer.on(this.#consumer.events.GROUP_JOIN, ({ payload }) => {
      for (const processor of this.#processors.values()) processor.reopen();
      void this.#resumeAssigned(payload.memberAssignment);
      this.#firstJoin?.resolve();
      this.#firstJoin = null;
      this.#options.onJoin?.();
    });
    // A fetch of only records with nothing to fold (an aborted transaction, a transaction's
    // markers) never reaches eachBatch: kafkajs commits past it, and so must the store.
    this.#consumer.on(this.#consumer.events.END_BATCH_PROCESS, ({ payload }) => {
      if (payload.batchSize > 0 || payload.firstOffset === null) return;
      if (!this.#sourceOfTopic.has(payload.topic)) return;
      const processor = this.#processor(payload.topic, payload.partition);
      processor.cover(Number(payload.firstOffset), Number(payload.lastOffset) + 1).catch(
        (error: unknown) => this.#options.onError?.(error, processor.stream),
      );
    });
    // Kafka answers. Not said on a fetch: kafkajs says it fetched (FETCH) after a wait without
    // asking a broker when it had nothing to ask for.
    this.#consumer.on(this.#consumer.events.HEARTBEAT, () => this.#options.onHeartbeat?.());
    this.#consumer.on(this.#consumer.events.CRASH, ({ payload }) => {
      if (this.#stopping !== null) return;
      this.#options.onCrash?.(payload.error, payload.restart);
      if (payload.restart) return;
      this.#firstJoin?.reject(payload.error);
      this.#firstJoin = null;
    });
  }

  /** Folds one fetched batch of a partition, and resolves and commits what it folded. */
  async #eachBatch(
    { batch, resolveOffset, heartbeat, commitOffsetsIfNecessary, isRunning, isStale }:
      EachBatchPayload,
  ): Promise<void> {
    // Under heap pressure no batch is folded (and kafkajs fetches no more) until it eases.
    await this.#options.heapGuard?.room(heartbeat);
    const processor = this.#processor(batch.topic, batch.partition);
    // What comes before a batch that could not be decoded is folded; that batch stops it.
    const marked = batch.messages.findIndex((message) =>
      undecodableReason(message.headers) !== null
    );
    const messages = marked < 0 ? batch.messages : batch.messages.slice(0, marked);
    try {
      const outcome = await processor.process(
        messages,
        () => isRunning() && !isStale(),
        Number(batch.highWatermark),
        // Past the aborted records and transaction markers that kafkajs filtered out.
        marked < 0 ? Number(batch.lastOffset()) + 1 : undefined,
      );
      if (outcome.kind === 'ahead') {
        this.#holdAhead(processor, outcome.stored, outcome.end);
        return;
      }
      if (outcome.kind === 'seek') {
        this.#seek(processor, outcome.offset);
        return;
      }
      if (outcome.nextOffset !== null && outcome.nextOffset > 0) {
        resolveOffset(String(outcome.nextOffset - 1));
        await commitOffsetsIfNecessary();
      }
      const marker = batch.messages[marked];
      if (marker !== undefined) {
        // The batch's markers are consecutive: the last one is the batch's last offset.
        let last = marked;
        while (undecodableReason(batch.messages[last + 1]?.headers) !== null) last += 1;
        this.#holdUndecodable(processor, {
          offset: Number(marker.offset),
          through: Number(batch.messages[last]?.offset ?? marker.offset) + 1,
          reason: undecodableReason(marker.headers) ?? 'the batch could not be decoded',
        });
      } else if (this.#undecodable.delete(processor.stream)) {
        this.#options.onUndecodableCleared?.(processor.stream, 'read');
      }
      await heartbeat();
    } catch (error) {
      // Nothing resolved: kafkajs fetches the batch again, and the processor re-reads the
      // stored offset first, so whatever was flushed before the failure is skipped.
      this.#options.onError?.(error, processor.stream);
      await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
    }
  }

  /**
   * One stored-offset check at a time: a check slower than its interval (a loaded machine, a slow
   * store) is not overlapped by the next, which would clear a paused partition twice.
   */
  async #checkStoredOffsetsAlone(): Promise<void> {
    if (this.#checkingOffsets) return;
    this.#checkingOffsets = true;
    try {
      await this.#checkStoredOffsets();
    } finally {
      this.#checkingOffsets = false;
    }
  }

  /**
   * Seeks every idle partition whose stored state is no longer what its processor wrote (its
   * resume offset, or the watermark of a project it wrote): without this, a partition that
   * receives no new event after a FLUSHALL, or after a Redis Cluster shard lost data, would
   * never notice that rollups are gone.
   */
  async #checkStoredOffsets(): Promise<void> {
    for (const [stream, processor] of this.#ahead) {
      try {
        await this.#recheckAhead(stream, processor);
      } catch (error) {
        this.#options.onError?.(error, stream);
      }
    }
    const nowMs = this.#options.nowUs() / 1000;
    for (const [stream, held] of this.#undecodable) {
      if (nowMs - held.fetchedMs < UNDECODABLE_RETRY_MS) continue;
      held.fetchedMs = nowMs;
      // From the stored offset: whatever came before the batch was folded and stored first.
      held.processor.reopen();
      const { topic, partition } = held.processor;
      this.#consumer.resume([{ topic, partitions: [partition] }]);
      try {
        await this.#resume(held.processor);
      } catch (error) {
        this.#options.onError?.(error, stream);
      }
    }
    for (const processor of this.#processors.values()) {
      if (this.#ahead.has(processor.stream)) continue;
      if (processor.failed && !processor.busy) {
        await this.#resume(processor);
        continue;
      }
      const written = processor.offset;
      if (processor.busy || written === null) continue;
      try {
        const verdict = await processor.verify();
        if (verdict.consistent) continue;
        this.#options.onError?.(
          new OffsetConflictError(processor.stream, verdict.reason),
          processor.stream,
        );
        await this.#resume(processor);
      } catch (error) {
        this.#options.onError?.(error, processor.stream);
      }
    }
  }

  /**
   * On assignment, every partition resumes from its stored offset: Kafka's committed offset may
   * be ahead of it (it counts what was folded, not what was stored) or the store may have lost
   * data while no consumer ran, and a partition with nothing new to fetch would never notice.
   */
  async #resumeAssigned(assignment: Readonly<Record<string, readonly number[]>>): Promise<void> {
    const assigned = new Set(
      Object.entries(assignment).flatMap(([topic, partitions]) =>
        partitions.map((partition) => `${topic}/${partition}`)
      ),
    );
    // A partition that moved to another member is its business now; a flush still under way
    // lands or is refused by the stored-offset check, and the one-second check leaves it alone.
    for (const [stream, processor] of this.#processors) {
      if (assigned.has(stream)) continue;
      // A paused partition that moved away is its new owner's to report.
      if (this.#ahead.delete(stream)) this.#options.onAheadCleared?.(stream, 'moved');
      if (this.#undecodable.delete(stream)) this.#options.onUndecodableCleared?.(stream, 'moved');
      this.#processors.delete(stream);
      this.#retired.add(processor);
      void processor.drain().finally(() => this.#retired.delete(processor));
    }
    for (const [topic, partitions] of Object.entries(assignment)) {
      if (!this.#sourceOfTopic.has(topic)) continue;
      await this.#resumeAll(partitions.map((partition) => this.#processor(topic, partition)));
    }
  }

  /** Seeks `processor`'s partition to its stored offset if it must resume there. */
  #resume(processor: PartitionProcessor): Promise<void> {
    return this.#resumeAll([processor]);
  }

  /**
   * Seeks each of `processors` (of one topic) to its stored offset where it must resume there,
   * or pauses it when that offset is beyond the partition's end. The ends are read once, after
   * the stored offsets: an end read before could be older than what was stored meanwhile.
   */
  async #resumeAll(processors: readonly PartitionProcessor[]): Promise<void> {
    const resumes: [PartitionProcessor, number][] = [];
    for (const processor of processors) {
      try {
        const offset = await processor.resume();
        if (offset !== null) resumes.push([processor, offset]);
      } catch (error) {
        this.#options.onError?.(error, processor.stream);
      }
    }
    const [first] = resumes;
    if (first === undefined) return;
    let ends: PartitionEnds;
    try {
      ends = await topicOffsets(this.#admin, first[0].topic);
    } catch (error) {
      for (const [processor] of resumes) this.#options.onError?.(error, processor.stream);
      return;
    }
    for (const [processor, offset] of resumes) {
      const end = ends.get(processor.partition)?.high;
      if (end !== undefined && offset > end) this.#holdAhead(processor, offset, end);
      else this.#seek(processor, offset);
    }
  }

  /** How far each partition this process holds is behind its topic's end. */
  async lag(): Promise<PartitionLag[]> {
    const ends = new Map<string, PartitionEnds>();
    for (const { topic } of this.#processors.values()) {
      if (!ends.has(topic)) ends.set(topic, await topicOffsets(this.#admin, topic));
    }
    const lags: PartitionLag[] = [];
    for (const processor of this.#processors.values()) {
      const { topic, partition } = processor;
      const end = ends.get(topic)?.get(partition);
      if (end === undefined) continue;
      const stored = (await processor.storedOffset()) ?? end.low;
      lags.push({ topic, partition, stored, events: Math.max(0, end.high - stored) });
    }
    return lags;
  }

  /** Partitions paused because their stored offset is beyond their end. */
  get ahead(): number {
    return this.#ahead.size;
  }

  /** Pauses `processor`'s partition: its stored offset is beyond the partition's end. */
  #holdAhead(processor: PartitionProcessor, storedOffset: number, partitionEnd: number): void {
    // Paused again each time (a rejoin may have resumed it); reported once.
    this.#consumer.pause([{ topic: processor.topic, partitions: [processor.partition] }]);
    if (this.#ahead.has(processor.stream)) return;
    this.#ahead.set(processor.stream, processor);
    this.#options.onAhead?.({ stream: processor.stream, storedOffset, partitionEnd });
  }

  /**
   * Pauses `processor`'s partition at a batch it cannot decode (first offset `offset`): the
   * other partitions go on; this one is fetched again every {@link UNDECODABLE_RETRY_MS}.
   */
  #holdUndecodable(
    processor: PartitionProcessor,
    batch: Pick<UndecodableReport, 'offset' | 'through' | 'reason'>,
  ): void {
    const { stream, topic, partition } = processor;
    this.#consumer.pause([{ topic, partitions: [partition] }]);
    const held = this.#undecodable.get(stream);
    if (held === undefined) {
      this.#undecodable.set(stream, { processor, fetchedMs: this.#options.nowUs() / 1000 });
    }
    this.#options.onUndecodable?.({ stream, topic, partition, ...batch });
  }

  /** Lets a partition ahead go on once its stored offset is within the partition again. */
  async #recheckAhead(stream: string, processor: PartitionProcessor): Promise<void> {
    const stored = await processor.storedOffset();
    const end = await partitionEnd(this.#admin, processor.topic, processor.partition);
    if (stored !== null && stored > end) return;
    // It may have moved to another member meanwhile (reported 'moved' then).
    if (this.#ahead.get(stream) !== processor) return;
    this.#ahead.delete(stream);
    processor.reopen();
    this.#consumer.resume([{ topic: processor.topic, partitions: [processor.partition] }]);
    this.#options.onAheadCleared?.(stream, 'within');
    await this.#resume(processor);
  }

  /** Makes kafkajs fetch `processor`'s partition from `offset` next. */
  #seek(processor: PartitionProcessor, offset: number): void {
    const { topic, partition } = processor;
    try {
      this.#consumer.seek({ topic, partition, offset: String(offset) });
    } catch {
      // Between a crash of the group and its rejoin kafkajs has no group to seek in (it throws
      // "consumer group was not initialized"): the rejoin's assignment re-reads the stored
      // offset and seeks then, and the next batch re-reads it too.
      processor.reopen();
    }
  }

  /**
   * Stops fetching, lets the batches in flight finish, waits for their flushes to land, commits
   * and disconnects. Idempotent.
   */
  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#firstJoin?.reject(new Error('the consumer runner was stopped before it joined'));
      this.#firstJoin = null;
      if (this.#offsetCheck !== null) clearInterval(this.#offsetCheck);
      await this.#consumer.disconnect();
      const processors = [...this.#processors.values(), ...this.#retired];
      await Promise.all(processors.map((processor) => processor.drain()));
      await Promise.all([this.#producer.disconnect(), this.#admin.disconnect()]);
    })();
    return this.#stopping;
  }

  #processor(topic: string, partition: number): PartitionProcessor {
    const stream = `${topic}/${partition}`;
    let processor = this.#processors.get(stream);
    if (processor !== undefined) return processor;
    const source = this.#sourceOfTopic.get(topic);
    if (source === undefined) throw new Error(`no source is published to topic ${topic}`);
    const options = this.#options;
    processor = new PartitionProcessor({
      topic,
      partition,
      source,
      store: options.store,
      nowUs: options.nowUs,
      maxFutureSkewUs: options.maxFutureSkewUs,
      recentLogsCapacity: options.recentLogsCapacity,
      flushEvents: options.flushEvents,
      ...(options.flushBytes === undefined ? {} : { flushBytes: options.flushBytes }),
      ...(options.flushLingerMs === undefined ? {} : { flushLingerMs: options.flushLingerMs }),
      ...(options.partsBudget === undefined ? {} : { partsBudget: options.partsBudget }),
      publishDeadLetters: (letters) =>
        publishDeadLetters(
          this.#producer,
          options.topics.deadLetter,
          letters,
          options.onDeadLetter,
        ),
      earliestOffset: async () => (await partitionOffsets(this.#admin, topic, partition)).low,
      ...(options.onFlush === undefined ? {} : { onFlush: options.onFlush }),
      ...(options.onOverrun === undefined ? {} : { onOverrun: options.onOverrun }),
      ...(options.onLogStart === undefined ? {} : { onLogStart: options.onLogStart }),
      ...(options.onUnreadable === undefined ? {} : { onUnreadable: options.onUnreadable }),
      onFlushError: (error) => options.onError?.(error, stream),
    });
    this.#processors.set(stream, processor);
    return processor;
  }
}
