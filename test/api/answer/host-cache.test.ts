import { describe, expect, test } from 'vitest';
import { HostCache } from '../../../api/answer/host-cache.ts';
import { MatchGate, type MatchShare } from '../../../api/answer/match-gate.ts';
import { HttpError, rateLimited } from '../../../api/errors.ts';
import { ParamRefusal } from '../../../src/contract/params/common.ts';
import { compileHostPattern, type HostPattern } from '../../../src/contract/params/api-counts.ts';
import type { HostEntry } from '../../../src/endpoints/read/hosts.ts';
import { HOST_HORIZON_US, type RegisteredHost } from '../../../src/rollup/keys.ts';
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

const HOUR_US = 3_600_000_000;

describe('HostCache', () => {
  const NOW_US = context.nowUs;
  const entries: RegisteredHost[] = [
    { project: 'p1', host: 'p1.supabase.co', newestUs: NOW_US - 60_000_000 },
    { project: 'p2', host: 'p2.supabase.co', newestUs: NOW_US - 2 * HOUR_US },
    { project: 'p1', host: 'custom.example.com', newestUs: NOW_US - 60_000_000 },
  ];

  /** A registry whose content the test changes, recording the `since` of every read. */
  function registry(initial: readonly RegisteredHost[] = entries) {
    const rows = [...initial];
    const reads: number[] = [];
    return {
      rows,
      reads,
      read: (sinceUs: number) => {
        reads.push(sinceUs);
        return Promise.resolve(rows.filter((row) => row.newestUs >= sinceUs));
      },
    };
  }

  const hostsOf = (found: readonly HostEntry[]) => found.map((entry) => entry.host).sort();

  test('matches by pattern, reads the registry once per refresh period, single-flight', async () => {
    let now = NOW_US / 1000;
    const source = registry();
    const cache = new HostCache({ read: source.read, nowMs: () => now, refreshMs: 1_000 });
    const since = NOW_US - 3 * HOUR_US;
    const [a, b] = await Promise.all([
      cache.matching(pattern('p1'))(context, since),
      cache.matching(pattern('supa.ase'))(context, since),
    ]);
    expect(hostsOf(a)).toEqual(['p1.supabase.co']);
    expect(hostsOf(b)).toEqual(['p1.supabase.co', 'p2.supabase.co']);
    expect(source.reads).toEqual([NOW_US - HOST_HORIZON_US]);
    now += 999;
    await cache.matching(pattern('example'))(context, since);
    expect(source.reads).toHaveLength(1);
    now += 1;
    await cache.matching(pattern('example'))(context, since);
    expect(source.reads).toHaveLength(2);
  });

  test('one view serves every window: a window start only filters by the newest request', async () => {
    const source = registry();
    const cache = new HostCache({ read: source.read, nowMs: () => NOW_US / 1000 });
    const supabase = cache.matching(pattern('supabase'));
    expect(hostsOf(await supabase(context, NOW_US - 3 * HOUR_US))).toEqual([
      'p1.supabase.co',
      'p2.supabase.co',
    ]);
    expect(hostsOf(await supabase(context, NOW_US - HOUR_US))).toEqual(['p1.supabase.co']);
    // Exactly at the window start counts; a microsecond before does not.
    expect(hostsOf(await supabase(context, NOW_US - 2 * HOUR_US))).toHaveLength(2);
    expect(hostsOf(await supabase(context, NOW_US - 2 * HOUR_US + 1))).toHaveLength(1);
    expect(source.reads).toHaveLength(1);
  });

  test('reads what is new within the late margin, the whole registry once a minute', async () => {
    let now = NOW_US / 1000;
    const source = registry();
    const cache = new HostCache({
      read: source.read,
      nowMs: () => now,
      refreshMs: 1_000,
      fullRefreshMs: 60_000,
      lateMarginMs: 300_000,
    });
    // A regex pattern, kept: later hosts are tested once each, not the whole view again.
    let tests = 0;
    const counted: HostPattern = {
      source: 'counted',
      test: (host) => {
        tests++;
        return host.includes('supabase');
      },
    };
    const literal = cache.matching(pattern('p3'));
    const regex = cache.matching(counted);
    expect(await literal(context, 0)).toEqual([]);
    expect(hostsOf(await regex(context, 0))).toHaveLength(2);
    expect(tests).toBe(3);
    const newest = NOW_US - 60_000_000;

    // A new host of a new project; one late by 10 minutes; a newer request of a known host.
    source.rows.push(
      { project: 'p3', host: 'p3.supabase.co', newestUs: NOW_US },
      { project: 'p4', host: 'p4.supabase.co', newestUs: NOW_US - 600_000_000 },
    );
    source.rows[1] = { ...source.rows[1] as RegisteredHost, newestUs: NOW_US - 1 };
    now += 1_000;
    expect(hostsOf(await literal(context, 0))).toEqual(['p3.supabase.co']);
    expect(source.reads.at(-1)).toBe(newest - 300_000_000);
    expect(hostsOf(await regex(context, NOW_US - 1))).toEqual(['p2.supabase.co', 'p3.supabase.co']);
    expect(tests).toBe(4);
    // The late host waits for the whole read.
    expect(hostsOf(await regex(context, 0))).not.toContain('p4.supabase.co');
    now += 59_000;
    expect(hostsOf(await regex(context, 0))).toContain('p4.supabase.co');
    expect(source.reads.at(-1)).toBe(now * 1000 - HOST_HORIZON_US);
    expect(tests).toBe(5);
  });

  test('a literal finds hosts that contain it anywhere, as the pattern does', async () => {
    let now = NOW_US / 1000;
    const source = registry();
    const cache = new HostCache({ read: source.read, nowMs: () => now });
    const ref = cache.matching(pattern('abcdefghijklmnopqrst'));
    expect(await ref(context, 0)).toEqual([]);
    source.rows.push(
      { project: 'x', host: 'abcdefghijklmnopqrst.supabase.co', newestUs: NOW_US },
      { project: 'x', host: 'api.abcdefghijklmnopqrst.example', newestUs: NOW_US },
      { project: 'x', host: 'abcdefghijklmnopqrs.supabase.co', newestUs: NOW_US },
    );
    now += 1_000;
    expect(hostsOf(await ref(context, 0))).toEqual([
      'abcdefghijklmnopqrst.supabase.co',
      'api.abcdefghijklmnopqrst.example',
    ]);
  });

  test('a new literal finds hosts of the last whole read and hosts read since', async () => {
    let now = NOW_US / 1000;
    const source = registry();
    const cache = new HostCache({ read: source.read, nowMs: () => now });
    expect(await cache.matching(pattern('zzz'))(context, 0)).toEqual([]);
    source.rows.push({ project: 'p9', host: 'p1-eu.example.net', newestUs: NOW_US });
    now += 1_000;
    // Read since the index was built: found host by host; p1.supabase.co from the index.
    expect(hostsOf(await cache.matching(pattern('p1'))(context, 0))).toEqual([
      'p1-eu.example.net',
      'p1.supabase.co',
    ]);
    expect(source.reads).toHaveLength(2);
  });

  test('literals of more than eight lengths stay exact (the ninth is searched, not kept)', async () => {
    let now = NOW_US / 1000;
    const source = registry([{ project: 'x', host: 'abcdefghij.example', newestUs: NOW_US }]);
    const cache = new HostCache({ read: source.read, nowMs: () => now });
    const literals = Array.from({ length: 9 }, (_, i) => 'abcdefghij'.slice(0, i + 1));
    for (const literal of literals) {
      expect(hostsOf(await cache.matching(pattern(literal))(context, 0))).toEqual([
        'abcdefghij.example',
      ]);
    }
    source.rows.push({ project: 'y', host: 'zz.abcdefghij.dev', newestUs: NOW_US });
    now += 1_000;
    for (const literal of literals) {
      expect(hostsOf(await cache.matching(pattern(literal))(context, 0))).toEqual([
        'abcdefghij.example',
        'zz.abcdefghij.dev',
      ]);
    }
  });

  test('hosts that aged out of the longest window leave the view and the kept matches', async () => {
    let now = NOW_US / 1000;
    const source = registry();
    const cache = new HostCache({ read: source.read, nowMs: () => now, fullRefreshMs: 60_000 });
    expect(hostsOf(await cache.matching(pattern('supabase'))(context, 0))).toHaveLength(2);
    expect(cache.size).toBe(3);
    // p2's newest request (two hours ago) leaves the eight-day horizon first.
    now = (NOW_US - 2 * HOUR_US + HOST_HORIZON_US) / 1000 + 1;
    source.rows.splice(1, 1);
    expect(hostsOf(await cache.matching(pattern('supabase'))(context, 0))).toEqual([
      'p1.supabase.co',
    ]);
    expect(cache.size).toBe(2);
  });

  test('what an ingest notes before the first whole read is not kept (that read brings it)', () => {
    const cache = new HostCache({ read: registry().read, nowMs: () => NOW_US / 1000 });
    cache.note(entries);
    expect(cache.size).toBe(0);
  });

  test('a process that only ingests drops noted hosts that aged out, once per full refresh period', async () => {
    let now = NOW_US / 1000;
    const cache = new HostCache({
      read: registry([]).read,
      nowMs: () => now,
      fullRefreshMs: 60_000,
    });
    await cache.projects(1);
    cache.note(entries);
    expect(cache.size).toBe(3);
    // No read after this: only notes. p2's newest request leaves the horizon first.
    now = (NOW_US - 2 * HOUR_US + HOST_HORIZON_US) / 1000 + 1;
    cache.note([{ project: 'p3', host: 'p3.supabase.co', newestUs: now * 1000 }]);
    expect(cache.size).toBe(3);
    // The noted p3 is found, the pruned p2 is not, and p1 still is.
    const found = await cache.matching(pattern('supabase'))(context, 0);
    expect(hostsOf(found)).toEqual(['p1.supabase.co', 'p3.supabase.co']);
  });

  test('a pattern that matches more hosts than one request may sum is refused with a 400', async () => {
    const many: RegisteredHost[] = Array.from({ length: 5 }, (_, i) => ({
      project: `p${i}`,
      host: `p${i}.supabase.co`,
      newestUs: NOW_US - i * HOUR_US,
    }));
    const cache = new HostCache({
      read: registry(many).read,
      nowMs: () => NOW_US / 1000,
      maxMatchedHosts: 3,
    });
    const refusal = await cache.matching(pattern('supabase'))(context, NOW_US - 5 * HOUR_US).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(ParamRefusal);
    expect(refusal instanceof ParamRefusal && refusal.error).toMatchObject({
      code: 'invalid_parameter',
      parameter: 'project',
    });
    expect(refusal instanceof ParamRefusal && refusal.error.message).toContain(
      'matches 5 request hosts in the window, more than the 3',
    );
    // Within a shorter window the same pattern matches three: answered.
    expect(await cache.matching(pattern('supabase'))(context, NOW_US - 2 * HOUR_US)).toHaveLength(
      3,
    );
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
    const source = registry();
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
    // The registry is re-read every second; the refusal outlives the reads, for every window.
    now = 59_999;
    await expect(cache.matching(slow)(context, 0)).rejects.toBe(refusal);
    await expect(cache.matching(slow)(context, context.nowUs - 60_000_000)).rejects.toBe(refusal);
    expect(tests).toBe(3);
    now = 60_000;
    await expect(cache.matching(slow)(context, 0)).rejects.toBeInstanceOf(ParamRefusal);
    expect(tests).toBe(6);
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
    const held = await gate.open();
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

  test("a caller waiting on another key's scan that used up that key's share matches with its own", async () => {
    let matchClock = 0;
    // Each host test takes 20 ms of the matching clock: every test ends a slice.
    const costly: HostPattern = {
      source: 'costly',
      test: () => {
        matchClock += 20;
        return true;
      },
    };
    const cache = new HostCache({
      read: registry().read,
      nowMs: () => NOW_US / 1000,
      matchBudgetMs: 1_000,
      matchClockMs: () => matchClock,
    });
    /** A share of `ms`, whole at first, refused once nothing is left. */
    const share = (ms: number, name: string): MatchShare => {
      let left = ms;
      return {
        spend: (charged) => {
          left -= charged;
        },
        left: () => left,
        rested: () => left >= ms,
        refusal: () => (left > 0 ? null : rateLimited(`${name}'s share used up`, 7_000)),
      };
    };
    // The first caller's share runs out at its second slice, while the second waits on its scan.
    const first = cache.matching(costly, share(30, 'first'))(context, 0);
    const second = cache.matching(costly, share(1_000, 'second'))(context, 0);
    const [refused, answered] = await Promise.allSettled([first, second]);
    const reason: unknown = refused.status === 'rejected' ? refused.reason : null;
    expect(reason instanceof HttpError && [reason.status, reason.message]).toEqual([
      429,
      "first's share used up: retry after 7 s",
    ]);
    expect(answered.status).toBe('fulfilled');
    expect(answered.status === 'fulfilled' && hostsOf(answered.value)).toHaveLength(3);
  });

  test('invalidate reads the whole registry again; a failed read is not kept', async () => {
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
