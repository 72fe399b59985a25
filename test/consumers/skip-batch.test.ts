/**
 * Issue 38, item 2: nothing is skipped silently. An operator skips the batch a consumer process
 * cannot decode with `npm run consumers:skip`, naming the offsets its `/healthz` gives: the
 * record of the skip is on the dead-letter topic, the partition goes on by itself after the
 * batch (the events after it are folded, the batch's are not), and `/healthz` is ok again. A skip
 * of offsets the consumers are not paused at is refused, and changes nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { CompressionTypes } from 'kafkajs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { expectStoreMatchesReference, validEvents } from '../rollup/fold-and-read.ts';
import { freePort } from '../../tools/services/free-port.ts';
import { until } from '../support/poll.ts';
import { describeWithServices } from '../support/services.ts';
import { storeEnv } from '../support/store-target.ts';
import { createWorld, type DeadLetterRead, exited, type World } from './harness.ts';

const PAUSED = 5;

function edgeLines(seed: number, events: number, nowUs: number) {
  return [...generateEvents({ seed, events, nowUs, spanUs: 10 * 60_000_000, invalid: 0 })]
    .filter(({ source }) => source === 'edge');
}

describeWithServices(['kafka', 'redis'], 'an operator skipping a batch', ({ kafka, redis }) => {
  let world: World;
  let consumers: ChildProcess | null = null;
  let port = 0;
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
  const before = edgeLines(391, 100, nowUs);
  const batch = edgeLines(392, 100, nowUs);
  const after = edgeLines(393, 100, nowUs);
  let paused: { from: number; to: number } = { from: 0, to: 0 };
  let refused = { code: 0 as number | null, output: '' };
  let skipped = { code: 0 as number | null, output: '' };
  let letters: DeadLetterRead[] = [];

  const skip = (from: number, to: number) => {
    const child = spawn(process.execPath, [
      '--disable-warning=TimeoutNegativeWarning',
      'tools/skip-batch.ts',
      '--topic',
      world.topics.edge,
      '--partition',
      String(PAUSED),
      '--from',
      String(from),
      '--to',
      String(to),
      '--reason',
      'corrupt on the broker, ticket 1234',
    ], {
      env: {
        ...process.env,
        KAFKA_BROKERS: world.brokers.join(','),
        KAFKA_TOPIC_PREFIX: world.prefix,
        ...storeEnv(world.target),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    return new Promise<{ code: number | null; output: string }>((resolve) =>
      child.once('close', (code) => resolve({ code, output }))
    );
  };
  const health = async () => {
    const response = await fetch(`http://127.0.0.1:${port}/healthz`);
    return `${response.status} ${await response.text()}`;
  };

  beforeAll(async () => {
    world = await createWorld(kafka.brokers, { kind: 'redis', url: redis.url });
    const send = (lines: typeof before, compression = CompressionTypes.None) =>
      world.producer.send({
        topic: world.topics.edge,
        acks: -1,
        compression,
        messages: lines.map(({ line }) => ({ value: line, partition: PAUSED })),
      });
    await send(before);
    await send(batch, CompressionTypes.Snappy);
    await send(after);
    port = await freePort();
    consumers = world.consumerProcess(
      { WITHHELD_CODEC: 'snappy', METRICS_PORT: String(port) },
      'node',
      { entry: 'test/consumers/consumers-without-codec.ts' },
    );
    const answer = await until('/healthz to name the paused batch', 120_000, async () => {
      const match = / paused at offsets (\d+) to (\d+): /.exec(await health());
      return match === null ? null : match;
    });
    paused = { from: Number(answer[1]), to: Number(answer[2]) + 1 };
    refused = await skip(paused.from + 1, paused.to);
    skipped = await skip(paused.from, paused.to);
    await world.drained(120_000);
    letters = await world.deadLetters(1);
  }, 300_000);

  afterAll(async () => {
    if (consumers !== null) {
      consumers.kill('SIGTERM');
      await exited(consumers);
    }
    await world?.close();
  });

  test('the batch named is the one published with snappy', () => {
    expect(paused).toEqual({ from: before.length, to: before.length + batch.length });
  });

  test('a skip of offsets the consumers are not paused at is refused', () => {
    expect(refused.code, refused.output).toBe(2);
    expect(refused.output).toContain(
      `the consumers of ${world.topics.edge}/${PAUSED} are at offset ${paused.from}, not ${
        paused.from + 1
      }`,
    );
  });

  test('the skip is recorded on the dead-letter topic', () => {
    expect(skipped.code, skipped.output).toBe(0);
    expect(letters).toHaveLength(1);
    expect(letters[0]?.headers).toMatchObject({
      'rejection-kind': 'skipped',
      reason: 'corrupt on the broker, ticket 1234',
      'source-topic': world.topics.edge,
      'source-partition': String(PAUSED),
      'source-offset': String(paused.from),
      'skipped-to': String(paused.to),
    });
  });

  test('the partition went on after the batch: every event but the batch is folded', async () => {
    await expectStoreMatchesReference(
      world.store,
      validEvents([...before, ...after], nowUs),
      Date.now() * 1000,
    );
    expect(
      await until('/healthz to be ok', 30_000, async () => {
        const answer = await health();
        return answer === '200 ok\n' ? answer : null;
      }),
    ).toBe('200 ok\n');
  }, 60_000);
});
