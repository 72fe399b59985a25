/**
 * Crash test: a consumer process is killed with SIGKILL at random moments, ten times, while it
 * works through a stream; after the last start drains the topics, every answer must equal the
 * reference evaluator: nothing lost, nothing counted twice. It runs on one Redis
 * (crash-redis.test.ts) and on a Redis Cluster (crash-cluster.test.ts), each of the test's own,
 * so that the two run side by side and nothing else writes to their keys.
 *
 * The test also proves the faults landed where they matter. After each kill it counts the
 * messages the killed member had folded and acknowledged to Kafka but not yet stored (the next
 * member replays them), and the member started next reports (on its /metrics) the messages it
 * found already folded and skipped. Some kill must have left messages to replay or to skip (up to
 * ten more kills are made until one does).
 *
 * @module
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { freePort } from '../../tools/services/free-port.ts';
import {
  type OwnRedisCluster,
  startOwnRedis,
  startOwnRedisCluster,
  stopOwnRedis,
  stopOwnRedisCluster,
} from '../../tools/services/own-redis.ts';
import type { Service } from '../../tools/services/service.ts';
import { describeWithServices } from '../support/services.ts';
import type { StoreTarget } from '../support/store-target.ts';
import { expectStoreMatchesReference, generatedStream } from '../rollup/fold-and-read.ts';
import { createWorld, exited, type World } from './harness.ts';
import { memberMetrics, memberMetricsOnceUp } from './member-metrics.ts';

const KILLS = 10;
/** Events per generated half-stream; CI_CRASH_EVENTS raises it for a longer local run. */
const EVENTS_PER_STREAM = Number(process.env.CI_CRASH_EVENTS ?? 100_000);

/** The consumer's count of messages found already folded, or null when it did not answer. */
async function skippedOf(port: number): Promise<number | null> {
  return (await memberMetrics(port))?.skipped ?? null;
}

/** What one kill left behind, and what the member after it did about it. */
interface KillReport {
  /** Offsets stored when the member was killed. */
  stored: number;
  /** Folded and acknowledged to Kafka by the killed member, not stored: replayed next. */
  replayed: number;
  /** Found already folded by the next member, and skipped (null: its metrics did not answer). */
  skippedNext: number | null;
  /** Seconds from the member's start to its kill. */
  seconds: number;
}

/** A store of the test's own: where it is, and how to stop it. */
interface OwnStore {
  readonly target: StoreTarget;
  stop(): Promise<void>;
}

async function startOwnStore(kind: StoreTarget['kind']): Promise<OwnStore> {
  if (kind === 'redis') {
    const redis: Service = await startOwnRedis(`redis-crash-${process.pid}`);
    return { target: { kind, url: redis.address }, stop: () => stopOwnRedis(redis) };
  }
  const cluster: OwnRedisCluster = await startOwnRedisCluster();
  return { target: { kind, nodes: cluster.nodes }, stop: () => stopOwnRedisCluster(cluster) };
}

/** Registers the crash test on a store of `kind` of its own. */
export function crashScenario(kind: StoreTarget['kind']): void {
  describeWithServices(
    ['kafka', 'redis-server'],
    `consumers killed with SIGKILL mid-stream, on ${
      kind === 'redis' ? 'one Redis' : 'a Redis Cluster'
    }`,
    ({ kafka }) => {
      let own: OwnStore | undefined;
      let world: World;
      const stream = generatedStream(
        Math.floor(Date.now() / 1000) * 1_000_000,
        EVENTS_PER_STREAM,
      );

      beforeAll(async () => {
        own = await startOwnStore(kind);
        world = await createWorld(kafka.brokers, own.target);
        await world.publish(stream.lines);
      }, 300_000);

      afterAll(async () => {
        await world?.close();
        await own?.stop();
      });

      test('after ten kills and a final drain, every answer equals the reference', async () => {
        // A deterministic schedule of how many events each run folds before it is killed.
        let seed = 2026;
        const next = () => {
          seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
          return seed / 2 ** 32;
        };
        const total = stream.lines.length;
        const reports: KillReport[] = [];
        // Each member's log is kept, so that one that ends by itself says why.
        const started = async () => {
          const port = await freePort();
          const child = world.consumerProcess({ METRICS_PORT: String(port) }, 'node', {
            stdout: 'pipe',
          });
          let log = '';
          child.stdout?.on(
            'data',
            (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4_000)),
          );
          const endedAlone = () =>
            child.exitCode === null && child.signalCode === null
              ? undefined
              : `the consumer (metrics port ${port}) ended by itself (${
                child.exitCode ?? child.signalCode
              }) before its kill; its log ends with:\n${log}`;
          return { port, child, endedAlone };
        };
        // A kill proves itself when it left messages to replay, or when the next member skipped
        // some (the kill fell between a flush's project commits and its resume offset).
        const proved = () =>
          reports.some((report) => report.replayed > 0 || (report.skippedNext ?? 0) > 0);
        // Ten kills; then, while none has proved itself, up to ten more, each a shorter step.
        for (let kill = 0; kill < KILLS || (!proved() && kill < 2 * KILLS); kill++) {
          const before = await world.storedTotal();
          if (before >= total) {
            throw new Error(
              `the stream was folded whole before kill ${kill + 1}: no kill left mid-stream ` +
                '(raise CI_CRASH_EVENTS)',
            );
          }
          const step = kill < KILLS ? 0.02 + 0.06 * next() : 0.005 + 0.01 * next();
          const goal = before + Math.floor(total * step);
          const { port, child, endedAlone } = await started();
          const startedMs = Date.now();
          const deadline = startedMs + 90_000;
          // Once this member has stored what the last one left to replay, it has skipped what it
          // was going to skip: its count is read then, while it goes on towards its goal.
          const previous = reports.at(-1);
          const replayedBy = before + (previous?.replayed ?? 0) + 1;
          for (;;) {
            const stored = await world.storedTotal();
            if (stored >= goal || Date.now() > deadline) break;
            const ended = endedAlone();
            if (ended !== undefined) throw new Error(ended);
            if (previous !== undefined && previous.skippedNext === null && stored >= replayedBy) {
              previous.skippedNext = await skippedOf(port);
            }
            await new Promise((resolve) => setTimeout(resolve, 20 + 80 * next()));
          }
          child.kill('SIGKILL');
          await exited(child);
          reports.push({
            stored: await world.storedTotal(),
            replayed: await world.committedAheadOfStore(),
            skippedNext: null,
            seconds: (Date.now() - startedMs) / 1000,
          });
        }
        const { port, child: last } = await started();
        try {
          await world.drained(240_000);
          // Read once it serves them: also, it is not stopped while it still loads its modules.
          const skipped = (await memberMetricsOnceUp(port))?.skipped ?? null;
          const previous = reports.at(-1);
          if (previous !== undefined) previous.skippedNext = skipped;
        } finally {
          last.kill('SIGTERM');
          await exited(last);
        }
        console.log(
          `crash test (${kind}), per kill: stored offsets, messages replayed, messages ` +
            `skipped by the next member, seconds the member ran\n${
              reports.map((r, i) =>
                `  kill ${i + 1}: ${r.stored} ${r.replayed} ${r.skippedNext} ${r.seconds}`
              ).join('\n')
            }`,
        );
        expect(last.exitCode).toBe(0);
        // Every kill came after progress and before the end: the crashes really were mid-stream.
        const killedAt = reports.map((report) => report.stored);
        expect(
          killedAt.every((stored, i) => stored > (killedAt[i - 1] ?? 0)),
          'a member was killed before it stored anything (see the per-kill report)',
        ).toBe(true);
        expect(killedAt.at(-1) ?? total).toBeLessThan(total);

        // Some kill landed between a fold and its commit: messages were replayed or skipped.
        expect(proved(), 'no kill left anything to replay or to skip').toBe(true);
        await expectStoreMatchesReference(world.store, stream.events, Date.now() * 1000, 60);
      }, 900_000);
    },
  );
}
