/**
 * Issue 48: a writer keeps its stream's parts in columns between flushes, merges each delta into
 * them there and writes their stored text from there. Every part it stores must be byte for byte
 * the text of the state objects merged one flush after another through the aggregates' own
 * `merge`, as the writer of state objects stored it: whether the part stayed in the writer's
 * cache, was dropped and read back from the store (a small cache, a squeezed budget), or was new.
 */
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { Fold } from '../../src/rollup/fold.ts';
import { invocationStats } from '../../src/rollup/invocation-stats.ts';
import { partRef } from '../../src/rollup/keys.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import { PartsBudget } from '../../src/rollup/parts-budget.ts';
import { usageCounts } from '../../src/rollup/usage-counts.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import {
  DAY_US,
  json,
  logEvent,
  type Message,
  message,
  NEGATIVE_ZERO,
  NOW_US,
} from './fold-streams.ts';
import { ObjectFold, type PendingState } from './object-fold.ts';

/** Generated cases per run; the mutation run asks for fewer (vitest.mutation.config.ts). */
const RUNS = Number(process.env.FOLD_COLUMNS_RUNS ?? 150) / 3;
const STREAM = 'columns/0';

/** The text a part of state objects, merged flush after flush, was stored as. */
function textOf(pending: PendingState): string {
  return pending.kind === 'invocation'
    ? invocationStats.serialize(pending.state)
    : usageCounts.serialize(pending.state);
}

/** Merges `delta`'s state into the oracle's part of its address. */
function mergeInto(parts: Map<string, PendingState>, address: string, delta: PendingState): void {
  const part = parts.get(address);
  if (part === undefined) parts.set(address, delta);
  else if (part.kind === 'invocation' && delta.kind === 'invocation') {
    part.state = invocationStats.merge(part.state, delta.state);
  } else if (part.kind === 'usage' && delta.kind === 'usage') {
    part.state = usageCounts.merge(part.state, delta.state);
  } else throw new Error(`${address} holds two aggregates`);
}

/**
 * Folds `flushes` into a writer with a cache of `cacheLimit` parts (squeezed to none before the
 * flushes `squeezed` marks), and the same events through the fold of state objects; answers, after
 * each flush, the stored text of each part and the oracle's.
 */
async function storedAndExpected(
  flushes: readonly (readonly Message[])[],
  nowUs: number,
  cacheLimit: number,
  squeezed: readonly boolean[],
): Promise<{ stored: (string | null)[][]; expected: string[][] }> {
  const store = new MemoryStore({ nowMs: () => Math.floor(nowUs / 1000) });
  const partsBudget = new PartsBudget(cacheLimit);
  const writer = new PartitionWriter({
    store,
    stream: STREAM,
    nowUs: () => nowUs,
    cacheLimit,
    partsBudget,
  });
  await writer.open();
  const oracle = new Map<string, PendingState>();
  const stored: (string | null)[][] = [];
  const expected: string[][] = [];
  let offset = 0;
  for (const [i, messages] of flushes.entries()) {
    const fold = new Fold(STREAM);
    const objects = new ObjectFold(STREAM);
    for (const generated of messages) {
      const event = logEvent(generated);
      if (event !== null) {
        await writer.loadWatermarks([event.project]);
        fold.add(event, offset, nowUs);
        objects.add(event, offset, nowUs);
      }
      offset += 1;
    }
    partsBudget.squeeze(squeezed[i] ?? false);
    await writer.flush(fold.take(), offset);
    for (const { states } of objects.take().projects.values()) {
      states.forEach((pending, address) => mergeInto(oracle, address, pending));
    }
    // After every flush: a later one could hide a difference (a tie's newer value wins).
    stored.push(await store.readParts([...oracle.keys()].map(partRef), STREAM));
    expected.push([...oracle.values()].map(textOf));
  }
  return { stored, expected };
}

describe('the parts in columns', () => {
  test('store exactly what merging the state objects flush after flush stored', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(message, { maxLength: 40 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: DAY_US }),
        // From a cache too small for one flush's parts (read back every time) to one that keeps all.
        fc.constantFrom(1, 5, 40, 10_000),
        fc.array(fc.boolean(), { maxLength: 5 }),
        async (flushes, lateUs, cacheLimit, squeezed) => {
          const { stored, expected } = await storedAndExpected(
            flushes,
            NOW_US + lateUs,
            cacheLimit,
            squeezed,
          );
          expect(stored).toEqual(expected);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('a bucket merged past the exact values of its sketch, kept and read back', async () => {
    // 60 invocations a flush in one second, one function (8 parts: 4 grains, all functions and
    // it): each part passes 100 values in its second flush, and then merges binned.
    const flush = Array.from({ length: 60 }, (_, i): Message => ({
      kind: 'function-edge',
      text: JSON.stringify({
        id: `d${i}`,
        timestamp: NOW_US - 1_000 * (i % 7),
        metadata: [{
          project_ref: 'pa',
          function_id: 'f',
          execution_time_ms: (i * 37) % 50 + (i % 2) / 4,
          response: [{ status_code: 200 }],
        }],
      }),
    }));
    for (const cacheLimit of [1, 10_000]) {
      const { stored, expected } = await storedAndExpected(
        [flush, flush, flush],
        NOW_US,
        cacheLimit,
        [],
      );
      expect(stored).toEqual(expected);
      expect(stored.map((parts) => parts.length)).toEqual([8, 8, 8]);
    }
  });

  test('signed zeros merged across flushes keep their order, min and max', async () => {
    const zeros = (times: readonly (0 | typeof NEGATIVE_ZERO)[]) =>
      times.map((time, i): Message => ({
        kind: 'function-edge',
        text: json({
          id: `z${i}`,
          timestamp: NOW_US - 1_000,
          metadata: [{
            project_ref: 'pa',
            execution_time_ms: time,
            response: [{ status_code: 200 }],
          }],
        }),
      }));
    const flushes = [
      zeros([NEGATIVE_ZERO, 0]),
      zeros([0, NEGATIVE_ZERO]),
      zeros([NEGATIVE_ZERO]),
      zeros([0]),
    ];
    for (const cacheLimit of [1, 10_000]) {
      const { stored, expected } = await storedAndExpected(flushes, NOW_US, cacheLimit, []);
      expect(stored).toEqual(expected);
    }
  });
});
