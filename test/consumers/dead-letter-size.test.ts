/**
 * Issue 12, item 2, through the real broker: a flush's dead letters over the broker's largest
 * message (about 1 MB of invalid events of one project), and one invalid message near that limit
 * (its dead letter, with headers, would not fit), must not stop the partition. Every letter
 * arrives with the origin of its message; the near-limit one cut, with its full length in a
 * header; the valid event behind them is folded.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { ConsumerRunner } from '../../consumers/runner.ts';
import { MAX_DEAD_LETTER_VALUE_BYTES } from '../../consumers/dead-letter.ts';
import { parse } from '../../src/events/parse.ts';
import { expectStoreMatchesReference } from '../rollup/fold-and-read.ts';
import { describeWithServices } from '../support/services.ts';
import { createWorld, type World } from './harness.ts';

const PROJECT = 'oversizedeadletterab';
const INVALID = 40;
const PADDING = 'x'.repeat(40_000);

/** An event of PROJECT without its timestamp (invalid), padded to about `padding` bytes. */
function invalid(id: string, padding: string): string {
  return JSON.stringify({
    id,
    event_message: padding,
    metadata: [{ project_ref: PROJECT, function_id: 'f', execution_time_ms: 5 }],
  });
}

describeWithServices(['kafka', 'redis'], 'dead letters beyond one message', ({ kafka, redis }) => {
  let world: World;
  let runner: ConsumerRunner | undefined;
  const nowUs = Date.now() * 1000;
  const valid = JSON.stringify({
    id: 'after-the-invalid-ones',
    timestamp: nowUs - 1_000_000,
    metadata: [{
      project_ref: PROJECT,
      function_id: 'f',
      execution_time_ms: 7,
      response: [{ status_code: 200 }],
    }],
  });
  const nearLimit = invalid('near-limit', 'y'.repeat(1_040_000));

  beforeAll(async () => {
    world = await createWorld(kafka.brokers, { kind: 'redis', url: redis.url });
    const topic = world.topics['function-edge'];
    // In sends the broker takes (one partition's send is one batch, at most 1 MiB), all before
    // the consumer starts, so that the consumer fetches them together and flushes them as one.
    for (let start = 0; start < INVALID; start += 10) {
      await world.producer.send({
        topic,
        acks: -1,
        messages: Array.from({ length: 10 }, (_, i) => ({
          key: PROJECT,
          value: invalid(`invalid-${start + i}`, PADDING),
        })),
      });
    }
    await world.producer.send({ topic, acks: -1, messages: [{ key: PROJECT, value: nearLimit }] });
    await world.producer.send({ topic, acks: -1, messages: [{ key: PROJECT, value: valid }] });
    runner = world.runner({ flushEvents: 10_000 });
    await runner.start();
  }, 120_000);

  afterAll(async () => {
    await runner?.stop();
    await world?.close();
  });

  test('the partition goes past them, and the valid event behind them is folded', async () => {
    await world.drained(60_000);
    const result = parse(valid, 'function-edge', { nowUs: Date.now() * 1000 });
    if (!result.ok) throw new Error('the valid event does not parse');
    expect(await expectStoreMatchesReference(world.store, [result.event], Date.now() * 1000))
      .toBeGreaterThan(0);
  }, 90_000);

  test(
    'every letter arrived with its origin; the near-limit one cut, its length said',
    async () => {
      const letters = await world.deadLetters(INVALID + 1);
      expect(letters).toHaveLength(INVALID + 1);
      const offsets = await world.admin.fetchTopicOffsets(world.topics['function-edge']);
      const partition = offsets.find((entry) => Number(entry.high) > 0)?.partition;
      const ids = letters.map((letter) => {
        expect(letter.headers['source-topic']).toBe(world.topics['function-edge']);
        expect(letter.headers['source-partition']).toBe(String(partition));
        return letter.headers['source-offset'];
      });
      expect(ids).toEqual(Array.from({ length: INVALID + 1 }, (_, offset) => String(offset)));
      const cut = letters[INVALID];
      expect(cut?.headers['value-truncated-from']).toBe(String(Buffer.byteLength(nearLimit)));
      expect(cut?.headers['rejection-kind']).toBe('size');
      expect(cut?.value.length).toBe(MAX_DEAD_LETTER_VALUE_BYTES);
      expect(nearLimit.startsWith(cut?.value ?? '-')).toBe(true);
      expect(letters[0]?.value).toBe(invalid('invalid-0', PADDING));
    },
    60_000,
  );
});
