import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ConsumerRunner } from '../../consumers/runner.ts';
import { parse } from '../../src/events/parse.ts';
import { describeOnRedisStores } from '../support/store-target.ts';
import { expectStoreMatchesReference, generatedStream } from '../rollup/fold-and-read.ts';
import { createWorld, type World } from './harness.ts';

describeOnRedisStores(
  ['kafka'],
  'a generated stream replayed through Kafka into Redis',
  ({ kafka }, target) => {
    let world: World;
    let runner: ConsumerRunner;
    const stream = generatedStream(Math.floor(Date.now() / 1000) * 1_000_000, 6_000);

    beforeAll(async () => {
      world = await createWorld(kafka.brokers, target);
      runner = world.runner({ flushEvents: 2_000 });
      await runner.start();
      await world.publish(stream.lines);
      await world.drained(120_000);
    }, 180_000);

    afterAll(async () => {
      await runner?.stop();
      await world?.close();
    });

    test('answers from the rollups equal the reference evaluator', async () => {
      const nowUs = Date.now() * 1000;
      await expectStoreMatchesReference(world.store, stream.events, nowUs, 60);
    }, 120_000);

    test(
      'every invalid event reached the dead-letter topic with its reason and origin',
      async () => {
        const invalid = stream.lines.filter(({ source, line }) =>
          !parse(line, source, { nowUs: stream.nowUs, maxFutureSkewUs: 5 * 60_000_000 }).ok
        );
        expect(invalid.length).toBeGreaterThan(50);
        const received = await world.deadLetters(invalid.length);
        expect(received.length).toBe(invalid.length);
        expect(new Set(received.map((letter) => letter.value))).toEqual(
          new Set(invalid.map(({ line }) => line)),
        );
        // Each letter names where its message is: the message there is the letter's bytes,
        // and the rule it broke is the one the parser gives for them.
        const origins = await world.sourceMessages();
        expect(origins.size).toBe(stream.lines.length);
        const origin = new Set<string>();
        for (const letter of received) {
          const topic = letter.headers['source-topic'] ?? '';
          const at = `${topic}/${letter.headers['source-partition']}/${
            letter.headers['source-offset']
          }`;
          expect(origins.get(at), at).toBe(letter.value);
          origin.add(at);
          const source = topic === world.topics.edge ? 'edge' : 'function-edge';
          const parsed = parse(letter.value, source, {
            nowUs: stream.nowUs,
            maxFutureSkewUs: 5 * 60_000_000,
          });
          expect(parsed.ok ? null : parsed.rejection.kind, at).toBe(
            letter.headers['rejection-kind'],
          );
          expect(letter.headers.reason, at).toMatch(/\S/);
        }
        // No two letters claim the same message.
        expect(origin.size).toBe(received.length);
      },
      60_000,
    );
  },
);
