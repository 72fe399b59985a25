/**
 * Crash test: a consumer process is killed with SIGKILL at random moments, ten times, while it
 * works through a stream; after the last start drains the topics, every answer must equal the
 * reference evaluator: nothing lost, nothing counted twice.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { describeOnRedisStores } from '../support/store-target.ts';
import { expectStoreMatchesReference, generatedStream } from '../rollup/fold-and-read.ts';
import { createWorld, exited, type World } from './harness.ts';

const KILLS = 10;
/** Events per generated half-stream; CI_CRASH_EVENTS raises it for a longer local run. */
const EVENTS_PER_STREAM = Number(process.env.CI_CRASH_EVENTS ?? 100_000);

describeOnRedisStores(
  ['kafka'],
  'consumers killed with SIGKILL mid-stream',
  ({ kafka }, target) => {
    let world: World;
    const stream = generatedStream(Math.floor(Date.now() / 1000) * 1_000_000, EVENTS_PER_STREAM);
    const killedAt: number[] = [];

    beforeAll(async () => {
      world = await createWorld(kafka.brokers, target);
      await world.publish(stream.lines);
    }, 300_000);

    afterAll(async () => {
      await world?.close();
    });

    test('after ten kills and a final drain, every answer equals the reference', async () => {
      // A deterministic schedule of how many events each run folds before it is killed.
      let seed = 2026;
      const next = () => {
        seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0;
        return seed / 2 ** 32;
      };
      const total = stream.lines.length;
      for (let kill = 0; kill < KILLS; kill++) {
        const before = await world.storedTotal();
        const target = before + Math.floor(total * (0.02 + 0.06 * next()));
        const child = world.consumerProcess();
        const deadline = Date.now() + 90_000;
        while ((await world.storedTotal()) < target && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20 + 80 * next()));
        }
        child.kill('SIGKILL');
        await exited(child);
        killedAt.push(await world.storedTotal());
      }
      // Every kill came after progress and before the end: the crashes really were mid-stream.
      expect(killedAt.every((stored, i) => stored > (killedAt[i - 1] ?? 0))).toBe(true);
      expect(killedAt.at(-1) ?? total).toBeLessThan(total);

      const last = world.consumerProcess();
      try {
        await world.drained(240_000);
      } finally {
        last.kill('SIGTERM');
        await exited(last);
      }
      expect(last.exitCode).toBe(0);
      await expectStoreMatchesReference(world.store, stream.events, Date.now() * 1000, 60);
    }, 900_000);
  },
);
