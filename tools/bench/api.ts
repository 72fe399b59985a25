/**
 * HTTP API benchmark: one API process answering from Redis loaded with generated events, driven
 * over loopback from a worker thread of this process (undici, 64 connections by default), per
 * workload:
 * requests/s and p50/p99 latency; then, in the same run, the reference evaluator answering the
 * same requests over the same raw events in memory (the query-on-every-call baseline), and
 * DuckDB answering each endpoint's SQL on every call over the same events loaded once into typed,
 * sorted tables (the query-engine baseline, `./bench/api/duckdb.ts`), from as many callers at once
 * as the API has connections. Every answer DuckDB gives to a workload's requests is compared with
 * the API's to the same request at the same second (CONTRACT section 6's tolerances for
 * quantiles); the benchmark fails on a difference.
 *
 *   npm run bench:api                       # 1,000,000 events, 10 s per workload
 *   npm run bench:api -- --events 200000 --seconds 5 --connections 64 --baseline-calls 20
 *   npm run bench:api -- --only 5min        # only the workloads whose label contains '5min'
 *   npm run bench:api -- --profile DIR      # each API process writes a CPU profile into DIR
 *   npm run bench:api -- --wrk              # also Debian's wrk, closed loop, beside each figure
 *   npm run bench:api -- --framework        # also the same bytes through Hono (its own floor)
 *   npm run bench:api -- --api-node-flags '' # the API on V8's defaults, not `npm run api`'s flags
 *
 * Per workload it also measures the CPU time per request of the API process and of Redis (from
 * /proc, when Redis runs on this machine), and a ceiling: the same answers, captured from the API
 * and served as fixed bytes by a bare `node:http` server (`./bench/api/fixed-body-server.ts`),
 * driven the same way. With `--framework`, the same bytes also through a Hono app of one route on
 * `@hono/node-server`, as the API serves them, without and with as many pass-through middlewares
 * as the API runs (`./bench/api/fixed-bytes.ts`): what the framework costs before any work of the
 * API's own.
 *
 * Needs Redis (REDIS_URL, or `.services/env` from `npm run services:up`); uses database 14 of
 * it (BENCH_REDIS_DB), emptied first. Prints the figures and the method; nothing asserts.
 *
 * @module
 */
import process from 'node:process';
import { createClient } from 'redis';
import type { EndpointName } from '../../src/contract/registry.ts';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { DirectIngest } from '../../src/rollup/direct-ingest.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { baseline } from './api/baseline.ts';
import { type AnswerAt, DuckDbBaseline } from './api/duckdb.ts';
import { startApi } from './api/child.ts';
import { CEILING, driveFixedBytes, FLOORS } from './api/fixed-bytes.ts';
import { type Flags, flags, redisUrl } from './api/flags.ts';
import { toolFlags } from '../tool-args.ts';
import { API_HEAP_FLAGS } from '../../service/heap-flags.ts';
import { drive, type DriveResult } from './api/load.ts';
import { runWrk } from './api/wrk.ts';
import {
  type FrameworkFloor,
  micro,
  type Mode,
  ms,
  perSecond,
  printTable,
  type WorkloadFigures,
} from './api/table.ts';
import { environment, processCpuSeconds } from './measure.ts';

const KEY = 'bench-key-0123456789abcdef';
const SEED = 20_261_121;
const BATCH = 20_000;

/** Generated lines: the stream, plus edge events with hostile hosts for the pattern workload. */
function* lines(
  count: number,
  nowUs: number,
): Generator<{ source: 'edge' | 'function-edge'; line: string }> {
  yield* generateEvents({ seed: SEED, events: count, nowUs });
  for (let i = 0; i < 1_000; i++) {
    yield {
      source: 'edge',
      line: JSON.stringify({
        id: `hostile-${i}`,
        timestamp: nowUs - (i + 1) * 1_000_000,
        project: `hostile${i % 10}`,
        metadata: [{ request: [{ host: `${'a'.repeat(1_000)}!${i}`, path: '/rest/v1/x' }] }],
      }),
    };
  }
}

interface Activity {
  readonly functions: Map<string, number>;
  readonly edge: Map<string, number>;
}

function count(activity: Activity, event: LogEvent): void {
  const map = event.source === 'edge' ? activity.edge : activity.functions;
  map.set(event.project, (map.get(event.project) ?? 0) + 1);
}

function top(map: Map<string, number>, n: number): string[] {
  return [...map].sort((a, b) => b[1] - a[1]).slice(0, n).map(([project]) => project);
}

/**
 * The process id of the Redis at `url` when it runs on this machine (its CPU time is then read
 * from /proc, as the API's is); null otherwise.
 */
async function localRedisPid(url: string): Promise<number | null> {
  const client = await createClient({ url }).connect();
  try {
    const pid = Number(/^process_id:(\d+)/m.exec(await client.info('server'))?.[1]);
    return Number.isInteger(pid) && processCpuSeconds(pid) !== null ? pid : null;
  } finally {
    await client.close();
  }
}

async function load(url: string, total: number, nowUs: number): Promise<Activity> {
  const client = await createClient({ url }).connect();
  await client.flushDb();
  await client.close();
  const store = await RedisStore.connect(url);
  const ingest = new DirectIngest({ store, nowUs: () => nowUs });
  const activity: Activity = { functions: new Map(), edge: new Map() };
  let batch: LogEvent[] = [];
  let done = 0;
  const started = performance.now();
  for (const { source, line } of lines(total, nowUs)) {
    const result = parse(line, source, { nowUs });
    if (!result.ok) continue;
    count(activity, result.event);
    batch.push(result.event);
    if (batch.length === BATCH) {
      await ingest.fold(batch);
      done += batch.length;
      batch = [];
      process.stderr.write(`\rloaded ${done} events into Redis`);
    }
  }
  await ingest.fold(batch);
  done += batch.length;
  await store.close();
  const seconds = (performance.now() - started) / 1000;
  process.stderr.write(
    `\rloaded ${done} events into Redis in ${seconds.toFixed(1)} s (${
      Math.round(done / seconds)
    }/s)\n`,
  );
  return activity;
}

interface Workload {
  readonly label: string;
  readonly endpoint: EndpointName;
  readonly queries: string[];
}

function workloads(activity: Activity): Workload[] {
  const functionProjects = top(activity.functions, 50);
  const edgeProjects = top(activity.edge, 50).filter((project) => !project.startsWith('hostile'));
  return [
    {
      label: 'functions.invocation-stats interval=5min',
      endpoint: 'functions.invocation-stats',
      queries: functionProjects.map((p) => `project=${p}&interval=5min`),
    },
    {
      label: 'functions.invocation-stats interval=1day',
      endpoint: 'functions.invocation-stats',
      queries: functionProjects.map((p) => `project=${p}&interval=1day`),
    },
    {
      label: 'logs.all project_tier=PRO',
      endpoint: 'logs.all',
      queries: edgeProjects.map((p) => `project=${p}&project_tier=PRO`),
    },
    {
      label: 'usage.api-counts interval=minutely',
      endpoint: 'usage.api-counts',
      queries: edgeProjects.map((p) => `project=${p}&interval=minutely`),
    },
    {
      label: 'usage.api-counts interval=daily',
      endpoint: 'usage.api-counts',
      queries: edgeProjects.map((p) => `project=${p}&interval=daily`),
    },
    {
      label: 'usage.api-counts project=(a+)+$ (hostile hosts)',
      endpoint: 'usage.api-counts',
      queries: ['project=(a%2B)%2B%24&interval=daily'],
    },
  ];
}

/** An answer captured from the API: what the ceiling serves, and what DuckDB's must equal. */
interface Captured extends AnswerAt {
  readonly etag: string;
}

/**
 * Each query's answer (body and entity tag) from a running API, with the second it was answered
 * in: an answer whose request straddled a second is asked again, so that `nowUs` (the request's
 * start) is the API's `now` to the second, the grain of every window (CONTRACT section 5).
 */
async function captureAnswers(
  url: string,
  workload: Workload,
): Promise<Record<string, Captured>> {
  const answers: Record<string, Captured> = {};
  for (const query of workload.queries) {
    const path = `/api/endpoints/${workload.endpoint}?${query}`;
    for (let attempt = 1;; attempt++) {
      const sentMs = Date.now();
      const response = await fetch(`${url}${path}`, { headers: { 'X-API-KEY': KEY } });
      const body = await response.text();
      if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${body}`);
      const withinSecond = Math.floor(sentMs / 1000) === Math.floor(Date.now() / 1000);
      if (!withinSecond && attempt < 20) continue;
      if (!withinSecond) throw new Error(`${path}: no answer within one second in 20 attempts`);
      answers[path] = {
        query,
        body,
        etag: response.headers.get('ETag') ?? '',
        nowUs: sentMs * 1000,
      };
      break;
    }
  }
  return answers;
}

function memoryEvents(total: number, nowUs: number): LogEvent[] {
  const events: LogEvent[] = [];
  for (const { source, line } of lines(total, nowUs)) {
    const result = parse(line, source, { nowUs });
    if (result.ok) events.push(result.event);
  }
  return events;
}

const MODES: readonly Mode[] = [
  { name: 'reuse 1 s (default)', env: { RESULT_CACHE_MS: '1000' } },
  { name: 'no reuse', env: { RESULT_CACHE_MS: '0' } },
];

/** Drives `url` with wrk as the benchmark's own load drove it, and prints what wrk saw. */
function printWrk(label: string, url: string, paths: readonly string[], options: Flags): void {
  const result = runWrk({
    url,
    headers: { 'X-API-KEY': KEY },
    paths,
    connections: options.connections,
    seconds: options.seconds,
  });
  process.stderr.write(
    `${label}: wrk (2 threads, ${options.connections} connections, ${options.seconds} s): ` +
      `${perSecond(result.perSecond)} req/s, p50 ${ms(result.p50Ms)} ms, p99 ` +
      `${ms(result.p99Ms)} ms; answers not 2xx: ${result.failures}\n`,
  );
}

/** What {@link measureApi} measured of one workload. */
interface ApiFigures {
  readonly api: WorkloadFigures['api'];
  readonly ceiling: DriveResult;
  readonly floors: readonly FrameworkFloor[];
  /** The answers of the mode without reuse, by path. */
  readonly answers: Record<string, Captured>;
}

/** Both modes of the API (a fresh process each) on `workload`, then its fixed-bytes ceiling. */
async function measureApi(
  workload: Workload,
  options: Flags,
  url: string,
  redisPid: number | null,
): Promise<ApiFigures> {
  const paths = workload.queries.map((q) => `/api/endpoints/${workload.endpoint}?${q}`);
  const api: Map<string, { saturation: DriveResult; atRate: DriveResult; rate: number }> =
    new Map();
  let answers: Record<string, Captured> = {};
  for (const mode of MODES) {
    const child = await startApi(
      // Capacity is measured, not the rate limit (one key sends thousands of requests a second)
      // nor the per-address connection cap (every connection of the load comes from loopback).
      {
        REDIS_URL: url,
        STORE: 'redis',
        API_KEYS: KEY,
        RATE_LIMIT: 'off',
        HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
        ...mode.env,
      },
      [
        ...(options.profile === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${options.profile}`]),
        // As `npm run api` starts it, unless --api-node-flags says otherwise.
        ...(options.apiNodeFlags ?? API_HEAP_FLAGS),
        'service/main.ts',
        '--role',
        'api',
      ],
    );
    try {
      const base = {
        url: child.url,
        headers: { 'X-API-KEY': KEY },
        paths,
        connections: options.connections,
        seconds: options.seconds,
        warmupSeconds: 2,
        serverCpuSeconds: () => processCpuSeconds(child.pid),
        storeCpuSeconds: () => redisPid === null ? null : processCpuSeconds(redisPid),
      };
      const saturation = await drive(base);
      // Past saturation an open loop only measures its own queue: stay at 80% of the maximum.
      const rate = Math.min(options.rate, Math.floor(saturation.perSecond * 0.8));
      const atRate = await drive({ ...base, ratePerSecond: rate });
      api.set(mode.name, { saturation, atRate, rate });
      if (options.wrk) printWrk(`${mode.name}: ${workload.label}`, child.url, paths, options);
      if (mode.env.RESULT_CACHE_MS === '0') answers = await captureAnswers(child.url, workload);
      process.stderr.write(
        `${mode.name}: ${workload.label}: max ${perSecond(saturation.perSecond)} req/s ` +
          `(p99 ${ms(saturation.p99Ms)} ms, ${micro(saturation.serverCpuUsPerRequest)} µs of ` +
          `API CPU and ${micro(saturation.storeCpuUsPerRequest)} µs of Redis CPU per request); ` +
          `at ${perSecond(rate)} req/s: p50 ${ms(atRate.p50Ms)} ms, p99 ${ms(atRate.p99Ms)} ms, ` +
          `${micro(atRate.serverCpuUsPerRequest)} µs of API CPU per request; failures ${
            JSON.stringify({ ...saturation.failures, ...atRate.failures })
          }\n`,
      );
    } finally {
      await child.stop();
    }
  }
  const driveFixed = (label: string) => async (url: string, pid: number) => {
    const result = await drive({
      url,
      headers: {},
      paths,
      connections: options.connections,
      seconds: options.seconds,
      warmupSeconds: 2,
      serverCpuSeconds: () => processCpuSeconds(pid),
    });
    if (options.wrk) printWrk(`${label}: ${workload.label}`, url, paths, options);
    process.stderr.write(
      `${label}: ${workload.label}: max ${perSecond(result.perSecond)} req/s, ${
        micro(result.serverCpuUsPerRequest)
      } µs of server CPU per request; failures ${JSON.stringify(result.failures)}\n`,
    );
    return result;
  };
  const fixed = await driveFixedBytes(answers, CEILING, driveFixed(CEILING.label));
  const floors: FrameworkFloor[] = [];
  for (const server of options.framework ? FLOORS : []) {
    const label = `fixed bytes, ${server.label}`;
    floors.push({
      label: server.label,
      result: await driveFixedBytes(answers, server, driveFixed(label)),
    });
  }
  return { api, ceiling: fixed, floors, answers };
}

async function main(): Promise<void> {
  const options = toolFlags(import.meta.url, flags);
  const url = redisUrl();
  const nowUs = Date.now() * 1000;
  console.log(`bench:api: ${environment()}`);
  console.log(
    `method: ${
      options.events.toLocaleString('en-US')
    } generated events (seed ${SEED}, last hour, ` +
      `1000 projects, Zipf) + 1000 hostile-host events folded into Redis (${url}); one API ` +
      `process (node ${
        (options.apiNodeFlags ?? API_HEAP_FLAGS).join(' ')
      } service/main.ts --role api); a worker thread of this process drives it over loopback with undici (a heap of its own), ` +
      `${options.connections} connections, ${options.seconds} s per workload after 2 s warm-up; ` +
      'each workload cycles through the 50 busiest projects; per workload and mode (a fresh API ' +
      'process each) the saturation ' +
      `throughput (closed loop) and the latency at ${options.rate} req/s offered, or 80% of ` +
      'the maximum when that is lower (open loop, measured from the scheduled send time); the ' +
      "baseline answers the same requests at the clock time of the workload's API run; DuckDB " +
      'loads the same events once into typed tables sorted by project or host and time, ' +
      "answers every request of the workload as the API did (compared), then the workload's " +
      `requests from ${options.connections} callers, each on its own connection, for ` +
      `${options.seconds} s.`,
  );
  const activity = await load(url, options.events, nowUs);
  const redisPid = await localRedisPid(url);
  const list = workloads(activity).filter((workload) => workload.label.includes(options.only));
  if (list.length === 0) {
    throw new Error(`no workload label contains ${JSON.stringify(options.only)}`);
  }
  process.stderr.write('baselines: parsing the events into memory...\n');
  const events = memoryEvents(options.events, nowUs);
  const loadStarted = performance.now();
  const duckdb = await DuckDbBaseline.load(events);
  process.stderr.write(
    `DuckDB: loaded into typed tables in ${
      ((performance.now() - loadStarted) / 1000).toFixed(1)
    } s\n`,
  );

  // The data ages while the workloads run (the 5min window empties): both modes of a workload
  // run back to back, and its baselines are evaluated at the same `now` as they were.
  const measured: { workload: Workload; atUs: number; api: ApiFigures }[] = [];
  for (const workload of list) {
    const atUs = Date.now() * 1000;
    const api = await measureApi(workload, options, url, redisPid);
    // Fails here, before any more is measured, when DuckDB does not answer what the API did.
    await duckdb.check(workload.endpoint, Object.values(api.answers));
    process.stderr.write(
      `DuckDB: ${workload.label}: its ${workload.queries.length} answers are the API's\n`,
    );
    measured.push({ workload, atUs, api });
  }

  const figures: WorkloadFigures[] = [];
  for (const { workload, atUs, api } of measured) {
    const reference = await baseline(workload.endpoint, events, workload.queries, {
      maxCalls: options.baselineCalls,
      maxSeconds: options.baselineSeconds,
      nowUs: atUs,
    });
    const engine = await duckdb.time(workload.endpoint, workload.queries, {
      maxCalls: Number.MAX_SAFE_INTEGER,
      maxSeconds: options.seconds,
      nowUs: atUs,
      callers: options.connections,
    });
    process.stderr.write(
      `baseline: ${workload.label}: ${reference.calls} calls, p50 ${ms(reference.p50Ms)} ms; ` +
        `DuckDB: ${engine.calls} calls, ${engine.perSecond.toFixed(1)}/s, p50 ${
          ms(engine.p50Ms)
        } ms, ${micro(engine.cpuUsPerCall)} µs of CPU per call\n`,
    );
    figures.push({ label: workload.label, ...api, reference, duckdb: engine });
  }
  duckdb.close();
  console.log('');
  printTable(figures, MODES, options.connections);
}

await main();
