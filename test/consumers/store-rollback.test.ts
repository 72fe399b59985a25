/**
 * Redis rolled back mid-stream (CONTRACT section 6: "whatever ... Redis rollbacks happen"): a snapshot is
 * saved, the consumers go on folding, then Redis is killed and restarted from the old snapshot
 * while events still arrive. The store is then consistent but older than the consumers' caches.
 * Once drained, every answer must equal the reference, and the consumers must have folded again
 * what the rollback took (the fault is proved, not assumed).
 */
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ConsumerRunner } from '../../consumers/runner.ts';
import { isStoreAway } from '../../src/store/away.ts';
import { down, up } from '../../tools/services/lifecycle.ts';
import { serviceDir } from '../../tools/services/paths.ts';
import { redisServerService } from '../../tools/services/redis.ts';
import type { Service } from '../../tools/services/service.ts';
import { expectStoreMatchesReference, generatedStream } from '../rollup/fold-and-read.ts';
import { freePort } from '../../tools/services/free-port.ts';
import { gone, signal } from '../support/own-services.ts';
import { describeWithServices } from '../support/services.ts';
import { createWorld, type World } from './harness.ts';

/**
 * The world's stored total, read as soon as its own connection (which fails fast while Redis is
 * away, and reconnects with a backoff of up to 2 s) is back; at most 30 s.
 */
async function storedTotalOnceBack(world: World): Promise<number> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await world.storedTotal();
    } catch (error) {
      if (!isStoreAway(error) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

describeWithServices(
  ['kafka', 'redis-server'],
  'Redis restarted from an older snapshot mid-stream',
  ({ kafka }) => {
    let redis: Service;
    let world: World;
    let runner: ConsumerRunner | undefined;
    const stream = generatedStream(Math.floor(Date.now() / 1000) * 1_000_000, 15_000);
    let flushedEvents = 0;

    beforeAll(async () => {
      redis = redisServerService({ name: 'redis-rollback', port: await freePort(), extraArgs: [] });
      rmSync(serviceDir(redis.name), { recursive: true, force: true });
      await up(redis, () => undefined);
      world = await createWorld(kafka.brokers, { kind: 'redis', url: redis.address });
    }, 120_000);

    afterAll(async () => {
      await runner?.stop();
      await world?.close();
      if (redis !== undefined) await down(redis);
    }, 60_000);

    test(
      'every answer equals the reference, and what the rollback took was folded again',
      async () => {
        runner = world.runner({
          flushEvents: 500,
          onFlush: (report) => {
            flushedEvents += report.events;
          },
        });
        await runner.start();
        const total = stream.lines.length;
        const cut = (share: number) => Math.floor(total * share);
        const dump = join(serviceDir(redis.name), 'dump.rdb');
        const old = join(serviceDir(redis.name), 'dump-old.rdb');

        await world.publish(stream.lines.slice(0, cut(0.4)));
        await world.drained(120_000);
        const client = await createClient({ url: redis.address }).connect();
        await client.sendCommand(['SAVE']);
        await client.close();
        copyFileSync(dump, old);
        const storedAtSnapshot = await world.storedTotal();

        await world.publish(stream.lines.slice(cut(0.4), cut(0.7)));
        await world.drained(120_000);
        const storedBeforeRollback = await world.storedTotal();
        expect(storedBeforeRollback).toBeGreaterThan(storedAtSnapshot);

        // The last part arrives while Redis goes back in time.
        const publishing = world.publish(stream.lines.slice(cut(0.7)));
        signal(redis, 'SIGKILL');
        await gone(redis);
        rmSync(dump, { force: true });
        copyFileSync(old, dump);
        expect(existsSync(dump)).toBe(true);
        const flushedBeforeRestart = flushedEvents;
        await up(redis, () => undefined);
        // Redis loaded the old snapshot: the offsets are those it held then (the consumers cannot
        // have folded 30% of the stream again in the moment since).
        expect(await storedTotalOnceBack(world)).toBeLessThan(storedBeforeRollback);
        await publishing;
        await world.drained(180_000);

        await expectStoreMatchesReference(world.store, stream.events, Date.now() * 1000, 60);
        // Everything folded after the snapshot and before the kill was folded again.
        const valid = stream.events.length;
        expect(flushedBeforeRestart).toBeGreaterThan(0);
        expect(flushedEvents - valid, 'events folded twice, once lost to the rollback')
          .toBeGreaterThan(0);
      },
      400_000,
    );
  },
);
