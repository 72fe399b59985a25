/**
 * The partition writer on the embedded store: merging into stored states, and what it does with
 * a stored state it cannot read (issue 18: one key must never stop a partition).
 */
import { partText, partTexts } from '../support/stored-parts.ts';
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { Fold } from '../../src/rollup/fold.ts';
import { NewerStateFormatError } from '../../src/rollup/state-format.ts';
import { invocationStats } from '../../src/rollup/invocation-stats.ts';
import {
  quarantineKey,
  resumeKey,
  streamWatermarkKey,
  watermarkKey,
} from '../../src/rollup/keys.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import type { UnreadableState } from '../../src/rollup/unreadable.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import {
  flushOne,
  invocationEvent,
  memoryStore,
  minuteKey,
  NOW_US,
  partitionWriter,
  PROJECT,
} from './partition-writer-fixtures.ts';

/** Stores `corrupt` as stream s/0's part of the minute key, as an older version might have. */
async function storeUnreadablePart(store: MemoryStore, corrupt: string): Promise<void> {
  const expireAtMs = Math.floor(NOW_US / 1000) + 60_000;
  await store.commitProject({
    stream: 's/0',
    watermark: { key: watermarkKey(PROJECT), expected: null, next: 0, expireAtMs },
    parts: [{ key: minuteKey(), value: corrupt, expireAtMs }],
    sortedSets: [],
  });
}

describe('a direct-ingest writer (never replayed)', () => {
  test('keeps its watermark in a key of its own, which expires; a quiet project goes on', async () => {
    let nowUs = NOW_US;
    const store = new MemoryStore({ nowMs: () => Math.floor(nowUs / 1000) });
    const writer = new PartitionWriter({ store, stream: 'ingest/one', nowUs: () => nowUs });
    expect(await writer.open()).toBe(0);
    await flushOne(writer, invocationEvent('a', 10), 0);
    expect(await store.readWatermarks([watermarkKey(PROJECT)], 'ingest/one')).toEqual([null]);
    const own = streamWatermarkKey(PROJECT, 'ingest/one');
    expect(await store.readWatermarks([own], 'ingest/one')).toEqual([1]);
    // A day and a half later the cached watermark is read again (still stored); three days
    // later it has expired, and the writer knows it rather than failing its commit.
    for (const [days, offset] of [[1.5, 1], [4.5, 2]] as const) {
      nowUs = NOW_US + days * 86_400_000_000;
      const event = invocationEvent(`later-${days}`, 20);
      const moved = { ...event, timestampUs: nowUs - 1_000_000 };
      await writer.loadWatermarks([PROJECT]);
      const fold = new Fold(writer.stream);
      fold.add(moved, offset, nowUs);
      await writer.flush(fold.take(), offset + 1);
      expect(await store.readWatermarks([own], 'ingest/one')).toEqual([offset + 1]);
    }
    nowUs += 3 * 86_400_000_000;
    expect(await store.readWatermarks([own], 'ingest/one')).toEqual([null]);
  });
  test('a cached watermark older than its re-read bound is unloaded for a fold, read again by a load', async () => {
    let nowUs = NOW_US;
    const store = new MemoryStore({ nowMs: () => Math.floor(nowUs / 1000) });
    const writer = new PartitionWriter({ store, stream: 'ingest/two', nowUs: () => nowUs });
    await writer.open();
    await flushOne(writer, invocationEvent('a', 10), 0);
    const event = invocationEvent('b', 20);
    await writer.load([event]);
    expect(writer.fold(new Fold(writer.stream), event, 1, nowUs).kind).toBe('folded');
    // A day and a half later: the same day's keys are loaded, the watermark is too old.
    nowUs += 1.5 * 86_400_000_000;
    const fold = new Fold(writer.stream);
    expect(writer.fold(fold, event, 1, nowUs).kind).toBe('unloaded');
    expect(fold.size).toBe(0);
    await writer.load([event]);
    expect(writer.fold(fold, event, 1, nowUs).kind).toBe('folded');
  });
});

describe('partition writer', () => {
  test('a second flush merges into the state the first one stored', async () => {
    const store = memoryStore();
    const writer = partitionWriter(store, 's/0');
    expect(await writer.open()).toBe(0);
    await flushOne(writer, invocationEvent('a', 10), 0);
    await flushOne(writer, invocationEvent('b', 30), 1);
    const [text] = await store.readParts([minuteKey()].map((key) => ({ key })), 's/0');
    expect(invocationStats.finalize(invocationStats.deserialize(text ?? ''))).toMatchObject({
      count: 2,
      min_execution_time: 10,
      max_execution_time: 30,
      avg_execution_time: 20,
    });
    expect(writer.offset).toBe(2);
    // A writer that starts afresh reads the stored part: readable, so nothing is set aside.
    const next = partitionWriter(store, 's/0');
    expect(await next.open()).toBe(2);
    await flushOne(next, invocationEvent('c', 20), 2);
    const [merged, aside] = await store.readParts(
      [minuteKey(), quarantineKey(minuteKey())].map((key) => ({ key })),
      's/0',
    );
    expect(invocationStats.deserialize(merged ?? '').count).toBe(3);
    expect(aside).toBeNull();
  });

  test('a stored state it cannot read is moved aside, reported, and the flush goes on', async () => {
    const store = memoryStore();
    const corrupt = '{"n":2,"e":0,"s":[0,0,0,0,0],"t":2,"sum":null,"min":1e308,"max":1e308}';
    await storeUnreadablePart(store, corrupt);
    const reported: UnreadableState[] = [];
    const writer = partitionWriter(store, 's/0', (state) => reported.push(state));
    await writer.open();
    await flushOne(writer, invocationEvent('a', 10), 0);

    expect(writer.offset).toBe(1);
    const [text, aside] = await store.readParts(
      [{ key: minuteKey() }, { key: quarantineKey(minuteKey()) }],
      's/0',
    );
    expect(invocationStats.finalize(invocationStats.deserialize(text ?? ''))).toMatchObject({
      count: 1,
      max_execution_time: 10,
    });
    expect(partText(aside ?? null)).toBe(corrupt);
    expect(reported).toHaveLength(1);
    expect(reported[0]?.key).toBe(minuteKey());
    // What is wrong, never the value itself: stored entries may hold personal data.
    expect(reported[0]).toEqual({
      key: minuteKey(),
      reason: 'invocation stats state is malformed',
      length: corrupt.length,
    });

    // The next flush merges into the fresh state as usual.
    await flushOne(writer, invocationEvent('b', 30), 1);
    const [merged] = await store.readParts([minuteKey()].map((key) => ({ key })), 's/0');
    expect(invocationStats.finalize(invocationStats.deserialize(merged ?? '')).count).toBe(2);
  });

  test("a newer version's state fails the flush: nothing is moved aside or overwritten", async () => {
    const store = memoryStore();
    const newer = '\x13\x02\x00';
    await storeUnreadablePart(store, newer);
    const reported: UnreadableState[] = [];
    const writer = partitionWriter(store, 's/0', (state) => reported.push(state));
    await writer.open();
    await expect(flushOne(writer, invocationEvent('a', 10), 0)).rejects.toThrow(
      NewerStateFormatError,
    );
    // Nothing committed: the watermark is the one stored with the part.
    expect(await store.readWatermarks([watermarkKey(PROJECT)], 's/0')).toEqual([0]);
    expect(
      partTexts(
        await store.readParts([{ key: minuteKey() }, { key: quarantineKey(minuteKey()) }], 's/0'),
      ),
    ).toEqual([newer, null]);
    expect(reported).toEqual([]);
  });

  test('the copy set aside is kept for 7 days', async () => {
    let nowUs = NOW_US;
    const store = new MemoryStore({ nowMs: () => Math.floor(nowUs / 1000) });
    const corrupt = '{"n":"x"}';
    await storeUnreadablePart(store, corrupt);
    const writer = new PartitionWriter({
      store,
      stream: 's/0',
      nowUs: () => nowUs,
      earliestOffset: () => Promise.resolve(0),
      onUnreadable: () => undefined,
    });
    await writer.open();
    await flushOne(writer, invocationEvent('a', 10), 0);
    const aside = async () =>
      partText(
        (await store.readParts([quarantineKey(minuteKey())].map((key) => ({ key })), 's/0'))[0] ??
          null,
      );
    nowUs = NOW_US + 6.9 * 86_400_000_000;
    expect(await aside()).toBe(corrupt);
    nowUs = NOW_US + 7.1 * 86_400_000_000;
    expect(await aside()).toBeNull();
  });

  test('a project that lost data is found by verify(); the next open resumes where it needs', async () => {
    const store = memoryStore();
    const writer = partitionWriter(store, 's/0');
    expect(await writer.open()).toBe(0);
    await flushOne(writer, invocationEvent('a', 10), 0);
    await flushOne(writer, invocationEvent('b', 20), 1);
    await flushOne(writer, invocationEvent('c', 30), 2);
    expect(await writer.verify()).toEqual({ consistent: true });
    expect(await store.readOffset(resumeKey('s/0'))).toBe(3);
    // The project's shard rolled back to its state after offset 1 (the resume key did not).
    await store.commitProject({
      stream: 's/0',
      watermark: { key: watermarkKey(PROJECT), expected: 3, next: 1, expireAtMs: NOW_US },
      parts: [],
      sortedSets: [],
    });
    expect(await writer.verify()).toMatchObject({ consistent: false });
    expect(await writer.open()).toBe(1);
    // Lowered in the store too, so a crash before the next flush does not forget it.
    expect(await store.readOffset(resumeKey('s/0'))).toBe(1);
    await writer.loadWatermarks([PROJECT]);
    expect(writer.watermark(PROJECT)).toBe(1);
  });

  test('a flush refused for one project fails, and the next open resumes no later than it', async () => {
    const store = memoryStore();
    const writer = partitionWriter(store, 's/1');
    await writer.open();
    await flushOne(writer, invocationEvent('a', 10), 0);
    // Another owner of the stream moved the project on meanwhile.
    const other = partitionWriter(store, 's/1');
    expect(await other.open()).toBe(1);
    await flushOne(other, invocationEvent('b', 20), 1);
    // Refused before any project is written: the stream's resume offset moved.
    await expect(flushOne(writer, invocationEvent('b', 20), 1)).rejects.toThrow(
      /the resume offset is 2, not 1/,
    );
    expect(await writer.open()).toBe(2);
    const [text] = await store.readParts([minuteKey()].map((key) => ({ key })), 's/1');
    expect(invocationStats.deserialize(text ?? '').count).toBe(2);
  });

  test('a project whose watermark moved while the resume offset did not: refused for it', async () => {
    const store = memoryStore();
    const writer = partitionWriter(store, 's/2');
    await writer.open();
    await flushOne(writer, invocationEvent('a', 10), 0);
    // A writer that committed the project's next event and stopped before moving the resume
    // offset (a crash between the two steps of a flush).
    const commit = await store.commitProject({
      stream: 's/2',
      resume: { key: resumeKey('s/2'), expected: 1 },
      watermark: { key: watermarkKey(PROJECT), expected: 1, next: 2, expireAtMs: 1e15 },
      parts: [],
      sortedSets: [],
    });
    expect(commit).toEqual({ outcome: 'applied' });
    await expect(flushOne(writer, invocationEvent('b', 20), 1)).rejects.toThrow(
      /project writerprojectref0000 holds offset 2 from it, not 1/,
    );
    // The stored resume offset is still 1: the replay starts there and skips by the watermark.
    expect(await writer.open()).toBe(1);
    expect(await store.readOffset(resumeKey('s/2'))).toBe(1);
  });
});

describe('partition writer caches', () => {
  const at = (project: string, id: string, timestampUs: number): LogEvent => {
    const result = parse(
      JSON.stringify({
        id,
        timestamp: timestampUs,
        metadata: [{
          project_ref: project,
          function_id: 'f1',
          execution_time_ms: 5,
          response: [{ status_code: 200 }],
        }],
      }),
      'function-edge',
      { nowUs: timestampUs },
    );
    if (!result.ok) throw new Error(result.rejection.reason);
    return result.event;
  };
  const flushAll = async (
    writer: PartitionWriter,
    events: LogEvent[],
    from: number,
    nowUs: number,
  ) => {
    await writer.loadWatermarks(events.map((event) => event.project));
    const fold = new Fold(writer.stream);
    events.forEach((event, i) => fold.add(event, from + i, nowUs));
    await writer.flush(fold.take(), from + events.length);
  };

  test('keep at most cacheLimit parts and projects once a flush is done', async () => {
    const store = memoryStore();
    const writer = new PartitionWriter({
      store,
      stream: 's/0',
      nowUs: () => NOW_US,
      earliestOffset: () => Promise.resolve(0),
      cacheLimit: 10,
    });
    await writer.open();
    const many = Array.from({ length: 30 }, (_, i) => at(`cachedproject${i}`, `e${i}`, NOW_US - 1));
    await flushAll(writer, many, 0, NOW_US);
    // The 30 projects of the flush under way are kept; their parts (8 each) are not.
    expect(writer.cached.projects).toBe(30);
    expect(writer.cached.parts).toBeLessThanOrEqual(10);
    await flushAll(writer, [at('cachedprojectlast', 'last', NOW_US - 1)], 30, NOW_US);
    expect(writer.cached.projects).toBe(10);
    expect(writer.cached.parts).toBeLessThanOrEqual(10);
    expect(writer.cached.parts).toBeGreaterThan(0);
  });

  test('drop the parts of buckets that expired, oldest first', async () => {
    let nowUs = NOW_US;
    const store = new MemoryStore({ nowMs: () => Math.floor(nowUs / 1000) });
    const writer = new PartitionWriter({
      store,
      stream: 's/0',
      nowUs: () => nowUs,
      earliestOffset: () => Promise.resolve(0),
    });
    await writer.open();
    await flushAll(writer, [at(PROJECT, 'first', nowUs - 1)], 0, nowUs);
    const first = writer.cached.parts;
    expect(first).toBeGreaterThan(0);
    expect(first).toBe(8);
    // 10 minutes on, the second-grain buckets of the first event have expired (5 min read, 2 min
    // slack). The next flush writes new second and minute parts (12 known), and forgets expired
    // parts from the least recently written on, up to the first that has not expired.
    nowUs += 10 * 60_000_000;
    await flushAll(writer, [at(PROJECT, 'second', nowUs - 1)], 1, nowUs);
    expect(writer.cached.parts).toBe(11);
  });
});
