/**
 * A Kafka + Redis world for one consumer test: topics of its own (a unique prefix), a unique
 * consumer group, an emptied Redis (one Redis or a Redis Cluster), and helpers to publish a generated stream and to
 * wait until the consumers have stored every offset.
 *
 * @module
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { type Admin, type EachMessagePayload, Kafka, logLevel, type Producer } from 'kafkajs';
import { ConsumerRunner, type ConsumerRunnerOptions } from '../../consumers/runner.ts';
import { registerCodecs } from '../../src/kafka/codecs/register.ts';
import { ensureTopics, type TopicNames, topicNames } from '../../src/kafka/topics.ts';
import { resumeKey } from '../../src/rollup/keys.ts';
import type { RollupStore } from '../../src/store/port.ts';
import { publishLines, replayProducer, type SourcedLine } from '../../tools/replay/publish.ts';
import { emptyStore, openStore, storeEnv, type StoreTarget } from '../support/store-target.ts';
import { until } from '../support/poll.ts';

/** Partitions of each test topic. */
export const PARTITIONS = 12;

/** The runtimes the service runs on. */
export type Runtime = 'node' | 'deno';

/** The command line that starts the consumer role on `runtime`. */
const CONSUMER_COMMAND: Readonly<Record<Runtime, readonly string[]>> = {
  node: [process.execPath, '--disable-warning=TimeoutNegativeWarning'],
  // The permissions of `deno task start`.
  deno: [
    'node_modules/.bin/deno',
    'run',
    '--allow-net',
    '--allow-env',
    '--allow-read',
    '--allow-sys',
  ],
};

/** How a consumer process is started, beyond its environment and runtime. */
export interface ConsumerProcessOptions {
  /** The script run with `--role consumers`. Default `service/main.ts`. */
  readonly entry?: string;
  /** `pipe` keeps its standard output (its log) for the test to read. Default `ignore`. */
  readonly stdout?: 'pipe' | 'ignore';
}

/** Everything a consumer test talks to. */
export interface World {
  readonly prefix: string;
  readonly groupId: string;
  readonly topics: TopicNames;
  readonly kafka: Kafka;
  readonly admin: Admin;
  readonly producer: Producer;
  readonly store: RollupStore;
  /** Where the store is (for consumer processes and direct checks). */
  readonly target: StoreTarget;
  readonly brokers: readonly string[];
  /**
   * A consumer process of the world's group (`service/main.ts --role consumers`) on Node or on
   * Deno, started; its stderr goes to the test's. `env` adds to or overrides the test defaults.
   */
  consumerProcess(
    env?: Readonly<Record<string, string>>,
    runtime?: Runtime,
    options?: ConsumerProcessOptions,
  ): ChildProcess;
  /** A consumer of the world's group, not started; `overrides` change the test defaults. */
  runner(overrides?: Partial<ConsumerRunnerOptions>): ConsumerRunner;
  /** Publishes lines keyed by project (or at random); resolves once acknowledged. */
  publish(lines: readonly SourcedLine[], keys?: 'project' | 'random'): Promise<number>;
  /** Sum of the stored next offsets of both source topics' partitions. */
  storedTotal(): Promise<number>;
  /**
   * Messages the group's committed Kafka offsets have passed but the store does not cover: what
   * a member folded (and kafkajs acknowledged) before its flush landed. The next member resumes
   * from the store, so it reads them again.
   */
  committedAheadOfStore(): Promise<number>;
  /** Resolves once every partition's stored offset reaches the topic's end; rejects on timeout. */
  drained(timeoutMs: number): Promise<void>;
  /** The dead letters published so far, read from the start until `expected` arrived or 30 s. */
  deadLetters(expected: number): Promise<DeadLetterRead[]>;
  /**
   * Every message of both source topics, by origin (`topic/partition/offset`), read from the
   * start up to the topics' ends as they are now.
   */
  sourceMessages(): Promise<Map<string, string>>;
  close(): Promise<void>;
}

/**
 * The committed offsets of `groupId` on `topics`. Asked again for up to 30 s: after a member is
 * killed the broker may answer for a moment that it is not the group's coordinator, a retriable
 * error kafkajs's admin does not retry (it failed CI's churn test once).
 */
export async function committedOffsets(
  admin: Admin,
  groupId: string,
  topics: string[],
): ReturnType<Admin['fetchOffsets']> {
  return await until(
    `the committed offsets of ${groupId}`,
    30_000,
    () => admin.fetchOffsets({ groupId, topics }),
  );
}

/** Resolves once `child` has exited. */
export function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once('exit', () => resolve()));
}

/** A dead letter as read back: its bytes as text and its headers. */
export interface DeadLetterRead {
  readonly value: string;
  readonly headers: Record<string, string>;
}

/**
 * Reads `topics` from the start with a consumer group of its own, handing every message to
 * `each`, until `expected` messages arrived or 30 s passed.
 */
async function readTopic(
  kafka: Kafka,
  topics: readonly string[],
  expected: number,
  each: (payload: EachMessagePayload) => void,
): Promise<void> {
  const consumer = kafka.consumer({ groupId: `reader-${randomUUID()}` });
  await consumer.connect();
  await consumer.subscribe({ topics: [...topics], fromBeginning: true });
  let received = 0;
  await consumer.run({
    eachMessage: (payload) => {
      received += 1;
      each(payload);
      return Promise.resolve();
    },
  });
  const deadline = Date.now() + 30_000;
  while (received < expected && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await consumer.disconnect();
}

/** Sets up a world on the given services. */
export async function createWorld(
  brokers: readonly string[],
  target: StoreTarget,
): Promise<World> {
  const prefix = `test-${randomUUID().slice(0, 8)}.`;
  const topics = topicNames(prefix);
  // The consumers of a test run in this process too: they read what the service reads.
  registerCodecs();
  const kafka = new Kafka({
    clientId: 'consumer-tests',
    brokers: [...brokers],
    logLevel: logLevel.NOTHING,
  });
  const admin = kafka.admin();
  await admin.connect();
  await ensureTopics(admin, { partitions: PARTITIONS, topics: Object.values(topics) });
  const producer = replayProducer(kafka);
  await producer.connect();
  await emptyStore(target);
  const store = await openStore(target);
  // The topics' partitions as they are now (a test may add some).
  const streams = async () => {
    const all: string[] = [];
    for (const topic of [topics.edge, topics['function-edge']]) {
      for (const { partition } of await admin.fetchTopicOffsets(topic)) {
        all.push(`${topic}/${partition}`);
      }
    }
    return all;
  };

  const storedTotal = async () => {
    let total = 0;
    for (const stream of await streams()) {
      total += (await store.readOffset(resumeKey(stream))) ?? 0;
    }
    return total;
  };

  const endTotal = async () => {
    let total = 0;
    for (const topic of [topics.edge, topics['function-edge']]) {
      for (const entry of await admin.fetchTopicOffsets(topic)) total += Number(entry.high);
    }
    return total;
  };

  return {
    prefix,
    groupId: `${prefix}group`,
    topics,
    kafka,
    admin,
    producer,
    store,
    target,
    brokers,
    consumerProcess: (env = {}, runtime = 'node', options = {}) => {
      const [command = process.execPath, ...args] = CONSUMER_COMMAND[runtime];
      return spawn(
        command,
        [...args, options.entry ?? 'service/main.ts', '--role', 'consumers'],
        {
          env: {
            ...process.env,
            KAFKA_BROKERS: brokers.join(','),
            ...storeEnv(target),
            KAFKA_TOPIC_PREFIX: prefix,
            KAFKA_GROUP_ID: `${prefix}group`,
            KAFKA_SESSION_TIMEOUT_MS: '6000',
            FLUSH_EVENTS: '1000',
            LOG_LEVEL: 'warn',
            ...env,
          },
          stdio: ['ignore', options.stdout ?? 'ignore', 'inherit'],
        },
      );
    },
    runner: (overrides = {}) =>
      new ConsumerRunner({
        kafka,
        store,
        groupId: `${prefix}group`,
        topics,
        nowUs: () => Date.now() * 1000,
        maxFutureSkewUs: 5 * 60_000_000,
        recentLogsCapacity: 10_000,
        flushEvents: 1_000,
        flushIntervalMs: 250,
        concurrency: PARTITIONS,
        sessionTimeoutMs: 10_000,
        ...overrides,
      }),
    publish: (lines, keys = 'project') => publishLines(lines, { producer, topics, keys }),
    storedTotal,
    async committedAheadOfStore() {
      const sources = [topics.edge, topics['function-edge']];
      const committed = await committedOffsets(admin, `${prefix}group`, sources);
      let ahead = 0;
      for (const { topic, partitions } of committed) {
        for (const { partition, offset } of partitions) {
          const stored = (await store.readOffset(resumeKey(`${topic}/${partition}`))) ?? 0;
          ahead += Math.max(0, Number(offset) - stored);
        }
      }
      return ahead;
    },
    async drained(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const end = await endTotal();
      for (;;) {
        const stored = await storedTotal();
        if (stored >= end) return;
        if (Date.now() > deadline) {
          throw new Error(`consumers stored ${stored} of ${end} offsets within ${timeoutMs} ms`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async deadLetters(expected) {
      const received: DeadLetterRead[] = [];
      await readTopic(kafka, [topics.deadLetter], expected, ({ message }) => {
        const headers: Record<string, string> = {};
        for (const [name, value] of Object.entries(message.headers ?? {})) {
          headers[name] = String(value);
        }
        received.push({ value: message.value?.toString() ?? '', headers });
      });
      return received;
    },
    async sourceMessages() {
      const messages = new Map<string, string>();
      const sources = [topics.edge, topics['function-edge']];
      await readTopic(kafka, sources, await endTotal(), ({ topic, partition, message }) => {
        messages.set(`${topic}/${partition}/${message.offset}`, message.value?.toString() ?? '');
      });
      return messages;
    },
    async close() {
      await producer.disconnect();
      await admin.deleteTopics({ topics: Object.values(topics) }).catch(() => undefined);
      await admin.disconnect();
      await store.close();
    },
  };
}
