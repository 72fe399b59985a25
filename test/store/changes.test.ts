/**
 * Change signals (issue 53, item 2): an applied commit of a project signals its change channel,
 * once, on every store that can be listened to (the embedded store in process, one Redis and a
 * Redis Cluster with sharded channels); a refused commit signals nothing; a stopped watch hears
 * nothing more; two watches of one channel each hear it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ChangeFeed } from '../../src/store/changes.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import type { ProjectCommit, RollupStore } from '../../src/store/port.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { describeWithServices } from '../support/services.ts';

/** Resolves once `heard()` is at least `count`, or after `ms` (the caller checks the count). */
async function until(heard: () => number, count: number, ms = 3_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (heard() < count && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function changeSignals(fixture: () => { store: RollupStore; changes: ChangeFeed }) {
  const prefix = `changes:${randomUUID()}`;
  let run = 0;
  const commit = (tag: string, expected: number | null, next: number): ProjectCommit => ({
    stream: 't/0',
    watermark: {
      key: `${prefix}:{${tag}}:wm`,
      expected,
      next,
      expireAtMs: Date.now() + 60_000,
    },
    parts: [{ key: `${prefix}:{${tag}}:part`, value: `v${next}`, expireAtMs: Date.now() + 60_000 }],
    sortedSets: [],
    changes: `${prefix}:{${tag}}:changes`,
  });

  test('an applied commit signals its channel once; a refused one does not; a stopped watch hears nothing', async () => {
    const { store, changes } = fixture();
    run += 1;
    const tag = `${run}:p`;
    let first = 0;
    let second = 0;
    let other = 0;
    const stopFirst = await changes.watch(`${prefix}:{${tag}}:changes`, () => (first += 1));
    const stopSecond = await changes.watch(`${prefix}:{${tag}}:changes`, () => (second += 1));
    const stopOther = await changes.watch(`${prefix}:{${run}:q}:changes`, () => (other += 1));
    expect(await store.commitProject(commit(tag, null, 5))).toEqual({ outcome: 'applied' });
    await until(() => Math.min(first, second), 1);
    expect([first, second]).toEqual([1, 1]);
    // Refused: the watermark is 5, not none.
    expect((await store.commitProject(commit(tag, null, 7))).outcome).toBe('watermark-moved');
    expect(await store.commitProject(commit(tag, 5, 9))).toEqual({ outcome: 'applied' });
    await until(() => first, 2);
    await stopSecond();
    expect(await store.commitProject(commit(tag, 9, 11))).toEqual({ outcome: 'applied' });
    await until(() => first, 3);
    // Nothing more arrives for the refused commit, nor for the stopped watch, nor elsewhere.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect({ first, second, other }).toEqual({ first: 3, second: 2, other: 0 });
    await stopFirst();
    await stopOther();
  });
}

describe('change signals of the embedded store', () => {
  const store = new MemoryStore({ nowMs: Date.now, maxBytes: 64 * 1024 * 1024 });
  changeSignals(() => ({ store, changes: store.changes }));
});

describeWithServices(
  ['redis', 'redisCluster'],
  'change signals on Redis',
  ({ redis, redisCluster }) => {
    let single: RedisStore | null = null;
    let cluster: RedisStore | null = null;
    beforeAll(async () => {
      single = await RedisStore.connect(redis.url);
      cluster = await RedisStore.connectCluster(redisCluster.nodes);
    });
    afterAll(async () => {
      await single?.close();
      await cluster?.close();
    });
    describe('one Redis', () => {
      changeSignals(() => {
        if (single === null) throw new Error('no Redis');
        return { store: single, changes: single.changes };
      });
    });
    describe('a Redis Cluster (sharded channels, published from the slot of the project)', () => {
      changeSignals(() => {
        if (cluster === null) throw new Error('no Redis Cluster');
        return { store: cluster, changes: cluster.changes };
      });
    });
  },
);
