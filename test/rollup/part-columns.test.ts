/**
 * Issue 48: a writer keeps its stream's parts in columns between flushes, merges each delta into
 * them there and writes their stored text from there. Every part it stores must be byte for byte
 * the text of the state objects merged one flush after another through the aggregates' own
 * `merge`, as the writer of state objects stored it: whether the part stayed in the writer's
 * cache, was dropped (a small cache, a squeezed budget, an expired key) and read back from the
 * store, was new, or was stored by an earlier version as JSON. The cache gives the room of parts it
 * drops back, and a flush that fails while it reads parts keeps nothing of them.
 */
import { partTexts } from '../support/stored-parts.ts';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { Fold } from '../../src/rollup/fold.ts';
import { type InvocationStats, invocationStats } from '../../src/rollup/invocation-stats.ts';
import { toSerialized } from '../../src/rollup/quantiles.ts';
import {
  bucketSlot,
  functionScope,
  hostScope,
  invocationKey,
  partAddress,
  partRef,
  projectPrefix,
  usageKey,
  watermarkKey,
} from '../../src/rollup/keys.ts';
import { knownProject, ProjectCache } from '../../src/rollup/project-cache.ts';
import type { PartRef } from '../../src/store/port.ts';
import { type Grain, truncate } from '../../src/time/grain.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import { PartsBudget } from '../../src/rollup/parts-budget.ts';
import { type UsageCounts, usageCounts } from '../../src/rollup/usage-counts.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import {
  DAY_US,
  json,
  logEvent,
  type Message,
  message,
  MINUTE_US,
  NEGATIVE_ZERO,
  NOW_US,
} from './fold-streams.ts';
import { ObjectFold, type PendingState } from './object-fold.ts';

/** Generated cases per run; the mutation run asks for fewer (vitest.mutation.config.ts). */
const RUNS = Math.max(1, Math.floor(Number(process.env.FOLD_COLUMNS_RUNS ?? 150) / 3));
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

/** What {@link storedAndExpected} folds, and how. */
interface Run {
  readonly flushes: readonly (readonly Message[])[];
  /** The clock at the first flush (µs). */
  readonly nowUs: number;
  /** How far the clock moves after each flush (µs): parts expire and are evicted. */
  readonly stepUs?: number;
  /** Parts the writer may keep (the process's budget too). */
  readonly cacheLimit: number;
  /** Before which flushes the budget is squeezed to nothing. */
  readonly squeezed?: readonly boolean[];
  /** Parts of project `pa` an earlier version stored, by address, before the first flush. */
  readonly seeded?: ReadonlyMap<string, PendingState>;
}

/**
 * Folds a run's flushes into a writer and the same events through the fold of state objects;
 * answers, after each flush, the stored text of each part the store still keeps (not expired)
 * and the oracle's.
 */
async function storedAndExpected(
  { flushes, nowUs: startUs, stepUs = 0, cacheLimit, squeezed = [], seeded }: Run,
): Promise<{ stored: (string | null)[][]; expected: string[][] }> {
  let nowUs = startUs;
  const store = new MemoryStore({ nowMs: () => Math.floor(nowUs / 1000) });
  const oracle = new Map<string, PendingState>();
  if (seeded !== undefined) await seed(store, seeded, oracle, nowUs);
  const partsBudget = new PartsBudget(cacheLimit);
  const writer = new PartitionWriter({
    store,
    stream: STREAM,
    nowUs: () => nowUs,
    cacheLimit,
    partsBudget,
  });
  await writer.open();
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
    // After every flush (a later one could hide a difference: a tie's newer value wins), the
    // parts the store still keeps.
    const kept = [...oracle].filter(([, { expireAtMs }]) => expireAtMs > nowUs / 1000);
    const parts = await store.readParts(kept.map(([address]) => partRef(address)), STREAM);
    stored.push(partTexts(parts));
    expected.push(kept.map(([, pending]) => textOf(pending)));
    nowUs += stepUs;
  }
  return { stored, expected };
}

/** Commits `parts` for project `pa` as an earlier version would have, and starts the oracle on them. */
async function seed(
  store: MemoryStore,
  parts: ReadonlyMap<string, PendingState>,
  oracle: Map<string, PendingState>,
  nowUs: number,
): Promise<void> {
  const result = await store.commitProject({
    stream: STREAM,
    watermark: {
      key: watermarkKey('pa'),
      expected: null,
      next: 0,
      expireAtMs: nowUs / 1000 + 100 * DAY_US / 1000,
    },
    parts: [...parts].map(([address, pending]) => ({
      ...partRef(address),
      value: pending.kind === 'invocation'
        ? JSON.stringify(legacyInvocation(pending.state))
        : JSON.stringify(legacyUsage(pending.state)),
      expireAtMs: pending.expireAtMs,
    })),
    sortedSets: [],
  });
  if (result.outcome !== 'applied') throw new Error('the seeded commit was refused');
  parts.forEach((pending, address) => {
    oracle.set(address, { ...pending, state: structuredClone(pending.state) } as PendingState);
  });
}

/** An invocation state in the JSON form stored before the binary one. */
function legacyInvocation(state: InvocationStats): unknown {
  const { count, errorCount, statusClasses, timedCount, sum, min, max, times } = state;
  return {
    n: count,
    e: errorCount,
    s: statusClasses,
    t: timedCount,
    sum,
    min,
    max,
    q: toSerialized(times),
  };
}

/** Usage counts in the JSON form stored before the binary one. */
function legacyUsage({ total, rest, storage, auth, realtime }: UsageCounts): unknown {
  return [total, rest, storage, auth, realtime];
}

describe('the parts in columns', () => {
  test('store exactly what merging the state objects flush after flush stored', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(message, { maxLength: 40 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: DAY_US }),
        // The clock between flushes: still, or moving past the keys of seconds, minutes, hours.
        fc.constantFrom(0, 3 * MINUTE_US, 70 * MINUTE_US, DAY_US / 2),
        // From a cache too small for one flush's parts (read back every time) to one that keeps all.
        fc.constantFrom(1, 5, 40, 10_000),
        fc.array(fc.boolean(), { maxLength: 5 }),
        async (flushes, lateUs, stepUs, cacheLimit, squeezed) => {
          const { stored, expected } = await storedAndExpected({
            flushes,
            nowUs: NOW_US + lateUs,
            stepUs,
            cacheLimit,
            squeezed,
          });
          expect(stored).toEqual(expected);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('a bucket merged past the exact values of its sketch, kept and read back', async () => {
    // 60 invocations a flush in one second, one function (8 parts: 4 grains, all functions and
    // it): each part passes 100 values in its second flush, and then merges binned.
    const flush = Array.from(
      { length: 60 },
      (_, i) => invocation(NOW_US - 1_000 * (i % 7), (i * 37) % 50 + (i % 2) / 4),
    );
    for (const cacheLimit of [1, 10_000]) {
      const run = { flushes: [flush, flush, flush], nowUs: NOW_US, cacheLimit };
      const { stored, expected } = await storedAndExpected(run);
      expect(stored).toEqual(expected);
      expect(expected.map((parts) => parts.length)).toEqual([8, 8, 8]);
    }
  });

  test('signed zeros merged across flushes keep their order, min and max', async () => {
    const zeros = (times: readonly (0 | typeof NEGATIVE_ZERO)[]) =>
      times.map((time) => invocation(NOW_US - 1_000, time));
    const flushes = [
      zeros([NEGATIVE_ZERO, 0]),
      zeros([0, NEGATIVE_ZERO]),
      zeros([NEGATIVE_ZERO]),
      zeros([0]),
    ];
    for (const cacheLimit of [1, 10_000]) {
      const { stored, expected } = await storedAndExpected({ flushes, nowUs: NOW_US, cacheLimit });
      expect(stored).toEqual(expected);
    }
  });

  test('parts an earlier version stored as JSON are merged into as their objects are', async () => {
    const atUs = NOW_US - 1_000;
    const prefix = projectPrefix('pa');
    const address = (scope: string, grain: Grain) =>
      partAddress(
        invocationKey(prefix, scope, grain, truncate(atUs, grain)),
        bucketSlot(grain, truncate(atUs, grain)),
      );
    const stats = (values: number[], min: number | null, max: number | null): PendingState => ({
      kind: 'invocation',
      aggregate: invocationStats,
      state: {
        count: values.length + 1,
        errorCount: 1,
        statusClasses: [0, values.length, 0, 0, 1],
        timedCount: values.length,
        sum: values.reduce((total, value) => total + value, 0),
        min,
        max,
        times: { kind: 'exact', values },
      },
      startUs: 0,
      expireAtMs: NOW_US / 1000 + DAY_US / 1000,
    });
    const seeded = new Map<string, PendingState>([
      [address('*', 'second'), stats([1, 3, 5], 1, 5)],
      // More exact values than the limit: merged, they are binned.
      [address('*', 'minute'), stats(Array.from({ length: 120 }, (_, i) => i % 17), 0, 16)],
      // No min or max though times were counted.
      [address(functionScope('f'), 'hour'), stats([2, 2], null, null)],
      [
        partAddress(
          usageKey(prefix, hostScope('a.example'), 'minute', truncate(atUs, 'minute')),
          undefined,
        ),
        {
          kind: 'usage',
          aggregate: usageCounts,
          state: { total: 3, rest: 1, storage: 1, auth: 0, realtime: 0 },
          startUs: 0,
          expireAtMs: NOW_US / 1000 + DAY_US / 1000,
        },
      ],
    ]);
    const flush = [
      invocation(atUs, 2),
      invocation(atUs, 0.5),
      {
        kind: 'edge',
        text: json({
          id: 'e',
          timestamp: atUs,
          project: 'pa',
          metadata: [{ request: [{ host: 'a.example', path: '/rest/v1/t' }] }],
        }),
      } satisfies Message,
    ];
    for (const cacheLimit of [1, 10_000]) {
      const { stored, expected } = await storedAndExpected({
        flushes: [flush, flush],
        nowUs: NOW_US,
        cacheLimit,
        seeded,
      });
      expect(stored).toEqual(expected);
    }
  });

  test('parts dropped give their room back; those kept are moved whole', () => {
    const budget = new PartsBudget(4_000);
    const cache = new ProjectCache({
      stream: STREAM,
      limit: 20_000,
      nowUs: () => NOW_US,
      partsBudget: budget,
    });
    const texts = new Map<string, string>();
    for (const project of ['p1', 'p2', 'p3']) {
      const known = knownProject(0, 0, NOW_US, 0);
      cache.add(project, known);
      for (let i = 0; i < 4_000; i++) {
        const { columns } = cache;
        const record = columns.newRecord();
        for (let v = 0; v <= i % 7; v++) columns.addInvocation(record, 200, v * i);
        columns.setExpiry(record, NOW_US / 1000 + DAY_US / 1000);
        cache.addPart(known, `${project}#${i}`, record);
        texts.set(`${project}#${i}`, columns.text(record, 'invocation'));
      }
      cache.committed(project, known);
    }
    const grown = cache.columns.capacity;
    expect(grown).toBeGreaterThanOrEqual(12_000);
    // Over the budget: the parts of the two least recently committed projects are dropped.
    cache.evict(['p1', 'p2', 'p3']);
    expect(cache.cached.parts).toBe(4_000);
    expect(cache.columns.capacity).toBeLessThan(grown / 2);
    const kept = cache.get('p3');
    expect(kept?.parts.size).toBe(4_000);
    kept?.parts.forEach((record, address) => {
      expect(cache.columns.text(record, 'invocation')).toBe(texts.get(address));
    });
  });

  test('a flush that fails while parts are read merges nothing into the cache', async () => {
    let release = () => {};
    const reading = new Promise<void>((resolve) => (release = resolve));
    class FailingStore extends MemoryStore {
      override async readParts(parts: readonly PartRef[], stream: string) {
        await reading;
        return super.readParts(parts, stream);
      }
      override updateSortedSet(): Promise<void> {
        return Promise.reject(new Error('the host registry is down'));
      }
    }
    const store = new FailingStore({ nowMs: () => NOW_US / 1000 });
    const writer = new PartitionWriter({ store, stream: STREAM, nowUs: () => NOW_US });
    await writer.open();
    // A reach that reads every part: a watermark an earlier version wrote, with no reach.
    await store.commitProject({
      stream: STREAM,
      watermark: {
        key: watermarkKey('pa'),
        expected: null,
        next: 0,
        expireAtMs: NOW_US / 1000 + DAY_US / 1000,
      },
      parts: [],
      sortedSets: [],
    });
    const fold = new Fold(STREAM);
    const event = logEvent({
      kind: 'edge',
      text: json({
        id: 'e',
        timestamp: NOW_US - 1_000,
        project: 'pa',
        metadata: [{ request: [{ host: 'a.example', path: '/rest/v1/t' }] }],
      }),
    });
    if (event === null) throw new Error('the event is refused');
    await writer.loadWatermarks(['pa']);
    fold.add(event, 0, NOW_US);
    const flushed = writer.flush(fold.take(), 1);
    await expect(flushed).rejects.toThrow(/the host registry is down/);
    release();
    // The reads land after the failure: nothing of them is kept or counted.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(writer.cached).toEqual({ projects: 0, parts: 0 });
  });
});

/** A function-edge event of project `pa`, function `f`, at `atUs`, with one time. */
function invocation(atUs: number, time: number | typeof NEGATIVE_ZERO): Message {
  return {
    kind: 'function-edge',
    text: json({
      id: 'i',
      timestamp: atUs,
      metadata: [{
        project_ref: 'pa',
        function_id: 'f',
        execution_time_ms: time,
        response: [{ status_code: 200 }],
      }],
    }),
  };
}
