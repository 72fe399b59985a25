/**
 * Starts the consumer role: ensures the topics exist, then runs the consumer group that folds
 * every event into the store. Started by the composition root, `service/start.ts`.
 *
 * @module
 */
import type { Config } from '../src/config.ts';
import { kafkaClient } from '../src/kafka/client.ts';
import { ensureTopics, topicNames } from '../src/kafka/topics.ts';
import type { Logger } from '../src/logger.ts';
import { MOVED_ASIDE_MESSAGE, type UnreadableReporter } from '../src/rollup/unreadable.ts';
import type { RollupStore } from '../src/store/port.ts';
import { ConsumerRunner } from './runner.ts';

/** A running consumer role. */
export interface ConsumersHandle {
  /** Stops fetching, flushes what is in flight and disconnects. */
  stop(): Promise<void>;
}

/** What a process running the consumers may want to hear of, beyond the log. */
export interface ConsumerHooks {
  /** A stored state could not be read (it was logged and moved aside), e.g. for a metric. */
  readonly onUnreadable?: UnreadableReporter;
}

/** Starts consuming; resolves once the consumer has joined the group. */
export async function startConsumers(
  config: Config,
  store: RollupStore,
  logger: Logger,
  nowUs: () => number,
  hooks: ConsumerHooks = {},
): Promise<ConsumersHandle> {
  if (config.kafkaBrokers === null) {
    throw new Error('the consumers need KAFKA_BROKERS (comma-separated host:port pairs)');
  }
  const kafka = kafkaClient(config, logger, config.kafkaBrokers);
  const admin = kafka.admin();
  await admin.connect();
  try {
    const topics = topicNames(config.kafkaTopicPrefix);
    const reports = await ensureTopics(admin, {
      partitions: config.topicPartitions,
      topics: Object.values(topics),
    });
    for (const report of reports) {
      if (report.partitions !== report.expectedPartitions) {
        logger.warn(report, 'topic exists with a different partition count than configured');
      }
    }
  } finally {
    await admin.disconnect();
  }
  const runner = new ConsumerRunner({
    kafka,
    store,
    groupId: config.kafkaGroupId,
    topics: topicNames(config.kafkaTopicPrefix),
    nowUs,
    maxFutureSkewUs: config.maxFutureSkewUs,
    recentLogsCapacity: config.recentLogsCapacity,
    flushEvents: config.flushEvents,
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
  await runner.start();
  logger.info({ brokers: config.kafkaBrokers, group: config.kafkaGroupId }, 'consumers running');
  return { stop: () => runner.stop() };
}
