/**
 * The consumers' three kafkajs clients, configured: the group's consumer (fetch sizes and
 * session timing), the dead-letter producer (idempotent) and the admin client that reads
 * partition offsets. One home for how the consumers talk to the broker, apart from what they do
 * with it (`runner.ts`).
 *
 * @module
 */
import { type Admin, type Consumer, Partitioners, type Producer } from 'kafkajs';
import { DEFAULT_FETCH_MIN_BYTES, DEFAULT_SESSION_TIMEOUT_MS } from '../src/config/defaults.ts';
import type { ConsumerRunnerOptions } from './runner-options.ts';

/** The consumer, the dead-letter producer and the admin of one runner. */
export interface KafkaClients {
  readonly consumer: Consumer;
  readonly producer: Producer;
  readonly admin: Admin;
}

/** Creates (does not connect) the clients of one runner. */
export function kafkaClients(options: ConsumerRunnerOptions): KafkaClients {
  const sessionTimeoutMs = options.sessionTimeoutMs ?? DEFAULT_SESSION_TIMEOUT_MS;
  const consumer = options.kafka.consumer({
    groupId: options.groupId,
    allowAutoTopicCreation: false,
    // A fetch answers once it has `fetchMinBytes` (or after the flush interval): at a live rate,
    // answering at the first byte made a fetch, and its request and reply, per few events. It
    // may carry up to 2 MB of one partition: a hot partition (one busy project) is not held to
    // the default 1 MB per round trip. Batching for the store happens in the processors,
    // which write whatever was folded while their previous flush was under way.
    minBytes: options.fetchMinBytes ?? DEFAULT_FETCH_MIN_BYTES,
    maxBytesPerPartition: 2 * 1024 * 1024,
    maxBytes: 10 * 1024 * 1024,
    maxWaitTimeInMs: options.flushIntervalMs,
    sessionTimeout: sessionTimeoutMs,
    rebalanceTimeout: sessionTimeoutMs,
    heartbeatInterval: Math.min(3_000, Math.floor(sessionTimeoutMs / 3)),
    metadataMaxAge: options.metadataMaxAgeMs ?? 60_000,
  });
  // Idempotent (a retry never writes a dead letter twice), which kafkajs allows only with one
  // request in flight; its request queue serializes the partitions' concurrent sends.
  const producer = options.kafka.producer({
    allowAutoTopicCreation: false,
    // Named, so kafkajs does not warn on every start that its default changed in v2.
    createPartitioner: Partitioners.DefaultPartitioner,
    idempotent: true,
    maxInFlightRequests: 1,
  });
  return { consumer, producer, admin: options.kafka.admin() };
}
