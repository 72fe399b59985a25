/**
 * The ingest benchmark (`npm run bench:ingest -- [--events 1000000] [--store redis|redis-cluster]
 * [--keys project|random] [--compression none|gzip|snappy|lz4|zstd] [--projects 1000]`), on the
 * broker of `npm run services:up` and an empty Redis (or three-master Redis Cluster) of its own, started for
 * the run and stopped after it (`own-store.ts`), all on this machine. `--keys random` plays a producer that does not key
 * by project: every partition, and so every consumer, writes every project. Phases, each printed
 * with its figures:
 *
 * 1. publish N generated events (`--projects`, default 1,000, Zipf-skewed) to fresh
 *    12-partition topics, in batches of `--compression` (default none); with a codec, 1b: the codec alone, decompressing
 *    batches of 100 of those events, CPU per event;
 * 2. bare kafkajs consume-and-discard of the N events: the client's ceiling, and its CPU per event
 *    (this process's), which with a codec includes decompressing: the difference from a run
 *    without one is what the codec costs per event;
 * 3. end to end: `--consumers` consumer processes (default one per core; `service/main.ts --role consumers`,
 *    the production entry point, one group) fold the N events into Redis; events/s, its ratio
 *    to the bare rate, flush latency p50/p99 (dead letters, store reads, merge and the commit,
 *    per flush, from their debug logs; at saturation this includes waiting for the CPU);
 *    CPU per event of Redis (summed over the cluster's masters and printed per master), of the
 *    consumer processes and of the broker (Linux `/proc`, when `.services/kafka/kafka.pid` is
 *    there), the unit costs of docs/SCALING.md;
 * 4. Redis bytes per active project (used_memory growth / projects, and per-key MEMORY USAGE of
 *    the hottest and the median project);
 * 5. freshness at 80% of the end-to-end rate: a separate producer process publishes live events
 *    for a fixed time (over `--projects` projects of a population of its own, drawn with another
 *    seed: their keys start empty); per flush, produce-to-visible = flush end - oldest Kafka
 *    CreateTime in it; the flush latency at that rate; and over the phase, the CPU per event of
 *    Redis and of the consumers, Redis's time per event by command (`INFO commandstats`) and the
 *    bytes Redis received per event (`INFO stats`).
 *
 * At the end, each consumer process's peak RSS (`VmHWM`). `--profile DIR` runs the consumers
 * with `node --cpu-prof --cpu-prof-dir=DIR`: one CPU profile per consumer, written as it stops.
 * `--memory-probe DIR` loads `memory-probe.ts` into each consumer and prints, per consumer, what
 * its RSS was made of at its highest (V8's spaces, live heap after a major collection, external
 * buffers, collections). The consumers get the heap flags of `npm run consumers`
 * (`service/heap-flags.ts`); `--node-flags="..."` gives theirs instead (to try heap settings;
 * `--node-flags=""` for V8's defaults). Whatever the flags, the role turns allocation-site
 * pretenuring off itself (`RUNTIME_V8_FLAGS`).
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { toolArgs } from '../tool-args.ts';
import { Buffer } from 'node:buffer';
import kafkajs, { Kafka, logLevel } from 'kafkajs';
import type { Codec } from '../../src/kafka/codecs/codec.ts';
import {
  COMPRESSION_TYPES,
  type CompressionName,
  registerCodecs,
} from '../../src/kafka/codecs/register.ts';
import type { FlushReport } from '../../consumers/processor-options.ts';
import { ensureTopics, topicNames } from '../../src/kafka/topics.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { generateEvents, GENERATOR_DEFAULTS } from '../../src/synthetic/generator.ts';
import { bareConsume } from './bare-consume.ts';
import { startConsumerProcess, storedEvents } from './consumer-process.ts';
import { processCpuSeconds, processPeakRssBytes } from './measure.ts';
import { publishGenerated } from './publish-generated.ts';
import { describeProbe, readProbes } from './memory-report.ts';
import { CONSUMER_HEAP_FLAGS } from '../../service/heap-flags.ts';
import { startOwnBenchStore } from './own-store.ts';
import { type BenchStore, commandsLine, RedisNodes } from './redis-nodes.ts';
import { kafkaService } from '../services/kafka.ts';

const { values } = toolArgs(import.meta.url, {
  options: {
    events: { type: 'string', default: '1000000' },
    'freshness-seconds': { type: 'string', default: '20' },
    partitions: { type: 'string', default: '12' },
    // One consumer process per core, as the README recommends.
    consumers: { type: 'string', default: String(availableParallelism()) },
    store: { type: 'string', default: 'redis' },
    keys: { type: 'string', default: 'project' },
    projects: { type: 'string', default: String(GENERATOR_DEFAULTS.projects) },
    compression: { type: 'string', default: 'none' },
    profile: { type: 'string' },
    'memory-probe': { type: 'string' },
    'node-flags': { type: 'string' },
  },
});
if (values.store !== 'redis' && values.store !== 'redis-cluster') {
  console.error(`--store must be redis or redis-cluster, not ${values.store}`);
  process.exit(2);
}
if (values.keys !== 'project' && values.keys !== 'random') {
  console.error(`--keys must be project or random, not ${values.keys}`);
  process.exit(2);
}
const PROJECTS = Number(values.projects);
if (!Number.isSafeInteger(PROJECTS) || PROJECTS < 1) {
  console.error(`--projects must be a positive integer, not ${values.projects}`);
  process.exit(2);
}
const COMPRESSION = Object.keys(COMPRESSION_TYPES).find((name): name is CompressionName =>
  name === values.compression
);
if (COMPRESSION === undefined) {
  console.error(
    `--compression must be one of ${
      Object.keys(COMPRESSION_TYPES).join(', ')
    }, not ${values.compression}`,
  );
  process.exit(2);
}
/** Events per batch in the codec's own measure: what a producer's batch of one partition holds. */
const CODEC_BATCH_EVENTS = 100;
const STORE: BenchStore = values.store;
const KEYS: 'project' | 'random' = values.keys;
const EVENTS = Number(values.events);
const FRESHNESS_SECONDS = Number(values['freshness-seconds']);
const PARTITIONS = Number(values.partitions);
const CONSUMERS = Number(values.consumers);
const brokers = (process.env.KAFKA_BROKERS ?? kafkaService().address).split(',');
// An empty Redis (or cluster) of this run's own: never the shared one, which others may be using.
const ownStore = await startOwnBenchStore(STORE, `redis-bench-ingest-${process.pid}`);
const { redisUrl, clusterNodes } = ownStore;

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

const prefix = `bench-${randomUUID().slice(0, 8)}.`;
const topics = topicNames(prefix);
registerCodecs();
const kafka = new Kafka({ clientId: 'bench-ingest', brokers, logLevel: logLevel.NOTHING });
const admin = kafka.admin();
await admin.connect();
await ensureTopics(admin, { partitions: PARTITIONS, topics: Object.values(topics) });
const nodes = await RedisNodes.connect(STORE, ownStore.env);
const results: Record<string, unknown> = {
  events: EVENTS,
  partitions: PARTITIONS,
  consumers: CONSUMERS,
  store: STORE,
  redisNodes: nodes.names,
  keys: KEYS,
  compression: COMPRESSION,
  projects: PROJECTS,
};
console.log(
  `ingest benchmark: ${EVENTS} events, ${PARTITIONS} partitions, ${CONSUMERS} consumer process(es), ` +
    `${STORE} (${nodes.names.join(', ')}), ${PROJECTS} projects keyed by ${KEYS}, ` +
    `${COMPRESSION} batches, ` +
    `topics ${prefix}*`,
);

// 1. Publish.
const nowUs = Date.now() * 1000;
const published = await publishGenerated(kafka, {
  topics,
  events: EVENTS,
  nowUs,
  keys: KEYS,
  compression: COMPRESSION,
  projects: PROJECTS,
});
results.publishEventsPerSecond = Math.round(EVENTS / published);
console.log(
  `1. published ${EVENTS} events in ${
    published.toFixed(1)
  } s (${results.publishEventsPerSecond}/s)`,
);

// 1b. The codec alone: what decompressing costs per event, on batches of the published lines as a
// producer compresses them (one batch per partition per send: about 100 events), in this process.
if (COMPRESSION !== 'none') {
  const codecs: Record<number, () => Codec> = kafkajs.CompressionCodecs;
  const codec = codecs[COMPRESSION_TYPES[COMPRESSION]]?.();
  if (codec === undefined) throw new Error(`no ${COMPRESSION} codec is registered`);
  const batches: Buffer[] = [];
  const sample = generateEvents({ seed: 1, events: Math.min(EVENTS, 100_000), nowUs });
  let batch: string[] = [];
  let sampled = 0;
  for (const { line } of sample) {
    batch.push(line);
    sampled += 1;
    if (batch.length === CODEC_BATCH_EVENTS) {
      batches.push(await codec.compress({ buffer: Buffer.from(batch.join('')) }));
      batch = [];
    }
  }
  const cpuBefore = process.cpuUsage();
  for (const compressed of batches) await codec.decompress(compressed);
  const cpu = process.cpuUsage(cpuBefore);
  const events = batches.length * CODEC_BATCH_EVENTS;
  results.decompressCpuUsPerEvent = Number(((cpu.user + cpu.system) / events).toFixed(3));
  results.decompressBatches = batches.length;
  console.log(
    `1b. ${COMPRESSION} decompression alone: ${results.decompressCpuUsPerEvent} µs of CPU per ` +
      `event (${batches.length} batches of ${CODEC_BATCH_EVENTS} of the ${sampled} events)`,
  );
}

// 2. Bare kafkajs consume-and-discard.
{
  const bare = await bareConsume(kafka, {
    groupId: `${prefix}bare`,
    topics: [topics.edge, topics['function-edge']],
    partitions: PARTITIONS,
    events: EVENTS,
  });
  results.bareEventsPerSecond = bare.eventsPerSecond;
  results.bareCpuUsPerEvent = bare.cpuUsPerEvent;
  console.log(
    `2. bare kafkajs consume-and-discard: ${results.bareEventsPerSecond} events/s, ` +
      `${results.bareCpuUsPerEvent} µs of CPU per event`,
  );
}

// 3. End to end into Redis, through real consumer processes.
const sum = (figures: readonly number[]) => figures.reduce((total, figure) => total + figure, 0);
const usedBefore = sum(await nodes.usedMemory());
const redisCpuBefore = await nodes.cpuSeconds();
const store = STORE === 'redis'
  ? await RedisStore.connect(redisUrl)
  : await RedisStore.connectCluster([...clusterNodes]);
const flushes: FlushReport[] = [];
const freshness: number[] = [];
const liveFlushDurations: number[] = [];
let measuringFreshness = false;
// The consumers inherit this environment: where their probes write (this process loads none).
if (values['memory-probe'] !== undefined) process.env.MEMORY_PROBE_DIR = values['memory-probe'];
const children = Array.from({ length: CONSUMERS }, () => {
  const child = startConsumerProcess({
    brokers,
    store: STORE,
    redisUrl,
    clusterNodes,
    prefix,
    logLevel: 'debug',
    nodeFlags: [
      ...(values.profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${values.profile}`]),
      ...(values['memory-probe'] === undefined
        ? []
        : ['--import', './tools/bench/memory-probe.ts']),
      // As `npm run consumers` starts them, unless --node-flags says otherwise.
      ...(values['node-flags']?.split(' ').filter((flag) => flag !== '') ?? CONSUMER_HEAP_FLAGS),
    ],
  });
  // Each flush is a debug line {"msg":"flushed","time":<ms>,...FlushReport}.
  createInterface({ input: child.stdout }).on('line', (line) => {
    if (!line.includes('"msg":"flushed"')) return;
    const report = JSON.parse(line) as FlushReport & { time: number };
    flushes.push(report);
    if (measuringFreshness) liveFlushDurations.push(report.durationMs);
    if (measuringFreshness && report.oldestProducedMs !== null) {
      freshness.push(report.time - report.oldestProducedMs);
    }
  });
  return child;
});
const stored = () => storedEvents(store, topics, PARTITIONS);
const brokerPidFile = '.services/kafka/kafka.pid';
const brokerPid = existsSync(brokerPidFile)
  ? Number(readFileSync(brokerPidFile, 'utf8').trim())
  : undefined;
/** CPU seconds of the consumer processes together, and of the broker; null where unknown. */
const processCpu = () => {
  const consumers = children.map((child) => processCpuSeconds(child.pid));
  return {
    consumers: consumers.includes(null)
      ? null
      : consumers.reduce<number>((total, cpu) => total + (cpu ?? 0), 0),
    broker: processCpuSeconds(brokerPid),
  };
};
// The consumers' start-up and group join before the first message are not part of the cost
// per event, but they are small beside 1M events; counted from here.
const processCpuBefore = processCpu();
// Timed from the start of the first flush (process start-up and the group join excluded) to
// the moment every offset is stored.
while ((await stored()) < EVENTS) await new Promise((resolve) => setTimeout(resolve, 50));
const finished = Date.now();
const redisCpuPerNode = (await nodes.cpuSeconds()).map((after, i) =>
  Number(((after - (redisCpuBefore[i] ?? 0)) / EVENTS * 1e6).toFixed(1))
);
results.redisCpuUsPerEvent = Number(sum(redisCpuPerNode).toFixed(1));
results.redisCpuUsPerEventPerNode = redisCpuPerNode;
const processCpuAfter = processCpu();
const perEvent = (before: number | null, after: number | null) =>
  before === null || after === null ? null : Number(((after - before) / EVENTS * 1e6).toFixed(1));
results.consumerCpuUsPerEvent = perEvent(processCpuBefore.consumers, processCpuAfter.consumers);
results.brokerCpuUsPerEvent = perEvent(processCpuBefore.broker, processCpuAfter.broker);
const firstFlush = Math.min(
  ...flushes.map((flush) => (flush as FlushReport & { time: number }).time - flush.durationMs),
);
const seconds = (finished - firstFlush) / 1000;
results.endToEndEventsPerSecond = Math.round(EVENTS / seconds);
results.ratioToBare = Number((EVENTS / seconds / Number(results.bareEventsPerSecond)).toFixed(2));
const durations = flushes.map((flush) => flush.durationMs);
results.flushes = flushes.length;
results.flushP50Ms = Number(percentile(durations, 0.5).toFixed(1));
results.flushP99Ms = Number(percentile(durations, 0.99).toFixed(1));
results.flushEventsP50 = percentile(flushes.map((flush) => flush.events), 0.5);
results.emptyFlushes = flushes.filter((flush) => flush.events === 0).length;
console.log(
  `3. end to end into Redis: ${results.endToEndEventsPerSecond} events/s ` +
    `(${results.ratioToBare} of bare), ${flushes.length} flushes (${results.emptyFlushes} of no event, ` +
    `p50 ${results.flushEventsP50} events), flush p50 ${results.flushP50Ms} ms, p99 ${results.flushP99Ms} ms; ` +
    `Redis CPU ${results.redisCpuUsPerEvent} µs per event` +
    (nodes.names.length > 1 ? ` (per master: ${redisCpuPerNode.join(' + ')})` : '') +
    `; consumers ${results.consumerCpuUsPerEvent ?? '?'} µs, broker ${
      results.brokerCpuUsPerEvent ?? '?'
    } µs of CPU per event`,
);

// 4. Redis bytes per active project.
const usedAfter = sum(await nodes.usedMemory());
const perProject = new Map<string, number>();
for await (const [key, bytes] of nodes.keyUsages('rollup:{*')) {
  const project = decodeURIComponent(key.slice('rollup:{'.length, key.indexOf('}')));
  perProject.set(project, (perProject.get(project) ?? 0) + bytes);
}
const sizes = [...perProject.values()].sort((a, b) => a - b);
results.activeProjects = perProject.size;
results.redisBytesPerProjectMean = Math.round(
  (usedAfter - usedBefore) / Math.max(1, perProject.size),
);
results.redisBytesPerProjectMedian = percentile(sizes, 0.5);
results.redisBytesHottestProject = sizes.at(-1) ?? 0;
console.log(
  `4. Redis: ${perProject.size} active projects, used_memory growth ${
    ((usedAfter - usedBefore) / 1048576).toFixed(1)
  } MiB = ${results.redisBytesPerProjectMean} B/project; per-key MEMORY USAGE median ${results.redisBytesPerProjectMedian} B, hottest ${results.redisBytesHottestProject} B`,
);

// 5. Freshness at 80% of the end-to-end rate, from a separate producer process.
const rate = Math.round(Number(results.endToEndEventsPerSecond) * 0.8);
// The live phase's costs per event: its events lie within the last seconds, so each touches the
// few buckets live traffic touches (issue 48's "Redis CPU per event at a live rate").
const liveStoredBefore = await stored();
await nodes.resetStats();
const liveRedisBefore = sum(await nodes.cpuSeconds());
const liveCpuBefore = processCpu();
measuringFreshness = true;
await new Promise<void>((resolve, reject) => {
  const child = spawn(process.execPath, [
    '--disable-warning=TimeoutNegativeWarning',
    'tools/bench/produce.ts',
    '--rate',
    String(rate),
    '--seconds',
    String(FRESHNESS_SECONDS),
    '--keys',
    KEYS,
    '--projects',
    String(PROJECTS),
  ], {
    env: { ...process.env, KAFKA_TOPIC_PREFIX: prefix },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  child.once(
    'exit',
    (code) => (code === 0 ? resolve() : reject(new Error(`producer exited ${code}`))),
  );
});
await new Promise((resolve) => setTimeout(resolve, 2_000));
measuringFreshness = false;
const liveEvents = (await stored()) - liveStoredBefore;
const liveCpuAfter = processCpu();
const livePerEvent = (before: number | null, after: number | null) =>
  before === null || after === null || liveEvents <= 0
    ? null
    : Number(((after - before) / liveEvents * 1e6).toFixed(1));
results.liveEvents = liveEvents;
results.liveRedisCpuUsPerEvent = livePerEvent(liveRedisBefore, sum(await nodes.cpuSeconds()));
results.liveConsumerCpuUsPerEvent = livePerEvent(liveCpuBefore.consumers, liveCpuAfter.consumers);
// Where that Redis CPU went, per command.
const liveRedisCommands = await nodes.commandsPerEvent(liveEvents, 10);
results.liveRedisCommands = liveRedisCommands;
// What the consumers sent Redis (every request's bytes: each part written whole, each member).
results.liveRedisInputBytesPerEvent = liveEvents > 0
  ? Math.round(sum(await nodes.netInputBytes()) / liveEvents)
  : null;
results.freshnessRate = rate;
results.freshnessFlushes = freshness.length;
results.freshnessP50Ms = percentile(freshness, 0.5);
results.freshnessP99Ms = percentile(freshness, 0.99);
results.liveFlushP50Ms = Number(percentile(liveFlushDurations, 0.5).toFixed(1));
results.liveFlushP99Ms = Number(percentile(liveFlushDurations, 0.99).toFixed(1));
console.log(
  `5. freshness at ${rate} events/s (80%): produce-to-visible p50 ${results.freshnessP50Ms} ms, ` +
    `p99 ${results.freshnessP99Ms} ms over ${freshness.length} flushes (oldest event of each flush); ` +
    `flush p50 ${results.liveFlushP50Ms} ms, p99 ${results.liveFlushP99Ms} ms; over its ${liveEvents} ` +
    `events, Redis CPU ${results.liveRedisCpuUsPerEvent ?? '?'} µs and consumers ${
      results.liveConsumerCpuUsPerEvent ?? '?'
    } µs per event`,
);

console.log(
  `   Redis per live event: ${
    results.liveRedisInputBytesPerEvent ?? '?'
  } bytes received; by command, µs (calls): ${commandsLine(liveRedisCommands)}`,
);

const peaks = children.map((child) => processPeakRssBytes(child.pid));
const peaksMiB = peaks.map((peak) => peak === null ? null : Number((peak / 1048576).toFixed(1)));
results.consumerPeakRssMiB = peaksMiB;
console.log(`consumers' peak RSS: ${peaksMiB.map((peak) => peak ?? '?').join(', ')} MiB`);
const probeDir = values['memory-probe'];
if (probeDir !== undefined) {
  const probes = readProbes(probeDir);
  for (const child of children) {
    console.log(describeProbe(`consumer ${child.pid}`, probes.get(String(child.pid)) ?? []));
  }
}

for (const child of children) child.kill('SIGTERM');
await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))));
await store.close();
await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
await admin.disconnect();
await nodes.close();
await ownStore.stop();
mkdirSync('bench-results', { recursive: true });
writeFileSync(
  `bench-results/ingest-${STORE}-${KEYS}-${CONSUMERS}${
    COMPRESSION === 'none' ? '' : `-${COMPRESSION}`
  }${PROJECTS === GENERATOR_DEFAULTS.projects ? '' : `-${PROJECTS}projects`}.json`,
  `${JSON.stringify(results, null, 2)}\n`,
);
console.log(JSON.stringify(results));
