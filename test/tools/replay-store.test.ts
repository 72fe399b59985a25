/**
 * The bench's replay store answers each call with the reply the recorded store gave the same call,
 * without asking it again, and refuses a call it never recorded.
 */
import { describe, expect, test } from 'vitest';
import { MemoryStore } from '../../src/store/memory.ts';
import { ReplayStore } from '../../tools/bench/replay-store.ts';

describe('the replay store', () => {
  test('replays what was recorded, however the store changed since, and refuses the rest', async () => {
    const memory = new MemoryStore({ nowMs: () => 1_000 });
    const add = (score: number, member: string) =>
      memory.updateSortedSet({
        key: 'ring',
        members: [{ score, member }],
        mode: 'add',
        keepHighest: null,
        dropBelow: null,
        expireAtMs: null,
      });
    await add(1, 'a');
    const replay = new ReplayStore(memory);
    const range = { max: Number.POSITIVE_INFINITY, minExclusive: 0, limit: 10 };
    const recorded = await replay.store.rangeByScore('ring', range);
    expect(recorded.map((member) => new TextDecoder().decode(member))).toEqual(['a']);
    replay.replaying();
    await add(2, 'b');
    expect(await replay.store.rangeByScore('ring', range)).toBe(recorded);
    expect(() => replay.store.rangeByScore('other', range)).toThrow(
      /^no reply recorded for rangeByScore \["other"/,
    );
  });

  test('makes every recorded call again on the recorded store, in order, and nothing after', async () => {
    const memory = new MemoryStore({ nowMs: () => 1_000 });
    const asked: string[] = [];
    const counted = new Proxy(memory, {
      get(target, property, receiver) {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          asked.push(`${String(property)} ${JSON.stringify(args)}`);
          return value.apply(target, args);
        };
      },
    });
    const replay = new ReplayStore(counted);
    const keys = ['b', 'c'];
    await replay.store.readOffset('a');
    await replay.store.readBuckets(keys);
    await replay.store.readOffset('d');
    await replay.store.readOffset('a');
    // What the calls were made with, not what their arguments became since.
    keys.push('e');
    const calls = [
      'readOffset ["a"]',
      'readBuckets [["b","c"]]',
      'readOffset ["d"]',
      'readOffset ["a"]',
    ];
    asked.length = 0;
    await replay.callAgain();
    expect(asked).toEqual(calls);
    // Made again while recording, they are not recorded again.
    expect(replay.recordedCalls).toBe(4);
    replay.replaying();
    await replay.store.readOffset('a');
    asked.length = 0;
    await replay.callAgain();
    expect(asked).toEqual(calls);
  });
});
