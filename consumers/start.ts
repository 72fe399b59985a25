/**
 * Starts the consumer role: once the store is ready, ensures the topics exist, then runs the
 * consumer group that folds every event into the store. Started by the composition root,
 * `service/start.ts`. Every step is retried with backoff until it succeeds: consumers started
 * before their broker (or beside a broker still creating the topics) wait and say so, and never
 * exit for a state that passes.
 *
 * @module
 */
import { writeRefusalOf } from '../src/store/write-refusal.ts';
import { type RetryOptions, retryUntilDone } from '../src/async/retry.ts';
import { OutageLog } from '../src/async/outage-log.ts';
import { messageOf } from '../src/text/error-message.ts';
import type { Config } from '../src/config.ts';
import { isKafkaAway, kafkaClient } from '../src/kafka/client.ts';
import { kafkaFailure } from '../src/kafka/failure.ts';
import { ensureTopics, topicNames } from '../src/kafka/topics.ts';
import type { Logger } from '../src/logger.ts';
import { MOVED_ASIDE_MESSAGE, type UnreadableReporter } from '../src/rollup/unreadable.ts';
import { OffsetConflictError } from '../src/rollup/offset-conflict.ts';
import { isStoreAway, StoreTimeoutError } from '../src/store/away.ts';
import type { RollupStore } from '../src/store/port.ts';
import type { Registry } from 'prom-client';
import { type BatchFailure, registerConsumerMetrics } from './metrics.ts';
import { RestartRate } from './restart-rate.ts';
import { StallWatch } from './stall-watch.ts';
import { consumerStore } from './store-deadline.ts';
import { memoryBounds } from './memory-bounds.ts';
import { heapOfThisProcess } from './heap-guard.ts';
import { type AheadReport, ConsumerRunner, type UndecodableReport } from './runner.ts';

/** Why a batch failed, for the log and the metrics. */
function batchFailure(error: unknown): BatchFailure {
  if (isStoreAway(error)) return 'store_away';
  if (error instanceof StoreTimeoutError) return 'store_timeout';
  if (isKafkaAway(error)) return 'kafka_away';
  if (writeRefusalOf(error) !== null) return 'store_refused';
  return error instanceof OffsetConflictError ? 'store_changed' : 'other';
}

/**
 * A failed batch (it is fetched again after a pause). A store that is away is said by whoever
 * opened it, once, and one that does not answer in time by the consumers' store deadline (see
 * `store-deadline.ts`); Kafka away, by `kafkaAway` (an outage log: once, then a reminder); a store
 * that no longer holds what was written (lost or rolled back, or the partition moved) is repaired
 * by resuming where the store says, and said without a stack; one that refuses writes while it
 * answers (full, read-only, ...) is said by the store's refusal log (src/store/refusal-log.ts),
 * once, with what to do; anything else is logged whole.
 */
function logBatchError(
  logger: Logger,
  error: unknown,
  stream: string,
  kafkaAway: (error: unknown) => void,
): BatchFailure {
  const reason = batchFailure(error);
  if (reason === 'store_away' || reason === 'store_timeout') {
    logger.debug({ reason: messageOf(error), stream }, 'batch failed: the store is away; retrying');
  } else if (reason === 'store_refused') {
    logger.debug(
      { reason: messageOf(error), stream },
      'batch failed: the store refuses writes; retrying',
    );
  } else if (reason === 'kafka_away') {
    logger.debug({ reason: messageOf(error), stream }, 'batch failed: Kafka is away; retrying');
    kafkaAway(error);
  } else if (reason === 'store_changed') {
    logger.warn(
      { stream, reason: messageOf(error) },
      'the store changed under this consumer; resuming where it says',
    );
  } else {
    logger.warn({ err: error, stream }, 'batch failed; retrying');
  }
  return reason;
}

/** How often a partition paused at a batch it cannot decode is logged, at most. */
const UNDECODABLE_LOG_MS = 60_000;

/** How often the partitions' stored offsets and lag are sampled for {@link StallWatch}. */
const STALL_SAMPLE_MS = 15_000;

/** Why the consumers are not consuming while the group is being joined again. */
const REJOINING = 'rejoining the consumer group';

/** A consumer role, running or on its way. */
export interface ConsumersHandle {
  /** Why the consumers are not consuming yet, or null once they are. */
  notReady(): string | null;
  /**
   * What is wrong with consuming that waiting will not mend (partitions paused at a batch they
   * cannot decode, a group restarting in a loop, partitions that have not advanced for a minute
   * while their lag grew), or null.
   */
  unhealthy(): string | null;
  /**
   * What was lost that neither waiting nor a restart mends, for `/healthz` to tell without
   * failing (offsets retention deleted before they were folded, since this process started), or
   * null.
   */
  lost(): string | null;
  /** Resolves once the consumers have joined the group (never, if stopped before). */
  readonly running: Promise<void>;
  /** Stops fetching, flushes what is in flight and disconnects. */
  stop(): Promise<void>;
}

/** What a process running the consumers may want to hear of, beyond the log. */
export interface ConsumerHooks {
  /** A stored state could not be read (it was logged and moved aside), e.g. for a metric. */
  readonly onUnreadable?: UnreadableReporter;
  /** Resolves once the store may be written (reached, and its settings checked). */
  readonly storeReady?: Promise<void>;
  /** Where the consumers' metrics are registered (lag, paused partitions, dead letters). */
  readonly metrics?: Registry;
}

/**
 * Starts consuming in the background and returns at once; see {@link ConsumersHandle.running}.
 */
export function startConsumers(
  config: Config,
  unbounded: RollupStore,
  logger: Logger,
  nowUs: () => number,
  hooks: ConsumerHooks = {},
): ConsumersHandle {
  const nowMs = () => Math.floor(nowUs() / 1000);
  const store = consumerStore(unbounded, config, logger, nowMs);
  const brokers = config.kafkaBrokers;
  if (brokers === null) {
    throw new Error('the consumers need KAFKA_BROKERS (comma-separated host:port pairs)');
  }
  const kafka = kafkaClient(config, logger, brokers);
  const topics = topicNames(config.kafkaTopicPrefix);
  const stopping = new AbortController();
  const outage = new OutageLog({
    logger,
    what: `Kafka (${brokers.join(',')}) or its topics`,
    nowMs,
  });
  const retry: RetryOptions = {
    signal: stopping.signal,
    onFailure: (error) => outage.failed(kafkaFailure(error, config.kafkaSecurity)),
  };
  let waiting: string | null = 'waiting for the store';
  let runner: ConsumerRunner | null = null;
  /** Partitions paused because their stored offset is beyond their end. */
  const halted = new Map<string, AheadReport>();
  /** Partitions paused at a batch they cannot decode, with when each was last logged. */
  const undecodable = new Map<string, { report: UndecodableReport; loggedMs: number }>();
  /** Offsets lost to retention since this process started, by partition. */
  const overrun = new Map<string, number>();
  /** Offsets the store lost, since this process started, that retention deleted, by partition. */
  const unstored = new Map<string, number>();
  const restarts = new RestartRate(nowMs);
  const stalls = new StallWatch(nowMs);
  const sampling = setInterval(() => {
    runner?.lag().then(
      (lags) =>
        stalls.observe(lags.map(({ topic, partition, stored, events }) => ({
          stream: `${topic}/${partition}`,
          stored,
          events,
        }))),
      // Kafka or the store away: said where it is met; the samples wait for the next round.
      () => undefined,
    );
  }, STALL_SAMPLE_MS);
  const memory = memoryBounds({
    partsCacheLimit: config.partsCacheLimit,
    logger,
    nowMs,
    registry: hooks.metrics,
  });
  const metrics = hooks.metrics === undefined ? null : registerConsumerMetrics(hooks.metrics, {
    lag: async () => (await runner?.lag()) ?? [],
    paused: () => halted.size + undecodable.size,
    undecodable: () => [...undecodable.values()].map(({ report }) => report),
  });

  const newRunner = () =>
    new ConsumerRunner({
      kafka,
      store,
      groupId: config.kafkaGroupId,
      topics,
      nowUs,
      maxFutureSkewUs: config.maxFutureSkewUs,
      recentLogsCapacity: config.recentLogsCapacity,
      flushEvents: config.flushEvents,
      flushBytes: config.flushBytes,
      partsBudget: memory.partsBudget,
      heapGuard: memory.heapGuard,
      flushIntervalMs: config.flushIntervalMs,
      concurrency: config.consumerConcurrency,
      sessionTimeoutMs: config.consumerSessionTimeoutMs,
      onFlush: (report) => {
        logger.debug(report, 'flushed');
        if (report.skipped > 0) metrics?.countSkipped(report.skipped);
        metrics?.observeFlush(report, nowMs());
        if (waiting === null) outage.recovered();
      },
      onError: (error, stream) => {
        const reason = logBatchError(logger, error, stream, (e) => outage.failed(e));
        metrics?.countBatchFailure(reason);
      },
      onUnreadable: (state) => {
        logger.error(state, MOVED_ASIDE_MESSAGE);
        hooks.onUnreadable?.(state);
      },
      onCrash: (error, restarting) => {
        restarts.record();
        if (restarting) {
          // Transient (a coordinator still loading, a broker restarting): one line, no stack.
          waiting ??= REJOINING;
          outage.failed(error);
          return;
        }
        logger.error({ err: error }, 'the consumer group stopped for an error it does not retry');
        // Before the first join, the start's own retry replaces the runner.
        if (waiting === null) {
          waiting = REJOINING;
          void replaceRunner();
        }
      },
      onAhead: (report) => {
        halted.set(report.stream, report);
        logger.error(
          report,
          `the stored offset of ${report.stream} (${report.storedOffset}) is beyond the ` +
            `partition's end (${report.partitionEnd}): the topic was recreated, or its data moved ` +
            'to another cluster. The partition is paused and nothing of it is skipped; see "A ' +
            `stored offset beyond the partition's end" in docs/ROLLUPS.md for what to do`,
        );
      },
      onOverrun: (report) => {
        metrics?.countRetentionLost(report.topic, report.partition, report.lost);
        overrun.set(report.stream, (overrun.get(report.stream) ?? 0) + report.lost);
        logger.error(
          report,
          `${report.stream} lost ${report.lost} offset(s) (${report.logStart - report.lost} to ` +
            `${report.logStart - 1}): the topic's retention deleted them before they were ` +
            'folded, and their events are missing from the rollups. Folding goes on from ' +
            `${report.logStart}; see "A consumer group behind the topic's retention" in ` +
            'docs/ROLLUPS.md for what to do',
        );
      },
      onLogStart: (report) => {
        const { stream, logStart } = report;
        if (report.knownStored === null) {
          logger.warn(
            report,
            `${stream} has no stored resume offset: folding starts at its log start, ${logStart} ` +
              `(offsets 0 to ${logStart - 1} are no longer in the topic). Normal for a new ` +
              'deployment or consumer group on a topic whose older messages expired; if this ' +
              'store held the partition before (it lost its keys), the events of those offsets ' +
              `are missing from the rollups: see "A consumer group behind the topic's ` +
              'retention" in docs/ROLLUPS.md',
          );
          return;
        }
        metrics?.countRetentionLost(report.topic, report.partition, report.lost);
        unstored.set(stream, (unstored.get(stream) ?? 0) + report.lost);
        logger.error(
          report,
          `${stream} lost ${report.lost} offset(s) (${report.lostFrom} to ${logStart - 1}): ` +
            `the store lost the partition's resume offset (it was ${report.knownStored}) and ` +
            "what it had folded, and the topic's retention deleted those offsets, so their " +
            `events are missing from the rollups. Folding goes on from ${logStart}; see "A ` +
            `consumer group behind the topic's retention" in docs/ROLLUPS.md for what to do`,
        );
      },
      onDeadLetter: (kind) => metrics?.countDeadLetter(kind),
      onUndecodable: (report) => {
        metrics?.countUndecodable(report.topic, report.partition);
        const seen = undecodable.get(report.stream);
        // Once a minute per partition, not at every fetch that fails again.
        const log = seen === undefined || nowMs() - seen.loggedMs >= UNDECODABLE_LOG_MS;
        undecodable.set(report.stream, { report, loggedMs: log ? nowMs() : seen.loggedMs });
        if (!log) return;
        logger.error(
          report,
          `${report.stream} is paused at offsets ${report.offset} to ${report.through - 1}: ` +
            `${report.reason}. The other partitions go on; this one is read again when the ` +
            'batch can be decoded (after a restart with the codec, say), and nothing of it is ' +
            'skipped unless an operator skips it (npm run consumers:skip); see "A batch the ' +
            'consumers cannot decode" in docs/ROLLUPS.md',
        );
      },
      onUndecodableCleared: (stream, why) => {
        undecodable.delete(stream);
        logger.info(
          { stream },
          why === 'read'
            ? `${stream} read past the batch it could not decode`
            : `${stream} moved to another member of the group, which reports it if still paused`,
        );
      },
      onAheadCleared: (stream, why) => {
        halted.delete(stream);
        logger.info(
          { stream },
          why === 'within'
            ? `the stored offset of ${stream} is within the partition again`
            : `${stream} moved to another member of the group, which reports it if still paused`,
        );
      },
      onJoin: () => {
        metrics?.countJoin();
        if (waiting !== REJOINING) return;
        waiting = null;
        outage.recovered();
      },
    });

  /** Makes and starts runners until one has joined the group. */
  const join = () =>
    retryUntilDone(async () => {
      if (stopping.signal.aborted) throw stopping.signal.reason;
      halted.clear();
      undecodable.clear();
      const candidate = newRunner();
      runner = candidate;
      try {
        await candidate.start();
      } catch (error) {
        await candidate.stop().catch(() => undefined);
        throw error;
      }
    }, retry);

  /** Replaces a runner whose group stopped for good: consuming never ends by itself. */
  const replaceRunner = async () => {
    await runner?.stop().catch(() => undefined);
    try {
      await join();
      waiting = null;
      outage.recovered();
      logger.info({ group: config.kafkaGroupId }, 'consumers running again');
    } catch {
      // Stopping.
    }
  };

  const running = (async () => {
    await (hooks.storeReady ?? Promise.resolve());
    if (stopping.signal.aborted) throw stopping.signal.reason;
    waiting = 'waiting for Kafka and its topics';
    const reports = await retryUntilDone(async () => {
      const admin = kafka.admin();
      await admin.connect();
      try {
        return await ensureTopics(admin, {
          partitions: config.topicPartitions,
          topics: Object.values(topics),
        });
      } finally {
        await admin.disconnect();
      }
    }, retry);
    if (stopping.signal.aborted) throw stopping.signal.reason;
    for (const report of reports) {
      if (report.partitions !== report.expectedPartitions) {
        logger.warn(report, 'topic exists with a different partition count than configured');
      }
    }
    waiting = 'joining the consumer group';
    memory.heapGuard.start();
    await join();
    outage.recovered();
    waiting = null;
    logger.info({
      brokers,
      group: config.kafkaGroupId,
      // The bounds of docs/OPERATIONS.md, "A consumer's memory".
      heapLimitMiB: Math.round(heapOfThisProcess().limit / 1048576),
      partsCacheLimit: config.partsCacheLimit,
    }, 'consumers running');
  })();
  // Stopping before the start ended is not a failure of the start.
  running.catch(() => undefined);

  return {
    notReady: () => {
      if (waiting !== null) return waiting;
      const [first] = halted.values();
      if (first === undefined) return null;
      return `${halted.size} partition(s) paused: the stored offset of ${first.stream} ` +
        `(${first.storedOffset}) is beyond its end (${first.partitionEnd})`;
    },
    unhealthy: () => {
      const reasons = [...undecodable.values()].map(({ report }) =>
        `${report.stream} paused at offsets ${report.offset} to ${report.through - 1}: ` +
        report.reason
      );
      // A partition paused for a reason already given is not said twice.
      const paused = (reason: string) =>
        [...undecodable.keys(), ...halted.keys()].some((stream) => reason.startsWith(`${stream} `));
      reasons.push(...stalls.stalled().filter((reason) => !paused(reason)));
      const looping = restarts.excessive();
      if (looping !== null) reasons.unshift(looping);
      return reasons.length === 0 ? null : reasons.join('; ');
    },
    lost: () => {
      const said = [
        ...[...overrun].map(([stream, offsets]) =>
          `${stream} lost ${offsets} offset(s) to retention before they were folded`
        ),
        ...[...unstored].map(([stream, offsets]) =>
          `${stream} lost ${offsets} offset(s) the store had folded and lost, which retention deleted`
        ),
      ];
      return said.length === 0 ? null : said.join('; ');
    },
    running,
    async stop() {
      // A start step under way is not waited for (kafkajs may retry one for a minute): the
      // steps after it see the abort, and a runner already made is stopped here.
      stopping.abort(new Error('the consumers are stopping'));
      clearInterval(sampling);
      memory.heapGuard.stop();
      await runner?.stop();
    },
  };
}
