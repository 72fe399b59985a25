/**
 * The fold-and-read suite every store adapter passes: a generated stream (late and invalid
 * events included) is parsed, folded and flushed through partition writers into the store, and
 * every endpoint, interval and tier read back from the rollups must equal the reference
 * evaluator over the same valid events.
 *
 * @module
 */
import { memberText } from '../../src/store/member-text.ts';
import { partTexts } from '../support/stored-parts.ts';
import { beforeAll, describe, expect, test } from 'vitest';
import { answerEndpoint, answerEndpointJson } from '../../src/endpoints/registry.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import type { ReadContext } from '../../src/endpoints/read/context.ts';
import type { EndpointName } from '../../src/contract/registry.ts';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { Fold } from '../../src/rollup/fold.ts';
import { PartitionWriter } from '../../src/rollup/partition-writer.ts';
import { perSecondKeySuffix, projectPrefix, recentLogsKey } from '../../src/rollup/keys.ts';
import { STATE_FORMATS } from '../../src/rollup/state-format.ts';
import type {
  PartRef,
  ProjectCommit,
  RollupStore,
  SortedSetWrite,
  StateWrite,
  WrittenMember,
} from '../../src/store/port.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { formatTimestamp } from '../../src/time/timestamp.ts';
import { expectSameAnswer } from '../support/answers.ts';
import type { UnreadableReporter, UnreadableState } from '../../src/rollup/unreadable.ts';
import { legacyJson } from './legacy-states.ts';

const MINUTE_US = 60_000_000;
const DAY_US = 1_440 * MINUTE_US;
const MAX_FUTURE_SKEW_US = 5 * MINUTE_US;

/** Queries that cover every interval, tier, fallback and pattern kind for the given events. */
export function queriesFor(events: readonly LogEvent[], nowUs: number): [EndpointName, string][] {
  const invocationsByProject = new Map<string, Map<string, number>>();
  const edgeCounts = new Map<string, number>();
  for (const event of events) {
    if (event.source === 'edge') {
      edgeCounts.set(event.project, (edgeCounts.get(event.project) ?? 0) + 1);
      continue;
    }
    if (event.source === 'logflare') continue;
    for (const invocation of event.invocations) {
      const functions = invocationsByProject.get(invocation.projectRef) ?? new Map();
      const key = invocation.functionId ?? '';
      functions.set(key, (functions.get(key) ?? 0) + 1);
      invocationsByProject.set(invocation.projectRef, functions);
    }
  }
  const byActivity = <K, V>(map: Map<K, V>, size: (value: V) => number): K[] =>
    [...map.entries()].sort((a, b) => size(b[1]) - size(a[1])).map(([key]) => key);
  const functionProjects = byActivity(invocationsByProject, (functions) => functions.size);
  const edgeProjects = byActivity(edgeCounts, (count) => count);
  const pick = <T>(list: T[]) => [...list.slice(0, 3), ...list.slice(-2)];

  const queries: [EndpointName, string][] = [];
  const intervals = ['5min', '15min', '1hr', '1day', '7day', 'fortnight'];
  for (const project of [...pick(functionProjects), 'nonexistentprojectref']) {
    const functions = [...(invocationsByProject.get(project)?.entries() ?? [])]
      .sort((a, b) => b[1] - a[1]).map(([id]) => id).filter((id) => id !== '').slice(0, 2);
    for (const interval of intervals) {
      queries.push(['functions.invocation-stats', `project=${project}&interval=${interval}`]);
      for (const fn of functions) {
        queries.push([
          'functions.invocation-stats',
          `project=${project}&interval=${interval}&function_id=${encodeURIComponent(fn)}`,
        ]);
      }
    }
  }
  const iso = (us: number) => encodeURIComponent(formatTimestamp(us));
  for (const project of [...pick(edgeProjects), 'nonexistentprojectref']) {
    for (const tier of ['FREE', 'PRO', 'PAYG', 'ENTERPRISE', 'TEAM']) {
      queries.push(['logs.all', `project=${project}&project_tier=${tier}`]);
    }
    queries.push([
      'logs.all',
      `project=${project}&project_tier=PRO&iso_timestamp_start=${iso(nowUs - 2 * DAY_US)}` +
      `&iso_timestamp_end=${iso(nowUs - 3 * 60 * MINUTE_US)}`,
    ]);
    queries.push([
      'logs.all',
      `project=${project}&project_tier=PAYG&iso_timestamp_start=${iso(nowUs - 20 * MINUTE_US)}`,
    ]);
    // Studio's 1hr and 7day are the same table entries as minutely and daily; its 1day is not.
    for (const interval of ['minutely', 'hourly', 'daily', '1day']) {
      queries.push(['usage.api-counts', `project=${project}&interval=${interval}`]);
      queries.push([
        'usage.api-counts',
        `project=${encodeURIComponent(`^${project}\\.`)}&interval=${interval}`,
      ]);
      queries.push(['usage.api-counts', `project=${project.slice(0, 2)}&interval=${interval}`]);
    }
  }
  for (const interval of ['minutely', 'hourly', 'daily', '1day']) {
    queries.push(['usage.api-counts', `project=supabase&interval=${interval}`]);
  }
  return queries;
}

/**
 * Asserts that every query answered from `store` equals the reference over `events`, and, with
 * `nonEmptyAbove`, that more than that many queries had data (so the comparison is not vacuous).
 * Answers how many had data. `queries` defaults to {@link queriesFor} the events; a stored state
 * the readers cannot read goes to `onUnreadable`.
 */
export async function expectStoreMatchesReference(
  store: RollupStore,
  events: readonly LogEvent[],
  nowUs: number,
  nonEmptyAbove?: number,
  queries: readonly (readonly [EndpointName, string])[] = queriesFor(events, nowUs),
  onUnreadable?: UnreadableReporter,
): Promise<number> {
  const context: ReadContext = {
    store,
    nowUs,
    maxFutureSkewUs: MAX_FUTURE_SKEW_US,
    ...(onUnreadable === undefined ? {} : { onUnreadable }),
  };
  let nonEmpty = 0;
  for (const [name, query] of queries) {
    const expected = evaluateEndpoint(name, events, new URLSearchParams(query), nowUs);
    const actual = await answerEndpoint(name, new URLSearchParams(query), context);
    expect(actual.ok, `${name}?${query}`).toBe(expected.ok);
    // What the HTTP API sends: the same rows, as JSON text or bytes built without serializing them.
    const sent = await answerEndpointJson(name, new URLSearchParams(query), context);
    const sentText = sent.ok && new TextDecoder().decode(sent.json);
    expect(sentText === false ? false : JSON.parse(sentText), `${name}?${query}`)
      .toEqual(actual.ok && actual.rows);
    if (actual.ok && expected.ok) {
      expectSameAnswer(name, actual.rows, expected.rows, `${name}?${query}`);
      if (expected.rows.some((row) => !('count' in row) || row.count > 0)) nonEmpty += 1;
    }
  }
  if (nonEmptyAbove !== undefined) expect(nonEmpty).toBeGreaterThan(nonEmptyAbove);
  return nonEmpty;
}

/** A generated stream: parsed valid events and the raw lines, at a fixed `nowUs`. */
export interface Stream {
  readonly nowUs: number;
  readonly lines: { source: 'edge' | 'function-edge'; line: string }[];
  readonly events: LogEvent[];
}

/**
 * Two generated streams over different projects: 8 days of history and the last 10 minutes,
 * with 5% late and 1% invalid events, so that every grain holds data.
 */
export function generatedStream(nowUs: number, eventsPerStream = 6_000): Stream {
  const lines = [
    ...generateEvents({
      seed: 11,
      events: eventsPerStream,
      nowUs,
      spanUs: 8 * DAY_US,
      outOfOrder: 0.05,
      invalid: 0.01,
      projects: 40,
    }),
    ...generateEvents({
      seed: 12,
      events: eventsPerStream,
      nowUs,
      spanUs: 10 * MINUTE_US,
      outOfOrder: 0.05,
      invalid: 0.01,
      projects: 40,
    }),
  ];
  return { nowUs, lines, events: validEvents(lines, nowUs) };
}

/** The valid events among `lines`, parsed at `nowUs`. */
export function validEvents(lines: Stream['lines'], nowUs: number): LogEvent[] {
  const events: LogEvent[] = [];
  for (const { source, line } of lines) {
    const result = parse(line, source, { nowUs, maxFutureSkewUs: MAX_FUTURE_SKEW_US });
    if (result.ok) events.push(result.event);
  }
  return events;
}

/**
 * How events find their stream: by project (a producer that keys by project), or at random (one
 * that does not key, so every stream writes every project).
 */
export type Routing = 'by-project' | 'random';

function byProject(project: string, streams: number): number {
  let hash = 0;
  for (const char of project) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % streams;
}

/** A small seeded generator (mulberry32), so a failing run can be repeated. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * Folds `events` into `store` through partition writers, `streams` of them, flushing often;
 * `cacheLimit` bounds what each writer keeps between flushes (default: the writer's).
 */
export async function foldThroughWriters(
  store: RollupStore,
  events: readonly LogEvent[],
  nowUs: number,
  streams = 4,
  routing: Routing = 'by-project',
  cacheLimit?: number,
): Promise<void> {
  const random = seededRandom(7);
  const partitions = Array.from({ length: streams }, (_, i) => ({
    writer: new PartitionWriter({
      store,
      stream: `test/${i}`,
      nowUs: () => nowUs,
      ...(cacheLimit === undefined ? {} : { cacheLimit }),
    }),
    fold: new Fold(`test/${i}`),
    next: 0,
  }));
  // A stream written before goes on after its last offset, as a consumer resumes.
  for (const partition of partitions) partition.next = await partition.writer.open();
  for (const event of events) {
    const partition = partitions[
      routing === 'random' ? Math.floor(random() * streams) : byProject(event.project, streams)
    ];
    if (partition === undefined) throw new Error('no partition');
    await partition.writer.loadWatermarks([event.project]);
    partition.fold.add(event, partition.next, nowUs);
    partition.next += 1;
    if (partition.fold.size >= 500) {
      await partition.writer.flush(partition.fold.take(), partition.next);
    }
  }
  for (const partition of partitions) {
    if (partition.fold.size > 0) {
      await partition.writer.flush(partition.fold.take(), partition.next);
    }
  }
}

/** Where a second's part lived before the minute's hash of seconds: a key of its own. */
function ownKeyOfSecond(ref: PartRef): PartRef {
  const minute = /:S:(\d+)$/.exec(ref.key);
  if (ref.slot === undefined || minute === null) return ref;
  const secondUs = (Number(minute[1]) + Number(ref.slot)) * 1_000_000;
  return { key: `${ref.key.slice(0, minute.index)}:${perSecondKeySuffix(secondUs)}` };
}

/**
 * `store`, where the streams in `earlier` write and read their seconds as a version before the
 * minute's hash of seconds did: each second a key of its own (`perSecondKeySuffix`).
 */
function earlierVersionSeconds(store: RollupStore, earlier: ReadonlySet<string>): RollupStore {
  const moved = (write: StateWrite): StateWrite =>
    write.slot === undefined
      ? write
      : { ...ownKeyOfSecond(write), value: write.value, expireAtMs: write.expireAtMs };
  return new Proxy(store, {
    get(target, property) {
      if (property === 'commitProject') {
        return (commit: ProjectCommit) =>
          target.commitProject(
            earlier.has(commit.stream)
              ? {
                ...commit,
                parts: commit.parts.map(moved),
                newParts: (commit.newParts ?? []).map(moved),
              }
              : commit,
          );
      }
      if (property === 'readParts') {
        return (parts: readonly PartRef[], stream: string) =>
          target.readParts(earlier.has(stream) ? parts.map(ownKeyOfSecond) : parts, stream);
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** `store` as the version before the binary stored forms wrote it: every state as JSON text. */
function earlierVersionStates(store: RollupStore): RollupStore {
  const asJson = (write: StateWrite): StateWrite => ({
    ...write,
    value: legacyJson(memberText(write.value)),
  });
  return new Proxy(store, {
    get(target, property) {
      if (property === 'commitProject') {
        return (commit: ProjectCommit) =>
          target.commitProject({
            ...commit,
            parts: commit.parts.map(asJson),
            newParts: (commit.newParts ?? []).map(asJson),
          });
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * `store` as a writer of the version before the row form stored `logs.all` entries: the event's
 * text after the head. A row is such a text (an object with `id`, `event_message` and `metadata`),
 * so leaving out the format byte gives an entry of that version with the same row.
 */
function earlierVersionEntries(store: RollupStore): RollupStore {
  const asText = (written: WrittenMember): WrittenMember => {
    const { member } = written;
    if (typeof member === 'string') return written;
    const formatAt = member.lastIndexOf(0) + 1;
    if (formatAt === 0 || member[formatAt] !== STATE_FORMATS.recentLogRowV1) return written;
    const text = new Uint8Array(member.length - 1);
    text.set(member.subarray(0, formatAt));
    text.set(member.subarray(formatAt + 1), formatAt);
    return { ...written, member: text };
  };
  const withText = (write: SortedSetWrite): SortedSetWrite => ({
    ...write,
    members: write.members.map(asText),
  });
  return new Proxy(store, {
    get(target, property) {
      if (property === 'commitProject') {
        return (commit: ProjectCommit) =>
          target.commitProject({ ...commit, sortedSets: commit.sortedSets.map(withText) });
      }
      if (property === 'updateSortedSet') {
        return (write: SortedSetWrite) => target.updateSortedSet(withText(write));
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** `store`, with every part it reads also pushed to `read` as text (null where it has none). */
function recordingReads(store: RollupStore, read: (string | null)[]): RollupStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'readParts') {
        return async (parts: readonly PartRef[], stream: string) => {
          const values = await target.readParts(parts, stream);
          read.push(...partTexts(values));
          return values;
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** `store`, with every project commit also pushed to `commits` (as sent). */
function recordingCommits(store: RollupStore, commits: ProjectCommit[]): RollupStore {
  return new Proxy(store, {
    get(target, property) {
      if (property === 'commitProject') {
        return (commit: ProjectCommit) => {
          commits.push(commit);
          return target.commitProject(commit);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * Registers the suite for a store made by `open` (which may clear a shared server first): once
 * with events keyed by project, once with every stream writing every project.
 */
export function foldAndReadSuite(open: () => Promise<RollupStore>): void {
  describe('events keyed by project', () => keyedSuite(open));
  describe('events not keyed: every stream writes every project', () => {
    const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
    const stream = generatedStream(nowUs);
    let store: RollupStore;

    beforeAll(async () => {
      store = await open();
      await foldThroughWriters(store, stream.events, nowUs, 4, 'random');
    }, 120_000);

    test('every endpoint read from the rollups equals the reference', async () => {
      await expectStoreMatchesReference(store, stream.events, nowUs, 60);
    }, 120_000);
  });
  describe('an upgrade on live data: states stored as JSON by the version before, then folded into', () => {
    const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
    const stream = generatedStream(nowUs, 3_000);
    let store: RollupStore;
    const read: (string | null)[] = [];
    const commits: ProjectCommit[] = [];

    beforeAll(async () => {
      store = await open();
      // Every other event before the upgrade, so that the rest fall in the same buckets.
      const before = stream.events.filter((_, i) => i % 2 === 0);
      const after = stream.events.filter((_, i) => i % 2 === 1);
      await foldThroughWriters(earlierVersionStates(store), before, nowUs, 4, 'random');
      const upgraded = recordingCommits(recordingReads(store, read), commits);
      await foldThroughWriters(upgraded, after, nowUs, 4, 'random');
    }, 120_000);

    test('every endpoint read from old and new parts equals the reference', async () => {
      const unreadable: UnreadableState[] = [];
      await expectStoreMatchesReference(store, stream.events, nowUs, 60, undefined, (state) => {
        unreadable.push(state);
      });
      expect(unreadable).toEqual([]);
    }, 120_000);

    test('the new version read JSON parts, merged into them and wrote every part in its form', () => {
      const json = read.filter((value) => value !== null && /^[[{]/.test(value));
      expect(json.length).toBeGreaterThan(100);
      const written = commits.flatMap((commit) => [...commit.parts, ...(commit.newParts ?? [])]);
      expect(written.length).toBeGreaterThan(1_000);
      expect(written.filter((write) => /^[[{]/.test(memberText(write.value)))).toEqual([]);
    });
  });
  describe('an upgrade on live data: logs.all entries stored as text, then as rows', () => {
    const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
    const stream = generatedStream(nowUs, 3_000);
    let store: RollupStore;

    beforeAll(async () => {
      store = await open();
      // Every other event before the upgrade: each ring buffer holds entries of both forms.
      const before = stream.events.filter((_, i) => i % 2 === 0);
      const after = stream.events.filter((_, i) => i % 2 === 1);
      await foldThroughWriters(earlierVersionEntries(store), before, nowUs, 4, 'random');
      await foldThroughWriters(store, after, nowUs, 4, 'random');
    }, 120_000);

    test('every endpoint read from entries of both forms equals the reference', async () => {
      const unreadable: UnreadableState[] = [];
      await expectStoreMatchesReference(store, stream.events, nowUs, 60, undefined, (state) => {
        unreadable.push(state);
      });
      expect(unreadable).toEqual([]);
      // Both forms are there to be read.
      const forms = new Set<number>();
      for (const project of new Set(stream.events.map((event) => event.project))) {
        const members = await store.rangeByScore(recentLogsKey(project), {
          max: Number.POSITIVE_INFINITY,
          minExclusive: 0,
          limit: 1_000,
        });
        for (const member of members) forms.add(member[member.lastIndexOf(0) + 1] ?? -1);
      }
      expect([...forms].sort((a, b) => a - b)).toEqual([STATE_FORMATS.recentLogRowV1, 0x7b]);
    }, 120_000);
  });
  describe('half the streams write seconds as an earlier version did, one key per second', () => {
    const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
    const stream = generatedStream(nowUs, 3_000);
    let store: RollupStore;

    beforeAll(async () => {
      store = await open();
      const earlier = earlierVersionSeconds(store, new Set(['test/0', 'test/1']));
      await foldThroughWriters(earlier, stream.events, nowUs, 4, 'random');
    }, 120_000);

    test('every endpoint read from the rollups equals the reference', async () => {
      await expectStoreMatchesReference(store, stream.events, nowUs, 60);
    }, 120_000);
  });
  describe('writers that keep 40 parts and watermarks: evicted between flushes, read again', () => {
    const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
    const stream = generatedStream(nowUs, 2_000);
    let store: RollupStore;

    beforeAll(async () => {
      store = await open();
      await foldThroughWriters(store, stream.events, nowUs, 4, 'random', 40);
    }, 120_000);

    test('every endpoint read from the rollups equals the reference', async () => {
      await expectStoreMatchesReference(store, stream.events, nowUs, 60);
    }, 120_000);
  });
}

function keyedSuite(open: () => Promise<RollupStore>): void {
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
  const stream = generatedStream(nowUs);
  let store: RollupStore;

  beforeAll(async () => {
    store = await open();
    await foldThroughWriters(store, stream.events, nowUs);
  }, 120_000);

  test('every endpoint, interval and tier read from the rollups equals the reference', async () => {
    // The comparison must not be vacuous: most queries have data.
    await expectStoreMatchesReference(store, stream.events, nowUs, 60);
  }, 120_000);

  test('a zombie writer of a stream, or a replayed flush, changes nothing', async () => {
    // A recent invocation: it writes parts at every grain, so a replay applied would show.
    const first = stream.events.findLast((event) =>
      event.source === 'function-edge' && event.timestampUs > nowUs - 60_000_000
    );
    if (first === undefined) throw new Error('no events');
    const name = `test/${byProject(first.project, 4)}`;
    // The stream's new owner and an old one (a consumer that lost the partition) both read
    // the project's watermark, then both flush the next event.
    const sent = { owner: [] as ProjectCommit[], zombie: [] as ProjectCommit[] };
    const writer = (commits: ProjectCommit[]) =>
      new PartitionWriter({
        store: recordingCommits(store, commits),
        stream: name,
        nowUs: () => nowUs,
      });
    const owner = writer(sent.owner);
    const zombie = writer(sent.zombie);
    await owner.open();
    await zombie.open();
    await owner.loadWatermarks([first.project]);
    await zombie.loadWatermarks([first.project]);
    const next = owner.watermark(first.project);
    expect(next).toBeGreaterThan(0);
    const flushNext = async (writer: PartitionWriter) => {
      const fold = new Fold(name);
      fold.add(first, next ?? 0, nowUs);
      await writer.flush(fold.take(), (next ?? 0) + 1);
    };
    await flushNext(owner);
    await expect(flushNext(zombie)).rejects.toThrow(/holds offset/);
    // The zombie's flush, sent again as it was (a client retry): its parts hold the event on
    // top of the owner's, so applied it would count the event once more. Refused.
    const ofProject = (commits: ProjectCommit[]) =>
      commits.find((commit) => commit.watermark.key.includes(projectPrefix(first.project)));
    const replayed = ofProject(sent.zombie);
    if (replayed === undefined) throw new Error('the zombie sent no commit for the project');
    expect(replayed.parts.length).toBeGreaterThan(0);
    expect(replayed.parts).not.toEqual(ofProject(sent.owner)?.parts);
    expect(await store.commitProject(replayed)).toEqual({
      outcome: 'watermark-moved',
      stored: (next ?? 0) + 1,
    });
    const events = [...stream.events, first];
    await expectStoreMatchesReference(store, events, nowUs);
    // The event's own project, at every grain it was written to.
    const intervals = ['5min', '1hr', '1day', '7day'];
    const own = intervals.map((interval) =>
      ['functions.invocation-stats', `project=${first.project}&interval=${interval}`] as const
    );
    expect(await expectStoreMatchesReference(store, events, nowUs, 3, own)).toBe(4);
  }, 120_000);
}
