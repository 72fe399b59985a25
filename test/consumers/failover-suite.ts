/**
 * The one suite of every failover test: a Redis Cluster of the test's own, a world of consumers
 * on it, {@link runFailover} with the test's way of failing the master over, then every check of
 * {@link lostAfter} and the whole store against the reference. The two tests differ only in how
 * the master goes (SIGKILL, or `CLUSTER FAILOVER FORCE` on its replica).
 *
 * @module
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ConsumerRunner } from '../../consumers/runner.ts';
import { expectStoreMatchesReference } from '../rollup/fold-and-read.ts';
import { type OwnCluster, type Shard, startOwnCluster } from '../support/own-cluster.ts';
import { describeWithServices } from '../support/services.ts';
import { lostAfter, runFailover } from './failover-world.ts';
import { createWorld, type World } from './harness.ts';

/** How a failover test fails `shard`'s master over; it throws when the failover did not happen. */
export type FailOver = (shard: Shard, cluster: OwnCluster) => Promise<void>;

/**
 * Describes the suite `title` with its one test `name`; `label` names the failover in the line
 * the test prints (what was lost, what was folded again).
 */
export function describeFailover(
  title: string,
  name: string,
  label: string,
  failOver: FailOver,
): void {
  describeWithServices(['kafka', 'redis-server'], title, ({ kafka }) => {
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

    test(name, async () => {
      const run = await runFailover(cluster, world, (started) => {
        runner = started;
      }, (shard) => failOver(shard, cluster));
      const lost = await lostAfter(cluster, world, run.stream.events);
      console.log(
        `failover (${label}): ${run.lostBytes} bytes of writes lost; once settled, ` +
          `${lost.answers.length} of ${lost.queries} answers differ, ` +
          `${lost.registry.length} registry entries, ${lost.ringBuffers.length} ring buffers, ` +
          `${lost.admitted.length} admitted-key sets; ` +
          `${run.folded() - run.stream.events.length} events folded again; ` +
          `${run.errors().length} errors reported`,
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
}
