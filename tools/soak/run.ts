/**
 * The soak (`npm run soak`): the service run for a long time as in production, and watched.
 * Generated events go to fresh topics at a fixed rate, with timestamps that follow the clock;
 * consumer processes fold them into a Redis of the soak's own; an API process is asked the three
 * endpoints all along, and marker events measure freshness through it. Every few minutes one
 * consumer is stopped and a new one started; once, half-way, Redis is shut down (saving) and
 * started again. Every minute a row: rates, lag, freshness, memory, errors.
 *
 * @module
 */
import { randomBytes, randomUUID } from 'node:crypto';
import kafkajs, { Kafka, logLevel } from 'kafkajs';
import { createClient } from 'redis';
import { registerCodecs } from '../../src/kafka/codecs/register.ts';
import { ensureTopics, topicNames } from '../../src/kafka/topics.ts';
import { resumeKey } from '../../src/rollup/keys.ts';
import { RedisStore } from '../../src/store/redis.ts';
import { generateEvents, syntheticPopulation } from '../../src/synthetic/generator.ts';
import { processRssBytes } from '../bench/measure.ts';
import { MARKER_PROJECT, Prober } from '../replay/probe.ts';
import { publishLines, replayProducer, type SourcedLine } from '../replay/publish.ts';
import { freePort } from '../services/free-port.ts';
import { up } from '../services/lifecycle.ts';
import { readPid } from '../services/process.ts';
import type { Service } from '../services/service.ts';
import { type MinuteRow, ROW_HEADER, rowText } from './minute-row.ts';
import { RoleProcess } from './role-process.ts';

/** Partitions of each soak topic, as the service creates them. */
const PARTITIONS = 12;
/** How long the soak's topics keep messages: long beyond any lag, short for the disk. */
const TOPIC_RETENTION_MS = 40 * 60_000;
/** After Redis is back, how long its 503s and errors still count as the planned outage. */
const OUTAGE_SETTLE_MS = 30_000;
/** How long the consumers may take to fold what is left once publishing stops. */
const DRAIN_TIMEOUT_MS = 5 * 60_000;
const MIB = 1024 * 1024;
/**
 * How long the restarted Redis may take to answer: it loads its snapshot first (833 MB took
 * longer than a fresh start's 15 s on a loaded machine).
 */
const REDIS_LOAD_TIMEOUT_MS = 5 * 60_000;

/** Options of {@link runSoak}. */
export interface SoakOptions {
  readonly brokers: readonly string[];
  /** The soak's own Redis (started with `up`): it is restarted once, half-way. */
  readonly redis: Service;
  readonly minutes: number;
  /**
   * How long one minute of the plan lasts, ms: 60,000 (the default) for a real soak; the test's
   * short form compresses the same plan (replacements, the Redis restart, one row a minute).
   */
  readonly minuteMs?: number;
  /** Events published per second. */
  readonly rate: number;
  /** Consumer processes. */
  readonly consumers: number;
  /** A consumer is replaced every this many minutes. */
  readonly restartEveryMinutes: number;
  readonly seed: number;
  /** Keep every published line (the events and the markers), for a check against a reference. */
  readonly keepLines: boolean;
  /** Where the rows and notes go. */
  readonly print: (line: string) => void;
}

/** What a soak measured. */
export interface SoakReport {
  readonly rows: readonly MinuteRow[];
  /** Every error, described (empty for a clean run). */
  readonly errors: readonly string[];
  /** Events and markers acknowledged by the broker. */
  readonly published: number;
  /** Every published line, when {@link SoakOptions.keepLines}; else empty. */
  readonly lines: readonly SourcedLine[];
  /** When the consumers had stored every offset, Unix µs. */
  readonly drainedUs: number;
}

/** A Redis client's `used_memory`, or null while Redis is away. */
async function usedMemory(client: ReturnType<typeof createClient>): Promise<number | null> {
  try {
    const info = await client.info('memory');
    const bytes = /^used_memory:(\d+)/m.exec(info)?.[1];
    return bytes === undefined ? null : Number(bytes);
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));

/**
 * Runs a soak and reports it; the topics are deleted and the processes stopped at the end, and
 * the processes also when the soak fails.
 */
export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const processes: RoleProcess[] = [];
  try {
    return await soak(options, processes);
  } finally {
    await Promise.all(processes.map((role) => role.stop()));
  }
}

/** The soak itself; every process it starts goes into `processes`. */
async function soak(options: SoakOptions, processes: RoleProcess[]): Promise<SoakReport> {
  const prefix = `soak-${randomUUID().slice(0, 8)}.`;
  const topics = topicNames(prefix);
  registerCodecs();
  const kafka = new Kafka({
    clientId: 'soak',
    brokers: [...options.brokers],
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, { partitions: PARTITIONS, topics: Object.values(topics) });
  await admin.alterConfigs({
    validateOnly: false,
    resources: Object.values(topics).map((name) => ({
      type: kafkajs.ConfigResourceTypes.TOPIC,
      name,
      configEntries: [{ name: 'retention.ms', value: String(TOPIC_RETENTION_MS) }],
    })),
  });
  const sources = [topics.edge, topics['function-edge']];
  const streams = sources.flatMap((topic) =>
    Array.from({ length: PARTITIONS }, (_, partition) => `${topic}/${partition}`)
  );
  const store = await RedisStore.connect(options.redis.address);
  const redisClient = createClient({
    url: options.redis.address,
    socket: { reconnectStrategy: () => 500 },
  });
  redisClient.on('error', () => undefined);
  await redisClient.connect();

  const errors: string[] = [];
  let minuteErrors = 0;
  let minutePlanned = 0;
  let outageUntil = 0;
  /** Counts `what`: a planned-outage event while Redis is restarted on purpose, else an error. */
  const report = (what: string) => {
    if (Date.now() < outageUntil) {
      minutePlanned += 1;
      return;
    }
    minuteErrors += 1;
    const error = `${new Date().toISOString()} ${what}`;
    // Printed as they happen (a soak that dies still tells them), and kept for the summary.
    if (errors.length < 1000) {
      errors.push(error);
      options.print(`  error: ${error}`);
    }
  };
  const roleEnv = {
    STORE: 'redis',
    REDIS_URL: options.redis.address,
    REDIS_CLUSTER_NODES: '',
    KAFKA_BROKERS: options.brokers.join(','),
    KAFKA_TOPIC_PREFIX: prefix,
    KAFKA_GROUP_ID: `${prefix}rollups`,
    KAFKA_SESSION_TIMEOUT_MS: '10000',
    LOG_LEVEL: 'warn',
  };
  const start = (role: 'consumers' | 'api', env: Record<string, string> = {}) => {
    const started = RoleProcess.start({
      role,
      env: { ...roleEnv, ...env },
      onError: (message) => report(`${role}: ${message}`),
      onUnexpectedExit: (how) => report(`${role} process exited (${how})`),
    });
    processes.push(started);
    return started;
  };

  const apiKey = randomBytes(24).toString('hex');
  const apiUrl = `http://127.0.0.1:${await freePort()}`;
  const api = start('api', { PORT: new URL(apiUrl).port, API_KEYS: apiKey });
  const consumers = Array.from({ length: options.consumers }, () => start('consumers'));
  for (const deadline = Date.now() + 60_000;;) {
    const ready = await fetch(`${apiUrl}/readyz`).then((r) => r.status === 200, () => false);
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`the soak's API did not get ready at ${apiUrl}`);
    await sleep(200);
  }

  const lines: SourcedLine[] = [];
  const producer = replayProducer(kafka);
  const markerProducer = replayProducer(kafka);
  await producer.connect();
  await markerProducer.connect();
  let markersPublished = 0;
  const hot = syntheticPopulation(options.seed).projects.slice(0, 20).map((project) => project.ref);
  let asked = 0;
  const prober = new Prober({
    apiUrl,
    apiKey,
    // Few enough that the soak's own asking is not what loads the API: each marker is looked
    // for every 50 ms until seen.
    requestsPerSecond: 5,
    markersPerSecond: 0.2,
    project: () => {
      const ref = hot[asked++ % hot.length] ?? '';
      return { edge: ref, functionEdge: ref };
    },
    publishMarker: async (line) => {
      await markerProducer.send({
        topic: topics.edge,
        messages: [{ key: MARKER_PROJECT, value: line }],
      });
      markersPublished += 1;
      if (options.keepLines) lines.push({ source: 'edge', line });
    },
    fetch: async (input, init) => {
      try {
        const response = await fetch(input, init);
        if (response.status !== 200) report(`API answered ${response.status} to ${String(input)}`);
        return response;
      } catch (error) {
        report(`API did not answer ${String(input)}: ${describe(error)}`);
        throw error;
      }
    },
  });

  const minuteMs = options.minuteMs ?? 60_000;
  const seconds = (options.minutes * minuteMs) / 1000;
  const startedMs = Date.now();
  // Publishing ends with the last line handed out before the end: every line kept was published.
  let publishingEnded = false;
  let published = 0;
  const events = generateEvents({
    seed: options.seed,
    events: options.rate * seconds,
    nowUs: (startedMs + seconds * 1000) * 1000,
    spanUs: seconds * 1_000_000,
  });
  const publishing = publishLines(
    (function* () {
      for (const line of events) {
        if (publishingEnded) return;
        if (options.keepLines) lines.push(line);
        yield line;
      }
    })(),
    {
      producer,
      topics,
      rate: options.rate,
      // Half a second's events per produce request: one request is in flight at a time (an
      // idempotent producer), so on a loaded broker the rate is what a request carries.
      batchSize: Math.max(500, Math.ceil(options.rate / 2)),
      onProgress: (sent) => (published = sent),
    },
  );
  // Publishing that fails (the broker refusing a request) ends the soak at the next minute, its
  // processes stopped: not an unhandled rejection that leaves them running.
  const publishFailures: unknown[] = [];
  publishing.catch((error: unknown) => publishFailures.push(error));
  prober.start();

  const endOffsets = async () => {
    let total = 0;
    for (const topic of sources) {
      for (const entry of await admin.fetchTopicOffsets(topic)) total += Number(entry.high);
    }
    return total;
  };
  const storedOffsets = async () => {
    try {
      let total = 0;
      for (const stream of streams) total += (await store.readOffset(resumeKey(stream))) ?? 0;
      return total;
    } catch {
      return null;
    }
  };

  // The plan: a consumer replaced every `restartEveryMinutes`; Redis restarted once, half-way
  // (half a minute into a minute, away from the consumers' restarts).
  const redisRestartMs = Math.floor(options.minutes / 2) * minuteMs + minuteMs / 2;
  let redisRestarted = false;
  let replaced = 0;
  const restartRedis = async () => {
    outageUntil = Number.POSITIVE_INFINITY;
    const pid = readPid(options.redis.pidFile);
    await redisClient.sendCommand(['SHUTDOWN', 'SAVE']).catch(() => undefined);
    while (pid !== undefined && alive(pid)) await sleep(50);
    await up({ ...options.redis, startTimeoutMs: REDIS_LOAD_TIMEOUT_MS }, () => undefined);
    outageUntil = Date.now() + OUTAGE_SETTLE_MS;
  };

  options.print(
    `soak: ${options.minutes} min${
      minuteMs === 60_000 ? '' : ` of ${minuteMs / 1000} s`
    } at ${options.rate} events/s, ${options.consumers} consumer ` +
      `process(es) (one replaced every ${options.restartEveryMinutes} min), one API process, ` +
      `Redis ${options.redis.address} (restarted once at ${
        formatAt(redisRestartMs)
      }), topics ${prefix}*`,
  );
  options.print(ROW_HEADER);
  const rows: MinuteRow[] = [];
  let lastPublished = 0;
  let lastPublishedMs = startedMs;
  let lastStored = (await storedOffsets()) ?? 0;
  let lastStoredMs = Date.now();
  let markersSeen = 0;
  for (let minute = 1; minute <= options.minutes; minute++) {
    if (publishFailures.length > 0) {
      throw new Error(`publishing failed: ${describe(publishFailures[0])}`);
    }
    const minuteEndMs = startedMs + minute * minuteMs;
    const happened: string[] = [];
    if (minute > 1 && (minute - 1) % options.restartEveryMinutes === 0) {
      // Always the first: the others live through the whole soak, so that their memory over
      // the hour can be read (with one consumer, that one is replaced).
      const index = 0;
      replaced += 1;
      const signal = replaced % 2 === 1 ? 'SIGTERM' : 'SIGKILL';
      await consumers[index]?.stop(signal);
      consumers[index] = start('consumers');
      happened.push(`consumer ${index + 1} ${signal}, replaced`);
    }
    if (!redisRestarted && startedMs + redisRestartMs < minuteEndMs) {
      await sleep(startedMs + redisRestartMs - Date.now());
      const shutdownMs = Date.now();
      await restartRedis();
      redisRestarted = true;
      happened.push(`Redis restarted (${((Date.now() - shutdownMs) / 1000).toFixed(1)} s away)`);
    }
    await sleep(minuteEndMs - Date.now());
    // Taken first: reading the store and the broker below may take seconds on a loaded machine.
    const publishedNow = published;
    const publishedMs = Date.now();
    const probed = prober.interval();
    markersSeen += probed.freshness.seen;
    const stored = await storedOffsets();
    const storedMs = Date.now();
    const end = await endOffsets();
    const endpoints = Object.values(probed.endpoints);
    const row: MinuteRow = {
      minute,
      publishedPerSecond: (publishedNow - lastPublished) / ((publishedMs - lastPublishedMs) / 1000),
      foldedPerSecond: stored === null
        ? null
        : (stored - lastStored) / ((storedMs - lastStoredMs) / 1000),
      lag: stored === null ? null : end - stored,
      freshnessP99Ms: probed.freshness.p99Ms,
      answered: endpoints.reduce((sum, e) => sum + e.requests - errorCount(e.errors), 0),
      answerP99Ms: Math.max(...endpoints.map((e) => e.p99Ms ?? 0)),
      consumerRssMiB: consumers.map((c) => mib(processRssBytes(c.pid))),
      apiRssMiB: mib(processRssBytes(api.pid)),
      redisUsedMiB: mib(await usedMemory(redisClient)),
      errors: minuteErrors,
      plannedOutage: minutePlanned,
      events: happened,
    };
    minuteErrors = 0;
    minutePlanned = 0;
    lastPublished = publishedNow;
    lastPublishedMs = publishedMs;
    if (stored !== null) {
      lastStored = stored;
      lastStoredMs = storedMs;
    }
    rows.push(row);
    options.print(rowText(row));
  }

  publishingEnded = true;
  await publishing;
  markersSeen += (await prober.stop()).freshness.seen;
  const unseen = markersPublished - markersSeen;
  if (unseen > 0) report(`${unseen} marker(s) not seen through the API within 30 s`);
  await producer.disconnect();
  await markerProducer.disconnect();
  const end = await endOffsets();
  const drainDeadline = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const stored = await storedOffsets();
    if (stored !== null && stored >= end) break;
    if (Date.now() > drainDeadline) {
      report(
        `the consumers stored ${stored} of ${end} offsets ${DRAIN_TIMEOUT_MS} ms after the end`,
      );
      break;
    }
    await sleep(200);
  }
  const drainedUs = Date.now() * 1000;
  options.print(
    `published ${published} events and ${markersPublished} markers; ${errors.length} error(s)`,
  );

  await Promise.all([api, ...consumers].map((role) => role.stop()));
  await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
  await admin.disconnect();
  await store.close();
  await redisClient.close();
  return { rows, errors, published: published + markersPublished, lines, drainedUs };
}

/** An error and its causes, one after the other. */
function describe(error: unknown): string {
  const text = String(error);
  return error instanceof Error && error.cause !== undefined
    ? `${text} (${describe(error.cause)})`
    : text;
}

function errorCount(errors: Record<string, number>): number {
  return Object.values(errors).reduce((sum, n) => sum + n, 0);
}

function mib(bytes: number | null): number | null {
  return bytes === null ? null : bytes / MIB;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** `ms` after the start as `m:ss`. */
function formatAt(ms: number): string {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}
