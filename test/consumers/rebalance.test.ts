/**
 * A rebalance under load: a second consumer joins the group while the first is folding, then
 * leaves; the answers equal the reference. Both members must have flushed events while both were
 * in the group: the partitions really were shared while events flowed.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ConsumerRunner } from '../../consumers/runner.ts';
import { describeOnRedisStores } from '../support/store-target.ts';
import { expectStoreMatchesReference, generatedStream } from '../rollup/fold-and-read.ts';
import { createWorld, type World } from './harness.ts';

describeOnRedisStores(['kafka'], 'a rebalance under load', ({ kafka }, target) => {
  let world: World;
  const runners: ConsumerRunner[] = [];
  const stream = generatedStream(Math.floor(Date.now() / 1000) * 1_000_000, 30_000);

  beforeAll(async () => {
    world = await createWorld(kafka.brokers, target);
  }, 60_000);

  afterAll(async () => {
    for (const runner of runners) await runner.stop();
    await world?.close();
  });

  test('a second consumer joining and leaving changes no answer', async () => {
    // Events each member flushed while both were in the group.
    const flushed = { first: 0, second: 0 };
    let together = false;
    const member = (name: keyof typeof flushed) =>
      world.runner({
        flushEvents: 500,
        onFlush: (report) => {
          if (together) flushed[name] += report.events;
        },
      });
    const first = member('first');
    runners.push(first);
    await first.start();
    // Published in three parts, so that the second consumer joins while the second part is
    // arriving and leaves while the third is.
    const total = stream.lines.length;
    const parts = [
      stream.lines.slice(0, Math.floor(total * 0.4)),
      stream.lines.slice(Math.floor(total * 0.4), Math.floor(total * 0.7)),
      stream.lines.slice(Math.floor(total * 0.7)),
    ];
    const waitFor = async (messages: number) => {
      const deadline = Date.now() + 120_000;
      while ((await world.storedTotal()) < messages) {
        if (Date.now() > deadline) throw new Error(`${messages} messages not stored within 120 s`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    await world.publish(parts[0] ?? []);
    await waitFor(Math.floor(total * 0.2));
    // The second part: half arrives while the second member joins, half once it holds
    // partitions (the first member alone may fold the first half before the rebalance ends).
    const second = member('second');
    runners.push(second);
    const half = Math.floor((parts[1] ?? []).length / 2);
    const publishingSecond = world.publish((parts[1] ?? []).slice(0, half));
    together = true;
    await second.start();
    await publishingSecond;
    await world.publish((parts[1] ?? []).slice(half));
    // All of the second part stored: the second member flushed its share of it.
    await waitFor((parts[0] ?? []).length + (parts[1] ?? []).length);
    const publishingThird = world.publish(parts[2] ?? []);
    const storedWhenLeaving = await world.storedTotal();
    await second.stop();
    together = false;
    await publishingThird;
    await world.drained(180_000);
    expect(storedWhenLeaving).toBeLessThan(total);
    expect(flushed.first, 'events the first member flushed with two in the group').toBeGreaterThan(
      0,
    );
    expect(flushed.second, 'events the second member flushed').toBeGreaterThan(0);
    await expectStoreMatchesReference(world.store, stream.events, Date.now() * 1000, 60);
  }, 400_000);
});
