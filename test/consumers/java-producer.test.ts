/**
 * Issue 38: a producer no one here wrote. Apache Kafka's own Java client publishes valid events
 * with every compression type log shippers set (none, gzip, snappy, lz4, zstd), then one
 * transaction it aborts and one it commits. The consumer role, on Node and on Deno, folds every
 * event of the batches and of the committed transaction exactly once and none of the aborted
 * one: every answer equals the reference evaluator over exactly those events, and every stored
 * offset reaches its partition's end (a transaction's markers included).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { projectKey } from '../../tools/replay/publish.ts';
import { expectStoreMatchesReference, validEvents } from '../rollup/fold-and-read.ts';
import { type JavaMode, type JavaRecord, publishWithJava } from '../support/java-producer.ts';
import { describeWithServices } from '../support/services.ts';
import { createWorld, exited, type Runtime, type World } from './harness.ts';

const MODES: readonly JavaMode[] = ['none', 'gzip', 'snappy', 'lz4', 'zstd', 'abort', 'commit'];
const EVENTS_PER_MODE = 300;

/** Each mode's own generated lines (a seed per mode), keyed by project as the contract asks. */
function recordsFor(nowUs: number): JavaRecord[] {
  return MODES.flatMap((mode, index) =>
    [...generateEvents({
      seed: 380 + index,
      events: EVENTS_PER_MODE,
      nowUs,
      spanUs: 60 * 60_000_000,
      outOfOrder: 0.05,
      invalid: 0.01,
      projects: 12,
    })].map(({ source, line }) => ({ mode, source, key: projectKey(source, line), line }))
  );
}

for (const runtime of ['node', 'deno'] as const satisfies readonly Runtime[]) {
  describeWithServices(
    ['kafka', 'redis', 'jdk', 'maven'],
    `events of Apache Kafka's Java client, consumed on ${runtime}`,
    ({ kafka, redis }) => {
      let world: World;
      const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
      const records = recordsFor(nowUs);

      beforeAll(async () => {
        world = await createWorld(kafka.brokers, { kind: 'redis', url: redis.url });
        await publishWithJava(world.brokers, world.topics, records);
        const consumers = world.consumerProcess({}, runtime);
        try {
          await Promise.race([
            world.drained(120_000),
            exited(consumers).then(() => {
              throw new Error(`the consumers on ${runtime} exited`);
            }),
          ]);
        } finally {
          consumers.kill('SIGTERM');
          await exited(consumers);
        }
      }, 240_000);

      afterAll(async () => {
        await world?.close();
      });

      test(
        'every event of every codec and of the committed transaction, none aborted',
        async () => {
          const folded = records.filter(({ mode }) => mode !== 'abort');
          const events = validEvents(folded, nowUs);
          expect(events.length).toBeGreaterThan(6 * EVENTS_PER_MODE * 0.9);
          await expectStoreMatchesReference(world.store, events, Date.now() * 1000);
        },
        120_000,
      );
    },
  );
}
