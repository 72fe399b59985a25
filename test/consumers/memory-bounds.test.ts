/**
 * A consumer process's memory bounds as an operator sees them: the gauges say whether the heap is
 * pressed and how many parts the writers keep (docs/OPERATIONS.md, "A consumer's memory").
 */
import { Registry } from 'prom-client';
import { expect, test } from 'vitest';
import { memoryBounds } from '../../consumers/memory-bounds.ts';
import { createLogger } from '../../src/logger.ts';

const MIB = 1024 * 1024;

test('the gauges follow the heap guard and the parts budget', async () => {
  const registry = new Registry();
  let used = 10 * MIB;
  const { heapGuard, partsBudget } = memoryBounds({
    partsCacheLimit: 100,
    logger: createLogger('silent'),
    nowMs: () => 0,
    registry,
    heap: () => ({ used, limit: 100 * MIB }),
  });
  const value = async (name: string) => (await registry.getSingleMetric(name)?.get())?.values[0];

  expect((await value('consumer_heap_pressed'))?.value).toBe(0);
  expect((await value('consumer_cached_parts'))?.value).toBe(0);
  partsBudget.add(7);
  used = 90 * MIB;
  heapGuard.check();
  expect(heapGuard.pressed).toBe(true);
  expect((await value('consumer_heap_pressed'))?.value).toBe(1);
  expect((await value('consumer_cached_parts'))?.value).toBe(7);
});
