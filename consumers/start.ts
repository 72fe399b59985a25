/**
 * Starts the consumer role: once the store is ready, ensures the topics exist, then runs the
 * consumer group that folds every event into the store. Started by the composition root,
 * `service/start.ts`. Every step is retried with backoff until it succeeds: consumers started
 * before their broker (or beside a broker still creating the topics) wait and say so, and never
 * exit for a state that passes.
 *
 * @module
 */
import { type RetryOptions, retryUntilDone } from '../src/async/retry.ts';
import { OutageLog } from '../src/async/outage-log.ts';
import { KafkaOutage } from './kafka-outage.ts';
import type { Config } from '../src/config.ts';
import { kafkaClient } from '../src/kafka/client.ts';
import { kafkaFailure } from '../src/kafka/failure.ts';
import { ensureTopics, topicNames } from '../src/kafka/topics.ts';
import type { Logger } from '../src/logger.ts';
import { MOVED_ASIDE_MESSAGE, type UnreadableReporter } from '../src/rollup/unreadable.ts';
import type { RollupStore } from '../src/store/port.ts';
import type { Registry } from 'prom-client';
import { type ConsumerMetrics, registerConsumerMetrics } from './metrics.ts';
import { logBatchError } from './batch-failure.ts';
import { RestartRate } from './restart-rate.ts';
import { StallWatch } from './stall-watch.ts';
import { consumerStore } from './store-deadline.ts';
import { memoryBounds } from './memory-bounds.ts';
import { heapOfThisProcess } from './heap-guard.ts';
import { ConsumerRunner } from './runner.ts';
import { PartitionConditions } from './partition-conditions.ts';

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
  const brokers = config.kafkaBrokers;
  if (brokers === null) {
    throw new Error('the consumers need KAFKA_BROKERS (comma-separated host:port pairs)');
  }
  const role = new ConsumerRole({ config, unbounded, logger, nowUs, hooks, brokers });
  const running = role.start();
  // Stopping before the start ended is not a failure of the start.
  running.catch(() => undefined);
  return {
    notReady: () => role.notReady(),
    unhealthy: () => role.unhealthy(),
    lost: () => role.lost(),
    running,
    stop: () => role.stop(),
  };
}

/** What a {@link ConsumerRole} is made of. */
interface RoleParts {
  readonly config: Config;
  readonly unbounded: RollupStore;
  readonly logger: Logger;
  readonly nowUs: () => number;
  readonly hooks: ConsumerHooks;
  readonly brokers: readonly string[];
}

/**
 * The consumer role of a process: the runner of the moment (a group that stops for good is
 * replaced by a new one), what it is waiting for, its partitions' conditions, its restarts and
 * stalls, and the memory bounds it folds within.
 */
class ConsumerRole {
  readonly #parts: RoleParts;
  readonly #nowMs: () => number;
  readonly #store: RollupStore;
  readonly #kafka: ReturnType<typeof kafkaClient>;
  readonly #topics: ReturnType<typeof topicNames>;
  readonly #stopping = new AbortController();
  readonly #outage: KafkaOutage;
  readonly #retry: RetryOptions;
  readonly #conditions: PartitionConditions;
  readonly #restarts: RestartRate;
  readonly #stalls: StallWatch;
  readonly #memory: ReturnType<typeof memoryBounds>;
  readonly #metrics: ConsumerMetrics | null;
  readonly #sampling: ReturnType<typeof setInterval>;
  #waiting: string | null = 'waiting for the store';
  #runner: ConsumerRunner | null = null;

  constructor(parts: RoleParts) {
    const { config, logger, hooks, brokers } = parts;
    this.#parts = parts;
    this.#nowMs = () => Math.floor(parts.nowUs() / 1000);
    this.#store = consumerStore(parts.unbounded, config, logger, this.#nowMs);
    this.#kafka = kafkaClient(config, logger, brokers);
    this.#topics = topicNames(config.kafkaTopicPrefix);
    this.#outage = new KafkaOutage(
      new OutageLog({
        logger,
        what: `Kafka (${brokers.join(',')}) or its topics`,
        nowMs: this.#nowMs,
      }),
    );
    this.#retry = {
      signal: this.#stopping.signal,
      onFailure: (error) => this.#outage.failed(kafkaFailure(error, config.kafkaSecurity)),
    };
    this.#conditions = new PartitionConditions(logger, this.#nowMs, () => this.#metrics);
    this.#restarts = new RestartRate(this.#nowMs);
    this.#stalls = new StallWatch(this.#nowMs);
    this.#memory = memoryBounds({
      partsCacheLimit: config.partsCacheLimit,
      logger,
      nowMs: this.#nowMs,
      registry: hooks.metrics,
    });
    this.#metrics = hooks.metrics === undefined ? null : registerConsumerMetrics(hooks.metrics, {
      lag: async () => (await this.#runner?.lag()) ?? [],
      paused: () => this.#conditions.paused,
      undecodable: () => this.#conditions.undecodable(),
    });
    this.#sampling = setInterval(() => this.#sampleStalls(), STALL_SAMPLE_MS);
  }

  /** Waits for the store, ensures the topics, then joins the group; retried until it does. */
  async start(): Promise<void> {
    const { config, logger, hooks, brokers } = this.#parts;
    await (hooks.storeReady ?? Promise.resolve());
    if (this.#stopping.signal.aborted) throw this.#stopping.signal.reason;
    this.#waiting = 'waiting for Kafka and its topics';
    await this.#ensureTopics();
    this.#waiting = 'joining the consumer group';
    this.#memory.heapGuard.start();
    await this.#join();
    this.#outage.joined();
    this.#waiting = null;
    logger.info({
      brokers,
      group: config.kafkaGroupId,
      // The bounds of docs/OPERATIONS.md, "A consumer's memory".
      heapLimitMiB: Math.round(heapOfThisProcess().limit / 1048576),
      partsCacheLimit: config.partsCacheLimit,
    }, 'consumers running');
  }

  /** See {@link ConsumersHandle.notReady}. */
  notReady(): string | null {
    return this.#waiting ?? this.#conditions.notReady();
  }

  /** See {@link ConsumersHandle.unhealthy}. */
  unhealthy(): string | null {
    const reasons = this.#conditions.unhealthy(this.#stalls.stalled());
    const looping = this.#restarts.excessive();
    if (looping !== null) reasons.unshift(looping);
    return reasons.length === 0 ? null : reasons.join('; ');
  }

  /** See {@link ConsumersHandle.lost}. */
  lost(): string | null {
    return this.#conditions.lost();
  }

  /** See {@link ConsumersHandle.stop}. */
  async stop(): Promise<void> {
    // A start step under way is not waited for (kafkajs may retry one for a minute): the
    // steps after it see the abort, and a runner already made is stopped here.
    this.#stopping.abort(new Error('the consumers are stopping'));
    clearInterval(this.#sampling);
    this.#memory.heapGuard.stop();
    await this.#runner?.stop();
  }

  /** Creates the missing topics, retried until Kafka answers; says which differ in partitions. */
  async #ensureTopics(): Promise<void> {
    const { config, logger } = this.#parts;
    const reports = await retryUntilDone(async () => {
      const admin = this.#kafka.admin();
      await admin.connect();
      try {
        return await ensureTopics(admin, {
          partitions: config.topicPartitions,
          topics: Object.values(this.#topics),
        });
      } finally {
        await admin.disconnect();
      }
    }, this.#retry);
    if (this.#stopping.signal.aborted) throw this.#stopping.signal.reason;
    for (const report of reports) {
      if (report.partitions !== report.expectedPartitions) {
        logger.warn(report, 'topic exists with a different partition count than configured');
      }
    }
  }

  /** Makes and starts runners until one has joined the group. */
  #join(): Promise<void> {
    return retryUntilDone(async () => {
      if (this.#stopping.signal.aborted) throw this.#stopping.signal.reason;
      this.#conditions.clearPauses();
      const candidate = new ConsumerRunner(this.#runnerOptions());
      this.#runner = candidate;
      try {
        await candidate.start();
      } catch (error) {
        await candidate.stop().catch(() => undefined);
        throw error;
      }
    }, this.#retry);
  }

  /** Replaces a runner whose group stopped for good: consuming never ends by itself. */
  async #replaceRunner(): Promise<void> {
    await this.#runner?.stop().catch(() => undefined);
    try {
      await this.#join();
      this.#waiting = null;
      this.#outage.joined();
      this.#parts.logger.info(
        { group: this.#parts.config.kafkaGroupId },
        'consumers running again',
      );
    } catch {
      // Stopping.
    }
  }

  /** The samples of the partitions' stored offsets and lag the stall watch judges. */
  #sampleStalls(): void {
    this.#runner?.lag().then(
      (lags) =>
        this.#stalls.observe(lags.map(({ topic, partition, stored, events }) => ({
          stream: `${topic}/${partition}`,
          stored,
          events,
        }))),
      // Kafka or the store away: said where it is met; the samples wait for the next round.
      () => undefined,
    );
  }

  /** A runner's options: the configuration's, and each report wired to the log and metrics. */
  #runnerOptions(): ConstructorParameters<typeof ConsumerRunner>[0] {
    const { config, logger, hooks, nowUs } = this.#parts;
    const metrics = this.#metrics;
    const conditions = this.#conditions;
    return {
      kafka: this.#kafka,
      store: this.#store,
      groupId: config.kafkaGroupId,
      topics: this.#topics,
      nowUs,
      maxFutureSkewUs: config.maxFutureSkewUs,
      recentLogsCapacity: config.recentLogsCapacity,
      flushEvents: config.flushEvents,
      flushBytes: config.flushBytes,
      flushLingerMs: config.flushLingerMs,
      partsBudget: this.#memory.partsBudget,
      heapGuard: this.#memory.heapGuard,
      flushIntervalMs: config.flushIntervalMs,
      fetchMinBytes: config.fetchMinBytes,
      concurrency: config.consumerConcurrency,
      sessionTimeoutMs: config.consumerSessionTimeoutMs,
      onFlush: (report) => {
        logger.debug(report, 'flushed');
        if (report.skipped > 0) metrics?.countSkipped(report.skipped);
        metrics?.observeFlush(report, this.#nowMs());
      },
      // Only Kafka's own answers (a heartbeat, a join) end its outage: a flush writes the store,
      // which may well answer while the broker is away.
      onHeartbeat: () => this.#outage.heartbeat(),
      onError: (error, stream) => {
        const reason = logBatchError(logger, error, stream, (e) => this.#outage.failed(e));
        metrics?.countBatchFailure(reason);
      },
      onUnreadable: (state) => {
        logger.error(state, MOVED_ASIDE_MESSAGE);
        hooks.onUnreadable?.(state);
      },
      onCrash: (error, restarting) => this.#crashed(error, restarting),
      onAhead: (report) => conditions.ahead(report),
      onOverrun: (report) => conditions.overrun(report),
      onLogStart: (report) => conditions.logStart(report),
      onDeadLetter: (kind) => metrics?.countDeadLetter(kind),
      onUndecodable: (report) => conditions.undecodableBatch(report),
      onUndecodableCleared: (stream, why) => conditions.undecodableCleared(stream, why),
      onAheadCleared: (stream, why) => conditions.aheadCleared(stream, why),
      onJoin: () => {
        metrics?.countJoin();
        this.#outage.joined();
        if (this.#waiting === REJOINING) this.#waiting = null;
      },
    };
  }

  /** The group stopped: it rejoins by itself (`restarting`), or a new runner replaces it. */
  #crashed(error: unknown, restarting: boolean): void {
    this.#restarts.record();
    if (restarting) {
      // Transient (a coordinator still loading, a broker restarting): one line, no stack.
      this.#waiting ??= REJOINING;
      this.#outage.failed(error);
      return;
    }
    this.#parts.logger.error(
      { err: error },
      'the consumer group stopped for an error it does not retry',
    );
    // Before the first join, the start's own retry replaces the runner.
    if (this.#waiting === null) {
      this.#waiting = REJOINING;
      void this.#replaceRunner();
    }
  }
}
