/**
 * Issue 48: the writer's merge step on its own. Which parts it reads from the store (only those
 * the cache lacks, and only up to the stream's reach), which it takes for new without a read (and
 * hands over as new parts, committed only where the stream has none), what the cache keeps of a
 * part it read (its expiry), and the order it keeps parts in (least recently written first).
 */
import { describe, expect, test } from 'vitest';
import type { Invocation } from '../../src/events/types.ts';
import type { DeltaState, ProjectDelta, RollupDelta } from '../../src/rollup/fold-delta.ts';
import { invocationStats } from '../../src/rollup/invocation-stats.ts';
import { functionScope, invocationKey, partAddress, projectPrefix } from '../../src/rollup/keys.ts';
import { PartMerger, type ProjectWrites } from '../../src/rollup/part-merge.ts';
import { knownProject, ProjectCache } from '../../src/rollup/project-cache.ts';
import { StateColumns } from '../../src/rollup/state-columns.ts';
import type { PartRef } from '../../src/store/port.ts';

const STREAM = 'merge/0';
const PROJECT = 'abcdefghijklmnopqrst';
const NOW_US = 1_795_256_130_000_000;
const MINUTE_US = 60_000_000;
const EXPIRE_AT_MS = NOW_US / 1000 + 86_400_000;

/** The part of the minute starting `startUs`. */
function addressOf(startUs: number): string {
  return partAddress(
    invocationKey(projectPrefix(PROJECT), functionScope(null), 'minute', startUs),
    undefined,
  );
}

function invocation(executionTimeMs: number): Invocation {
  return { projectRef: PROJECT, functionId: null, statusCode: 200, executionTimeMs };
}

/** A delta of one invocation per minute in `startsUs`, taking `executionTimeMs`. */
function deltaOf(startsUs: readonly number[], executionTimeMs: number): RollupDelta {
  const columns = new StateColumns();
  const states: DeltaState[] = startsUs.map((startUs) => {
    const record = columns.newRecord();
    columns.addInvocation(record, 200, executionTimeMs);
    return {
      address: addressOf(startUs),
      kind: 'invocation',
      record,
      startUs,
      expireAtMs: EXPIRE_AT_MS,
    };
  });
  const project: ProjectDelta = {
    states,
    logs: [],
    sources: new Map(),
    hosts: new Map(),
    admitted: new Map(),
    newestUs: Math.max(...startsUs),
  };
  return { projects: new Map([[PROJECT, project]]), events: startsUs.length, columns };
}

/** A store of parts by address, which counts what it is asked. */
class PartsStore {
  readonly asked: string[][] = [];
  readonly #stored: ReadonlyMap<string, string>;

  constructor(stored: ReadonlyMap<string, string> = new Map()) {
    this.#stored = stored;
  }

  readParts(parts: readonly PartRef[], _stream: string): Promise<(Uint8Array | null)[]> {
    this.asked.push(parts.map(({ key }) => key));
    return Promise.resolve(parts.map(({ key }) => {
      const text = this.#stored.get(key);
      return text === undefined ? null : new TextEncoder().encode(text);
    }));
  }
}

function setUp(reachUs: number, stored?: ReadonlyMap<string, string>) {
  const store = new PartsStore(stored);
  const cache = new ProjectCache({ stream: STREAM, limit: 1_000, nowUs: () => NOW_US });
  cache.add(PROJECT, knownProject(0, reachUs, NOW_US, 0));
  const merger = new PartMerger({
    store,
    stream: STREAM,
    cache,
    nowUs: () => NOW_US,
  });
  return { store, cache, merger };
}

function writesOf(merged: Map<string, ProjectWrites>): ProjectWrites {
  const writes = merged.get(PROJECT);
  if (writes === undefined) throw new Error('no writes for the project');
  return writes;
}

function textOf(...times: number[]): string {
  const state = invocationStats.empty();
  for (const time of times) invocationStats.add(state, invocation(time));
  return invocationStats.serialize(state);
}

describe('merging a delta into the parts', () => {
  test('a part the cache lacks is read once; a flush whose parts are all cached reads nothing', async () => {
    const { store, merger } = setUp(Number.POSITIVE_INFINITY);
    const first = writesOf(await merger.merge(deltaOf([NOW_US], 1)));
    expect(store.asked).toEqual([[addressOf(NOW_US)]]);
    expect(first.parts.map(({ value }) => value)).toEqual([textOf(1)]);
    expect(first.newParts).toEqual([]);
    const second = writesOf(await merger.merge(deltaOf([NOW_US], 2)));
    expect(store.asked).toHaveLength(1);
    expect(second.parts.map(({ value }) => value)).toEqual([textOf(1, 2)]);
    expect(second.newParts).toEqual([]);
  });

  test("a bucket starting after the stream's reach is new without a read, and written as new", async () => {
    const { store, merger } = setUp(NOW_US - 1);
    const writes = writesOf(await merger.merge(deltaOf([NOW_US], 3)));
    expect(store.asked).toEqual([]);
    expect(writes.parts).toEqual([]);
    expect(writes.newParts).toEqual([
      { key: addressOf(NOW_US), value: textOf(3), expireAtMs: EXPIRE_AT_MS },
    ]);
  });

  test("a bucket starting at the stream's reach may hold a part: it is read and merged into", async () => {
    const stored = new Map([[addressOf(NOW_US), textOf(7)]]);
    const { store, merger } = setUp(NOW_US, stored);
    const writes = writesOf(await merger.merge(deltaOf([NOW_US], 3)));
    expect(store.asked).toEqual([[addressOf(NOW_US)]]);
    expect(writes.parts.map(({ value }) => value)).toEqual([textOf(7, 3)]);
    expect(writes.newParts).toEqual([]);
  });

  test('a part read from the store, or new, keeps its expiry in the cache', async () => {
    const stored = new Map([[addressOf(NOW_US), textOf(7)]]);
    const { cache, merger } = setUp(Number.POSITIVE_INFINITY, stored);
    await merger.merge(deltaOf([NOW_US, NOW_US + MINUTE_US], 3));
    const { parts } = cache.known(PROJECT);
    for (const address of [addressOf(NOW_US), addressOf(NOW_US + MINUTE_US)]) {
      const record = parts.get(address);
      expect(record).toBeTypeOf('number');
      expect(cache.columns.expiryOf(record ?? -1)).toBe(EXPIRE_AT_MS);
    }
  });

  test("a project's parts are kept least recently written first", async () => {
    const { cache, merger } = setUp(Number.POSITIVE_INFINITY);
    const minutes = [NOW_US - 2 * MINUTE_US, NOW_US - MINUTE_US, NOW_US];
    await merger.merge(deltaOf(minutes, 1));
    await merger.merge(deltaOf([minutes[0] as number], 2));
    expect([...cache.known(PROJECT).parts.keys()]).toEqual([
      addressOf(NOW_US - MINUTE_US),
      addressOf(NOW_US),
      addressOf(NOW_US - 2 * MINUTE_US),
    ]);
  });
});
