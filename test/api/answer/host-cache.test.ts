import { describe, expect, test } from 'vitest';
import { HostCache } from '../../../api/answer/host-cache.ts';
import { MatchGate } from '../../../api/answer/match-gate.ts';
import { ParamRefusal } from '../../../src/contract/params/common.ts';
import { compileHostPattern, type HostPattern } from '../../../src/contract/params/api-counts.ts';
import type { HostEntry, HostSource } from '../../../src/endpoints/read/hosts.ts';
import type { ReadContext } from '../../../src/endpoints/read/context.ts';
import { MemoryStore } from '../../../src/store/memory.ts';

function pattern(source: string): HostPattern {
  const compiled = compileHostPattern(source);
  if (!compiled.ok) throw new Error(compiled.error.message);
  return compiled.params;
}

const context: ReadContext = {
  store: new MemoryStore({ nowMs: () => 0 }),
  nowUs: 10_000_000_000,
  maxFutureSkewUs: 0,
};

describe('HostCache', () => {
  const entries: HostEntry[] = [
    { project: 'p1', host: 'p1.supabase.co' },
    { project: 'p2', host: 'p2.supabase.co' },
    { project: 'p1', host: 'custom.example.com' },
  ];

  function counting(): { read: HostSource; reads: number[] } {
    const reads: number[] = [];
    return {
      reads,
      read: (_context, sinceUs) => {
        reads.push(sinceUs);
        return Promise.resolve(entries);
      },
    };
  }

  test('matches by pattern, reads the registry once per refresh period, single-flight', async () => {
    let now = 1_000;
    const source = counting();
    const cache = new HostCache({ read: source.read, nowMs: () => now, refreshMs: 1_000 });
    const since = context.nowUs - 3_600_000_000;
    const [a, b] = await Promise.all([
      cache.matching(pattern('p1'))(context, since),
      cache.matching(pattern('supabase'))(context, since),
    ]);
    expect(a.map((entry) => entry.host)).toEqual(['p1.supabase.co']);
    expect(b).toHaveLength(2);
    expect(source.reads).toHaveLength(1);
    now = 1_999;
    await cache.matching(pattern('example'))(context, since + 500_000);
    expect(source.reads).toHaveLength(1);
    now = 2_000;
    await cache.matching(pattern('example'))(context, since + 1_000_000);
    expect(source.reads).toHaveLength(2);
  });

  test('a later window start reuses the snapshot; an earlier one (or another span) reads again', async () => {
    const source = counting();
    const cache = new HostCache({ read: source.read, nowMs: () => 0 });
    const since = context.nowUs - 3_600_000_000;
    await cache.matching(pattern('p'))(context, since);
    await cache.matching(pattern('p'))({ ...context, nowUs: context.nowUs + 100 }, since + 100);
    expect(source.reads).toHaveLength(1);
    await cache.matching(pattern('p'))(context, since - 1);
    expect(source.reads).toHaveLength(2);
    await cache.matching(pattern('p'))(context, context.nowUs - 7 * 86_400_000_000);
    expect(source.reads).toHaveLength(3);
  });

  test('a pattern refused for its budget stays refused for a while, without being matched again', async () => {
    let now = 0;
    let matchClock = 0;
    let tests = 0;
    // Each test "takes" 20 ms of the matching clock: the third one goes over a 50 ms budget.
    const slow: HostPattern = {
      source: 'slow',
      test: () => {
        tests++;
        matchClock += 20;
        return true;
      },
    };
    const source = counting();
    const cache = new HostCache({
      read: source.read,
      nowMs: () => now,
      matchBudgetMs: 50,
      matchClockMs: () => matchClock,
      refusalMs: 60_000,
    });
    const refusal = await cache.matching(slow)(context, 0).then(() => null, (e: unknown) => e);
    expect(refusal).toBeInstanceOf(ParamRefusal);
    expect(refusal instanceof ParamRefusal && refusal.error.message).toContain(
      'took longer than the budget of 50 ms',
    );
    expect(tests).toBe(3);
    // The registry is re-read every second; the refusal outlives the snapshot.
    now = 59_999;
    await expect(cache.matching(slow)(context, 0)).rejects.toBe(refusal);
    expect(tests).toBe(3);
    // Another window length has its own registry, so its own verdict.
    await expect(cache.matching(slow)(context, context.nowUs - 60_000_000)).rejects.toBeInstanceOf(
      ParamRefusal,
    );
    expect(tests).toBe(6);
    now = 60_000;
    await expect(cache.matching(slow)(context, 0)).rejects.toBeInstanceOf(ParamRefusal);
    expect(tests).toBe(9);
    // Other patterns are not affected.
    expect(await cache.matching(pattern('p1'))(context, 0)).toHaveLength(1);
  });

  test('two costly patterns take turns; one that waits too long for its turn gets 503', async () => {
    let matchClock = 0;
    const tested: string[] = [];
    const costly = (source: string): HostPattern => ({
      source,
      test: () => {
        tested.push(source);
        matchClock += 20;
        return false;
      },
    });
    const cache = new HostCache({
      read: () => Promise.resolve(entries),
      nowMs: () => 0,
      matchBudgetMs: 1_000,
      matchClockMs: () => matchClock,
      gate: new MatchGate({ maxWaitMs: 60_000 }),
    });
    await Promise.all(['a', 'b'].map((name) => cache.matching(costly(name))(context, 0)));
    // Each runs its first slice (one host here); then 'a' holds the gate until it ends.
    expect(tested).toEqual(['a', 'b', 'a', 'a', 'b', 'b']);

    const gate = new MatchGate({ maxWaitMs: 1 });
    const held = gate.open();
    await held.nextTurn();
    const busy = new HostCache({
      read: () => Promise.resolve(entries),
      nowMs: () => 0,
      matchClockMs: () => matchClock,
      gate,
    });
    await expect(busy.matching(costly('c'))(context, 0)).rejects.toMatchObject({ status: 503 });
    held.release();
    // A 503 is not remembered: the pattern is matched once the gate is free.
    expect(await busy.matching(costly('c'))(context, 0)).toEqual([]);
  });

  test('invalidate re-reads; a failed read is not kept', async () => {
    let fail = true;
    const cache = new HostCache({
      read: () => (fail ? Promise.reject(new Error('store down')) : Promise.resolve(entries)),
      nowMs: () => 0,
    });
    await expect(cache.matching(pattern('p1'))(context, 0)).rejects.toThrow('store down');
    fail = false;
    expect(await cache.matching(pattern('p1'))(context, 0)).toHaveLength(1);
    fail = true;
    expect(await cache.matching(pattern('p1'))(context, 0)).toHaveLength(1);
    cache.invalidate();
    await expect(cache.matching(pattern('p1'))(context, 0)).rejects.toThrow('store down');
  });
});
