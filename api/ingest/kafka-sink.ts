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
import { type Kafka, Partitioners, type Producer } from 'kafkajs';
import { retryUntilDone } from '../../src/async/retry.ts';
import { ensureTopics, type TopicNames } from '../../src/kafka/topics.ts';
import { type IngestSink, NOTHING_REGISTERED } from './sink.ts';

/** Options of {@link openKafkaSink}. */
export interface KafkaSinkOptions {
  readonly kafka: Kafka;
  readonly topics: TopicNames;
  /** Partitions of a topic this call creates when it is missing. */
  readonly partitions: number;
  /** How long one publish may wait for its acknowledgements, in ms. Default 10,000. */
  readonly timeoutMs?: number;
  /** Told of each failed attempt to ensure the topics and connect (retried with backoff). */
  readonly onConnectFailure: (error: unknown) => void;
  /** Told once the topics exist and the producer is connected. */
  readonly onConnected: () => void;
}

/** The Kafka sink, and whether it can publish yet. */
export interface KafkaSink extends IngestSink {
  /** Why publishing is not possible yet, or null once it is. */
  readonly notReady: () => string | null;
  /** Resolves once publishing is possible (never, if closed before). */
  readonly connected: Promise<void>;
}

/**
 * The sink, returned at once: the topics are ensured and the producer connected in the
 * background, retried with backoff until Kafka answers; until then `accept` rejects (the ingest
 * route answers 503).
 *
 * @example
 * ```ts
 * const sink = openKafkaSink({ kafka, topics: topicNames(''), partitions: 12, ... });
 * await sink.accept('edge', accepted); // acknowledged by all in-sync replicas
 * ```
 */
export function openKafkaSink(options: KafkaSinkOptions): KafkaSink {
  const stop = new AbortController();
  let producer: Producer | null = null;
  let waiting = 'connecting to Kafka';
  let connected: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (connected = resolve));
  void retryUntilDone(async () => {
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
    const candidate = options.kafka.producer({
      idempotent: true,
      allowAutoTopicCreation: false,
      createPartitioner: Partitioners.DefaultPartitioner,
    });
    try {
      await candidate.connect();
    } catch (error) {
      await candidate.disconnect().catch(() => undefined);
      throw error;
    }
    return candidate;
  }, {
    signal: stop.signal,
    onFailure: (error) => {
      waiting = 'Kafka or its topics are not ready yet';
      options.onConnectFailure(error);
    },
  }).then((candidate) => {
    if (stop.signal.aborted) return candidate.disconnect();
    producer = candidate;
    options.onConnected();
    connected();
  }, () => undefined);
  const timeout = options.timeoutMs ?? 10_000;
  return {
    kind: 'kafka',
    notReady: () => producer === null ? waiting : null,
    connected: ready,
    async accept(source, events) {
      if (events.length === 0) return NOTHING_REGISTERED;
      if (producer === null) throw new Error(`cannot publish: ${waiting}`);
      await producer.send({
        topic: options.topics[source],
        acks: -1,
        timeout,
        messages: events.map(({ event, text }) => ({ key: event.project, value: text })),
      });
      return NOTHING_REGISTERED;
    },
    async close() {
      // An attempt under way is not waited for (kafkajs may retry it for a minute): it
      // disconnects what it connected once it ends.
      stop.abort(new Error('the sink is closing'));
      await producer?.disconnect();
    },
  };
}
