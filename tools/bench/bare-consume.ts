/**
 * kafkajs consuming and discarding a benchmark's events, in this process: the client's ceiling
 * and its CPU per event, the Kafka half of a consumer's floor (`bench:ingest` phase 2,
 * `bench:consumer`'s floor).
 *
 * @module
 */
import type { Kafka } from 'kafkajs';

/** What `bareConsume` measured. */
export interface BareConsume {
  readonly eventsPerSecond: number;
  /** This process's CPU (user + system, every thread) per event, µs. */
  readonly cpuUsPerEvent: number;
}

/**
 * Consumes `events` messages of `topics` from their beginning in a fresh group `groupId`, with
 * every partition consumed concurrently, and discards them.
 *
 * @example
 * ```ts
 * const bare = await bareConsume(kafka, { groupId: `${prefix}bare`, topics, partitions: 12, events });
 * ```
 */
export async function bareConsume(
  kafka: Kafka,
  options: {
    readonly groupId: string;
    readonly topics: readonly string[];
    readonly partitions: number;
    readonly events: number;
  },
): Promise<BareConsume> {
  const consumer = kafka.consumer({ groupId: options.groupId, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topics: [...options.topics], fromBeginning: true });
  let seen = 0;
  let first = 0;
  // From before the first fetch: that fetch may carry most of a small run's events. The group
  // join it includes costs milliseconds.
  const cpuBefore = process.cpuUsage();
  const done = new Promise<void>((resolve) => {
    void consumer.run({
      partitionsConsumedConcurrently: options.partitions,
      eachBatch: ({ batch }) => {
        if (first === 0) first = Date.now();
        seen += batch.messages.length;
        if (seen >= options.events) resolve();
        return Promise.resolve();
      },
    });
  });
  await done;
  const seconds = (Date.now() - first) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await consumer.disconnect();
  return {
    eventsPerSecond: Math.round(options.events / seconds),
    cpuUsPerEvent: Number(((cpu.user + cpu.system) / options.events).toFixed(2)),
  };
}
