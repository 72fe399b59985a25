/**
 * `observedStore`: every call reported with its duration and whether it failed, refused writes
 * by reason, parts read back counted; answers and failures passed through unchanged. On the
 * embedded store (a real adapter) and on a store whose calls fail.
 */
import { describe, expect, test } from 'vitest';
import { MemoryStore } from '../../src/store/memory.ts';
import { observedStore, type RefusalReason, type StoreCommand } from '../../src/store/observed.ts';
import type { CommitResult, ProjectCommit, RollupStore } from '../../src/store/port.ts';

function recorder() {
  const calls: { command: StoreCommand; seconds: number; failed: boolean }[] = [];
  const refused: RefusalReason[] = [];
  const parts: number[] = [];
  return {
    calls,
    refused,
    parts,
    observer: {
      command: (command: StoreCommand, seconds: number, failed: boolean) =>
        calls.push({ command, seconds, failed }),
      refused: (reason: RefusalReason) => refused.push(reason),
      partsRead: (count: number) => parts.push(count),
    },
  };
}

/** A clock that moves 3 ms at each reading. */
function steppingClock(): () => number {
  let now = 0;
  return () => (now += 3);
}

const commit = (expected: number | null): ProjectCommit => ({
  stream: 'logs.edge/0',
  watermark: { key: 'w', expected, next: 5, expireAtMs: Date.now() + 60_000 },
  parts: [],
  sortedSets: [],
});

describe('observedStore', () => {
  test('reports each call with its duration, and passes the answer through', async () => {
    const record = recorder();
    const store = observedStore(
      new MemoryStore({ nowMs: Date.now }),
      record.observer,
      steppingClock(),
    );
    expect(await store.advanceOffset('offset', null, 7)).toBe(true);
    expect(await store.readOffset('offset')).toBe(7);
    expect(await store.readParts([{ key: 'a' }, { key: 'b' }], 'logs.edge/0')).toEqual([
      null,
      null,
    ]);
    expect(record.calls).toEqual([
      { command: 'advanceOffset', seconds: 0.003, failed: false },
      { command: 'readOffset', seconds: 0.003, failed: false },
      { command: 'readParts', seconds: 0.003, failed: false },
    ]);
    expect(record.parts).toEqual([2]);
    expect(record.refused).toEqual([]);
  });

  test('a refused resume offset and a refused commit are told by reason', async () => {
    const record = recorder();
    const store = observedStore(new MemoryStore({ nowMs: Date.now }), record.observer);
    expect((await store.commitProject(commit(null))).outcome).toBe('applied');
    // The watermark is 5 now: a commit that expects none is refused with what is stored.
    expect(await store.commitProject(commit(null))).toEqual({
      outcome: 'watermark-moved',
      stored: 5,
    });
    await store.advanceOffset('offset', null, 3);
    expect(await store.advanceOffset('offset', null, 4)).toBe(false);
    expect(record.refused).toEqual(['watermark', 'resume']);
  });

  test.each(
    [
      [{ outcome: 'resume-moved', resumeStored: 3 }, 'resume'],
      [{ outcome: 'part-found', partFound: 'h' }, 'part_found'],
      [{ outcome: 'watermark-moved', stored: null }, 'watermark'],
    ] satisfies [CommitResult, RefusalReason][],
  )('a commit answered %o is refused for %s', async (result, reason) => {
    const record = recorder();
    const base = new MemoryStore({ nowMs: Date.now });
    const store = observedStore(
      { ...portOf(base), commitProject: () => Promise.resolve(result) },
      record.observer,
    );
    expect(await store.commitProject(commit(null))).toEqual(result);
    expect(record.refused).toEqual([reason]);
  });

  test('a failed call is reported failed and rejects with the same error', async () => {
    const record = recorder();
    const failure = new Error('Redis is away');
    const base = new MemoryStore({ nowMs: Date.now });
    const store = observedStore(
      { ...portOf(base), readBuckets: () => Promise.reject(failure) },
      record.observer,
    );
    await expect(store.readBuckets(['k'])).rejects.toBe(failure);
    expect(record.calls.map(({ command, failed }) => ({ command, failed }))).toEqual([
      { command: 'readBuckets', failed: true },
    ]);
  });
});

describe('observedStore, a store that refuses writes while it answers', () => {
  test('a refused write is told by its reason, a write made after it as accepted', async () => {
    const told: string[] = [];
    const observer = {
      command: () => undefined,
      refused: () => undefined,
      partsRead: () => undefined,
      writeRefused: (reason: string) => told.push(`refused ${reason}`),
      writeAccepted: () => told.push('accepted'),
    };
    const base = new MemoryStore({ nowMs: Date.now });
    const full = new Error("OOM command not allowed when used memory > 'maxmemory'.");
    let refusing = true;
    const store = observedStore({
      ...portOf(base),
      commitProject: (c) => refusing ? Promise.reject(full) : base.commitProject(c),
      readOffset: () => Promise.reject(new Error("READONLY You can't write against a replica.")),
    }, observer);
    await expect(store.commitProject(commit(null))).rejects.toBe(full);
    // A read that fails so tells nothing: only writes are refused or accepted.
    await expect(store.readOffset('k')).rejects.toThrow('READONLY');
    await expect(store.advanceOffset('other', null, 1)).resolves.toBe(true);
    refusing = false;
    expect((await store.commitProject(commit(null))).outcome).toBe('applied');
    await store.updateSortedSet({
      key: 's',
      members: [],
      mode: 'add',
      keepHighest: null,
      dropBelow: null,
      expireAtMs: null,
    });
    expect(told).toEqual(['refused full', 'accepted', 'accepted', 'accepted']);
  });
});

/** The port's methods of `store`, bound, as a plain object another test can override. */
function portOf(store: RollupStore): RollupStore {
  return {
    commitProject: (c) => store.commitProject(c),
    readWatermarks: (k, s) => store.readWatermarks(k, s),
    readReaches: (k, s) => store.readReaches(k, s),
    readParts: (p, s) => store.readParts(p, s),
    readBuckets: (k) => store.readBuckets(k),
    readSlots: (r) => store.readSlots(r),
    readOffset: (k) => store.readOffset(k),
    advanceOffset: (k, e, n) => store.advanceOffset(k, e, n),
    updateSortedSet: (w) => store.updateSortedSet(w),
    rangeByScore: (k, r) => store.rangeByScore(k, r),
    membersSince: (k, m) => store.membersSince(k, m),
    ping: () => store.ping(),
    close: () => store.close(),
  };
}
