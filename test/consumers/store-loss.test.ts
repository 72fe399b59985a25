/**
 * Redis loses its data mid-stream (FLUSHALL): the consumers notice that their stored offsets
 * are gone, rebuild from the earliest offset Kafka retains, and the answers again equal the
 * reference, including for partitions that receive nothing after the loss. Likewise when the
 * data is lost while no consumer runs: on assignment every partition resumes from the stored
 * offset (here: none, so the earliest), although Kafka's committed offsets say all was read.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ConsumerRunner } from '../../consumers/runner.ts';
import { describeOnRedisStores, emptyStore } from '../support/store-target.ts';
import { projectKey } from '../../tools/replay/publish.ts';
import {
  expectStoreMatchesReference,
  generatedStream,
  validEvents,
} from '../rollup/fold-and-read.ts';
import { createWorld, type World } from './harness.ts';

describeOnRedisStores(['kafka'], 'a Redis that loses its data mid-stream', ({ kafka }, target) => {
  let world: World;
  let runner: ConsumerRunner;
  const stream = generatedStream(Math.floor(Date.now() / 1000) * 1_000_000, 6_000);

  beforeAll(async () => {
    world = await createWorld(kafka.brokers, target);
    runner = world.runner({ offsetCheckMs: 500 });
    await runner.start();
  }, 60_000);

  afterAll(async () => {
    await runner?.stop();
    await world?.close();
  });

  test('after FLUSHALL the rollups are rebuilt from Kafka and equal the reference', async () => {
    const half = Math.floor(stream.lines.length / 2);
    await world.publish(stream.lines.slice(0, half));
    await world.drained(120_000);

    await emptyStore(world.target);
    expect(await world.storedTotal()).toBe(0);

    // Only one project's events after the loss: every other partition gets nothing new and
    // must notice the loss on its own.
    const rest = stream.lines.slice(half);
    const project = projectKey(rest[0]?.source ?? 'edge', rest[0]?.line ?? '');
    const after = rest.filter(({ source, line }) => projectKey(source, line) === project);
    expect(after.length).toBeGreaterThan(0);
    await world.publish(after);
    await world.drained(120_000);
    const published = [...stream.lines.slice(0, half), ...after];
    const events = validEvents(published, stream.nowUs);
    await expectStoreMatchesReference(world.store, events, Date.now() * 1000, 60);
  }, 300_000);

  test('lost while no consumer runs: the next one rebuilds on assignment', async () => {
    await runner.stop();
    await emptyStore(world.target);
    expect(await world.storedTotal()).toBe(0);
    // Nothing new is published: only the assignment can tell the consumer to go back.
    runner = world.runner();
    await runner.start();
    await world.drained(120_000);
    const half = Math.floor(stream.lines.length / 2);
    const rest = stream.lines.slice(half);
    const project = projectKey(rest[0]?.source ?? 'edge', rest[0]?.line ?? '');
    const published = [
      ...stream.lines.slice(0, half),
      ...rest.filter(({ source, line }) => projectKey(source, line) === project),
    ];
    const events = validEvents(published, stream.nowUs);
    await expectStoreMatchesReference(world.store, events, Date.now() * 1000, 60);
  }, 300_000);
});
