/**
 * What a failover test checks once the consumers have settled, beyond the answers of the three
 * endpoints: the host registry, every ring buffer and every admitted-key set, each against what
 * the events make of it. Each check answers the differences it found (empty: exact), so a test
 * can print how much a failover lost before asserting.
 *
 * @module
 */
import type { EndpointName } from '../../src/contract/registry.ts';
import { readRegistry } from '../../src/endpoints/read/hosts.ts';
import { answerEndpoint } from '../../src/endpoints/registry.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { admissionDay } from '../../src/rollup/admission.ts';
import { recentLogsKey } from '../../src/rollup/keys.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import type { RollupStore } from '../../src/store/port.ts';
import { foldThroughWriters, queriesFor } from '../rollup/fold-and-read.ts';
import { expectSameAnswer } from '../support/answers.ts';
import { clusterClient, type StoreTarget } from '../support/store-target.ts';

/** The queries whose answer from `store` is not the reference's over `events`. */
export async function answerDifferences(
  store: RollupStore,
  events: readonly LogEvent[],
  nowUs: number,
  queries: readonly (readonly [EndpointName, string])[],
): Promise<string[]> {
  const context = { store, nowUs, maxFutureSkewUs: 5 * 60_000_000 };
  const differences: string[] = [];
  for (const [name, query] of queries) {
    const expected = evaluateEndpoint(name, events, new URLSearchParams(query), nowUs);
    const actual = await answerEndpoint(name, new URLSearchParams(query), context);
    try {
      if (!actual.ok || !expected.ok) {
        if (actual.ok !== expected.ok) throw new Error('one answer is an error');
      } else expectSameAnswer(name, actual.rows, expected.rows, `${name}?${query}`);
    } catch {
      differences.push(`${name}?${query}`);
    }
  }
  return differences;
}

/** The registry the events make: `project host` to the newest request's time (µs). */
async function expectedRegistry(events: readonly LogEvent[], nowUs: number) {
  const reference = new MemoryStore({ nowMs: () => nowUs / 1000 });
  await foldThroughWriters(reference, events, nowUs);
  return registryOf(reference);
}

async function registryOf(store: RollupStore): Promise<Map<string, number>> {
  const entries = await readRegistry(store, 0);
  return new Map(entries.map((entry) => [`${entry.project} ${entry.host}`, entry.newestUs]));
}

/** Registry entries missing, or whose newest time differs from the events'. */
export async function registryDifferences(
  store: RollupStore,
  events: readonly LogEvent[],
  nowUs: number,
): Promise<string[]> {
  const expected = await expectedRegistry(events, nowUs);
  const stored = await registryOf(store);
  const differences: string[] = [];
  for (const [pair, newestUs] of expected) {
    const found = stored.get(pair);
    if (found !== newestUs) differences.push(`${pair}: ${found ?? 'missing'}, not ${newestUs}`);
  }
  for (const pair of stored.keys()) {
    if (!expected.has(pair)) differences.push(`${pair}: registered, not in the events`);
  }
  return differences;
}

/** Cluster access for direct reads of what no endpoint reads whole. */
async function withCluster<T>(
  target: StoreTarget,
  work: (cluster: ReturnType<typeof clusterClient>) => Promise<T>,
): Promise<T> {
  if (target.kind !== 'redis-cluster') throw new Error('a Redis Cluster target is expected');
  const cluster = await clusterClient(target.nodes, target.access).connect();
  try {
    return await work(cluster);
  } finally {
    await cluster.close();
  }
}

/** Projects whose ring buffer does not hold one entry per edge event of theirs. */
export function ringBufferDifferences(
  target: StoreTarget,
  events: readonly LogEvent[],
): Promise<string[]> {
  const expected = new Map<string, number>();
  for (const event of events) {
    if (event.source === 'edge') {
      expected.set(event.project, (expected.get(event.project) ?? 0) + 1);
    }
  }
  return withCluster(target, async (cluster) => {
    const differences: string[] = [];
    for (const [project, count] of expected) {
      const stored = await cluster.zCard(recentLogsKey(project));
      if (stored !== count) differences.push(`${project}: ${stored} entries, not ${count}`);
    }
    return differences;
  });
}

/**
 * (project, day) pairs whose admitted keys, over every stream, are not the function ids and
 * request hosts its events name.
 */
export function admittedDifferences(
  target: StoreTarget,
  events: readonly LogEvent[],
): Promise<string[]> {
  const expected = new Map<string, Set<string>>();
  for (const event of events) {
    if (event.source === 'logflare') continue;
    const names = event.source === 'edge'
      ? event.requests.flatMap(({ host }) => host === null ? [] : [`h${host}`])
      : event.invocations.flatMap(({ functionId }) =>
        functionId === null ? [] : [`f${functionId}`]
      );
    if (names.length === 0) continue;
    const day = `${event.project} ${admissionDay(event) / 1_000_000}`;
    const set = expected.get(day) ?? new Set();
    for (const name of names) set.add(name);
    expected.set(day, set);
  }
  return withCluster(target, async (cluster) => {
    const stored = new Map<string, Set<string>>();
    for (const master of cluster.masters) {
      const client = await cluster.nodeClient(master);
      for await (const keys of client.scanIterator({ MATCH: 'rollup:*:admitted:*', COUNT: 500 })) {
        for (const key of keys) {
          const match = /^rollup:\{([^}]*)\}:admitted:.*:(\d+)$/.exec(key);
          if (match === null) continue;
          const day = `${decodeURIComponent(match[1] ?? '')} ${match[2]}`;
          const set = stored.get(day) ?? new Set();
          for (const member of await client.zRange(key, 0, -1)) set.add(member);
          stored.set(day, set);
        }
      }
    }
    const differences: string[] = [];
    for (const [day, names] of expected) {
      const found = stored.get(day) ?? new Set<string>();
      const missing = [...names].filter((name) => !found.has(name));
      if (missing.length > 0) differences.push(`${day}: ${missing.length} keys missing`);
    }
    return differences;
  });
}

/**
 * The queries of {@link queriesFor}, and `logs.all` of every project with edge events (its
 * rows are read from the project's ring buffer), so that no project escapes the comparison.
 */
export function failoverQueries(
  events: readonly LogEvent[],
  nowUs: number,
): [EndpointName, string][] {
  const edgeProjects = new Set(
    events.flatMap((event) => event.source === 'edge' ? [event.project] : []),
  );
  return [
    ...queriesFor(events, nowUs),
    ...[...edgeProjects].map((project): [EndpointName, string] => [
      'logs.all',
      `project=${project}&project_tier=ENTERPRISE`,
    ]),
  ];
}
