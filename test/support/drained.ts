/**
 * Waiting for a consumer group to have folded everything published: the offsets it stored in
 * the rollup store (the resume keys) reach the end of every source partition.
 *
 * @module
 */
import { type Admin, Kafka, logLevel } from 'kafkajs';
import type { TopicNames } from '../../src/kafka/topics.ts';
import { STREAM_SOURCES } from '../../src/events/types.ts';
import { resumeKey } from '../../src/rollup/keys.ts';
import type { RollupStore } from '../../src/store/port.ts';
import { RedisStore } from '../../src/store/redis.ts';

/**
 * Resolves once the offsets stored in the Redis at `redisUrl` reach the end of every partition
 * of every source topic; rejects after `timeoutMs` saying how far behind they are.
 */
export async function drained(
  brokers: readonly string[],
  topics: TopicNames,
  redisUrl: string,
  timeoutMs: number,
): Promise<void> {
  const admin = new Kafka({ brokers: [...brokers], logLevel: logLevel.NOTHING }).admin();
  const store = await RedisStore.connect(redisUrl);
  await admin.connect();
  try {
    await offsetsReachEnds(admin, store, topics, timeoutMs);
  } finally {
    await admin.disconnect();
    await store.close();
  }
}

/**
 * Resolves once the offsets `store` holds reach the ends `admin` (connected) reads of every
 * partition of every source topic; rejects after `timeoutMs` saying how far behind they are.
 */
export async function offsetsReachEnds(
  admin: Admin,
  store: Pick<RollupStore, 'readOffset'>,
  topics: TopicNames,
  timeoutMs: number,
): Promise<void> {
  const ends = new Map<string, number>();
  for (const topic of STREAM_SOURCES.map((source) => topics[source])) {
    for (const entry of await admin.fetchTopicOffsets(topic)) {
      ends.set(`${topic}/${entry.partition}`, Number(entry.high));
    }
  }
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    let behind = 0;
    for (const [partition, end] of ends) {
      behind += end - ((await store.readOffset(resumeKey(partition))) ?? 0);
    }
    if (behind <= 0) return;
    if (Date.now() > deadline) throw new Error(`consumers still ${behind} events behind`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
