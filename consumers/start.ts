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
import type { Config } from '../src/config.ts';
import { kafkaClient } from '../src/kafka/client.ts';
import { ensureTopics, topicNames } from '../src/kafka/topics.ts';
import type { Logger } from '../src/logger.ts';
import { MOVED_ASIDE_MESSAGE, type UnreadableReporter } from '../src/rollup/unreadable.ts';
import type { RollupStore } from '../src/store/port.ts';
import { ConsumerRunner } from './runner.ts';

/** A consumer role, running or on its way. */
export interface ConsumersHandle {
  /** Why the consumers are not consuming yet, or null once they are. */
  notReady(): string | null;
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
}

/**
 * Starts consuming in the background and returns at once; see {@link ConsumersHandle.running}.
 */
export function startConsumers(
  config: Config,
  store: RollupStore,
  logger: Logger,
  nowUs: () => number,
  hooks: ConsumerHooks = {},
): ConsumersHandle {
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
    nowMs: () => Math.floor(nowUs() / 1000),
  });
  const retry: RetryOptions = {
    signal: stopping.signal,
    onFailure: (error) => outage.failed(error),
  };
  let waiting: string | null = 'waiting for the store';
  let runner: ConsumerRunner | null = null;

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
      flushIntervalMs: config.flushIntervalMs,
      concurrency: config.consumerConcurrency,
      sessionTimeoutMs: config.consumerSessionTimeoutMs,
      onFlush: (report) => logger.debug(report, 'flushed'),
      onError: (error, stream) => logger.warn({ err: error, stream }, 'batch failed; retrying'),
      onUnreadable: (state) => {
        logger.error(state, MOVED_ASIDE_MESSAGE);
        hooks.onUnreadable?.(state);
      },
    });

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
    await retryUntilDone(async () => {
      if (stopping.signal.aborted) throw stopping.signal.reason;
      const candidate = newRunner();
      runner = candidate;
      try {
        await candidate.start();
      } catch (error) {
        await candidate.stop().catch(() => undefined);
        throw error;
      }
    }, retry);
    outage.recovered();
    waiting = null;
    logger.info({ brokers, group: config.kafkaGroupId }, 'consumers running');
  })();
  // Stopping before the start ended is not a failure of the start.
  running.catch(() => undefined);

  return {
    notReady: () => waiting,
    running,
    async stop() {
      // A start step under way is not waited for (kafkajs may retry one for a minute): the
      // steps after it see the abort, and a runner already made is stopped here.
      stopping.abort(new Error('the consumers are stopping'));
      await runner?.stop();
    },
  };
}
