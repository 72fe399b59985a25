/**
 * Issue 38, item 2: a batch the consumers cannot decode stops only its own partition. A consumer
 * process that does not read snappy meets a snappy batch in one partition: that partition is
 * paused (nothing of it skipped, not even the events published after the batch), every other
 * partition folds everything, `/healthz` answers not-ok naming the partition and the reason, the
 * metrics show it, and the log holds one line per minute for it, not one per fetch. A process
 * that reads snappy, started after it, folds the rest: every answer equals the reference.
 */
import type { ChildProcess } from 'node:child_process';
import { CompressionTypes, type Message } from 'kafkajs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Source } from '../../src/events/types.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { resumeKey } from '../../src/rollup/keys.ts';
import { projectKey } from '../../tools/replay/publish.ts';
import { expectStoreMatchesReference, validEvents } from '../rollup/fold-and-read.ts';
import { freePort } from '../../tools/services/free-port.ts';
import { until } from '../support/poll.ts';
import { describeWithServices } from '../support/services.ts';
import { createWorld, exited, PARTITIONS, type World } from './harness.ts';

/** The partition of the edge topic that receives the snappy batch. */
const PAUSED = 3;

/** The edge topic's other partitions. */
const OTHERS = Array.from({ length: PARTITIONS }, (_, i) => i).filter((i) => i !== PAUSED);

/** Valid events of one seed, over the last 10 minutes. */
function lines(seed: number, events: number, nowUs: number) {
  return [...generateEvents({ seed, events, nowUs, spanUs: 10 * 60_000_000, invalid: 0 })];
}

describeWithServices(['kafka', 'redis'], 'a batch the consumers cannot decode', ({
  kafka,
  redis,
}) => {
  let world: World;
  let consumers: ChildProcess | null = null;
  let log = '';
  let port = 0;
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
  // Before the batch (keyed), the batch (snappy, one partition), then after it: to the paused
  // partition (held back) and to every other one (folded).
  const before = lines(381, 600, nowUs);
  const batch = lines(382, 200, nowUs).filter(({ source }) => source === 'edge');
  const after = lines(383, 600, nowUs);
  const heldBack = lines(384, 60, nowUs).filter(({ source }) => source === 'edge');
  let paused = '';
  let health = '';
  let metrics = '';

  const send = async (
    source: Source,
    messages: Message[],
    compression = CompressionTypes.None,
  ) => {
    await world.producer.send({ topic: world.topics[source], acks: -1, compression, messages });
  };
  const otherPartitionsStored = async () => {
    for (const topic of [world.topics.edge, world.topics['function-edge']]) {
      for (const { partition, high } of await world.admin.fetchTopicOffsets(topic)) {
        if (topic === world.topics.edge && partition === PAUSED) continue;
        const stored = await world.store.readOffset(resumeKey(`${topic}/${partition}`));
        if ((stored ?? 0) < Number(high)) return null;
      }
    }
    return true;
  };
  const get = async (path: string) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`);
    return { status: response.status, body: await response.text() };
  };
  const fetchesOfPaused = () => {
    const match = new RegExp(
      `consumer_undecodable_fetches_total\\{topic="${
        world.topics.edge.replaceAll('.', '\\.')
      }",partition="${PAUSED}"\\} (\\d+)`,
    ).exec(metrics);
    return Number(match?.[1] ?? 0);
  };

  beforeAll(async () => {
    world = await createWorld(kafka.brokers, { kind: 'redis', url: redis.url });
    paused = `${world.topics.edge}/${PAUSED}`;
    await world.publish(before);
    await send(
      'edge',
      batch.map(({ source, line }) => ({
        key: projectKey(source, line),
        value: line,
        partition: PAUSED,
      })),
      CompressionTypes.Snappy,
    );
    await send('edge', heldBack.map(({ line }) => ({ value: line, partition: PAUSED })));
    for (const source of ['edge', 'function-edge'] as const) {
      await send(
        source,
        after.filter((line) => line.source === source).map(({ line }, i) => ({
          value: line,
          // Every partition but the paused one.
          partition: source === 'edge' ? OTHERS[i % OTHERS.length] : i % PARTITIONS,
        })),
      );
    }
    port = await freePort();
    consumers = world.consumerProcess(
      { WITHHELD_CODEC: 'snappy', METRICS_PORT: String(port), LOG_LEVEL: 'info' },
      'node',
      { entry: 'test/consumers/consumers-without-codec.ts', stdout: 'pipe' },
    );
    consumers.stdout?.setEncoding('utf8').on('data', (chunk: string) => (log += chunk));
    await until('every other partition to be stored to its end', 120_000, otherPartitionsStored);
    // Three fetches of the paused partition at least: the first, and two retries.
    await until('three fetches of the paused partition', 120_000, async () => {
      metrics = (await get('/metrics')).body;
      return fetchesOfPaused() >= 3 ? true : null;
    });
    const answer = await get('/healthz');
    health = `${answer.status} ${answer.body}`;
  }, 300_000);

  afterAll(async () => {
    if (consumers !== null) {
      consumers.kill('SIGTERM');
      await exited(consumers);
    }
    await world?.close();
  });

  test('/healthz answers not ok, naming the partition and the reason', () => {
    expect(health).toMatch(/^503 not ok: consumers: /);
    expect(health).toMatch(
      new RegExp(`${paused.replaceAll('.', '\\.')} paused at offsets \\d+ to \\d+: `),
    );
    expect(health).toContain('this process does not read snappy batches');
  });

  test('the metrics name the paused partition', () => {
    const topic = world.topics.edge.replaceAll('.', '\\.');
    expect(metrics).toMatch(
      new RegExp(`consumer_partition_undecodable\\{topic="${topic}",partition="${PAUSED}"\\} 1`),
    );
    expect(metrics).toMatch(/^consumer_partitions_paused 1$/m);
  });

  test('the log holds one line per minute for the partition, not one per fetch', () => {
    const times = log.split('\n').filter((line) => line.includes(`"stream":"${paused}"`))
      .map((line) => JSON.parse(line))
      .filter((entry: { level: unknown }) => entry.level === 50)
      .map((entry: { time: number }) => entry.time);
    expect(times.length).toBeGreaterThanOrEqual(1);
    expect(times.length).toBeLessThan(fetchesOfPaused());
    for (let i = 1; i < times.length; i++) {
      expect((times[i] ?? 0) - (times[i - 1] ?? 0)).toBeGreaterThanOrEqual(60_000);
    }
  });

  test(
    'nothing of the paused partition was skipped; a process that reads snappy folds it',
    async () => {
      // Folded so far: everything but the batch and what follows it in its partition.
      const folded = [...before, ...after];
      await expectStoreMatchesReference(world.store, validEvents(folded, nowUs), Date.now() * 1000);
      if (consumers !== null) {
        consumers.kill('SIGTERM');
        await exited(consumers);
      }
      consumers = world.consumerProcess({ METRICS_PORT: String(port) });
      await world.drained(120_000);
      const all = [...before, ...batch, ...heldBack, ...after];
      await expectStoreMatchesReference(world.store, validEvents(all, nowUs), Date.now() * 1000);
      const answer = await until('/healthz to answer', 30_000, () => get('/healthz'));
      expect(`${answer.status} ${answer.body}`).toBe('200 ok\n');
    },
    240_000,
  );
});
