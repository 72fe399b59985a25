import { describe, expect, test } from 'vitest';
import type { Invocation } from '../../src/events/types.ts';
import { HEAD_COUNT_BYTES } from '../../src/rollup/aggregate.ts';
import { invocationStats } from '../../src/rollup/invocation-stats.ts';
import { usageCounts } from '../../src/rollup/usage-counts.ts';

const invocation = (statusCode: number | null, executionTimeMs: number | null): Invocation => ({
  projectRef: 'p',
  functionId: 'f',
  statusCode,
  executionTimeMs,
});

describe('invocation stats aggregate', () => {
  test('counts, errors, status classes, min/max/avg over non-null times', () => {
    const state = invocationStats.empty();
    for (
      const [status, time] of [[200, 10], [404, null], [500, 30], [null, 20], [101, null]] as const
    ) {
      invocationStats.add(state, invocation(status, time));
    }
    expect(state.statusClasses).toEqual([1, 1, 0, 1, 1]);
    expect(invocationStats.finalize(state)).toEqual({
      count: 5,
      error_count: 2,
      min_execution_time: 10,
      max_execution_time: 30,
      avg_execution_time: 20,
      p95_execution_time: 30,
      p99_execution_time: 30,
    });
  });

  test('a bucket without execution times has null time columns', () => {
    const state = invocationStats.add(invocationStats.empty(), invocation(200, null));
    expect(invocationStats.finalize(state)).toMatchObject({
      count: 1,
      min_execution_time: null,
      avg_execution_time: null,
      p99_execution_time: null,
    });
  });

  test('merge of parts equals folding everything, also through serialization', () => {
    const all = invocationStats.empty();
    const a = invocationStats.empty();
    const b = invocationStats.empty();
    for (let i = 0; i < 60; i++) {
      const item = invocation(i % 7 === 0 ? 503 : 200, i % 5 === 0 ? null : i * 1.5);
      invocationStats.add(all, item);
      invocationStats.add(i < 25 ? a : b, item);
    }
    const stored = invocationStats.deserialize(invocationStats.serialize(a));
    const merged = invocationStats.merge(
      stored,
      invocationStats.deserialize(invocationStats.serialize(b)),
    );
    expect(invocationStats.finalize(merged)).toEqual(invocationStats.finalize(all));
  });

  test('headCount reads the count from the head of a stored state; null where it does not say', () => {
    const state = invocationStats.empty();
    for (let i = 0; i < 150; i++) invocationStats.add(state, invocation(200, i * 1.5));
    const text = invocationStats.serialize(state);
    expect(invocationStats.headCount(text)).toBe(150);
    expect(invocationStats.headCount(text.slice(0, HEAD_COUNT_BYTES))).toBe(150);
    expect(invocationStats.headCount(invocationStats.serialize(invocationStats.empty()))).toBe(0);
    // Written some other way, cut before its comma, or corrupt: the head does not say.
    const reordered = JSON.stringify({ e: 0, n: 7, s: [0, 0, 0, 0, 0], t: 0, sum: 0 });
    for (
      const head of [reordered, '{"n":12', '{"n":,"e":0}', '{"n":-1,"e":0}', '{"n":1e3,"e":0}']
    ) {
      expect(invocationStats.headCount(head), head).toBeNull();
    }
    expect(invocationStats.headCount(`{"n":${'9'.repeat(16)},"e":0}`)).toBeNull();
    expect(usageCounts.headCount('[4,1,1,1,1]')).toBe(4);
    expect(usageCounts.headCount('[4]')).toBeNull();
  });

  test('refuses a malformed stored state', () => {
    expect(() => invocationStats.deserialize('{"n":1}')).toThrow(/malformed/);
    // A stored value may hold personal data: the message quotes at most its first 80 characters.
    const long = `{"n":"${'p'.repeat(200)}"}`;
    expect(() => invocationStats.deserialize(long)).toThrow(
      new Error(`invocation stats state is malformed: ${long.slice(0, 80)}`),
    );
  });
});

describe('usage counts aggregate', () => {
  test('counts every request and each family it belongs to', () => {
    const state = usageCounts.empty();
    usageCounts.add(state, ['rest', 'auth']);
    usageCounts.add(state, []);
    usageCounts.add(state, ['storage']);
    const merged = usageCounts.merge(
      usageCounts.deserialize(usageCounts.serialize(state)),
      usageCounts.add(usageCounts.empty(), ['realtime']),
    );
    expect(usageCounts.finalize(merged)).toEqual({
      total: 4,
      rest: 1,
      storage: 1,
      auth: 1,
      realtime: 1,
    });
  });

  test('refuses a malformed stored state', () => {
    expect(() => usageCounts.deserialize('[1,2]')).toThrow(/5 non-negative integers/);
  });
});
