/**
 * The partition writer's resume offset and its checks, on the embedded store: where an open
 * resumes, what a flush does when another writer or a rolled-back store moved something between
 * two of its steps, and what verify() finds. The interleavings are made by running a step of
 * another actor just before one of the writer's store calls.
 */
import { describe, expect, test } from 'vitest';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { Fold } from '../../src/rollup/fold.ts';
import {
  LEGACY_OFFSETS_KEY,
  recentLogsKey,
  resumeKey,
  watermarkKey,
} from '../../src/rollup/keys.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import type { CommitResult, ProjectCommit } from '../../src/store/port.ts';
import {
  flushOne,
  invocationEvent,
  NOW_US,
  partitionWriter,
  PROJECT,
} from './partition-writer-fixtures.ts';

type Step = () => Promise<unknown>;
type Interleaved = 'readOffset' | 'advanceOffset' | 'readWatermarks' | 'commitProject';

/** The embedded store, with a step of another actor run once just before a chosen call. */
class InterleavedStore extends MemoryStore {
  readonly #before = new Map<Interleaved, Step>();

  constructor() {
    super({ nowMs: () => Math.floor(NOW_US / 1000) });
  }

  /** Runs `step` once, just before the next `method` call reaches the store. */
  before(method: Interleaved, step: Step): void {
    this.#before.set(method, step);
  }

  async #run(method: Interleaved): Promise<void> {
    const step = this.#before.get(method);
    this.#before.delete(method);
    await step?.();
  }

  override async readOffset(key: string): Promise<number | null> {
    await this.#run('readOffset');
    return super.readOffset(key);
  }

  override async advanceOffset(key: string, expected: number | null, next: number) {
    await this.#run('advanceOffset');
    return super.advanceOffset(key, expected, next);
  }

  override async readWatermarks(keys: readonly string[], stream: string) {
    await this.#run('readWatermarks');
    return super.readWatermarks(keys, stream);
  }

  override async commitProject(commit: ProjectCommit): Promise<CommitResult> {
    await this.#run('commitProject');
    return super.commitProject(commit);
  }
}

/** Flushes invocations of `projects` at offsets from..from+n-1 in one flush. */
async function flushMany(writer: PartitionWriter, projects: string[], from: number) {
  await writer.loadWatermarks(projects);
  const fold = new Fold(writer.stream);
  projects.forEach((project, i) => {
    fold.add(
      invocationEvent(`e${from + i}`, 5, project),
      from + i,
      NOW_US,
    );
  });
  await writer.flush(fold.take(), from + projects.length);
}

/** A writer that flushed one invocation of {@link PROJECT} at each offset 0..n-1. */
async function writerAfter(store: MemoryStore, stream: string, n: number) {
  const writer = partitionWriter(store, stream);
  expect(await writer.open()).toBe(0);
  for (let offset = 0; offset < n; offset++) {
    await flushOne(writer, invocationEvent(`e${offset}`, 10), offset);
  }
  return writer;
}

/** Rolls `project`'s watermark of `stream` back from `from` to `to`, as a lost shard would. */
async function rollBackWatermark(
  store: MemoryStore,
  stream: string,
  project: string,
  from: number,
  to: number,
) {
  const result = await store.commitProject({
    stream,
    watermark: { key: watermarkKey(project), expected: from, next: to, expireAtMs: 1e15 },
    parts: [],
    sortedSets: [],
  });
  expect(result).toEqual({ outcome: 'applied' });
}

describe('where an open resumes', () => {
  test("the earliest offset when nothing is stored, the stored resume offset, or the old layout's", async () => {
    const store = new InterleavedStore();
    const writer = (stream: string) =>
      new PartitionWriter({
        store,
        stream,
        nowUs: () => NOW_US,
        earliestOffset: () => Promise.resolve(7),
      });
    expect(await writer('s/0').open()).toBe(7);
    // Nothing is written by an open that lowers nothing.
    expect(await store.readOffset(resumeKey('s/0'))).toBeNull();
    expect(await store.advanceOffset(resumeKey('s/0'), null, 12)).toBe(true);
    expect(await writer('s/0').open()).toBe(12);
    // Version 0.1 kept one hash of every stream's next offset.
    await store.commitProject({
      stream: 's/1',
      watermark: { key: LEGACY_OFFSETS_KEY, expected: null, next: 5, expireAtMs: 1e15 },
      parts: [],
      sortedSets: [],
    });
    expect(await writer('s/1').open()).toBe(5);
  });

  test('a resume offset moved while an open lowers it: that open fails, the next lowers it', async () => {
    const store = new InterleavedStore();
    const writer = await writerAfter(store, 's/0', 3);
    writer.rewindTo(1);
    store.before('advanceOffset', () => store.advanceOffset(resumeKey('s/0'), 3, 4));
    await expect(writer.open()).rejects.toThrow(/the resume offset moved while reopening/);
    expect(await writer.open()).toBe(1);
    expect(await store.readOffset(resumeKey('s/0'))).toBe(1);
  });
});

describe('a flush that finds the store moved', () => {
  test('a project below the resume offset: refused, caches dropped, reopened no later than it', async () => {
    const store = new InterleavedStore();
    const writer = await writerAfter(store, 's/0', 3);
    await rollBackWatermark(store, 's/0', PROJECT, 3, 1);
    await expect(flushOne(writer, invocationEvent('d', 10), 3)).rejects.toThrow(
      /project writerprojectref0000 holds offset 1 from it, not 3/,
    );
    expect(writer.cached).toEqual({ projects: 0, parts: 0 });
    await expect(flushOne(writer, invocationEvent('d', 10), 3)).rejects.toThrow(
      /open\(\) the writer before flushing/,
    );
    expect(await writer.open()).toBe(1);
  });

  test('a project that lost commits while the caches were dropped (a failover): the next open finds it', async () => {
    const store = new InterleavedStore();
    const writer = await writerAfter(store, 's/0', 3);
    // A flush fails (the master is away): the caches go, the resume offset stays at 3.
    store.before('commitProject', () => Promise.reject(new Error('The client is offline')));
    await expect(flushOne(writer, invocationEvent('d', 10), 3)).rejects.toThrow(/offline/);
    expect(writer.cached).toEqual({ projects: 0, parts: 0 });
    // The promoted replica never had the last two commits of the project.
    await rollBackWatermark(store, 's/0', PROJECT, 3, 1);
    await expect(writer.open()).rejects.toThrow(
      /project writerprojectref0000 holds offset 1 from it, not 3/,
    );
    expect(await writer.open()).toBe(1);
    expect(await store.readOffset(resumeKey('s/0'))).toBe(1);
  });

  test('a project that lost commits, found by the check of an idle partition', async () => {
    const store = new InterleavedStore();
    const writer = await writerAfter(store, 's/0', 3);
    await rollBackWatermark(store, 's/0', PROJECT, 3, 2);
    expect(await writer.verify()).toEqual({
      consistent: false,
      reason: 'project writerprojectref0000 holds offset 2 from it, not 3',
    });
    expect(await writer.open()).toBe(2);
  });

  test('the resume offset moved between its read and the commits: nothing is committed', async () => {
    const store = new InterleavedStore();
    const writer = await writerAfter(store, 's/0', 1);
    // Another owner of the stream folds offset 1 (a project of its own) meanwhile.
    store.before('commitProject', async () => {
      const other = partitionWriter(store, 's/0');
      expect(await other.open()).toBe(1);
      await flushOne(other, invocationEvent('other', 10, 'otherprojectref00000'), 1);
    });
    await expect(flushOne(writer, invocationEvent('b', 10), 1)).rejects.toThrow(
      /the resume offset is 2, not 1/,
    );
    expect(await store.readWatermarks([watermarkKey(PROJECT)], 's/0')).toEqual([1]);
    expect(await writer.open()).toBe(2);
  });

  test('the resume offset rolled back between the commits and its advance: the flush fails, the next open starts no later', async () => {
    const store = new InterleavedStore();
    const writer = await writerAfter(store, 's/0', 1);
    store.before('advanceOffset', () => store.advanceOffset(resumeKey('s/0'), 1, 0));
    await expect(flushOne(writer, invocationEvent('b', 10), 1)).rejects.toThrow(
      /the resume offset is 0, not 1/,
    );
    // Even where the offset moved on again before the open.
    expect(await store.advanceOffset(resumeKey('s/0'), 0, 5)).toBe(true);
    expect(await writer.open()).toBe(0);
  });
});

describe('verify()', () => {
  test('a resume offset rolled back is found; the next open starts no later than it', async () => {
    const store = new InterleavedStore();
    const writer = await writerAfter(store, 's/0', 3);
    expect(await store.advanceOffset(resumeKey('s/0'), 3, 1)).toBe(true);
    expect(await writer.verify()).toEqual({
      consistent: false,
      reason: 'resume offset is 1, not 3',
    });
    // Even where the offset moved on again before the open.
    expect(await store.advanceOffset(resumeKey('s/0'), 1, 5)).toBe(true);
    expect(await writer.open()).toBe(1);
  });

  test('a flush that lands while it reads is no difference', async () => {
    const store = new InterleavedStore();
    const writer = await writerAfter(store, 's/0', 3);
    store.before('readOffset', () => flushOne(writer, invocationEvent('d', 10), 3));
    expect(await writer.verify()).toEqual({ consistent: true });
    expect(writer.offset).toBe(4);
    store.before('readWatermarks', () => flushOne(writer, invocationEvent('e', 10), 4));
    expect(await writer.verify()).toEqual({ consistent: true });
    expect(writer.watermark(PROJECT)).toBe(5);
  });

  test('each call checks the next slice of the projects it knows', async () => {
    const store = new InterleavedStore();
    const writer = partitionWriter(store, 's/0');
    await writer.open();
    const projects = ['sliceprojectref00001', 'sliceprojectref00002', 'sliceprojectref00003'];
    await flushMany(writer, projects, 0);
    await rollBackWatermark(store, 's/0', 'sliceprojectref00002', 3, 1);
    expect(await writer.verify(1)).toEqual({ consistent: true });
    expect(await writer.verify(1)).toEqual({
      consistent: false,
      reason: 'project sliceprojectref00002 holds offset 1 from it, not 3',
    });
  });
});

describe('what a flush keeps', () => {
  const edgeEvent = (): LogEvent => {
    const result = parse(
      JSON.stringify({ id: 'edge', timestamp: NOW_US - 1, project: PROJECT, metadata: [] }),
      'edge',
      { nowUs: NOW_US },
    );
    if (!result.ok) throw new Error(result.rejection.reason);
    return result.event;
  };

  test("a project's recent logs expire 90 days and 2 minutes after its last write", async () => {
    let nowMs = Math.floor(NOW_US / 1000);
    const store = new MemoryStore({ nowMs: () => nowMs });
    const writer = partitionWriter(store, 's/0');
    await writer.open();
    await flushOne(writer, edgeEvent(), 0);
    const expireAtMs = Math.floor((NOW_US + (90 * 86_400 + 120) * 1_000_000) / 1000);
    const kept = async () => (await store.membersSince(recentLogsKey(PROJECT), 0)).length;
    nowMs = expireAtMs - 1;
    expect(await kept()).toBe(1);
    nowMs = expireAtMs;
    expect(await kept()).toBe(0);
  });

  test('over its cache limit, it forgets the least recently committed project first', async () => {
    const store = new InterleavedStore();
    const writer = new PartitionWriter({
      store,
      stream: 's/0',
      nowUs: () => NOW_US,
      earliestOffset: () => Promise.resolve(0),
      cacheLimit: 2,
    });
    await writer.open();
    const [a, b, c] = ['lruprojectref0000001', 'lruprojectref0000002', 'lruprojectref0000003'];
    await flushMany(writer, [a, b], 0);
    await flushMany(writer, [a], 2);
    await flushMany(writer, [c], 3);
    expect([a, b, c].map((project) => writer.watermark(project))).toEqual([3, undefined, 4]);
  });
});
