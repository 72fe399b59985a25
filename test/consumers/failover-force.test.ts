/**
 * A Redis Cluster master demoted by `CLUSTER FAILOVER FORCE` run on its replica while the
 * replica lagged (issue 35, item 2): the replica takes over without waiting for the master's
 * last writes, and the old master, once it learns it was demoted, copies the new master and
 * drops what it had alone, writes it had acknowledged to the consumers. The lag is made
 * deterministic: the replica is frozen (SIGSTOP) and its link closed by the master, then the
 * master is frozen too while the replica wakes and takes over, so that it cannot copy the rest
 * first. The consumers and the API's store keep running; once settled, everything is exact.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ConsumerRunner } from '../../consumers/runner.ts';
import { expectStoreMatchesReference } from '../rollup/fold-and-read.ts';
import { infoField, type OwnCluster, startOwnCluster } from '../support/own-cluster.ts';
import { signal } from '../support/own-services.ts';
import { describeWithServices } from '../support/services.ts';
import { lostAfter, runFailover } from './failover-world.ts';
import { createWorld, type World } from './harness.ts';

describeWithServices(
  ['kafka'],
  'a Redis Cluster master demoted by CLUSTER FAILOVER FORCE mid-stream',
  ({ kafka }) => {
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

    test('the old master drops its unreplicated writes, and they are folded again', async () => {
      let demoted = false;
      const run = await runFailover(cluster, world, (started) => {
        runner = started;
      }, async (shard) => {
        signal(shard.master, 'SIGSTOP');
        signal(shard.replica, 'SIGCONT');
        await cluster.command(shard.replica, ['CLUSTER', 'FAILOVER', 'FORCE']);
        await cluster.promoted(shard.replica);
        signal(shard.master, 'SIGCONT');
        // The old master learns the new configuration and becomes the new master's replica.
        const deadline = Date.now() + 60_000;
        while (!demoted && Date.now() < deadline) {
          const info = String(await cluster.command(shard.master, ['INFO', 'replication']));
          demoted = infoField(info, 'role') === 'slave';
          if (!demoted) await new Promise((resolve) => setTimeout(resolve, 100));
        }
      });
      const lost = await lostAfter(cluster, world, run.stream.events);
      console.log(
        `failover (FORCE): ${run.lostBytes} bytes of writes lost; once settled, ` +
          `${lost.answers.length} of ${lost.queries} answers differ, ` +
          `${lost.registry.length} registry entries, ${lost.ringBuffers.length} ring buffers, ` +
          `${lost.admitted.length} admitted-key sets; ` +
          `${run.folded() - run.stream.events.length} events folded again; ` +
          `${run.errors().length} errors reported`,
      );
      expect(demoted, 'the old master is now a replica').toBe(true);
      expect(run.lostBytes, 'bytes the master acknowledged and no replica had').toBeGreaterThan(0);
      expect(lost.answers).toEqual([]);
      expect(lost.registry).toEqual([]);
      expect(lost.ringBuffers).toEqual([]);
      expect(lost.admitted).toEqual([]);
      await expectStoreMatchesReference(world.store, run.stream.events, Date.now() * 1000, 60);
      expect(run.folded() - run.stream.events.length, 'events folded again').toBeGreaterThan(0);
    }, 400_000);
  },
);
