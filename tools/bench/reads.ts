/**
 * Benchmark of one read's CPU in process, without HTTP: `functions.invocation-stats` `5min` (or
 * `logs.all` `project_tier=PRO`) for the 50 busiest generated projects, answered from Redis as
 * the API answers it (its body as UTF-8 bytes, the ETag aside), with the CPU it costs this
 * process and Redis per answer.
 *
 *   npm run bench:reads                   # answers one at a time
 *   npm run bench:reads -- --concurrent 50
 *   npm run bench:reads -- --endpoint logs.all
 *
 * Method: 1,000,000 generated events (seed 20261121, last hour, 1000 projects, Zipf), folded into
 * database 13 of the Redis of `REDIS_URL` (emptied first and after) by HTTP ingest's writer at a
 * fixed now; then, in a fresh process, 3 rounds of 40 answers per project at now + 100 s,
 * `--concurrent` at a time; that process's CPU from
 * `process.cpuUsage`, Redis's from `INFO cpu`. Beside `bench:api`, which adds HTTP and shares the
 * two cores with the load generator, it shows what a read itself costs.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createClient } from 'redis';
import { RESULT_FRAME } from '../../api/answer/answer.ts';
import { answerEndpointJson } from '../../src/endpoints/registry.ts';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { DirectIngest } from '../../src/rollup/direct-ingest.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { environment } from './measure.ts';
import { REDIS_URL } from '../services/redis.ts';

/** The Redis of `REDIS_URL` (default: `npm run services:up`'s), always its database 13, which it empties. */
const URL = (() => {
  const url = new globalThis.URL(process.env['REDIS_URL'] ?? REDIS_URL);
  url.pathname = '/13';
  return url.toString();
})();
const EVENTS = 1_000_000;
const ROUNDS = 3;
const ANSWERS_PER_PROJECT = 40;

const { values } = parseArgs({
  options: {
    concurrent: { type: 'string', default: '1' },
    endpoint: { type: 'string', default: 'functions.invocation-stats' },
    // Internal: the measuring child's now and projects (see the end of this file).
    measure: { type: 'string' },
  },
});
const READS = {
  'functions.invocation-stats': { source: 'function-edge', query: 'interval=5min' },
  'logs.all': { source: 'edge', query: 'project_tier=PRO' },
} as const;
const endpoint = values.endpoint;
if (endpoint !== 'functions.invocation-stats' && endpoint !== 'logs.all') {
  throw new Error(
    `--endpoint must be functions.invocation-stats or logs.all, got ${values.endpoint}`,
  );
}
const read = READS[endpoint];
const concurrent = Number(values.concurrent);
if (!Number.isInteger(concurrent) || concurrent < 1) {
  throw new Error(`--concurrent must be a positive integer, got ${values.concurrent}`);
}

/**
 * Folds the generated events into the emptied database; the `now` they were folded at and the
 * busiest projects of the endpoint's source.
 */
async function load(): Promise<{ nowUs: number; projects: string[] }> {
  const client = await createClient({ url: URL }).connect();
  await client.flushDb();
  await client.close();
  const store = await RedisStore.connect(URL);
  const nowUs = Math.floor(Date.now() / 1000) * 1_000_000;
  const ingest = new DirectIngest({ store, nowUs: () => nowUs });
  const activity = new Map<string, number>();
  let batch: LogEvent[] = [];
  for (const { source, line } of generateEvents({ seed: 20261121, events: EVENTS, nowUs })) {
    const result = parse(line, source, { nowUs });
    if (!result.ok) continue;
    const { event } = result;
    if (event.source === read.source) {
      activity.set(event.project, (activity.get(event.project) ?? 0) + 1);
    }
    batch.push(event);
    if (batch.length === 2_000) {
      await ingest.fold(batch);
      batch = [];
    }
  }
  await ingest.fold(batch);
  await store.close();
  const projects = [...activity].sort((a, b) => b[1] - a[1]).slice(0, 50).map(([p]) => p);
  return { nowUs, projects };
}

// The reads are measured in a fresh process: one that has just folded a million events keeps
// collecting the fold's garbage for seconds (a mark-compact every ~200 answers), which made its
// reads cost it 30 to 60% more than they cost an API process.
if (values.measure === undefined) {
  let status = 1;
  try {
    const loaded = await load();
    const child = spawnSync(
      process.execPath,
      [
        ...process.execArgv,
        fileURLToPath(import.meta.url),
        ...process.argv.slice(2),
        '--measure',
        JSON.stringify(loaded),
      ],
      { stdio: 'inherit' },
    );
    if (child.error !== undefined) throw child.error;
    if (child.signal !== null) console.error(`the measuring process ended on ${child.signal}`);
    status = child.status ?? 1;
  } finally {
    const client = await createClient({ url: URL }).connect();
    await client.flushDb();
    await client.close();
  }
  process.exit(status);
}
const { nowUs, projects } = JSON.parse(values.measure) as { nowUs: number; projects: string[] };
const client = await createClient({ url: URL }).connect();
const store = await RedisStore.connect(URL);
const context = { store, nowUs: nowUs + 100_000_000, maxFutureSkewUs: 5 * 60_000_000 };
/** The answer's body, as the API sends it (its ETag aside): text is encoded. */
const answer = async (project: string) => {
  const params = new URLSearchParams(`project=${project}&${read.query}`);
  const result = await answerEndpointJson(endpoint, params, context, { frame: RESULT_FRAME });
  if (!result.ok) throw new Error(`${endpoint} refused project=${project}`);
  return result.json;
};
async function redisCpuUs(): Promise<number> {
  const info = await client.info('cpu');
  const seconds = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (seconds('used_cpu_sys') + seconds('used_cpu_user')) * 1e6;
}

let rows = 0;
let bytes = 0;
for (const project of projects) {
  const body = await answer(project);
  bytes += body.length;
  const { result } = JSON.parse(new TextDecoder().decode(body)) as { result: { count?: number }[] };
  rows += result.filter((r) => r.count !== 0).length;
}
console.log(`read benchmark: ${environment()}`);
console.log(
  `method: ${EVENTS} events in Redis (${URL}); ${endpoint} ${read.query} of the ` +
    `${projects.length} busiest projects at now + 100 s: ${rows} non-empty rows, ` +
    `${
      bytes.toLocaleString('en-US')
    } bytes of bodies (each encoded as the API sends it); ${ROUNDS} rounds of ${ANSWERS_PER_PROJECT} answers ` +
    `per project, ${concurrent} at a time; CPU from process.cpuUsage and Redis's INFO cpu`,
);
for (let round = 0; round < ROUNDS; round++) {
  const redisBefore = await redisCpuUs();
  const before = process.cpuUsage();
  for (let i = 0; i < ANSWERS_PER_PROJECT; i++) {
    for (let j = 0; j < projects.length; j += concurrent) {
      await Promise.all(projects.slice(j, j + concurrent).map(answer));
    }
  }
  const used = process.cpuUsage(before);
  const redisUsed = (await redisCpuUs()) - redisBefore;
  const answers = ANSWERS_PER_PROJECT * projects.length;
  console.log(
    `round ${round + 1}: ${Math.round((used.user + used.system) / answers)} µs of this ` +
      `process's CPU and ${Math.round(redisUsed / answers)} µs of Redis CPU per answer`,
  );
}
await client.close();
await store.close();
