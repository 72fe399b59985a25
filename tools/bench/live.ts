/**
 * Live answers measured (issue 53): the service as deployed in two processes, consumers and one
 * API replica, on the dev stack's Kafka and Redis (`npm run services:up`, then
 * `set -a; . .services/env; set +a`). Events are `function-edge` invocations of 500 projects,
 * published to Kafka keyed by project; each stream watches one project's
 * `functions.invocation-stats` `1day` answer, whose total count tells which of the project's
 * events it covers (one partition per project, folded in order).
 *
 * 1. The maximum rate: a backlog folded by one consumer process alone, and the rate the deployment
 *    takes in, events published as fast as the producer sends them while they are folded (the
 *    producer, broker, consumers and Redis sharing the machine).
 * 2. Published -> pushed, at 80% of the second rate: the time from each event's publication to
 *    the first pushed answer that counts it, on every stream (`--latency-streams`, one per
 *    project).
 * 3. Fan-out, on a fresh API replica: `--streams` (5,000) streams over 500 distinct answers,
 *    opened all at once or `--open-per-second`, events at `--fanout-rate` for `--fanout-seconds`;
 *    the API's CPU per pushed event, its RSS before and with the streams and every 10 s, and its
 *    computations against its pushes (one computation per changed answer, however many streams
 *    watch it).
 *
 *   npm run bench:live -- --backlog 100000 --seconds 30 --streams 5000 [--api-node-flags="..."]
 *
 * The API replicas get `npm run api`'s heap flags (service/heap-flags.ts) unless
 * `--api-node-flags` names others (`--api-node-flags=` for V8's defaults).
 *
 * `--memory-probe DIR`: the fan-out's API replica loads tools/bench/memory-probe.ts, which writes
 * what its memory is made of to DIR each second (`node tools/bench/memory-report.ts DIR`).
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { refuseFlag, toolArgs } from '../tool-args.ts';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { resumeKey } from '../../src/rollup/keys.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { topicNames } from '../../src/kafka/topics.ts';
import { API_HEAP_FLAGS } from '../../service/heap-flags.ts';
import { freePort } from '../services/free-port.ts';
import {
  environment,
  positiveFlag,
  processCpuSeconds,
  processPeakRssBytes,
  processRssBytes,
} from './measure.ts';
import { nearestRank } from '../nearest-rank.ts';

const { values } = toolArgs(import.meta.url, {
  options: {
    backlog: { type: 'string', default: '60000' },
    seconds: { type: 'string', default: '30' },
    streams: { type: 'string', default: '5000' },
    'latency-streams': { type: 'string', default: '100' },
    'fanout-rate': { type: 'string', default: '500' },
    'fanout-seconds': { type: 'string', default: '30' },
    'open-per-second': { type: 'string', default: '0' },
    partitions: { type: 'string', default: '4' },
    'api-node-flags': { type: 'string' },
    'memory-probe': { type: 'string' },
  },
});
const backlog = positiveFlag('backlog', values.backlog);
const seconds = positiveFlag('seconds', values.seconds);
const streamCount = positiveFlag('streams', values.streams);
const latencyStreams = positiveFlag('latency-streams', values['latency-streams']);
const fanoutRate = positiveFlag('fanout-rate', values['fanout-rate']);
const fanoutSeconds = positiveFlag('fanout-seconds', values['fanout-seconds']);
/** Fan-out streams opened a second (in steps of a tenth of it); 0: all at once. */
const openPerSecond = Number(values['open-per-second']);
if (!Number.isInteger(openPerSecond) || openPerSecond < 0) {
  refuseFlag('--open-per-second: a whole number of streams a second, 0 for all at once');
}
const partitions = positiveFlag('partitions', values.partitions);
// As `npm run api` starts it, unless --api-node-flags says otherwise ("" for V8's defaults).
const apiFlags = values['api-node-flags']?.split(' ').filter((flag) => flag !== '') ??
  API_HEAP_FLAGS;
const brokers = (process.env['KAFKA_BROKERS'] ?? '').split(',').filter((b) => b !== '');
const redisUrl = process.env['REDIS_URL'] ?? '';
if (brokers.length === 0 || redisUrl === '') {
  throw new Error(
    'KAFKA_BROKERS and REDIS_URL: run `npm run services:up`, then load .services/env',
  );
}
const KEY = 'bench-live-key-0123456789abcdef';
const PROJECTS = 500;
const run = Math.random().toString(36).slice(2, 8);
const prefix = `bench-live-${run}.`;
const topics = topicNames(prefix);
const projects = Array.from(
  { length: PROJECTS },
  (_, i) => `lv${run}${String(i).padStart(12, '0')}`,
);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const common = {
  PATH: process.env['PATH'],
  KAFKA_BROKERS: brokers.join(','),
  KAFKA_TOPIC_PREFIX: prefix,
  KAFKA_GROUP_ID: `${prefix}group`,
  TOPIC_PARTITIONS: String(partitions),
  REDIS_URL: redisUrl,
  API_KEYS: KEY,
  LOG_LEVEL: 'warn',
};
function start(role: string, env: Record<string, string>, flags: string[] = []): ChildProcess {
  const child = spawn(process.execPath, [...flags, 'service/main.ts', '--role', role], {
    env: { ...common, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

const children: ChildProcess[] = [];
// Whatever ends the bench, its service processes end with it.
process.on('exit', () => {
  for (const child of children) child.kill('SIGTERM');
});
process.on('uncaughtException', (error) => {
  console.error(error);
  process.exit(1);
});
/** An API replica of its own, on a free port, ready; with `probed`, its memory probed. */
async function startApi(probed = false): Promise<{ child: ChildProcess; base: string }> {
  const port = await freePort();
  const probe = probed && values['memory-probe'] !== undefined
    ? { dir: values['memory-probe'], flags: ['--import', './tools/bench/memory-probe.ts'] }
    : { dir: '', flags: [] };
  const child = start('api', {
    MEMORY_PROBE_DIR: probe.dir,
    MEMORY_PROBE_SAMPLING_S: process.env['MEMORY_PROBE_SAMPLING_S'] ?? '',
    MEMORY_PROBE_SAMPLING_FROM_S: process.env['MEMORY_PROBE_SAMPLING_FROM_S'] ?? '',
    MEMORY_PROBE_GC_AT_S: process.env['MEMORY_PROBE_GC_AT_S'] ?? '',
    MEMORY_PROBE_SNAPSHOT_MIB: process.env['MEMORY_PROBE_SNAPSHOT_MIB'] ?? '',
    MEMORY_PROBE_GC_FLAVOR: process.env['MEMORY_PROBE_GC_FLAVOR'] ?? '',
    HOST: '127.0.0.1',
    PORT: String(port),
    RATE_LIMIT: 'off',
    HTTP_MAX_CONNECTIONS: String(streamCount + 1000),
    HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
    LIVE_MAX_STREAMS: String(streamCount + 1000),
    LIVE_MAX_STREAMS_PER_KEY: String(streamCount + 1000),
    LIVE_MAX_STREAMS_PER_ADDRESS: '0',
  }, [...probe.flags, ...apiFlags]);
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      await sleep(100);
    }
  }
  return { child, base };
}

const kafka = new Kafka({ brokers, logLevel: logLevel.NOTHING });
const admin = kafka.admin();
await admin.connect();
await admin.createTopics({
  topics: Object.values(topics).map((topic) => ({ topic, numPartitions: partitions })),
});
const producer = kafka.producer({ allowAutoTopicCreation: false });
await producer.connect();
let sequence = 0;
/** Publishes `count` events spread over `among` projects; answers each project's events' count. */
async function publish(out: Producer, count: number, among: number): Promise<Map<string, number>> {
  const nowUs = Date.now() * 1000;
  const per = new Map<string, number>();
  const messages = Array.from({ length: count }, () => {
    sequence += 1;
    const project = projects[sequence % among] ?? '';
    per.set(project, (per.get(project) ?? 0) + 1);
    return {
      key: project,
      value: JSON.stringify({
        id: `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`,
        timestamp: nowUs,
        event_message: 'bench',
        metadata: [{
          function_id: 'f',
          project_ref: project,
          execution_time_ms: sequence % 200,
          request: [{ method: 'GET', url: '/bench' }],
          response: [{ status_code: 200 }],
        }],
      }),
    };
  });
  // Batches a broker takes whole (its message.max.bytes is 1 MB by default), 4 in flight.
  const batches: (typeof messages)[] = [];
  for (let i = 0; i < messages.length; i += 1_000) batches.push(messages.slice(i, i + 1_000));
  for (let i = 0; i < batches.length; i += 4) {
    await Promise.all(
      batches.slice(i, i + 4).map((batch) =>
        out.send({ topic: topics['function-edge'], messages: batch })
      ),
    );
  }
  return per;
}

// 1. The maximum rate. (a) A backlog folded by the consumers alone, timed from the first flush
// stored until every offset is. (b) What the deployment ingests: events published as fast as the
// producer sends them while the consumers fold them, the producer, the broker, the consumers and
// Redis sharing this machine's cores, timed from the first sent until every offset is stored.
// Phase 2 runs at 80% of (b): a rate this machine can take in at all.
for (let sent = 0; sent < backlog; sent += 5_000) {
  await publish(producer, Math.min(5_000, backlog - sent), PROJECTS);
}
const store = await RedisStore.connect(redisUrl);
const partitionIds = (await admin.fetchTopicOffsets(topics['function-edge'])).map((p) =>
  p.partition
);
const publishedCount = async () =>
  (await admin.fetchTopicOffsets(topics['function-edge'])).reduce(
    (sum, partition) => sum + Number(partition.high),
    0,
  );
const stored = async () => {
  let total = 0;
  for (const partition of partitionIds) {
    total += (await store.readOffset(resumeKey(`${topics['function-edge']}/${partition}`))) ?? 0;
  }
  return total;
};
/** Waits until every offset up to `end` is stored; answers when the first flush was, and its count. */
async function foldedBy(
  end: number,
): Promise<{ firstMs: number; atFirst: number; doneMs: number }> {
  let firstMs: number | null = null;
  let atFirst = 0;
  for (;;) {
    const folded = await stored();
    if (folded > 0 && firstMs === null) {
      firstMs = performance.now();
      atFirst = folded;
    }
    if (folded >= end) {
      return { firstMs: firstMs ?? performance.now(), atFirst, doneMs: performance.now() };
    }
    await sleep(50);
  }
}
const consumers = start('consumers', {});
const folding = await foldedBy(await publishedCount());
// From the first flush stored: the group's join and the topics' creation are not the rate.
const foldRate = (backlog - folding.atFirst) / ((folding.doneMs - folding.firstMs) / 1000 || 1);
const ingestStart = performance.now();
await publish(producer, backlog, PROJECTS);
const sentMs = performance.now() - ingestStart;
const ingested = await foldedBy(await publishedCount());
const maxRate = backlog / ((ingested.doneMs - ingestStart) / 1000);
console.log(
  `max: ${Math.round(foldRate)} events/s folded from a backlog by one consumer process; ` +
    `${Math.round(maxRate)} events/s published and folded at once (${backlog} events, sent in ` +
    `${(sentMs / 1000).toFixed(1)} s)`,
);

/** A stream: its events as they arrive, counted (and, with `parse`, each answer's total count). */
function openStream(
  base: string,
  project: string,
  parse: boolean,
  onCount?: (count: number) => void,
) {
  const state = { events: 0, closed: false, destroy: () => {} };
  const path = `/api/endpoints/functions.invocation-stats?project=${project}&interval=1day`;
  const req = request(`${base}${path}`, {
    agent: false,
    headers: { 'X-API-KEY': KEY, Accept: 'text/event-stream' },
  }, (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
      let at = text.indexOf('\n\n');
      while (at >= 0) {
        const block = text.slice(0, at);
        text = text.slice(at + 2);
        at = text.indexOf('\n\n');
        if (!block.includes('data: ')) continue;
        state.events += 1;
        if (!parse) continue;
        const data = block.split('\n').filter((line) => line.startsWith('data: '))
          .map((line) => line.slice(6)).join('\n');
        const rows = (JSON.parse(data) as { result: { count: number }[] }).result;
        onCount?.(rows.reduce((sum, row) => sum + row.count, 0));
      }
    });
    res.on('close', () => (state.closed = true));
  });
  req.on('error', () => (state.closed = true));
  req.end();
  state.destroy = () => req.destroy();
  return state;
}

async function metric(base: string, name: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `) || line.startsWith(`${name}{`)) {
      total += Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return total;
}

// 2. Published -> pushed at 80% of the maximum rate, on one stream per watched project.
const latencyApi = await startApi();
const published = new Map<string, number[]>();
const latenciesMs: number[] = [];
const watched = projects.slice(0, latencyStreams);
const latencyStreamsOpen = watched.map((project) => {
  // The first answer counts the backlog: only this phase's publications are timed.
  let baseline: number | null = null;
  let seen = 0;
  return openStream(latencyApi.base, project, true, (count) => {
    if (baseline === null) {
      baseline = count;
      return;
    }
    const times = published.get(project) ?? [];
    const atMs = performance.now();
    const now = Math.min(count - baseline, times.length);
    for (let i = seen; i < now; i++) latenciesMs.push(atMs - (times[i] ?? atMs));
    seen = Math.max(seen, now);
  });
});
await sleep(2_000);
const rate80 = Math.floor(maxRate * 0.8);
const tickMs = 100;
const phaseEnd = performance.now() + seconds * 1000;
let sentEvents = 0;
const phaseStart = performance.now();
while (performance.now() < phaseEnd) {
  const tickStart = performance.now();
  // What is due by now: a tick whose send ran long is made up in the next.
  const count = Math.round((rate80 * (tickStart - phaseStart)) / 1000) - sentEvents;
  const per = count > 0 ? await publish(producer, count, PROJECTS) : new Map<string, number>();
  for (const [project, n] of per) {
    const times = published.get(project) ?? [];
    for (let i = 0; i < n; i++) times.push(tickStart);
    published.set(project, times);
  }
  sentEvents += Math.max(0, count);
  await sleep(Math.max(0, tickMs - (performance.now() - tickStart)));
}
await sleep(3_000);
const expectedTimed = watched.reduce(
  (sum, project) => sum + (published.get(project)?.length ?? 0),
  0,
);
for (const stream of latencyStreamsOpen) stream.destroy();
latenciesMs.sort((a, b) => a - b);
console.log(
  `published -> pushed at ${rate80} events/s (80%) for ${seconds} s, ${latencyStreams} streams: ` +
    `p50 ${nearestRank(latenciesMs, 0.5)?.toFixed(0)} ms, p99 ${
      nearestRank(latenciesMs, 0.99)?.toFixed(0)
    } ms, max ${
      latenciesMs.at(-1)?.toFixed(0)
    } ms over ${latenciesMs.length} of ${expectedTimed} events`,
);

// 3. Fan-out, on an API replica of its own (the first one's heap grew with phase 2's rate): every
// project watched by streams/500 streams; events at a low rate.
latencyApi.child.kill('SIGTERM');
const fanApi = await startApi(true);
const api = fanApi.child;
const rssIdle = processRssBytes(api.pid);
const fan: ReturnType<typeof openStream>[] = [];
const openStep = Math.max(1, Math.round(openPerSecond / 10));
const openStart = performance.now();
for (let i = 0; i < streamCount; i++) {
  fan.push(openStream(fanApi.base, projects[i % PROJECTS] ?? '', false));
  if (openPerSecond > 0 && i % openStep === openStep - 1) await sleep(100);
}
for (let i = 0; i < 300 && fan.some((stream) => stream.events === 0); i++) await sleep(100);
const opened = fan.filter((stream) => stream.events > 0).length;
// Until the last stream had its first answer (to within the 100 ms of the wait above).
const openSeconds = (performance.now() - openStart) / 1000;
const rssOpened = processRssBytes(api.pid);
const pushesBefore = await metric(fanApi.base, 'api_live_pushes_total');
const recomputesBefore = await metric(fanApi.base, 'api_live_recomputes_total');
const cpuBefore = processCpuSeconds(api.pid) ?? 0;
const fanStart = performance.now();
const fanEnd = fanStart + fanoutSeconds * 1000;
// The RSS every 10 s: flat, or growing with the pushes.
const rssSamples: (number | null)[] = [];
while (performance.now() < fanEnd) {
  const tickStart = performance.now();
  await publish(producer, Math.round(fanoutRate / 10), PROJECTS);
  if (tickStart - fanStart >= (rssSamples.length + 1) * 10_000) {
    rssSamples.push(processRssBytes(api.pid));
  }
  await sleep(Math.max(0, 100 - (performance.now() - tickStart)));
}
await sleep(2_000);
const cpu = (processCpuSeconds(api.pid) ?? 0) - cpuBefore;
const pushes = (await metric(fanApi.base, 'api_live_pushes_total')) - pushesBefore;
const recomputes = (await metric(fanApi.base, 'api_live_recomputes_total')) - recomputesBefore;
const received = fan.reduce((sum, stream) => sum + stream.events, 0) - opened;
const mib = (
  bytes: number | null,
) => (bytes === null ? 'n/a' : `${(bytes / 1048576).toFixed(0)} MiB`);
console.log(
  `fan-out: ${opened} streams open over ${PROJECTS} answers (opened ${
    openPerSecond === 0 ? 'all at once' : `${openPerSecond} a second`
  }, every first answer in ${
    openSeconds.toFixed(1)
  } s), ${fanoutRate} events/s for ${fanoutSeconds} s: ` +
    `${pushes} pushes (${received} received), ${recomputes} computations ` +
    `(${(pushes / Math.max(1, recomputes)).toFixed(1)} pushes each); API CPU ` +
    `${((cpu * 1e6) / Math.max(1, pushes)).toFixed(1)} µs per pushed event, ` +
    `${((cpu / fanoutSeconds) * 100).toFixed(1)}% of a core; RSS ${
      mib(rssIdle)
    } before the streams, ` +
    `${mib(rssOpened)} with them open, ${mib(processRssBytes(api.pid))} at the end ` +
    `(peak ${mib(processPeakRssBytes(api.pid))}); every 10 s: ${rssSamples.map(mib).join(', ')}`,
);
console.log(
  `sent ${sentEvents} events in phase 2 (${Math.round(sentEvents / seconds)} events/s); API ` +
    `flags: ${apiFlags.join(' ') || "V8's defaults"}; ${environment()}`,
);
for (const stream of fan) stream.destroy();
await producer.disconnect();
await admin.deleteTopics({ topics: Object.values(topics) });
await admin.disconnect();
await store.close();
consumers.kill('SIGTERM');
api.kill('SIGTERM');
