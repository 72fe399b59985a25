/**
 * The contract every {@link RollupStore} adapter passes: the same cases run against the memory
 * store, Redis over TCP and Redis over the Upstash REST protocol.
 *
 * @module
 */
import { expect, test } from 'vitest';
import type { Commit, RollupStore } from '../../src/store/port.ts';

/** Makes a store for one case and names its keys uniquely for the run. */
export interface ContractFixture {
  readonly store: () => RollupStore;
  /** A key unique to this run (so runs against a shared Redis do not collide). */
  readonly key: (name: string) => string;
  /** Unix milliseconds "now" as the store sees it. */
  readonly nowMs: () => number;
}

function commit(
  partial: Partial<Commit> & Pick<Commit, 'offset'>,
): Commit {
  return { states: [], sortedSets: [], ...partial, offset: partial.offset };
}

/** Registers the contract cases in the current `describe`. */
export function storeContract(fixture: ContractFixture): void {
  const offsets = () => fixture.key('offsets');
  const far = () => fixture.nowMs() + 3_600_000;

  test('a commit applies when the stored offset is the expected one, and advances it', async () => {
    const store = fixture.store();
    const stream = 't/0';
    expect(await store.readOffset(offsets(), stream)).toBeNull();
    const first = commit({
      offset: { key: offsets(), stream, expected: null, next: 10 },
      states: [{ key: fixture.key('a'), value: 'one', expireAtMs: far() }],
    });
    expect(await store.commit(first)).toBe(true);
    expect(await store.readOffset(offsets(), stream)).toBe(10);
    expect(await store.getValues([fixture.key('a'), fixture.key('missing')])).toEqual([
      'one',
      null,
    ]);
  });

  test('a commit whose expected offset is stale writes nothing', async () => {
    const store = fixture.store();
    const stream = 't/1';
    await store.commit(
      commit({ offset: { key: offsets(), stream, expected: null, next: 5 } }),
    );
    const replay = commit({
      offset: { key: offsets(), stream, expected: null, next: 7 },
      states: [{ key: fixture.key('b'), value: 'stale', expireAtMs: far() }],
      sortedSets: [{
        key: fixture.key('zs'),
        members: [{ score: 1, member: 'x' }],
        mode: 'add',
        keepHighest: null,
        dropBelow: null,
      }],
    });
    expect(await store.commit(replay)).toBe(false);
    const wrongExpected = { ...replay, offset: { ...replay.offset, expected: 4 } };
    expect(await store.commit(wrongExpected)).toBe(false);
    expect(await store.getValues([fixture.key('b')])).toEqual([null]);
    expect(await store.rangeByScore(fixture.key('zs'), { max: 10, minExclusive: 0, limit: 10 }))
      .toEqual([]);
    expect(await store.readOffset(offsets(), stream)).toBe(5);
  });

  test('states expire at their expiry time', async () => {
    const store = fixture.store();
    await store.commit(commit({
      offset: { key: offsets(), stream: 't/2', expected: null, next: 1 },
      states: [
        { key: fixture.key('gone'), value: 'x', expireAtMs: fixture.nowMs() - 1 },
        { key: fixture.key('kept'), value: 'y', expireAtMs: far() },
      ],
    }));
    expect(await store.getValues([fixture.key('gone'), fixture.key('kept')])).toEqual([null, 'y']);
  });

  test('sorted sets: newest first, ties by member bytes descending, bounds and limit', async () => {
    const store = fixture.store();
    const key = fixture.key('logs');
    await store.commit(commit({
      offset: { key: offsets(), stream: 't/3', expected: null, next: 1 },
      sortedSets: [{
        key,
        members: [
          { score: 1_795_256_130_123_456, member: 'b' },
          { score: 1_795_256_130_123_456, member: 'a' },
          { score: 1_795_256_130_123_457, member: 'c' },
          { score: 1_795_256_130_000_000, member: 'é' },
          { score: 1_795_256_130_000_000, member: '\u{1F600}' },
          { score: 1_795_256_129_000_000, member: 'old' },
        ],
        mode: 'add',
        keepHighest: null,
        dropBelow: null,
      }],
    }));
    const all = {
      max: Number.POSITIVE_INFINITY,
      minExclusive: Number.NEGATIVE_INFINITY,
      limit: 100,
    };
    expect(await store.rangeByScore(key, all)).toEqual(['c', 'b', 'a', '\u{1F600}', 'é', 'old']);
    expect(
      await store.rangeByScore(key, {
        max: 1_795_256_130_123_456,
        minExclusive: 1_795_256_130_000_000,
        limit: 100,
      }),
    )
      .toEqual(['b', 'a']);
    expect(await store.rangeByScore(key, { ...all, limit: 2 })).toEqual(['c', 'b']);
  });

  test('sorted sets keep only the highest scores and drop those below the bound', async () => {
    const store = fixture.store();
    const key = fixture.key('ring');
    const members = Array.from({ length: 20 }, (_, i) => ({ score: 100 + i, member: `m${i}` }));
    await store.commit(commit({
      offset: { key: offsets(), stream: 't/4', expected: null, next: 1 },
      sortedSets: [{ key, members, mode: 'add', keepHighest: 5, dropBelow: null }],
    }));
    const all = {
      max: Number.POSITIVE_INFINITY,
      minExclusive: Number.NEGATIVE_INFINITY,
      limit: 100,
    };
    expect(await store.rangeByScore(key, all)).toEqual(['m19', 'm18', 'm17', 'm16', 'm15']);
    await store.commit(commit({
      offset: { key: offsets(), stream: 't/4', expected: 1, next: 2 },
      sortedSets: [{ key, members: [], mode: 'add', keepHighest: null, dropBelow: 118 }],
    }));
    expect(await store.rangeByScore(key, all)).toEqual(['m19', 'm18']);
  });

  test('max mode keeps the greater score; membersSince filters by score', async () => {
    const store = fixture.store();
    const key = fixture.key('hosts');
    const write = (score: number, next: number, expected: number | null) =>
      store.commit(commit({
        offset: { key: offsets(), stream: 't/5', expected, next },
        sortedSets: [{
          key,
          members: [{ score, member: 'h1' }, { score: 50, member: 'h2' }],
          mode: 'max',
          keepHighest: null,
          dropBelow: null,
        }],
      }));
    await write(100, 1, null);
    await write(10, 2, 1);
    expect(await store.membersSince(key, 60)).toEqual(['h1']);
    expect((await store.membersSince(key, 0)).sort()).toEqual(['h1', 'h2']);
  });

  test('values and members are kept byte for byte (unicode, NUL, JSON text)', async () => {
    const store = fixture.store();
    const value = JSON.stringify({ q: { v: [1.5, 2e-7] }, s: 'ünï\u0000cödé \u{1F680}' });
    const member = `id\u0000${'0'.padStart(16, '0')}@t/6\u0000${value}`;
    await store.commit(commit({
      offset: { key: offsets(), stream: 't/6', expected: null, next: 1 },
      states: [{ key: fixture.key('bytes'), value, expireAtMs: far() }],
      sortedSets: [{
        key: fixture.key('bytes-z'),
        members: [{ score: 1_795_256_130_123_456, member }],
        mode: 'add',
        keepHighest: null,
        dropBelow: null,
      }],
    }));
    expect(await store.getValues([fixture.key('bytes')])).toEqual([value]);
    expect(await store.membersSince(fixture.key('bytes-z'), 0)).toEqual([member]);
  });
}
