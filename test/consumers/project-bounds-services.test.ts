/**
 * Issue 12, item 6, through Kafka into Redis (one Redis and a Redis Cluster): a project that
 * names more distinct function ids in a day than a stream folds gets the events beyond as dead
 * letters of kind `cardinality`, and replaying the whole stream into an emptied store dead-
 * letters exactly the same messages.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ConsumerRunner } from '../../consumers/runner.ts';
import { admittedKeysKey, PROJECT_DAY_BOUNDS } from '../../src/rollup/admission.ts';
import { truncate } from '../../src/time/grain.ts';
import { describeOnRedisStores, emptyStore } from '../support/store-target.ts';
import { createWorld, type DeadLetterRead, type World } from './harness.ts';
import { BOUNDED_PROJECT as PROJECT, boundsStream } from './bounds-stream.ts';

/** Source offsets of `letters`, each with how many letters name it. */
function offsetsOf(letters: readonly DeadLetterRead[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const letter of letters) {
    const offset = Number(letter.headers['source-offset']);
    counts.set(offset, (counts.get(offset) ?? 0) + 1);
  }
  return counts;
}

describeOnRedisStores(['kafka'], 'per-project key bounds through Kafka', ({ kafka }, target) => {
  let world: World;
  let runner: ConsumerRunner | undefined;
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
  const { lines, refused } = boundsStream(nowUs);

  beforeAll(async () => {
    world = await createWorld(kafka.brokers, target);
    await world.publish(lines.map((line) => ({ source: 'function-edge' as const, line })));
  }, 120_000);

  afterAll(async () => {
    await runner?.stop();
    await world?.close();
  });

  test('the events beyond the bound are dead letters; a replay refuses the same', async () => {
    runner = world.runner({ flushEvents: 5 });
    await runner.start();
    await world.drained(60_000);
    const first = await world.deadLetters(refused.length);
    expect([...offsetsOf(first).keys()].sort((a, b) => a - b)).toEqual(refused);
    for (const letter of first) expect(letter.headers['rejection-kind']).toBe('cardinality');
    const partition = first[0]?.headers['source-partition'];
    const stream = `${world.topics['function-edge']}/${partition}`;
    const admitted = await world.store.membersSince(
      admittedKeysKey(PROJECT, stream, truncate(nowUs, 'day')),
      0,
    );
    expect(admitted.length).toBe(PROJECT_DAY_BOUNDS.functions);

    // Everything forgotten: the next consumer folds the stream again from its start.
    await runner.stop();
    await emptyStore(target);
    runner = world.runner({ flushEvents: 3 });
    await runner.start();
    await world.drained(60_000);
    const both = await world.deadLetters(2 * refused.length);
    expect([...offsetsOf(both)].sort(([a], [b]) => a - b)).toEqual(
      refused.map((offset) => [offset, 2]),
    );
  }, 150_000);
});
