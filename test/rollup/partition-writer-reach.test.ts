/**
 * A replayed stream's reach (see `ProjectCommit.watermark.reachUs`): the writer does not read a
 * part of a bucket that starts after every event the stream has folded into the project, and
 * still reads, and merges, every part that may be there: a late event's bucket, a project whose
 * watermark a writer that keeps no reach moved, and a project whose events lie far in the future.
 */
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { DirectIngest } from '../../src/rollup/direct-ingest.ts';
import { Fold } from '../../src/rollup/fold.ts';
import { stateObject } from '../../src/rollup/fold-delta.ts';
import { invocationStats } from '../../src/rollup/invocation-stats.ts';
import {
  bucketSlot,
  functionScope,
  invocationKey,
  partAddress,
  partRef,
  projectPrefix,
  watermarkKey,
} from '../../src/rollup/keys.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import type { PartRef, RollupStore } from '../../src/store/port.ts';
import { type Grain, truncate } from '../../src/time/grain.ts';
import { flushOne, NOW_US, PROJECT } from './partition-writer-fixtures.ts';

const STREAM = 'logs.function-edge/0';
const DAY_US = 86_400_000_000;

/** An invocation of {@link PROJECT} at `timestampUs`, parsed as a consumer would at `nowUs`. */
function invocationAt(id: string, timestampUs: number, nowUs = NOW_US): LogEvent {
  const result = parse(
    JSON.stringify({
      id,
      timestamp: timestampUs,
      metadata: [{
        project_ref: PROJECT,
        function_id: 'f1',
        execution_time_ms: 5,
        response: [{ status_code: 200 }],
      }],
    }),
    'function-edge',
    { nowUs },
  );
  if (!result.ok) throw new Error(result.rejection.reason);
  return result.event;
}

/** The memory store, counting the parts writers ask it for, key by key. */
class CountingStore extends MemoryStore {
  readonly partsRead: string[] = [];

  override readParts(parts: readonly PartRef[], stream: string): Promise<(Uint8Array | null)[]> {
    this.partsRead.push(...parts.map(({ key, slot }) => partAddress(key, slot)));
    return super.readParts(parts, stream);
  }
}

/** A fresh writer of {@link STREAM} (a consumer that just took the partition), opened. */
async function takeOver(store: RollupStore, nowUs = () => NOW_US): Promise<PartitionWriter> {
  const writer = new PartitionWriter({
    store,
    stream: STREAM,
    nowUs,
    earliestOffset: () => Promise.resolve(0),
  });
  await writer.open();
  return writer;
}

/** The invocation count every stream holds in the all-functions bucket of `grain` at `atUs`. */
async function count(store: RollupStore, grain: Grain, atUs: number): Promise<number> {
  const key = invocationKey(
    projectPrefix(PROJECT),
    functionScope(null),
    grain,
    truncate(atUs, grain),
  );
  const bucketUs = truncate(atUs, grain);
  const slot = bucketSlot(grain, bucketUs) ?? null;
  const [parts] = await store.readSlots([{ key }]);
  return (parts ?? []).filter((part) => part.slot === slot)
    .reduce((sum, { part }) => sum + invocationStats.deserialize(part).count, 0);
}

/**
 * Folds `event` at `offset` as a version that kept no reach did: each part read, merged with the
 * delta and written whole, and the project's watermark moved from `offset` without a reach.
 */
async function commitAsEarlierVersion(
  store: RollupStore,
  event: LogEvent,
  offset: number,
): Promise<void> {
  const fold = new Fold(STREAM);
  fold.add(event, offset, NOW_US);
  const delta = fold.take();
  const states = (delta.projects.get(PROJECT)?.states ?? []).map((
    state,
  ) => [state.address, { ...stateObject(delta, state), expireAtMs: state.expireAtMs }] as const);
  const stored = await store.readParts(states.map(([address]) => partRef(address)), STREAM);
  const [expected] = await store.readWatermarks([watermarkKey(PROJECT)], STREAM);
  const result = await store.commitProject({
    stream: STREAM,
    watermark: {
      key: watermarkKey(PROJECT),
      expected: expected ?? null,
      next: offset + 1,
      expireAtMs: NOW_US / 1000 + 100 * DAY_US / 1000,
    },
    parts: states.map(([address, pending], i) => {
      if (pending.kind !== 'invocation') throw new Error(`${address} is not an invocation key`);
      const text = stored[i] ?? null;
      const state = text === null
        ? pending.state
        : invocationStats.merge(invocationStats.deserialize(text), pending.state);
      const value = invocationStats.serialize(state);
      return { ...partRef(address), value, expireAtMs: pending.expireAtMs };
    }),
    sortedSets: [],
  });
  if (result.outcome !== 'applied') throw new Error(`the earlier version's commit was refused`);
}

describe("a replayed stream's reach", () => {
  test('buckets that start after it are not read; those at or before it are, and merge', async () => {
    const store = new CountingStore({ nowMs: () => NOW_US / 1000 });
    // Three minutes back: its second is still kept (the 5min series reads it).
    const first = NOW_US - 3 * 60_000_000;
    // A project without a watermark of the stream holds none of its parts: nothing is read.
    await flushOne(await takeOver(store), invocationAt('a', first), 0);
    expect(store.partsRead).toEqual([]);
    // The next owner: a later minute starts after the reach, its hour and day do not.
    const later = NOW_US - 1_000_000;
    await flushOne(await takeOver(store), invocationAt('b', later), 1);
    const read = store.partsRead.map((key) => key.split(':').slice(-2)[0]).toSorted();
    expect(read).toEqual(['d', 'd', 'h', 'h']);
    // A late event in a second the stream wrote before: read, and merged.
    store.partsRead.length = 0;
    await flushOne(await takeOver(store), invocationAt('c', first), 2);
    expect(store.partsRead).toHaveLength(2 * 4);
    expect(await count(store, 'second', first)).toBe(2);
    expect(await count(store, 'minute', later)).toBe(1);
    expect(await count(store, 'day', later)).toBe(3);
  });

  test('a watermark moved by a writer that keeps no reach: parts up to now (and its skew) are read again', async () => {
    const store = new MemoryStore({ nowMs: () => NOW_US / 1000 });
    const first = NOW_US - 3 * 60_000_000;
    await flushOne(await takeOver(store), invocationAt('a', first), 0);
    // An older version's consumer folds offset 1 (an event three minutes later) and moves the
    // watermark without a reach: its parts lie beyond the reach stored with offset 1.
    const later = NOW_US - 1_000_000;
    await commitAsEarlierVersion(store, invocationAt('b', later), 1);
    // The next owner cannot trust the reach stored with offset 1: it reads, and merges.
    await flushOne(await takeOver(store), invocationAt('c', later), 2);
    expect(await count(store, 'second', later)).toBe(2);
    expect(await count(store, 'day', later)).toBe(3);
  });

  test('a project an earlier version wrote: once now has passed the future skew, new buckets are not read', async () => {
    let nowUs = NOW_US;
    const store = new CountingStore({ nowMs: () => Math.floor(nowUs / 1000) });
    const at = NOW_US - 1_000_000;
    await commitAsEarlierVersion(store, invocationAt('a', at), 0);
    store.partsRead.length = 0;
    // Its reach is not known: every part of an event judged before now is read.
    await flushOne(await takeOver(store, () => nowUs), invocationAt('b', at), 1, nowUs);
    expect(store.partsRead).toHaveLength(2 * 4);
    expect(await count(store, 'second', at)).toBe(2);
    // Ten minutes on, past the 5-minute skew and the 2-minute slack: the next owner takes the
    // new second and minute for new; the hour and day began before and are read.
    nowUs = NOW_US + 10 * 60_000_000;
    store.partsRead.length = 0;
    const later = nowUs - 1_000_000;
    await flushOne(await takeOver(store, () => nowUs), invocationAt('c', later, nowUs), 2, nowUs);
    const read = store.partsRead.map((key) => key.split(':').slice(-2)[0]).toSorted();
    expect(read).toEqual(['d', 'd', 'h', 'h']);
    expect(await count(store, 'second', later)).toBe(1);
    expect(await count(store, 'minute', later)).toBe(1);
    expect(await count(store, 'day', later)).toBe(3);
  });

  test("an earlier version's part beyond the reach taken for it (a producer clock ahead) refuses the commit; then it is read", async () => {
    const store = new MemoryStore({ nowMs: () => NOW_US / 1000 });
    // Judged by its Kafka timestamp, an hour ahead: past now, the skew and the slack.
    const ahead = NOW_US + 60 * 60_000_000;
    await commitAsEarlierVersion(store, invocationAt('a', ahead, ahead), 0);
    const writer = await takeOver(store);
    await expect(flushOne(writer, invocationAt('b', ahead, ahead), 1)).rejects.toThrow(
      /has a part of it in .*beyond its reach/,
    );
    // The stream has no resume offset yet: it starts again from the earliest offset.
    expect(await writer.open()).toBe(0);
    await flushOne(writer, invocationAt('b', ahead, ahead), 1);
    expect(await count(store, 'second', ahead)).toBe(2);
    expect(await count(store, 'day', ahead)).toBe(2);
  });

  test('a part found beyond the reach (its watermark expired first) refuses the commit; then it is read', async () => {
    let nowUs = NOW_US;
    const store = new MemoryStore({ nowMs: () => Math.floor(nowUs / 1000) });
    // A producer whose clock runs 200 days ahead (events are judged by their Kafka timestamps):
    // the day bucket outlives the watermark, which lives 90 days past the last commit.
    const future = NOW_US + 200 * DAY_US;
    await flushOne(await takeOver(store, () => nowUs), invocationAt('a', future, future), 0, nowUs);
    nowUs = NOW_US + 150 * DAY_US;
    expect(await store.readWatermarks([watermarkKey(PROJECT)], STREAM)).toEqual([null]);
    const writer = await takeOver(store, () => nowUs);
    await expect(flushOne(writer, invocationAt('b', future, future), 1, nowUs)).rejects.toThrow(
      /has a part of it in .*beyond its reach/,
    );
    expect(await count(store, 'day', future)).toBe(1);
    // Reopened where the flush began: the reach is forgotten, the part read and merged.
    expect(await writer.open()).toBe(1);
    await flushOne(writer, invocationAt('b', future, future), 1, nowUs);
    expect(await count(store, 'day', future)).toBe(2);
  });

  test('a writer that dropped its cached parts keeps its reach: no refusal, exact', async () => {
    const store = new MemoryStore({ nowMs: () => NOW_US / 1000 });
    const writer = new PartitionWriter({
      store,
      stream: STREAM,
      nowUs: () => NOW_US,
      earliestOffset: () => Promise.resolve(0),
      cacheLimit: 1,
    });
    await writer.open();
    const at = NOW_US - 1_000_000;
    await flushOne(writer, invocationAt('a', at), 0);
    expect(writer.cached.parts).toBeLessThanOrEqual(1);
    await flushOne(writer, invocationAt('b', at), 1);
    expect(await count(store, 'second', at)).toBe(2);
  });

  test('a late event does not lower the reach: the next owner still reads newer buckets', async () => {
    const store = new MemoryStore({ nowMs: () => NOW_US / 1000 });
    const later = NOW_US - 1_000_000;
    const earlier = NOW_US - 3 * 60_000_000;
    const writer = await takeOver(store);
    await flushOne(writer, invocationAt('a', later), 0);
    await flushOne(writer, invocationAt('b', earlier), 1);
    await flushOne(await takeOver(store), invocationAt('c', later), 2);
    expect(await count(store, 'second', later)).toBe(2);
    expect(await count(store, 'second', earlier)).toBe(1);
  });

  test('an event at the very start of a bucket: the bucket starts at the reach, not after it', async () => {
    const store = new MemoryStore({ nowMs: () => NOW_US / 1000 });
    const at = truncate(NOW_US, 'minute');
    await flushOne(await takeOver(store), invocationAt('a', at), 0);
    await flushOne(await takeOver(store), invocationAt('b', at), 1);
    expect(await count(store, 'second', at)).toBe(2);
    expect(await count(store, 'minute', at)).toBe(2);
  });
});

describe("a direct stream's reach (HTTP ingest)", () => {
  test('once now has passed the future skew of its first call, new buckets are not read; exact', async () => {
    let nowUs = NOW_US;
    const store = new CountingStore({ nowMs: () => Math.floor(nowUs / 1000) });
    const ingest = new DirectIngest({ store, nowUs: () => nowUs });
    await ingest.fold([invocationAt('a', NOW_US - 1_000_000)]);
    nowUs = NOW_US + 10 * 60_000_000;
    store.partsRead.length = 0;
    const later = nowUs - 1_000_000;
    await ingest.fold([invocationAt('b', later, nowUs)]);
    // Its hour and day are cached from the first call; its second and minute start after now
    // and the skew of that call.
    expect(store.partsRead).toEqual([]);
    expect(await count(store, 'second', later)).toBe(1);
    expect(await count(store, 'day', later)).toBe(2);
  });

  test('a process that accepts events further ahead takes its reach further ahead', async () => {
    let nowUs = NOW_US;
    const store = new CountingStore({ nowMs: () => Math.floor(nowUs / 1000) });
    const ingest = new DirectIngest({
      store,
      nowUs: () => nowUs,
      maxFutureSkewUs: 60 * 60_000_000,
    });
    await ingest.fold([invocationAt('a', NOW_US - 1_000_000)]);
    nowUs = NOW_US + 10 * 60_000_000;
    store.partsRead.length = 0;
    await ingest.fold([invocationAt('b', nowUs - 1_000_000, nowUs)]);
    const read = store.partsRead.map((key) => key.split(':').slice(-2)[0]).toSorted();
    expect(read).toEqual(['S', 'S', 'm', 'm']);
  });
});
