/**
 * Issue 18, item 1 through Kafka: a schema-valid poison pill (execution times that add up past
 * the largest double) and a stored state that cannot be read (left by an older version) must not
 * stop a partition, before or after a consumer restart. The poison is dead-lettered with its
 * reason; the unreadable state (a bucket key of the layout before parts) is kept as the bucket's
 * `legacy` part, which readers skip and report; every answer equals the reference evaluator.
 */
import { partText } from '../support/stored-parts.ts';
import { createClient } from 'redis';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ConsumerRunner } from '../../consumers/runner.ts';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { invocationStats } from '../../src/rollup/invocation-stats.ts';
import { functionScope, invocationKey, projectPrefix } from '../../src/rollup/keys.ts';
import { truncate } from '../../src/time/grain.ts';
import type { SourcedLine } from '../../tools/replay/publish.ts';
import { expectStoreMatchesReference } from '../rollup/fold-and-read.ts';
import { describeWithServices } from '../support/services.ts';
import { createWorld, type World } from './harness.ts';

const PROJECT = 'poisonedkafkaproject';
const CORRUPT = '{"n":2,"e":0,"s":[0,0,0,0,0],"t":2,"sum":null,"min":1e308,"max":1e308}';

function invocation(id: string, timestampUs: number, executionTimeMs: number, responses = 1) {
  return JSON.stringify({
    id,
    timestamp: timestampUs,
    metadata: [{
      project_ref: PROJECT,
      function_id: 'hello',
      execution_time_ms: executionTimeMs,
      response: Array.from({ length: responses }, (_, i) => ({ status_code: i ? 500 : 200 })),
    }],
  });
}

describeWithServices(['kafka', 'redis'], 'a poison pill published to Kafka', ({ kafka, redis }) => {
  let world: World;
  let runner: ConsumerRunner | undefined;
  const startUs = Math.floor(Date.now() / 60_000) * 60_000_000;
  const minuteKey = invocationKey(
    projectPrefix(PROJECT),
    functionScope(null),
    'minute',
    truncate(startUs, 'minute'),
  );
  const lines: SourcedLine[] = [];

  /** Publishes `batch`, then runs a fresh consumer (stopping the last one) until it is folded. */
  const foldWithNewConsumer = async (batch: string[]) => {
    const sourced = batch.map((line) => ({ source: 'function-edge' as const, line }));
    lines.push(...sourced);
    await world.publish(sourced);
    await runner?.stop();
    runner = world.runner();
    await runner.start();
    await world.drained(60_000);
  };

  beforeAll(async () => {
    world = await createWorld(kafka.brokers, { kind: 'redis', url: redis.url });
    // A state an older version could store and no version can read, where the stream will write.
    const client = await createClient({ url: redis.url }).connect();
    await client.set(minuteKey, CORRUPT, { PX: 3_600_000 });
    await client.close();

    await foldWithNewConsumer([
      invocation('before-1', startUs + 1_000, 12.5),
      invocation('poison', startUs + 2_000, 1e308, 2),
      invocation('before-2', startUs + 3_000, 30, 2),
    ]);
    // The restart: a new consumer reads back every state the first one stored.
    await foldWithNewConsumer([
      invocation('after-1', startUs + 4_000, 7.25),
      invocation('poison-again', startUs + 5_000, 1e308, 2),
      invocation('after-2', startUs + 6_000, 100, 3),
    ]);
  }, 180_000);

  afterAll(async () => {
    await runner?.stop();
    await world?.close();
  });

  test('the partition kept folding, and every answer equals the reference', async () => {
    const nowUs = Date.now() * 1000;
    const events: LogEvent[] = [];
    for (const { line } of lines) {
      const result = parse(line, 'function-edge', { nowUs });
      if (result.ok) events.push(result.event);
    }
    expect(events.map((event) => event.id)).toEqual(['before-1', 'before-2', 'after-1', 'after-2']);
    await expectStoreMatchesReference(world.store, events, nowUs);
    const [parts] = await world.store.readBuckets([minuteKey]);
    const counts = (parts ?? []).filter((part) => partText(part) !== CORRUPT).map((part) =>
      invocationStats.deserialize(part).count
    );
    expect(counts.reduce((sum: number, n: number) => sum + n, 0)).toBe(7);
  }, 60_000);

  test('the unreadable state was kept, not lost', async () => {
    const client = await createClient({ url: redis.url }).connect();
    const legacy = await client.hGet(minuteKey, 'legacy');
    await client.close();
    expect(legacy).toBe(CORRUPT);
  });

  test('both poison pills reached the dead-letter topic with the reason', async () => {
    const reasons = (await world.deadLetters(2)).map((letter) => letter.headers.reason);
    expect(reasons).toHaveLength(2);
    for (const reason of reasons) {
      expect(reason).toMatch(/^\/metadata\/0\/execution_time_ms must be <= 1000000000/);
    }
  }, 60_000);
});
