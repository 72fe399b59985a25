import { describe, expect, test } from 'vitest';
import { HostCache } from '../../../api/answer/host-cache.ts';
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
