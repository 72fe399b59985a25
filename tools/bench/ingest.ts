/**
 * The ingest benchmark (`npm run bench:ingest -- [--events 1000000]`), on the broker and Redis of
 * `npm run services:up`, all on this machine. Phases, each printed with its figures:
 *
 * 1. publish N generated events (1,000 projects, Zipf-skewed) to fresh 12-partition topics;
 * 2. bare kafkajs consume-and-discard of the N events: the client's ceiling;
 * 3. end to end: `--consumers` consumer processes (default one per core; `service/main.ts --role consumers`,
 *    the production entry point, one group) fold the N events into Redis; events/s, its ratio
 *    to the bare rate, flush latency p50/p99 (dead letters, store reads, merge and the commit,
 *    per flush, from their debug logs; at saturation this includes waiting for the CPU);
 * 4. Redis bytes per active project (used_memory growth / projects, and per-key MEMORY USAGE of
 *    the hottest and the median project);
 * 5. freshness at 80% of the end-to-end rate: a separate producer process publishes live events
 *    for a fixed time; per flush, produce-to-visible = flush end - oldest Kafka CreateTime in it;
 *    and the flush latency at that rate.
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { mkdirSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { createClient } from 'redis';
import type { FlushReport } from '../../consumers/partition-processor.ts';
import { ensureTopics, topicNames } from '../../src/kafka/topics.ts';
import { recentLogsKey, resumeKey } from '../../src/rollup/keys.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { generateEvents } from '../../src/synthetic/generator.ts';
import { projectKey, publishLines, replayProducer } from '../replay/publish.ts';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    'freshness-seconds': { type: 'string', default: '20' },
    partitions: { type: 'string', default: '12' },
    // One consumer process per core, as the README recommends.
    consumers: { type: 'string', default: String(availableParallelism()) },
  },
});
const EVENTS = Number(values.events);
const FRESHNESS_SECONDS = Number(values['freshness-seconds']);
const PARTITIONS = Number(values.partitions);
const CONSUMERS = Number(values.consumers);
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:9092').split(',');
const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

function percentile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

const prefix = `bench-${randomUUID().slice(0, 8)}.`;
const topics = topicNames(prefix);
const kafka = new Kafka({ clientId: 'bench-ingest', brokers, logLevel: logLevel.NOTHING });
const admin = kafka.admin();
await admin.connect();
await ensureTopics(admin, { partitions: PARTITIONS, topics: Object.values(topics) });
const redis = await createClient({ url: redisUrl }).connect();
await redis.flushDb();
const results: Record<string, unknown> = {
  events: EVENTS,
  partitions: PARTITIONS,
  consumers: CONSUMERS,
};
console.log(
  `ingest benchmark: ${EVENTS} events, ${PARTITIONS} partitions, ${CONSUMERS} consumer process(es), topics ${prefix}*`,
);

// 1. Publish.
const nowUs = Date.now() * 1000;
const producer = replayProducer(kafka);
await producer.connect();
let published = Date.now();
const projects = new Set<string>();
const lines = (function* () {
  for (const line of generateEvents({ seed: 1, events: EVENTS, nowUs, spanUs: 3_600_000_000 })) {
    const key = projectKey(line.source, line.line);
    if (key !== null) projects.add(key);
    yield line;
  }
})();
await publishLines(lines, { producer, topics, batchSize: 1000 });
await producer.disconnect();
published = (Date.now() - published) / 1000;
results.publishEventsPerSecond = Math.round(EVENTS / published);
console.log(
  `1. published ${EVENTS} events in ${
    published.toFixed(1)
  } s (${results.publishEventsPerSecond}/s)`,
);

// 2. Bare kafkajs consume-and-discard.
{
  const consumer = kafka.consumer({ groupId: `${prefix}bare`, maxWaitTimeInMs: 100 });
  await consumer.connect();
  await consumer.subscribe({ topics: [topics.edge, topics['function-edge']], fromBeginning: true });
  let seen = 0;
  let first = 0;
  const done = new Promise<void>((resolve) => {
    void consumer.run({
      partitionsConsumedConcurrently: PARTITIONS,
      eachBatch: ({ batch }) => {
        if (first === 0) first = Date.now();
        seen += batch.messages.length;
        if (seen >= EVENTS) resolve();
        return Promise.resolve();
      },
    });
  });
  await done;
  const seconds = (Date.now() - first) / 1000;
  await consumer.disconnect();
  results.bareEventsPerSecond = Math.round(EVENTS / seconds);
  console.log(`2. bare kafkajs consume-and-discard: ${results.bareEventsPerSecond} events/s`);
}

// 3. End to end into Redis, through real consumer processes.
const usedBefore = Number((await redis.info('memory')).match(/used_memory:(\d+)/)?.[1] ?? 0);
/** Redis's CPU seconds so far (user + system), from INFO cpu. */
const redisCpuSeconds = async () => {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return field('used_cpu_user') + field('used_cpu_sys');
};
const redisCpuBefore = await redisCpuSeconds();
const store = await RedisStore.connect(redisUrl);
const flushes: FlushReport[] = [];
const freshness: number[] = [];
const liveFlushDurations: number[] = [];
let measuringFreshness = false;
const children = Array.from({ length: CONSUMERS }, () => {
  const child = spawn(process.execPath, [
    '--disable-warning=TimeoutNegativeWarning',
    'service/main.ts',
    '--role',
    'consumers',
  ], {
    env: {
      ...process.env,
      KAFKA_BROKERS: brokers.join(','),
      REDIS_URL: redisUrl,
      STORE: 'redis',
      KAFKA_TOPIC_PREFIX: prefix,
      KAFKA_GROUP_ID: `${prefix}rollups`,
      LOG_LEVEL: 'debug',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
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
const streams = [topics.edge, topics['function-edge']].flatMap((topic) =>
  Array.from({ length: PARTITIONS }, (_, partition) => `${topic}/${partition}`)
);
const stored = async () => {
  let total = 0;
  for (const stream of streams) total += (await store.readOffset(resumeKey(stream))) ?? 0;
  return total;
};
// Timed from the start of the first flush (process start-up and the group join excluded) to
// the moment every offset is stored.
while ((await stored()) < EVENTS) await new Promise((resolve) => setTimeout(resolve, 50));
const finished = Date.now();
results.redisCpuUsPerEvent = Number(
  ((await redisCpuSeconds() - redisCpuBefore) / EVENTS * 1e6).toFixed(1),
);
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
console.log(
  `3. end to end into Redis: ${results.endToEndEventsPerSecond} events/s ` +
    `(${results.ratioToBare} of bare), ${flushes.length} flushes, flush p50 ${results.flushP50Ms} ms, p99 ${results.flushP99Ms} ms; ` +
    `Redis CPU ${results.redisCpuUsPerEvent} µs per event`,
);

// 4. Redis bytes per active project.
const usedAfter = Number((await redis.info('memory')).match(/used_memory:(\d+)/)?.[1] ?? 0);
const perProject = new Map<string, number>();
for await (const keys of redis.scanIterator({ MATCH: 'rollup:{*', COUNT: 1000 })) {
  // node-redis pipelines the concurrent commands of one batch.
  const usages = await Promise.all(keys.map((key) => redis.memoryUsage(key)));
  keys.forEach((key, i) => {
    const project = decodeURIComponent(key.slice('rollup:{'.length, key.indexOf('}')));
    perProject.set(project, (perProject.get(project) ?? 0) + (usages[i] ?? 0));
  });
}
const sizes = [...perProject.values()].sort((a, b) => a - b);
results.activeProjects = perProject.size;
results.redisBytesPerProjectMean = Math.round(
  (usedAfter - usedBefore) / Math.max(1, perProject.size),
);
results.redisBytesPerProjectMedian = percentile(sizes, 0.5);
results.redisBytesHottestProject = sizes.at(-1) ?? 0;
results.ringBufferEntriesHottest = Math.max(
  ...await Promise.all(
    [...perProject.keys()].slice(0, 50).map((p) => redis.zCard(recentLogsKey(p))),
  ),
);
console.log(
  `4. Redis: ${perProject.size} active projects, used_memory growth ${
    ((usedAfter - usedBefore) / 1048576).toFixed(1)
  } MiB = ${results.redisBytesPerProjectMean} B/project; per-key MEMORY USAGE median ${results.redisBytesPerProjectMedian} B, hottest ${results.redisBytesHottestProject} B`,
);

// 5. Freshness at 80% of the end-to-end rate, from a separate producer process.
const rate = Math.round(Number(results.endToEndEventsPerSecond) * 0.8);
measuringFreshness = true;
await new Promise<void>((resolve, reject) => {
  const child = spawn(process.execPath, [
    '--disable-warning=TimeoutNegativeWarning',
    'tools/bench/produce.ts',
    '--rate',
    String(rate),
    '--seconds',
    String(FRESHNESS_SECONDS),
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
results.freshnessRate = rate;
results.freshnessFlushes = freshness.length;
results.freshnessP50Ms = percentile(freshness, 0.5);
results.freshnessP99Ms = percentile(freshness, 0.99);
results.liveFlushP50Ms = Number(percentile(liveFlushDurations, 0.5).toFixed(1));
results.liveFlushP99Ms = Number(percentile(liveFlushDurations, 0.99).toFixed(1));
console.log(
  `5. freshness at ${rate} events/s (80%): produce-to-visible p50 ${results.freshnessP50Ms} ms, ` +
    `p99 ${results.freshnessP99Ms} ms over ${freshness.length} flushes (oldest event of each flush); ` +
    `flush p50 ${results.liveFlushP50Ms} ms, p99 ${results.liveFlushP99Ms} ms`,
);

for (const child of children) child.kill('SIGTERM');
await Promise.all(children.map((child) => new Promise((resolve) => child.once('exit', resolve))));
await store.close();
await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
await admin.disconnect();
await redis.close();
mkdirSync('bench-results', { recursive: true });
writeFileSync(`bench-results/ingest-${CONSUMERS}.json`, `${JSON.stringify(results, null, 2)}\n`);
console.log(JSON.stringify(results));
