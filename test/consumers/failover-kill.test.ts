/**
 * A Redis Cluster master SIGKILLed mid-stream, its last writes copied to no replica (issue 35,
 * item 2): Redis promotes the replica, which never saw them. The consumers and the API's store
 * keep running; once settled, every answer, the host registry, every ring buffer and every
 * admitted-key set must be what the events make of them, and the writes lost must have been
 * folded again (the fault is proved: the master had acknowledged bytes the promoted replica's
 * history does not reach).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ConsumerRunner } from '../../consumers/runner.ts';
import { expectStoreMatchesReference } from '../rollup/fold-and-read.ts';
import { type OwnCluster, startOwnCluster } from '../support/own-cluster.ts';
import { gone, signal } from '../support/own-services.ts';
import { describeWithServices } from '../support/services.ts';
import { lostAfter, runFailover } from './failover-world.ts';
import { createWorld, type World } from './harness.ts';

describeWithServices(['kafka'], 'a Redis Cluster master SIGKILLed mid-stream', ({ kafka }) => {
  let cluster: OwnCluster;
  let world: World;
  let runner: ConsumerRunner | undefined;

  beforeAll(async () => {
    cluster = await startOwnCluster();
    world = await createWorld(kafka.brokers, { kind: 'redis-cluster', nodes: cluster.nodes });
  }, 120_000);

  afterAll(async () => {
    await runner?.stop();
    await world?.close();
    await cluster?.stop();
  }, 60_000);

  test('the replica is promoted without the lost writes, and they are folded again', async () => {
    const run = await runFailover(cluster, world, (started) => {
      runner = started;
    }, async (shard) => {
      signal(shard.master, 'SIGKILL');
      await gone(shard.master);
      signal(shard.replica, 'SIGCONT');
    });
    const lost = await lostAfter(cluster, world, run.stream.events);
    console.log(
      `failover (SIGKILL): ${run.lostBytes} bytes of writes lost; once settled, ` +
        `${lost.answers.length} of ${lost.queries} answers differ, ` +
        `${lost.registry.length} registry entries, ${lost.ringBuffers.length} ring buffers, ` +
        `${lost.admitted.length} admitted-key sets; ${run.folded() - run.stream.events.length} ` +
        `events folded again; ${run.errors().length} errors reported`,
    );
    expect(run.lostBytes, 'bytes the master acknowledged and no replica had').toBeGreaterThan(0);
    expect(lost.answers).toEqual([]);
    expect(lost.registry).toEqual([]);
    expect(lost.ringBuffers).toEqual([]);
    expect(lost.admitted).toEqual([]);
    await expectStoreMatchesReference(world.store, run.stream.events, Date.now() * 1000, 60);
    expect(run.folded() - run.stream.events.length, 'events folded again').toBeGreaterThan(0);
  }, 400_000);
});
