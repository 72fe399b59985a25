/**
 * Issue 10: correctness never depends on the message key. A producer that keys at random (every
 * partition carries every project) with two consumer processes, and partitions added to the
 * topics while consumers run (projects move to other partitions mid-stream): the answers equal
 * the reference evaluator, on one Redis and on a Redis Cluster. Before parts, each partition's
 * writer overwrote the others' states: a bucket of 399 invocations answered 32.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ConsumerRunner } from '../../consumers/runner.ts';
import { expectStoreMatchesReference, generatedStream } from '../rollup/fold-and-read.ts';
import { describeOnRedisStores } from '../support/store-target.ts';
import { createWorld, exited, PARTITIONS, type World } from './harness.ts';

describeOnRedisStores(['kafka'], 'a producer that does not key by project', ({ kafka }, target) => {
  let world: World;
  const stream = generatedStream(Math.floor(Date.now() / 1000) * 1_000_000, 4_000);

  beforeAll(async () => {
    world = await createWorld(kafka.brokers, target);
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  test('two consumer processes fold every project from every partition exactly once', async () => {
    const consumers = [world.consumerProcess(), world.consumerProcess()];
    try {
      // Both in the group, each with its share of the partitions, before anything is sent.
      const deadline = Date.now() + 60_000;
      for (;;) {
        const { groups } = await world.admin.describeGroups([world.groupId]);
        const members = groups[0]?.members ?? [];
        if (groups[0]?.state === 'Stable' && members.length === 2) break;
        if (Date.now() > deadline) {
          throw new Error(`group never had two members: ${members.length}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      await world.publish(stream.lines, 'random');
      await world.drained(180_000);
    } finally {
      for (const consumer of consumers) consumer.kill('SIGTERM');
      await Promise.all(consumers.map(exited));
    }
    expect(consumers.map((consumer) => consumer.exitCode)).toEqual([0, 0]);
    await expectStoreMatchesReference(world.store, stream.events, Date.now() * 1000, 60);
  }, 300_000);
});

describeOnRedisStores(
  ['kafka'],
  'partitions added to the topics mid-stream',
  ({ kafka }, target) => {
    let world: World;
    let runner: ConsumerRunner | undefined;
    const stream = generatedStream(Math.floor(Date.now() / 1000) * 1_000_000, 4_000);

    beforeAll(async () => {
      world = await createWorld(kafka.brokers, target);
    }, 120_000);

    afterAll(async () => {
      await runner?.stop();
      await world?.close();
    });

    test('projects that move to new partitions are still counted exactly', async () => {
      runner = world.runner({ metadataMaxAgeMs: 1_000 });
      await runner.start();
      const half = Math.floor(stream.lines.length / 2);
      await world.publish(stream.lines.slice(0, half));
      // Keyed by project: with more partitions, most projects now hash to another one.
      await world.admin.createPartitions({
        topicPartitions: [world.topics.edge, world.topics['function-edge']].map(
          (topic) => ({ topic, count: PARTITIONS + 5 }),
        ),
      });
      // Leaders of new partitions are elected after createPartitions resolves; a produce
      // request that meets one without a leader fails on that partition only, and the
      // idempotent kafkajs producer then retries with sequence numbers the broker rejects
      // ("out of order sequence number", seen once in CI). So wait for every leader.
      await leadersElected(world, PARTITIONS + 5);
      // The producer reads the new partition count when it connects again.
      await world.producer.disconnect();
      await world.producer.connect();
      await world.publish(stream.lines.slice(half));
      const offsets = await world.admin.fetchTopicOffsets(world.topics.edge);
      const onNew = offsets.filter((entry) => entry.partition >= PARTITIONS && entry.high !== '0');
      expect(onNew.length).toBeGreaterThan(0);
      await world.drained(180_000);
      await expectStoreMatchesReference(world.store, stream.events, Date.now() * 1000, 60);
    }, 300_000);
  },
);

/** Resolves once every partition of the edge topics has a leader; throws after 30 s. */
async function leadersElected(world: World, partitions: number): Promise<void> {
  const topics = [world.topics.edge, world.topics['function-edge']];
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { topics: metadata } = await world.admin.fetchTopicMetadata({ topics });
    const led = metadata.every((topic) =>
      topic.partitions.length === partitions &&
      topic.partitions.every((partition) => partition.leader >= 0)
    );
    if (led) return;
    if (Date.now() > deadline) throw new Error('new partitions got no leader within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
