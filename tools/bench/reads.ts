/**
 * Benchmark of one read's CPU in process, without HTTP: `functions.invocation-stats` `5min` (or
 * `logs.all` `project_tier=PRO`) for the 50 busiest generated projects, answered from Redis as
 * the API answers it (its body as UTF-8 bytes and its ETag), with the CPU it costs this process
 * and Redis per answer.
 *
 *   npm run bench:reads                   # answers one at a time
 *   npm run bench:reads -- --concurrent 50
 *   npm run bench:reads -- --endpoint logs.all
 *   npm run bench:reads -- --replay      # Redis's replies recorded once, then replayed
 *   npm run bench:reads -- --replay --vs /tmp/before   # and another checkout's code, in turn
 *   npm run bench:reads -- --floor       # and what the answers' store calls alone cost
 *
 * Method: 1,000,000 generated events (seed 20261121, last hour, 1000 projects, Zipf), folded into
 * database 13 of the Redis of `REDIS_URL` (emptied first and after) by HTTP ingest's writer at a
 * fixed now; then, in a fresh process, 3 rounds (10 with `--vs`) of 40 answers per project at
 * now + 100 s, `--concurrent` at a time; that process's CPU from `process.cpuUsage`, Redis's from
 * `INFO cpu`. Beside `bench:api`, which adds HTTP and shares the
 * two cores with the load generator, it shows what a read itself costs. With `--replay`, each
 * answer's store calls are made once against Redis and their replies kept (`replay-store.ts`); the
 * rounds then answer from those replies: the answer's computation alone, without the Redis client
 * (whose cost varies by a fifth from run to run, more than most changes to the computation). With
 * `--vs DIR`, the endpoints of the checkout in DIR (with its `node_modules`, or a link to these)
 * answer too, in the same process, from the same replies, the two in turn each round (first one,
 * then the other, then the other way round), checked to write the same bytes before and after the
 * rounds: a before and after whose only difference is the code. With `--floor`, after the rounds:
 * one `PING` round trip on a bare socket and through node-redis (`round-trip.ts`), and the
 * answers' store calls made again against Redis with nothing computed from their replies (median
 * of 3 runs of 20 per project): what an answer costs beneath its computation.
 *
 * @module
 */
import { spawnSync } from 'node:child_process';
import process from 'node:process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Buffer } from 'node:buffer';
import { refuseFlag, toolArgs } from '../tool-args.ts';
import { createClient } from 'redis';
import { RESULT_FRAME } from '../../api/answer/answer.ts';
import { etagOfAnswer } from '../../api/middleware/etag.ts';
import { answerEndpointJson } from '../../src/endpoints/registry.ts';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { DirectIngest } from '../../src/rollup/direct-ingest.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { environment } from './measure.ts';
import { ReplayStore } from './replay-store.ts';
import { cpuUsPerCall, roundTripCpuUs } from './round-trip.ts';
import { REDIS_URL } from '../services/redis.ts';

/** The Redis of `REDIS_URL` (default: `npm run services:up`'s), always its database 13, which it empties. */
const URL = (() => {
  const url = new globalThis.URL(process.env['REDIS_URL'] ?? REDIS_URL);
  url.pathname = '/13';
  return url.toString();
})();
const EVENTS = 1_000_000;
const ANSWERS_PER_PROJECT = 40;

const { values } = toolArgs(import.meta.url, {
  options: {
    concurrent: { type: 'string', default: '1' },
    endpoint: { type: 'string', default: 'functions.invocation-stats' },
    replay: { type: 'boolean', default: false },
    floor: { type: 'boolean', default: false },
    vs: { type: 'string' },
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
  refuseFlag(`--endpoint must be functions.invocation-stats or logs.all, got ${values.endpoint}`);
}
const read = READS[endpoint];
if (values.vs !== undefined && values.floor) {
  refuseFlag('--floor measures this checkout alone: give it without --vs');
}
if (values.vs !== undefined && !values.replay) {
  refuseFlag('--vs compares the computation alone: give --replay with it');
}
const concurrent = Number(values.concurrent);
/** Rounds: three, or ten when two checkouts take turns (their order alternates). */
const rounds = values.vs === undefined ? 3 : 10;
if (!Number.isInteger(concurrent) || concurrent < 1) {
  refuseFlag(`--concurrent must be a positive integer, got ${values.concurrent}`);
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
const redis = await RedisStore.connect(URL);
/** Records the first answers' store calls and replies (for `--replay` and `--floor`). */
const recorder = values.replay || values.floor ? new ReplayStore(redis) : null;
const replay = values.replay ? recorder : null;
const context = {
  store: recorder?.store ?? redis,
  nowUs: nowUs + 100_000_000,
  maxFutureSkewUs: 5 * 60_000_000,
};
/** An answer's frame, as the API wraps its rows. */
type Frame = typeof RESULT_FRAME;
type Registry = Pick<typeof import('../../src/endpoints/registry.ts'), 'answerEndpointJson'>;
type EntityTags = Pick<typeof import('../../api/middleware/etag.ts'), 'etagOfAnswer'>;
/** The code that answers: this checkout's, and with `--vs` another's. */
const sides: {
  readonly name: string;
  readonly registry: Registry;
  readonly frame: Frame;
  readonly tags: EntityTags;
}[] = [
  {
    name: 'this checkout',
    registry: { answerEndpointJson },
    frame: RESULT_FRAME,
    tags: { etagOfAnswer },
  },
];
if (values.vs !== undefined) {
  const root = resolve(values.vs);
  sides.push({
    name: root,
    registry: (await import(pathToFileURL(`${root}/src/endpoints/registry.ts`).href)) as Registry,
    frame: ((await import(pathToFileURL(`${root}/api/answer/answer.ts`).href)) as {
      RESULT_FRAME: Frame;
    }).RESULT_FRAME,
    tags: (await import(pathToFileURL(`${root}/api/middleware/etag.ts`).href)) as EntityTags,
  });
}
/** Every ETag an answer was given (each side's, all kept: none is computed for nothing). */
const tags = new Set<string>();
/** The answer's body, as the API sends it (text is encoded), its ETag computed as the API does. */
const answer = async (project: string, side = sides[0] as (typeof sides)[number]) => {
  const params = new URLSearchParams(`project=${project}&${read.query}`);
  const result = await side.registry.answerEndpointJson(endpoint, params, context, {
    frame: side.frame,
  });
  if (!result.ok) throw new Error(`${endpoint} refused project=${project}`);
  tags.add(side.tags.etagOfAnswer(result));
  return result.json;
};
/** Prints what the answers cost beneath their computation (`--floor`). */
async function printFloor(recorded: ReplayStore): Promise<void> {
  const { bareUs, clientUs } = await roundTripCpuUs(URL, 5_000);
  // Each call makes every project's answer's store calls once.
  const storeUs = (await cpuUsPerCall(20, () => recorded.callAgain())) / projects.length;
  console.log(
    `floor: one PING round trip costs this process ${bareUs.toFixed(1)} µs of CPU on a bare ` +
      `socket, ${clientUs.toFixed(1)} µs through node-redis; an answer's ` +
      `${(recorded.recordedCalls / projects.length).toFixed(1)} store calls alone ` +
      `(made again against Redis, nothing computed) ${storeUs.toFixed(0)} µs`,
  );
}

async function redisCpuUs(): Promise<number> {
  const info = await client.info('cpu');
  const seconds = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (seconds('used_cpu_sys') + seconds('used_cpu_user')) * 1e6;
}

let rows = 0;
let bytes = 0;
/** Each project's answer before the rounds: every side's answers must stay these bytes. */
const bodies = new Map<string, Uint8Array>();
/** Throws unless each of `checked` answers every project with the bytes first answered. */
async function sameBytes(checked: readonly (typeof sides)[number][]): Promise<void> {
  for (const project of projects) {
    for (const side of checked) {
      if (
        !Buffer.from(await answer(project, side)).equals(bodies.get(project) ?? Buffer.alloc(0))
      ) {
        throw new Error(`${side.name} answers project=${project} with other bytes`);
      }
    }
  }
}
for (const project of projects) {
  const body = await answer(project);
  bodies.set(project, body);
  bytes += body.length;
  const { result } = JSON.parse(new TextDecoder().decode(body)) as { result: { count?: number }[] };
  rows += result.filter((r) => r.count !== 0).length;
}
console.log(`read benchmark: ${environment()}`);
// The bytes just answered are this checkout's: the other side's are checked against them.
await sameBytes(sides.slice(1));
if (replay === null) context.store = redis;
else replay.replaying();
console.log(
  `method: ${EVENTS} events in Redis (${URL}); ${endpoint} ${read.query} of the ` +
    `${projects.length} busiest projects at now + 100 s: ${rows} non-empty rows, ` +
    `${
      bytes.toLocaleString('en-US')
    } bytes of bodies (each encoded as the API sends it); ${rounds} rounds of ${ANSWERS_PER_PROJECT} answers ` +
    `per project, ${concurrent} at a time; CPU from process.cpuUsage and Redis's INFO cpu` +
    (replay === null ? '' : '; every reply recorded once, then replayed from memory') +
    (sides.length > 1
      ? `; each round by ${sides.map((side) => side.name).join(' and ')} in turn`
      : ''),
);
/** CPU per answer (µs) of each round, by side. */
const perRound = new Map(sides.map((side) => [side.name, [] as number[]]));
for (let round = 0; round < rounds; round++) {
  for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
    const redisBefore = await redisCpuUs();
    const before = process.cpuUsage();
    for (let i = 0; i < ANSWERS_PER_PROJECT; i++) {
      for (let j = 0; j < projects.length; j += concurrent) {
        await Promise.all(projects.slice(j, j + concurrent).map((p) => answer(p, side)));
      }
    }
    const used = process.cpuUsage(before);
    const redisUsed = (await redisCpuUs()) - redisBefore;
    const answers = ANSWERS_PER_PROJECT * projects.length;
    perRound.get(side.name)?.push((used.user + used.system) / answers);
    console.log(
      `round ${round + 1}${sides.length > 1 ? ` (${side.name})` : ''}: ` +
        `${Math.round((used.user + used.system) / answers)} µs of this process's CPU` +
        (replay === null ? ` and ${Math.round(redisUsed / answers)} µs of Redis CPU` : '') +
        ' per answer',
    );
  }
}
// A replayed reply changed by a reader (or another side's code) would show here.
await sameBytes(sides);
console.log(`${tags.size} distinct ETags given`);
// After the rounds, which it would warm otherwise.
if (values.floor && recorder !== null) await printFloor(recorder);
if (sides.length > 1) {
  const median = (values: readonly number[]) =>
    [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
  const [mine, theirs] = sides.map((side) => perRound.get(side.name) ?? []);
  const below = (mine ?? []).filter((value, i) => value < (theirs?.[i] ?? Number.NaN)).length;
  console.log(
    `median per answer: this checkout ${median(mine ?? []).toFixed(0)} µs, ${values.vs} ` +
      `${median(theirs ?? []).toFixed(0)} µs (ratio ${
        (median(mine ?? []) / median(theirs ?? [])).toFixed(2)
      }); this checkout below in ${below} of ${rounds} rounds`,
  );
}
await client.close();
await redis.close();
