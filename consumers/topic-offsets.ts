/**
 * Where each partition of a topic starts and ends, as the broker says now: its earliest retained
 * offset (low) and the offset its next message will get (high).
 *
 * @example
 * ```ts
 * const ends = await topicOffsets(admin, 'logs.edge');
 * ends.get(3); // { high: 1042, low: 0 }
 * ```
 *
 * @module
 */
import type { Admin } from 'kafkajs';

/** Each partition's end (high) and earliest offset (low), by partition. */
export type PartitionEnds = Map<number, { high: number; low: number }>;

/** Each partition's end (the offset its next message will get) and earliest offset. */
export async function topicOffsets(admin: Admin, topic: string): Promise<PartitionEnds> {
  const offsets = await admin.fetchTopicOffsets(topic);
  return new Map(
    offsets.map((entry) => [entry.partition, { high: Number(entry.high), low: Number(entry.low) }]),
  );
}

/** One partition's end and earliest offset. */
export async function partitionOffsets(
  admin: Admin,
  topic: string,
  partition: number,
): Promise<{ high: number; low: number }> {
  const offsets = (await topicOffsets(admin, topic)).get(partition);
  if (offsets === undefined) throw new Error(`topic ${topic} has no partition ${partition}`);
  return offsets;
}

/** The partition's end: the offset its next message will get. */
export async function partitionEnd(
  admin: Admin,
  topic: string,
  partition: number,
): Promise<number> {
  return (await partitionOffsets(admin, topic, partition)).high;
}
