/**
 * The ingest sink with Kafka configured: publishes each valid event to its source's topic,
 * keyed by project ref (one project's events stay in one partition, in order), and resolves
 * only once every in-sync replica acknowledged (`acks: -1`, idempotent producer).
 *
 * Delivery is at least once from the caller's side: a send that times out may still land, and a
 * caller that retries after the 503 publishes the events again.
 *
 * @module
 */
import type { Kafka, Producer } from 'kafkajs';
import { ensureTopics, type TopicNames } from '../../src/kafka/topics.ts';
import type { IngestSink } from './sink.ts';

/** Options of {@link connectKafkaSink}. */
export interface KafkaSinkOptions {
  readonly kafka: Kafka;
  readonly topics: TopicNames;
  /** Partitions of a topic this call creates when it is missing. */
  readonly partitions: number;
  /** How long one publish may wait for its acknowledgements, in ms. Default 10,000. */
  readonly timeoutMs?: number;
}

/**
 * Connects a producer (after making sure the topics exist) and returns the sink.
 *
 * @example
 * ```ts
 * const sink = await connectKafkaSink({ kafka, topics: topicNames(''), partitions: 12 });
 * await sink.accept('edge', accepted); // acknowledged by all in-sync replicas
 * ```
 */
export async function connectKafkaSink(options: KafkaSinkOptions): Promise<IngestSink> {
  const admin = options.kafka.admin();
  await admin.connect();
  try {
    await ensureTopics(admin, {
      partitions: options.partitions,
      topics: Object.values(options.topics),
    });
  } finally {
    await admin.disconnect();
  }
  const producer: Producer = options.kafka.producer({
    idempotent: true,
    allowAutoTopicCreation: false,
  });
  await producer.connect();
  const timeout = options.timeoutMs ?? 10_000;
  return {
    kind: 'kafka',
    async accept(source, events) {
      if (events.length === 0) return;
      await producer.send({
        topic: options.topics[source],
        acks: -1,
        timeout,
        messages: events.map(({ event, text }) => ({ key: event.project, value: text })),
      });
    },
    close: () => producer.disconnect(),
  };
}
