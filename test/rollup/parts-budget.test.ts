/**
 * The parts budget of a process (issue 33, item 5): the writers of every partition a consumer
 * holds keep at most the budget's parts together, not each its own limit; squeezed (memory
 * pressure), every writer drops its parts at its next flush, and a part dropped is read again.
 */
import { describe, expect, test } from 'vitest';
import type { LogEvent } from '../../src/events/types.ts';
import { Fold } from '../../src/rollup/fold.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import { PartsBudget } from '../../src/rollup/parts-budget.ts';
import { invocationStats } from '../../src/rollup/invocation-stats.ts';
import {
  invocationEvent,
  memoryStore,
  minuteKey,
  NOW_US,
  PROJECT,
} from './partition-writer-fixtures.ts';

async function flush(writer: PartitionWriter, events: readonly LogEvent[], from: number) {
  await writer.loadWatermarks(events.map((event) => event.project));
  const fold = new Fold(writer.stream);
  events.forEach((event, i) => fold.add(event, from + i, NOW_US));
  await writer.flush(fold.take(), from + events.length);
}

const projects = (prefix: string, count: number) =>
  Array.from(
    { length: count },
    (_, i) => `${prefix}${String(i).padStart(20 - prefix.length, '0')}`,
  );

describe('a parts budget shared by writers', () => {
  test('refuses a limit that is not a positive integer', () => {
    expect(() => new PartsBudget(0)).toThrow(/positive integer: got 0/);
    expect(() => new PartsBudget(1.5)).toThrow(/positive integer/);
  });

  test('bounds the parts of every writer together, each writer under its own larger limit', async () => {
    const store = memoryStore();
    const budget = new PartsBudget(40);
    const writers = ['s/0', 's/1', 's/2'].map((stream) =>
      new PartitionWriter({
        store,
        stream,
        nowUs: () => NOW_US,
        earliestOffset: () => Promise.resolve(0),
        cacheLimit: 10_000,
        partsBudget: budget,
      })
    );
    for (const writer of writers) await writer.open();
    // Each flush reads or makes 8 parts per project: 10 projects, 80 parts per flush.
    for (const [i, writer] of writers.entries()) {
      const events = projects(`budget${i}p`, 10).map((project, n) =>
        invocationEvent(`e${n}`, 5, project)
      );
      await flush(writer, events, 0);
      const total = writers.reduce((sum, w) => sum + w.cached.parts, 0);
      expect(budget.held).toBe(total);
      // The writer that flushed dropped its own parts until the budget was kept.
      expect(total).toBeLessThanOrEqual(40);
    }
    // Without the budget each writer would have kept its 80.
    expect(writers.reduce((sum, w) => sum + w.cached.parts, 0)).toBeLessThanOrEqual(40);
  });

  test('squeezed, a writer drops its parts at its next flush; they are read again after', async () => {
    const store = memoryStore();
    const budget = new PartsBudget(1_000);
    const writer = new PartitionWriter({
      store,
      stream: 's/0',
      nowUs: () => NOW_US,
      earliestOffset: () => Promise.resolve(0),
      partsBudget: budget,
    });
    await writer.open();
    const project = PROJECT;
    await flush(writer, [invocationEvent('a', 5, project)], 0);
    expect(writer.cached.parts).toBe(8);
    budget.squeeze(true);
    await flush(writer, [invocationEvent('b', 5, project)], 1);
    expect(writer.cached.parts).toBe(0);
    expect(budget.held).toBe(0);
    budget.squeeze(false);
    // Read again from the store and merged: nothing counted twice or lost.
    await flush(writer, [invocationEvent('c', 5, project)], 2);
    expect(writer.cached.parts).toBe(8);
    const [text] = await store.readParts([{ key: minuteKey() }], 's/0');
    expect(invocationStats.finalize(invocationStats.deserialize(text ?? ''))).toMatchObject({
      count: 3,
    });
  });
});
