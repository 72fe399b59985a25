/**
 * A failover scenario (CONTRACT section 6: "including a master failing over to its replica
 * mid-stream"): a Redis Cluster of the test's own (three masters, one replica each), consumers
 * of a generated stream, and the master holding the host registry cut off from its replica so
 * that the writes it acknowledges from then on are copied nowhere. The test then fails the
 * master over (SIGKILL, or `CLUSTER FAILOVER FORCE` on the frozen-out replica), which loses
 * them; the consumers and the API's store connection keep running throughout.
 *
 * @module
 */
import { expect } from 'vitest';
import type { ConsumerRunner } from '../../consumers/runner.ts';
import { HOSTS_KEY } from '../../src/rollup/keys.ts';
import { isStoreAway } from '../../src/store/away.ts';
import type { Service } from '../../tools/services/service.ts';
import { generatedStream, type Stream } from '../rollup/fold-and-read.ts';
import { infoField, type OwnCluster, type Shard } from '../support/own-cluster.ts';
import { signal } from '../support/own-services.ts';
import {
  admittedDifferences,
  answerDifferences,
  failoverQueries,
  registryDifferences,
  ringBufferDifferences,
} from './failover-checks.ts';
import type { World } from './harness.ts';
import type { StoreTarget } from '../support/store-target.ts';

/** What a scenario saw. */
export interface FailoverRun {
  readonly stream: Stream;
  readonly shard: Shard;
  /** Bytes of the old master's replication stream its replica never got, then lost. */
  readonly lostBytes: number;
  /** Events folded, all flushes together (more than the stream: what was folded again). */
  readonly folded: () => number;
  /** Errors the consumers reported (conflicts, the store away during the failover). */
  readonly errors: () => readonly string[];
}

async function replicationOffset(cluster: OwnCluster, node: Service, field: string) {
  const info = String(await cluster.command(node, ['INFO', 'replication']));
  return Number(infoField(info, field));
}

/**
 * Starts the consumers, folds the first half of a stream, cuts the registry's master off from
 * its replica (the replica frozen with SIGSTOP, its link closed by the master), folds the rest
 * of the edge events and a quarter of the function events (acknowledged by the master alone),
 * then runs `failOver` while the last function events are published, and waits until the
 * consumers have settled.
 */
export async function runFailover(
  cluster: OwnCluster,
  world: World,
  start: (runner: ConsumerRunner) => void,
  failOver: (shard: Shard) => Promise<void>,
): Promise<FailoverRun> {
  const stream = generatedStream(Math.floor(Date.now() / 1000) * 1_000_000, 6_000);
  let folded = 0;
  const errors: string[] = [];
  const runner = world.runner({
    flushEvents: 500,
    onFlush: (report) => {
      folded += report.events;
    },
    onError: (error, stream) => {
      errors.push(`${stream}: ${error instanceof Error ? error.message : String(error)}`);
    },
  });
  start(runner);
  await runner.start();
  // Phases: the newest request of many (project, host) pairs, and no edge event after it, in
  // the writes that are lost, so that nothing but a repair registers them again.
  const edge = stream.lines.filter((line) => line.source === 'edge');
  const functions = stream.lines.filter((line) => line.source !== 'edge');
  const half = (lines: typeof edge, share: number) => Math.floor(lines.length * share);
  await world.publish([
    ...edge.slice(0, half(edge, 0.5)),
    ...functions.slice(0, half(functions, 0.5)),
  ]);
  await world.drained(120_000);

  const shard = await cluster.shardOf(HOSTS_KEY);
  signal(shard.replica, 'SIGSTOP');
  // What was sent before is copied when the replica wakes; nothing after this is.
  await cluster.command(shard.master, ['CLIENT', 'KILL', 'TYPE', 'replica']);
  const cutAt = await replicationOffset(cluster, shard.master, 'master_repl_offset');
  await world.publish([
    ...edge.slice(half(edge, 0.5)),
    ...functions.slice(half(functions, 0.5), half(functions, 0.75)),
  ]);
  await world.drained(120_000);
  const acknowledged = await replicationOffset(cluster, shard.master, 'master_repl_offset');
  expect(acknowledged, 'writes acknowledged by the master alone').toBeGreaterThan(cutAt);

  const publishing = world.publish(functions.slice(half(functions, 0.75)));
  await failOver(shard);
  await cluster.promoted(shard.replica);
  // Where the promoted replica's history stops: beyond it, the old master's writes are gone.
  const promotedAt = await replicationOffset(cluster, shard.replica, 'second_repl_offset') - 1;
  await publishing;
  if (process.env['FAILOVER_TRACE'] === '1') console.log(`promoted at ${promotedAt}`);
  await settled(world, () => errors.length);
  if (process.env['FAILOVER_TRACE'] === '1') console.log(errors.slice(-5).join('\n'));
  return {
    stream,
    shard,
    lostBytes: acknowledged - promotedAt,
    folded: () => folded,
    errors: () => errors,
  };
}

/**
 * {@link World.drained}, asking again while the store is away or the cluster down (a shard
 * failing over).
 */
async function drained(world: World, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await world.drained(Math.max(1, deadline - Date.now()));
    } catch (error) {
      const failingOver = isStoreAway(error) ||
        (error instanceof Error && error.message.startsWith('CLUSTERDOWN'));
      if (!failingOver || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

/**
 * Waits until every offset is stored and no consumer has reported anything for 5 s (each checks
 * what it wrote every second, so a loss it notices shows within that).
 */
async function settled(world: World, reported: () => number): Promise<void> {
  const deadline = Date.now() + 240_000;
  for (;;) {
    await drained(world, Math.max(1, deadline - Date.now()));
    const before = reported();
    if (process.env['FAILOVER_TRACE'] === '1') console.log(`drained; ${before} errors reported`);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    if (reported() === before) {
      await drained(world, Math.max(1, deadline - Date.now()));
      if (reported() === before) return;
    }
    if (Date.now() > deadline) throw new Error('the consumers did not settle within 240 s');
  }
}

/** Everything a failover may have lost, as counts of differences (all 0 when exact). */
export async function lostAfter(cluster: OwnCluster, world: World, events: Stream['events']) {
  const nowUs = Date.now() * 1000;
  const live: StoreTarget = { kind: 'redis-cluster', nodes: await cluster.liveNodes() };
  const queries = failoverQueries(events, nowUs);
  const trace = (step: string) => {
    if (process.env['FAILOVER_TRACE'] === '1') console.log(`${new Date().toISOString()} ${step}`);
  };
  trace(`checking against ${live.nodes.join(',')}`);
  const answers = await answerDifferences(world.store, events, nowUs, queries);
  trace('answers');
  const registry = await registryDifferences(world.store, events, nowUs);
  trace('registry');
  const ringBuffers = await ringBufferDifferences(live, events);
  trace('ring buffers');
  const admitted = await admittedDifferences(live, events);
  trace('admitted');
  return { queries: queries.length, answers, registry, ringBuffers, admitted };
}
