/**
 * The commit ledger (`src/rollup/commit-ledger.ts`) on the embedded store: a watermark read but
 * not committed by the writer expires without being taken for a loss, and a loss once found
 * survives the writer (a rebalance or a restart) because the stored resume offset is lowered
 * before it is reported; the sightings are registered again in bounded calls.
 */
import { describe, expect, test } from 'vitest';
import { CommitLedger } from '../../src/rollup/commit-ledger.ts';
import { HOSTS_KEY, resumeKey, watermarkKey } from '../../src/rollup/keys.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import type { SortedSetWrite } from '../../src/store/port.ts';
import { DAY_US } from '../../src/time/civil.ts';
import {
  flushOne,
  invocationEvent,
  memoryStore,
  NOW_US,
  partitionWriter,
  PROJECT,
} from './partition-writer-fixtures.ts';

const LIFE_US = 8 * DAY_US;

function ledger(store: MemoryStore, stream = 's/0'): CommitLedger {
  return new CommitLedger({
    store,
    stream,
    watermarkKey,
    limit: 50_000,
    watermarkLifeUs: LIFE_US,
    earliestOffset: () => Promise.resolve(0),
  });
}

/** Rolls `project`'s watermark of `stream` back from `from` to `to`, as a lost shard would. */
async function rollBackWatermark(
  store: MemoryStore,
  stream: string,
  from: number | null,
  to: number,
) {
  const result = await store.commitProject({
    stream,
    watermark: { key: watermarkKey(PROJECT), expected: from, next: to, expireAtMs: 1e15 },
    parts: [],
    sortedSets: [],
  });
  expect(result).toEqual({ outcome: 'applied' });
}

/** A writer of stream `s/0` that flushed one invocation of {@link PROJECT} at each offset 0..n-1. */
async function writerAfter(store: MemoryStore, n: number) {
  const writer = partitionWriter(store, 's/0');
  expect(await writer.open()).toBe(0);
  for (let offset = 0; offset < n; offset++) {
    await flushOne(writer, invocationEvent(`e${offset}`, 10), offset);
  }
  return writer;
}

describe('a watermark that is gone', () => {
  test('read, not committed here: its commit time is unknown, so gone is expired, not lost', async () => {
    const store = memoryStore();
    const book = ledger(store);
    expect(await book.loaded([PROJECT], [5], NOW_US)).toEqual([]);
    // The store holds none a day later (committed long ago, by another member, it expired).
    expect(await book.lost(NOW_US + DAY_US)).toEqual([]);
    expect(book.size.projects).toBe(0);
    expect(await store.readOffset(resumeKey('s/0'))).toBeNull();
  });

  test('committed here within its life: gone is a loss', async () => {
    const store = memoryStore();
    const book = ledger(store);
    book.committed(PROJECT, 5, NOW_US);
    expect(await book.lost(NOW_US + DAY_US)).toEqual([
      { project: PROJECT, stored: null, committed: 5 },
    ]);
    // Committed a life ago: it may have expired.
    book.committed(PROJECT, 5, NOW_US);
    expect(await book.lost(NOW_US + LIFE_US)).toEqual([]);
  });

  test('read, then found lower: a loss all the same', async () => {
    const store = memoryStore();
    await rollBackWatermark(store, 's/0', null, 3);
    const book = ledger(store);
    expect(await book.loaded([PROJECT], [7], NOW_US)).toEqual([]);
    expect(await book.lost(NOW_US + DAY_US)).toEqual([
      { project: PROJECT, stored: 3, committed: 7 },
    ]);
  });
});

describe('a loss, once found, survives the writer', () => {
  test('found by open(): the stored resume offset is lowered before it is reported', async () => {
    const store = memoryStore();
    const writer = await writerAfter(store, 3);
    // A flush fails (the master is away): the caches go, the resume offset stays at 3.
    await rollBackWatermark(store, 's/0', 3, 1);
    await expect(writer.open()).rejects.toThrow(/holds offset 1 from it, not 3/);
    // The error names its stream and where the stream is read again from.
    await rollBackWatermark(store, 's/0', 1, 0);
    await expect(writer.open()).rejects.toMatchObject({
      name: 'OffsetConflictError',
      stream: 's/0',
      rewindTo: 0,
      message: expect.stringContaining('it is read again from offset 0'),
    });
    // A rebalance drops this writer before its next open: the new owner starts where P needs.
    expect(await store.readOffset(resumeKey('s/0'))).toBe(0);
    expect(await partitionWriter(store, 's/0').open()).toBe(0);
  });

  test('found by the check of an idle partition', async () => {
    const store = memoryStore();
    const writer = await writerAfter(store, 3);
    await rollBackWatermark(store, 's/0', 3, 2);
    expect(await writer.verify()).toMatchObject({ consistent: false });
    expect(await partitionWriter(store, 's/0').open()).toBe(2);
    // The writer itself resumes there too, and reports it once.
    expect(await writer.open()).toBe(2);
  });

  test('found by a commit refused', async () => {
    const store = memoryStore();
    const writer = await writerAfter(store, 3);
    await rollBackWatermark(store, 's/0', 3, 1);
    await expect(flushOne(writer, invocationEvent('d', 10), 3)).rejects.toThrow(
      /holds offset 1 from it, not 3/,
    );
    expect(await partitionWriter(store, 's/0').open()).toBe(1);
  });

  test('found by a load of the watermark', async () => {
    const store = memoryStore();
    const writer = await writerAfter(store, 3);
    // The caches dropped by a failed flush, reopened before the failover showed.
    expect(await writer.open()).toBe(3);
    await rollBackWatermark(store, 's/0', 3, 0);
    await expect(writer.loadWatermarks([PROJECT])).rejects.toThrow(/holds offset 0 from it/);
    expect(await partitionWriter(store, 's/0').open()).toBe(0);
  });

  test('a resume offset that moved meanwhile is not lowered: the loss is found again', async () => {
    const store = memoryStore();
    const book = ledger(store);
    book.committed(PROJECT, 3, NOW_US);
    expect(await store.advanceOffset(resumeKey('s/0'), null, 3)).toBe(true);
    await rollBackWatermark(store, 's/0', null, 1);
    const original = store.advanceOffset.bind(store);
    store.advanceOffset = async (key, expected, next) => {
      // Another owner moves it between the read and the compare-and-set.
      await original(key, expected, 4);
      return original(key, expected, next);
    };
    expect(await book.lost(NOW_US)).toEqual([{ project: PROJECT, stored: 1, committed: 3 }]);
    store.advanceOffset = original;
    expect(await store.readOffset(resumeKey('s/0'))).toBe(4);
    expect(await book.lost(NOW_US)).toEqual([{ project: PROJECT, stored: 1, committed: 3 }]);
    expect(await store.readOffset(resumeKey('s/0'))).toBe(1);
    expect(await book.lost(NOW_US)).toEqual([]);
  });
});

test('the sightings are registered again in calls of at most 1,000 members', async () => {
  const store = memoryStore();
  const writes: SortedSetWrite[] = [];
  const original = store.updateSortedSet.bind(store);
  store.updateSortedSet = (write) => {
    writes.push(write);
    return original(write);
  };
  const book = ledger(store);
  book.registered(
    Array.from({ length: 2_500 }, (_, i) => ({ member: `p${i}\u0000h`, score: NOW_US })),
  );
  await book.registerAgain(NOW_US);
  expect(writes.map(({ key, members }) => [key, members.length])).toEqual([
    [HOSTS_KEY, 1_000],
    [HOSTS_KEY, 1_000],
    [HOSTS_KEY, 500],
  ]);
  expect(await store.membersSince(HOSTS_KEY, 0)).toHaveLength(2_500);
});
