/**
 * HTTP API benchmark: one API process answering from Redis loaded with generated events,
 * driven over loopback from this process (undici, 64 connections by default), per workload:
 * requests/s and p50/p99 latency; then, in the same run, the reference evaluator answering the
 * same requests over the same raw events in memory (the query-on-every-call baseline), and
 * DuckDB answering each endpoint's SQL over the same raw events on every call (the query-engine
 * baseline, `./bench/api/duckdb.ts`).
 *
 *   npm run bench:api                       # 1,000,000 events, 10 s per workload
 *   npm run bench:api -- --events 200000 --seconds 5 --connections 64 --baseline-calls 20
 *   npm run bench:api -- --only 5min        # only the workloads whose label contains '5min'
 *   npm run bench:api -- --profile DIR      # each API process writes a CPU profile into DIR
 *
 * Per workload it also measures the CPU time per request of the API process and of Redis (from
 * /proc, when Redis runs on this machine), and a ceiling: the same answers, captured from the API
 * and served as fixed bytes by a bare `node:http` server (`./bench/api/fixed-body-server.ts`),
 * driven the same way.
 *
 * Needs Redis (REDIS_URL, or `.services/env` from `npm run services:up`); uses database 14 of
 * it (BENCH_REDIS_DB), emptied first. Prints the figures and the method; nothing asserts.
 *
 * @module
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { createClient } from 'redis';
import type { EndpointName } from '../../src/contract/registry.ts';
import { parse } from '../../src/events/parse.ts';
import type { LogEvent } from '../../src/events/types.ts';
import { DirectIngest } from '../../src/rollup/direct-ingest.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { baseline, type BaselineResult } from './api/baseline.ts';
import { DuckDbBaseline } from './api/duckdb.ts';
import { evaluateEndpoint } from '../../src/reference/evaluate.ts';
import { startApi } from './api/child.ts';
import { drive, type DriveResult } from './api/load.ts';
import { environment, processCpuSeconds } from './measure.ts';

const KEY = 'bench-key-0123456789abcdef';
const SEED = 20_261_121;
const BATCH = 20_000;

interface Flags {
  /** Keep only the workloads whose label contains this text (empty: all). */
  only: string;
  /** Where each API process writes its CPU profile (`node --cpu-prof`); empty: none. */
  profile: string;
  events: number;
  seconds: number;
  rate: number;
  connections: number;
  baselineCalls: number;
  baselineSeconds: number;
}

function flags(args: readonly string[]): Flags {
  const result: Flags = {
    only: '',
    profile: '',
    events: 1_000_000,
    seconds: 10,
    rate: 3_000,
    connections: 64,
    baselineCalls: 20,
    baselineSeconds: 20,
  };
  const names: Record<string, Exclude<keyof Flags, 'only' | 'profile'>> = {
    '--events': 'events',
    '--seconds': 'seconds',
    '--rate': 'rate',
    '--connections': 'connections',
    '--baseline-calls': 'baselineCalls',
    '--baseline-seconds': 'baselineSeconds',
  };
  for (let i = 0; i < args.length; i += 2) {
    if (args[i] === '--only' || args[i] === '--profile') {
      result[args[i] === '--only' ? 'only' : 'profile'] = args[i + 1] ?? '';
      continue;
    }
    const name = names[args[i] ?? ''];
    const value = Number(args[i + 1]);
    if (name === undefined || !Number.isInteger(value) || value < 1) {
      throw new Error(
        `bad argument ${args[i]} ${args[i + 1]}: use --events, --seconds, --rate, --connections, ` +
          '--baseline-calls, --baseline-seconds, each with a positive integer, --only TEXT or ' +
          '--profile DIR',
      );
    }
    result[name] = value;
  }
  return result;
}

function redisUrl(): string {
  let url = process.env.REDIS_URL;
  if (url === undefined) {
    try {
      url = /^REDIS_URL=(\S+)$/m.exec(readFileSync('.services/env', 'utf8'))?.[1];
    } catch (error) {
      if (!(error instanceof Error && 'code' in error && error.code === 'ENOENT')) throw error;
    }
  }
  if (url === undefined) {
    throw new Error('bench:api needs Redis: set REDIS_URL or run npm run services:up');
  }
  const parsed = new URL(url);
  parsed.pathname = `/${process.env.BENCH_REDIS_DB ?? '14'}`;
  return parsed.toString();
}

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

/** Each path's answer (body and entity tag) from a running API, for the fixed-bytes ceiling. */
async function captureAnswers(
  url: string,
  paths: readonly string[],
): Promise<Record<string, { body: string; etag: string }>> {
  const answers: Record<string, { body: string; etag: string }> = {};
  for (const path of paths) {
    const response = await fetch(`${url}${path}`, { headers: { 'X-API-KEY': KEY } });
    if (response.status !== 200) throw new Error(`${path} answered ${response.status}`);
    answers[path] = { body: await response.text(), etag: response.headers.get('ETag') ?? '' };
  }
  return answers;
}

/** Drives the fixed-bytes server over `answers` (closed loop): the ceiling of a workload. */
async function ceiling(
  answers: Record<string, { body: string; etag: string }>,
  drive0: (url: string, pid: number) => Promise<DriveResult>,
): Promise<DriveResult> {
  const directory = mkdtempSync(join(tmpdir(), 'bench-api-'));
  const file = join(directory, 'answers.json');
  writeFileSync(file, JSON.stringify(answers));
  const server = await startApi({ ANSWERS_FILE: file }, ['tools/bench/api/fixed-body-server.ts']);
  try {
    return await drive0(server.url, server.pid);
  } finally {
    await server.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

function memoryEvents(total: number, nowUs: number): LogEvent[] {
  const events: LogEvent[] = [];
  for (const { source, line } of lines(total, nowUs)) {
    const result = parse(line, source, { nowUs });
    if (result.ok) events.push(result.event);
  }
  return events;
}

/** Rows and the sum of their counts, e.g. `301 rows, 5120 counted`: what both baselines must agree on. */
function countsOf(rows: readonly object[]): string {
  let counted = 0;
  for (const row of rows) {
    for (const [column, value] of Object.entries(row)) {
      if ((column === 'count' || column.startsWith('total_')) && value !== null) {
        counted += Number(value);
      }
    }
  }
  return `${rows.length} rows, ${counted} counted`;
}

const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);
const perSecond = (value: number) => Math.round(value).toLocaleString('en-US');
const share = (result: DriveResult, fixed: DriveResult | undefined) =>
  fixed === undefined ? '?' : `${Math.round((100 * result.perSecond) / fixed.perSecond)}%`;
const cpuPerRequest = (result: DriveResult) =>
  result.serverCpuUsPerRequest === null ? '?' : Math.round(result.serverCpuUsPerRequest).toString();
const redisCpuPerRequest = (result: DriveResult) =>
  result.storeCpuUsPerRequest === null ? '?' : Math.round(result.storeCpuUsPerRequest).toString();

async function main(): Promise<void> {
  const options = flags(process.argv.slice(2));
  const url = redisUrl();
  const nowUs = Date.now() * 1000;
  console.log(`bench:api: ${environment()}`);
  console.log(
    `method: ${
      options.events.toLocaleString('en-US')
    } generated events (seed ${SEED}, last hour, ` +
      `1000 projects, Zipf) + 1000 hostile-host events folded into Redis (${url}); one API ` +
      `process (node service/main.ts --role api); this process drives it over loopback with undici, ` +
      `${options.connections} connections, ${options.seconds} s per workload after 2 s warm-up; ` +
      'each workload cycles through the 50 busiest projects; per workload and mode (a fresh API ' +
      'process each) the saturation ' +
      `throughput (closed loop) and the latency at ${options.rate} req/s offered, or 80% of ` +
      'the maximum when that is lower (open loop, measured from the scheduled send time); the ' +
      "baseline answers the same requests at the clock time of the workload's API run.",
  );
  const activity = await load(url, options.events, nowUs);
  const redisPid = await localRedisPid(url);
  const list = workloads(activity).filter((workload) => workload.label.includes(options.only));
  if (list.length === 0) {
    throw new Error(`no workload label contains ${JSON.stringify(options.only)}`);
  }
  const modes = [
    { name: 'reuse 1 s (default)', env: { RESULT_CACHE_MS: '1000' } },
    { name: 'no reuse', env: { RESULT_CACHE_MS: '0' } },
  ];
  const results = new Map<
    string,
    { saturation: DriveResult; atRate: DriveResult; rate: number }
  >();
  const ceilings = new Map<string, DriveResult>();
  // The data ages while the workloads run (the 5min window empties): both modes of a workload
  // run back to back, and its baseline is evaluated at the same `now` as they were.
  const measuredAtUs = new Map<string, number>();
  for (const workload of list) {
    measuredAtUs.set(workload.label, Date.now() * 1000);
    const paths = workload.queries.map((q) => `/api/endpoints/${workload.endpoint}?${q}`);
    let answers: Record<string, { body: string; etag: string }> = {};
    for (const mode of modes) {
      const api = await startApi(
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
          'service/main.ts',
          '--role',
          'api',
        ],
      );
      try {
        const base = {
          url: api.url,
          headers: { 'X-API-KEY': KEY },
          paths,
          connections: options.connections,
          seconds: options.seconds,
          warmupSeconds: 2,
          serverCpuSeconds: () => processCpuSeconds(api.pid),
          storeCpuSeconds: () => redisPid === null ? null : processCpuSeconds(redisPid),
        };
        const saturation = await drive(base);
        // Past saturation an open loop only measures its own queue: stay at 80% of the maximum.
        const rate = Math.min(options.rate, Math.floor(saturation.perSecond * 0.8));
        const atRate = await drive({ ...base, ratePerSecond: rate });
        results.set(`${mode.name}|${workload.label}`, { saturation, atRate, rate });
        if (mode.env.RESULT_CACHE_MS === '0') answers = await captureAnswers(api.url, paths);
        process.stderr.write(
          `${mode.name}: ${workload.label}: max ${perSecond(saturation.perSecond)} req/s ` +
            `(p99 ${ms(saturation.p99Ms)} ms, ${cpuPerRequest(saturation)} µs of API CPU and ${
              redisCpuPerRequest(saturation)
            } µs of Redis CPU per request); at ${perSecond(rate)} req/s: p50 ${
              ms(atRate.p50Ms)
            } ms, p99 ${ms(atRate.p99Ms)} ms, ${
              cpuPerRequest(atRate)
            } µs of API CPU per request; failures ${
              JSON.stringify({ ...saturation.failures, ...atRate.failures })
            }\n`,
        );
      } finally {
        await api.stop();
      }
    }
    const fixed = await ceiling(answers, (url, pid) =>
      drive({
        url,
        headers: {},
        paths,
        connections: options.connections,
        seconds: options.seconds,
        warmupSeconds: 2,
        serverCpuSeconds: () => processCpuSeconds(pid),
      }));
    ceilings.set(workload.label, fixed);
    process.stderr.write(
      `ceiling (fixed bytes, bare node:http): ${workload.label}: max ${
        perSecond(fixed.perSecond)
      } req/s, ${cpuPerRequest(fixed)} µs of server CPU per request; failures ${
        JSON.stringify(fixed.failures)
      }\n`,
    );
  }

  process.stderr.write('baseline: parsing the events into memory...\n');
  const events = memoryEvents(options.events, nowUs);
  const baselines = new Map<string, BaselineResult>();
  for (const workload of list) {
    const result = await baseline(workload.endpoint, events, workload.queries, {
      maxCalls: options.baselineCalls,
      maxSeconds: options.baselineSeconds,
      nowUs: measuredAtUs.get(workload.label) ?? nowUs,
    });
    baselines.set(workload.label, result);
    process.stderr.write(
      `baseline: ${workload.label}: ${result.calls} calls, p50 ${ms(result.p50Ms)} ms\n`,
    );
  }

  process.stderr.write('DuckDB: loading the events...\n');
  const loadStarted = performance.now();
  const duckdb = await DuckDbBaseline.load(events);
  process.stderr.write(
    `DuckDB: loaded in ${((performance.now() - loadStarted) / 1000).toFixed(1)} s\n`,
  );
  const engine = new Map<string, BaselineResult>();
  for (const workload of list) {
    const atUs = measuredAtUs.get(workload.label) ?? nowUs;
    const query = workload.queries[0] ?? '';
    const sql = countsOf(await duckdb.rows(workload.endpoint, query, atUs));
    const reference = evaluateEndpoint(workload.endpoint, events, new URLSearchParams(query), atUs);
    const exact = reference.ok ? countsOf(reference.rows) : 'refused';
    const result = await duckdb.time(workload.endpoint, workload.queries, {
      maxCalls: options.baselineCalls,
      maxSeconds: options.baselineSeconds,
      nowUs: atUs,
    });
    engine.set(workload.label, result);
    process.stderr.write(
      `DuckDB: ${workload.label}: ${result.calls} calls, p50 ${ms(result.p50Ms)} ms; ` +
        `its rows and counts ${sql}, the reference evaluator's ${exact}` +
        `${sql === exact ? '' : ' (DIFFERENT)'}\n`,
    );
  }

  console.log('');
  console.log(
    `| workload | mode | max req/s (${options.connections} conns) | offered req/s | ` +
      'p50 / p99 ms at offered | server CPU µs per request (max / offered) | ' +
      'Redis CPU µs per request | ' +
      'max / fixed-bytes ceiling | ' +
      'baseline calls/s (p50 ms) | max req/s / baseline | ' +
      'DuckDB calls/s (p50 ms) | max req/s / DuckDB |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const workload of list) {
    const base = baselines.get(workload.label);
    const sqlBase = engine.get(workload.label);
    for (const mode of modes) {
      const result = results.get(`${mode.name}|${workload.label}`);
      if (result === undefined || base === undefined) continue;
      const failed = Object.keys(result.saturation.failures).length +
        Object.keys(result.atRate.failures).length;
      console.log(
        `| ${workload.label} | ${mode.name}${failed > 0 ? ' (FAILURES)' : ''} | ${
          perSecond(result.saturation.perSecond)
        } | ${perSecond(result.rate)} | ${ms(result.atRate.p50Ms)} / ${ms(result.atRate.p99Ms)} | ${
          cpuPerRequest(result.saturation)
        } / ${cpuPerRequest(result.atRate)} | ${redisCpuPerRequest(result.saturation)} | ${
          share(result.saturation, ceilings.get(workload.label))
        } | ${base.perSecond.toFixed(2)} (${ms(base.p50Ms)}) | ${
          Math.round(result.saturation.perSecond / base.perSecond).toLocaleString('en-US')
        }x | ${
          sqlBase === undefined ? '?' : `${sqlBase.perSecond.toFixed(2)} (${ms(sqlBase.p50Ms)})`
        } | ${
          sqlBase === undefined
            ? '?'
            : Math.round(result.saturation.perSecond / sqlBase.perSecond).toLocaleString('en-US')
        }x |`,
      );
    }
    const fixed = ceilings.get(workload.label);
    if (fixed !== undefined) {
      console.log(
        `| ${workload.label} | fixed bytes, bare node:http (ceiling) | ${
          perSecond(fixed.perSecond)
        } | | | ${cpuPerRequest(fixed)} | | 100% | | | | |`,
      );
    }
  }
}

await main();
