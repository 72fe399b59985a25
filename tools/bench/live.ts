/**
 * Live answers measured (issue 53): the service as deployed in two processes, consumers and one
 * API replica, on the dev stack's Kafka and Redis (`npm run services:up`, then
 * `set -a; . .services/env; set +a`). Events are `function-edge` invocations of 500 projects,
 * published to Kafka keyed by project; each stream watches one project's
 * `functions.invocation-stats` `1day` answer, whose total count tells which of the project's
 * events it covers (one partition per project, folded in order).
 *
 * 1. The consumer's maximum rate: a backlog folded at full speed.
 * 2. Published -> pushed, at 80% of that rate: the time from each event's publication to the first
 *    pushed answer that counts it, on every stream (`--latency-streams`, one per project).
 * 3. Fan-out: `--streams` (5,000) streams over 500 distinct answers, events at `--fanout-rate`;
 *    the API's CPU per pushed event, its RSS, and its computations against its pushes (one
 *    computation per changed answer, however many streams watch it).
 *
 *   npm run bench:live -- --backlog 100000 --seconds 30 --streams 5000 [--api-node-flags="..."]
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { request } from 'node:http';
import { parseArgs } from 'node:util';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { resumeKey } from '../../src/rollup/keys.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { topicNames } from '../../src/kafka/topics.ts';
import { freePort } from '../../test/support/poll.ts';
import {
  environment,
  positiveFlag,
  processCpuSeconds,
  processPeakRssBytes,
  processRssBytes,
} from './measure.ts';
import { nearestRank } from '../nearest-rank.ts';

const { values } = parseArgs({
  options: {
    backlog: { type: 'string', default: '60000' },
    seconds: { type: 'string', default: '30' },
    streams: { type: 'string', default: '5000' },
    'latency-streams': { type: 'string', default: '100' },
    'fanout-rate': { type: 'string', default: '500' },
    partitions: { type: 'string', default: '4' },
    'api-node-flags': { type: 'string', default: '' },
  },
});
const backlog = positiveFlag('backlog', values.backlog);
const seconds = positiveFlag('seconds', values.seconds);
const streamCount = positiveFlag('streams', values.streams);
const latencyStreams = positiveFlag('latency-streams', values['latency-streams']);
const fanoutRate = positiveFlag('fanout-rate', values['fanout-rate']);
const partitions = positiveFlag('partitions', values.partitions);
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
function start(role: string, env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['service/main.ts', '--role', role], {
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
const port = await freePort();
const base = `http://127.0.0.1:${port}`;
const api = start('api', {
  ...(values['api-node-flags'] === '' ? {} : { NODE_OPTIONS: values['api-node-flags'] }),
  HOST: '127.0.0.1',
  PORT: String(port),
  RATE_LIMIT: 'off',
  HTTP_MAX_CONNECTIONS: String(streamCount + 1000),
  HTTP_MAX_CONNECTIONS_PER_ADDRESS: '0',
  LIVE_MAX_STREAMS: String(streamCount + 1000),
  LIVE_MAX_STREAMS_PER_KEY: String(streamCount + 1000),
  LIVE_MAX_STREAMS_PER_ADDRESS: '0',
});
for (let i = 0; i < 300; i++) {
  try {
    if ((await fetch(`${base}/health`)).ok) break;
  } catch {
    await sleep(100);
  }
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
  // Batches a broker takes whole (its message.max.bytes is 1 MB by default).
  for (let i = 0; i < messages.length; i += 1_000) {
    await out.send({ topic: topics['function-edge'], messages: messages.slice(i, i + 1_000) });
  }
  return per;
}

// 1. The maximum rate: the backlog first, then the consumers, timed until every offset is stored.
for (let sent = 0; sent < backlog; sent += 5_000) {
  await publish(producer, Math.min(5_000, backlog - sent), PROJECTS);
}
const store = await RedisStore.connect(redisUrl);
const offsets = await admin.fetchTopicOffsets(topics['function-edge']);
const end = offsets.reduce((sum, partition) => sum + Number(partition.high), 0);
const stored = async () => {
  let total = 0;
  for (const { partition } of offsets) {
    total += (await store.readOffset(resumeKey(`${topics['function-edge']}/${partition}`))) ?? 0;
  }
  return total;
};
const consumers = start('consumers', {});
let firstMs: number | null = null;
let foldedAtFirst = 0;
let doneMs = 0;
for (;;) {
  const folded = await stored();
  if (folded > 0 && firstMs === null) {
    firstMs = performance.now();
    foldedAtFirst = folded;
  }
  if (folded >= end) {
    doneMs = performance.now();
    break;
  }
  await sleep(50);
}
// From the first flush stored: the group's join and the topics' creation are not the rate.
const maxRate = (end - foldedAtFirst) / ((doneMs - (firstMs ?? doneMs)) / 1000 || 1);
console.log(
  `max: ${Math.round(maxRate)} events/s folded by one consumer process (${backlog} events)`,
);

/** A stream: its events as they arrive, counted (and, with `parse`, each answer's total count). */
function openStream(project: string, parse: boolean, onCount?: (count: number) => void) {
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

async function metric(name: string): Promise<number> {
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
const published = new Map<string, number[]>();
const latenciesMs: number[] = [];
const watched = projects.slice(0, latencyStreams);
const latencyStreamsOpen = watched.map((project) => {
  // The first answer counts the backlog: only this phase's publications are timed.
  let baseline: number | null = null;
  let seen = 0;
  return openStream(project, true, (count) => {
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
while (performance.now() < phaseEnd) {
  const tickStart = performance.now();
  const count = Math.round(rate80 * tickMs / 1000);
  const per = await publish(producer, count, PROJECTS);
  for (const [project, n] of per) {
    const times = published.get(project) ?? [];
    for (let i = 0; i < n; i++) times.push(tickStart);
    published.set(project, times);
  }
  sentEvents += count;
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

// 3. Fan-out: every project watched by streams/500 streams; events at a low rate.
const fan = Array.from(
  { length: streamCount },
  (_, i) => openStream(projects[i % PROJECTS] ?? '', false),
);
for (let i = 0; i < 300 && fan.some((stream) => stream.events === 0); i++) await sleep(100);
const opened = fan.filter((stream) => stream.events > 0).length;
const pushesBefore = await metric('api_live_pushes_total');
const recomputesBefore = await metric('api_live_recomputes_total');
const cpuBefore = processCpuSeconds(api.pid) ?? 0;
const fanEnd = performance.now() + seconds * 1000;
while (performance.now() < fanEnd) {
  const tickStart = performance.now();
  await publish(producer, Math.round(fanoutRate / 10), PROJECTS);
  await sleep(Math.max(0, 100 - (performance.now() - tickStart)));
}
await sleep(2_000);
const cpu = (processCpuSeconds(api.pid) ?? 0) - cpuBefore;
const pushes = (await metric('api_live_pushes_total')) - pushesBefore;
const recomputes = (await metric('api_live_recomputes_total')) - recomputesBefore;
const received = fan.reduce((sum, stream) => sum + stream.events, 0) - opened;
const mib = (
  bytes: number | null,
) => (bytes === null ? 'n/a' : `${(bytes / 1048576).toFixed(0)} MiB`);
console.log(
  `fan-out: ${opened} streams open over ${PROJECTS} answers, ${fanoutRate} events/s for ${seconds} s: ` +
    `${pushes} pushes (${received} received), ${recomputes} computations ` +
    `(${(pushes / Math.max(1, recomputes)).toFixed(1)} pushes each); API CPU ` +
    `${((cpu * 1e6) / Math.max(1, pushes)).toFixed(1)} µs per pushed event, ` +
    `${((cpu / seconds) * 100).toFixed(1)}% of a core; RSS ${mib(processRssBytes(api.pid))} ` +
    `(peak ${mib(processPeakRssBytes(api.pid))})`,
);
console.log(
  `sent ${sentEvents} events in phase 2 (${Math.round(sentEvents / seconds)} events/s); API ` +
    `flags: ${values['api-node-flags'] || "V8's defaults"}; ${environment()}`,
);
for (const stream of fan) stream.destroy();
await producer.disconnect();
await admin.deleteTopics({ topics: Object.values(topics) });
await admin.disconnect();
await store.close();
consumers.kill('SIGTERM');
api.kill('SIGTERM');
