/**
 * A Redis that loses its data while a partition is between batches, when the next batch holds a
 * project the processor does not have in its cache (it reopened after a rebalance, or evicted
 * the project): the project's watermark reads as none, which is also what a project never seen
 * has. Its flush must not be applied, or the project's watermark would claim its whole history
 * and the rebuild from the earliest offset would skip what the loss took.
 *
 * Found by the mid-stream fault test (test/service/mid-stream-faults.test.ts): after Redis was
 * killed and restarted, one project's events from before the kill never came back.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { type InputMessage, PartitionProcessor } from '../../consumers/partition-processor.ts';
import { resumeKey, watermarkKey } from '../../src/rollup/keys.ts';
import type { RedisStore } from '../../src/store/redis.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { expectStoreMatchesReference, validEvents } from '../rollup/fold-and-read.ts';
import { describeOnRedisStores, emptyStore, openStore } from '../support/store-target.ts';

const MINUTE_US = 60_000_000;
const TOPIC = 'store-loss-uncached.function-edge';
const STREAM = `${TOPIC}/0`;

describeOnRedisStores([], 'a store lost while the next project is not cached', (_, target) => {
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
  let store: RedisStore;

  beforeAll(async () => {
    await emptyStore(target);
    store = await openStore(target);
  });

  afterAll(() => store?.close());

  test('the flush is refused, and the rebuild from the earliest offset is exact', async () => {
    const lines = [
      ...generateEvents({
        seed: 21,
        events: 1_200,
        nowUs,
        spanUs: 10 * MINUTE_US,
        projects: 2,
      }),
    ].filter((line) => line.source === 'function-edge');
    const events = validEvents(lines, nowUs);
    const [p, q] = [...new Set(events.map((event) => event.project))];
    if (p === undefined || q === undefined) throw new Error('two projects expected');
    const projectOf = (line: string) => line.includes(p) ? p : q;
    // Offsets 0..199 of both projects, then a batch of q only, then the rest of p.
    const first = lines.slice(0, 200);
    const rest = lines.slice(200);
    const ordered = [
      ...first,
      ...rest.filter(({ line }) => projectOf(line) === q),
      ...rest.filter(({ line }) => projectOf(line) === p),
    ];
    const qEnd = 200 + rest.filter(({ line }) => projectOf(line) === q).length;
    expect(first.some(({ line }) => projectOf(line) === p)).toBe(true);
    const messages: InputMessage[] = ordered.map(({ line }, offset) => ({
      offset: String(offset),
      key: null,
      value: Buffer.from(line),
    }));
    const errors: unknown[] = [];
    const processor = new PartitionProcessor({
      topic: TOPIC,
      partition: 0,
      source: 'function-edge',
      store,
      nowUs: () => nowUs,
      maxFutureSkewUs: 5 * MINUTE_US,
      recentLogsCapacity: 10_000,
      flushEvents: 10_000,
      publishDeadLetters: () => Promise.resolve(),
      earliestOffset: () => Promise.resolve(0),
      onFlushError: (error) => errors.push(error),
    });
    const feed = async (from: number, to: number) => {
      let position = from;
      while (position < to) {
        const outcome = await processor.process(messages.slice(position, to), () => true);
        await processor.drain();
        if (outcome.kind === 'seek') position = outcome.offset;
        else if (outcome.kind === 'consumed' && outcome.nextOffset !== null) {
          position = outcome.nextOffset;
        }
      }
    };

    await feed(0, 200);
    // A rebalance gave the partition back: its caches are gone, its stored offset is re-read
    // with the next batch, which holds q only.
    processor.reopen();
    await feed(200, qEnd);
    expect(await store.readOffset(resumeKey(STREAM))).toBe(qEnd);

    // Redis loses everything; the next batch is p's, a project the processor does not know.
    await emptyStore(target);
    await processor.process(messages.slice(qEnd), () => true);
    await processor.drain();
    expect(qEnd).toBeGreaterThan(200);
    expect(messages.length).toBeGreaterThan(qEnd);
    // Nothing of the flush was applied: no watermark claims p's history.
    expect(await store.readWatermarks([watermarkKey(p)], STREAM)).toEqual([null]);

    // As kafkajs would: the next batch asks again, the processor seeks to the earliest offset.
    let position = qEnd;
    for (let round = 0; round < 10 && position < messages.length; round++) {
      const next = await processor.process(messages.slice(position), () => true);
      await processor.drain();
      if (next.kind === 'seek') position = next.offset;
      else if (next.kind === 'consumed' && next.nextOffset !== null) position = next.nextOffset;
    }
    expect(position).toBe(messages.length);
    expect(await store.readOffset(resumeKey(STREAM))).toBe(messages.length);
    expect(await expectStoreMatchesReference(store, events, nowUs)).toBeGreaterThan(5);
  }, 60_000);
});
