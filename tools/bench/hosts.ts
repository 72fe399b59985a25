/**
 * The host registry view of an API process with a million registered hosts (`npm run
 * bench:hosts -- [--hosts 1000000]`): its memory, and what each of its operations costs.
 *
 * Method: HOSTS entries (one `<20-letter ref>.supabase.co` host per project, newest requests
 * spread over the last 7 days) handed to a `HostCache` by an in-process reader that returns fresh
 * copies (a JSON round trip, standing in for the decoding of a store reply; the store's own work
 * for a ZRANGE of the registry is not part of this). Printed: the heap the view holds (after a forced GC), the first full read, a full
 * read that changes nothing, an incremental read that brings 1,000 new hosts while 10,000 project
 * refs are kept, the first request of a new ref (a scan of the view), a request of a kept ref,
 * and the first request of a regular expression. Then what issue 31 found costly: the explorer's
 * project list (the 200 newest projects), and a read right after a 1-event direct ingest, the
 * ingest's host handed to the view as the API does it (`note`; a checkout without it invalidates
 * the view, as its API did after every direct ingest), with the registry reads each takes.
 *
 *   npm run bench:hosts -- --checkout /work/before   # the HostCache of another checkout
 *
 * @module
 */
import { toolArgs } from '../tool-args.ts';
import type { HostCache as HostCacheOfThis } from '../../api/answer/host-cache.ts';
import { compileHostPattern, type HostPattern } from '../../src/contract/params/api-counts.ts';
import type { ReadContext } from '../../src/endpoints/read/context.ts';
import type { RegisteredHost } from '../../src/rollup/keys.ts';
import { MemoryStore } from '../../src/store/memory.ts';
import { Random } from '../../src/synthetic/random.ts';
import { environment } from './measure.ts';

const { values } = toolArgs(import.meta.url, {
  options: { hosts: { type: 'string', default: '1000000' }, checkout: { type: 'string' } },
});
const root = values.checkout === undefined ? '../..' : values.checkout;
/** This checkout's HostCache, or another's (to compare): the same constructor and methods. */
const { HostCache } = await import(`${root}/api/answer/host-cache.ts`) as {
  HostCache: typeof HostCacheOfThis;
};
/** The view's answer to a direct ingest: `note` where the checkout has it. */
type MaybeNoting = HostCacheOfThis & { note?: HostCacheOfThis['note'] };
const HOSTS = Number(values.hosts);
if (!Number.isInteger(HOSTS) || HOSTS < 10_000) {
  console.error('--hosts must be an integer of at least 10000');
  process.exit(2);
}
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  console.error('run with node --expose-gc (npm run bench:hosts does)');
  process.exit(2);
}

const DAY_US = 86_400_000_000;
/** Seeded, so every run registers the same hosts. */
const random = new Random(20261123);
function ref(): string {
  let text = '';
  for (let i = 0; i < 20; i++) text += String.fromCharCode(97 + random.int(26));
  return text;
}
function compiled(source: string): HostPattern {
  const result = compileHostPattern(source);
  if (!result.ok) throw new Error(result.error.message);
  return result.params;
}

let nowMs = Date.now();
const registry: RegisteredHost[] = [];
for (let i = 0; i < HOSTS; i++) {
  const project = ref();
  registry.push({
    project,
    host: `${project}.supabase.co`,
    newestUs: nowMs * 1000 - Math.floor(random.next() * 7 * DAY_US),
  });
}
let reads = 0;
const cache = new HostCache({
  read: (sinceUs) => {
    reads += 1;
    // Fresh strings, as a read from the store gives: the view holds its own copies.
    return Promise.resolve(
      JSON.parse(
        JSON.stringify(registry.filter((entry) => entry.newestUs >= sinceUs)),
      ) as RegisteredHost[],
    );
  },
  nowMs: () => nowMs,
});
const context: ReadContext = {
  store: new MemoryStore({ nowMs: () => nowMs }),
  nowUs: nowMs * 1000,
  maxFutureSkewUs: 0,
};
const windowStart = () => nowMs * 1000 - 7 * DAY_US;
const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
};
const heapMiB = () => {
  gc();
  return process.memoryUsage().heapUsed / 1048576;
};

console.log(`host registry benchmark: ${environment()}; ${HOSTS} registered hosts`);
const before = heapMiB();
const known = registry[Math.floor(HOSTS / 2)]?.project ?? '';
const [, first] = await timed(() => cache.matching(compiled(known))(context, windowStart()));
const held = heapMiB();
console.log(
  `first request: full read of ${cache.size} hosts + scan for one ref: ${first.toFixed(0)} ms; ` +
    `the view holds ${(held - before).toFixed(1)} MiB of heap (${
      ((held - before) * 1048576 / HOSTS).toFixed(0)
    } B per host); RSS ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB`,
);

// 10,000 kept refs (the busiest projects' dashboards), each scanned once.
const keptRefs = registry.slice(0, 10_000).map((entry) => entry.project);
const [, keeping] = await timed(async () => {
  for (const project of keptRefs) await cache.matching(compiled(project))(context, windowStart());
});
console.log(
  `10,000 new refs, one request each: ${
    (keeping / 10_000).toFixed(1)
  } ms per ref (a scan of the view)`,
);
const [, repeat] = await timed(async () => {
  for (const project of keptRefs) await cache.matching(compiled(project))(context, windowStart());
});
console.log(`the same 10,000 refs again: ${(repeat / 10_000 * 1000).toFixed(1)} µs per request`);
console.log(`heap with 10,000 kept refs: ${(heapMiB() - before).toFixed(1)} MiB over the start`);

// One second later: 1,000 new hosts, read incrementally and routed to the kept refs.
for (let i = 0; i < 1_000; i++) {
  const project = i < 100 ? (keptRefs[i] ?? ref()) : ref();
  registry.push({
    project,
    host: `api-${i}.${project}.example.com`,
    newestUs: nowMs * 1000 + 1_000_000,
  });
}
nowMs += 1_000;
const readsBefore = reads;
const [routed, incremental] = await timed(() =>
  cache.matching(compiled(keptRefs[0] ?? ''))({ ...context, nowUs: nowMs * 1000 }, windowStart())
);
console.log(
  `incremental read of 1,000 new hosts, routed to 10,000 kept refs: ${incremental.toFixed(1)} ms ` +
    `(${reads - readsBefore} read; the first kept ref now matches ${routed.length} hosts)`,
);

// A minute later: the whole registry again, nothing new in it.
nowMs += 60_000;
const [, full] = await timed(() =>
  cache.matching(compiled(keptRefs[1] ?? ''))({ ...context, nowUs: nowMs * 1000 }, windowStart())
);
console.log(`full read that changes nothing (once a minute): ${full.toFixed(0)} ms`);

const [regexHits, regex] = await timed(() =>
  cache.matching(compiled('^zz[a-c]{3}'))({ ...context, nowUs: nowMs * 1000 }, windowStart())
);
console.log(
  `first request of a regular expression (^zz[a-c]{3}): ${
    regex.toFixed(0)
  } ms, ${regexHits.length} hosts`,
);
console.log(
  `RSS at the end ${(process.memoryUsage().rss / 1048576).toFixed(0)} MiB, heap ${
    (heapMiB() - before).toFixed(1)
  } MiB over the start`,
);

// Issue 31: the explorer's list of the 200 newest projects, 20 calls.
const listed: number[] = [];
for (let i = 0; i < 20; i++) listed.push((await timed(() => cache.projects(200)))[1]);
listed.sort((a, b) => a - b);
console.log(
  `explorer project list (200 newest of ${cache.size} hosts): median ${
    (listed[10] ?? 0).toFixed(2)
  } ms per call`,
);

// Issue 31: 20 rounds of a 1-event direct ingest (one new host of a kept ref) and a read.
const noting = cache as MaybeNoting;
const churnReads = reads;
const churn: number[] = [];
for (let i = 0; i < 20; i++) {
  const project = keptRefs[2] ?? '';
  const entry = { project, host: `churn-${i}.${project}.example.com`, newestUs: nowMs * 1000 };
  registry.push(entry);
  if (noting.note === undefined) cache.invalidate();
  else noting.note([entry]);
  const [found, took] = await timed(() =>
    cache.matching(compiled(project))({ ...context, nowUs: nowMs * 1000 }, windowStart())
  );
  if (found.length < i + 1) console.log(`round ${i}: the new host is missing`);
  churn.push(took);
}
churn.sort((a, b) => a - b);
console.log(
  `a 1-event direct ingest then a read, 20 rounds (${
    noting.note === undefined ? 'view invalidated' : 'host noted'
  }): median ${(churn[10] ?? 0).toFixed(2)} ms, worst ${(churn[19] ?? 0).toFixed(2)} ms; ${
    reads - churnReads
  } registry reads`,
);
