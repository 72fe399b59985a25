/**
 * The consumer processes a benchmark measures: the production entry point
 * (`service/main.ts --role consumers`) on a benchmark's topics and store, and how far they have
 * got (the sum of the stored offsets of every partition).
 *
 * @module
 */
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import type { TopicNames } from '../../src/kafka/topics.ts';
import { resumeKey } from '../../src/rollup/keys.ts';
import type { RollupStore } from '../../src/store/port.ts';
import type { BenchStore } from './redis-nodes.ts';

/** Where a consumer process reads and writes, and how it is run. */
export interface ConsumerProcessOptions {
  readonly brokers: readonly string[];
  readonly store: BenchStore;
  /** The Redis of `store: 'redis'`. */
  readonly redisUrl: string;
  /** The seeds of `store: 'redis-cluster'`. */
  readonly clusterNodes: readonly string[];
  /** The topics' prefix (KAFKA_TOPIC_PREFIX); the group is `<prefix>rollups`. */
  readonly prefix: string;
  readonly logLevel: 'debug' | 'info';
  /** Flags of `node` before the script (e.g. `--cpu-prof`). */
  readonly nodeFlags?: readonly string[];
  /**
   * What runs the command instead of it (e.g. a memory cgroup's `wrap`,
   * tools/bench/memory-limit.ts).
   */
  readonly wrap?: (command: string, args: readonly string[]) => [string, string[]];
}

/**
 * Starts one consumer process of the group of `options.prefix`; its standard output (the log,
 * one JSON object a line) is piped to the caller, its standard error inherited.
 *
 * @example
 * ```ts
 * const child = startConsumerProcess({ brokers, store: 'redis', redisUrl, clusterNodes: [], prefix, logLevel: 'info' });
 * ```
 */
export function startConsumerProcess(
  options: ConsumerProcessOptions,
): ChildProcessByStdio<null, Readable, null> {
  const args = [
    '--disable-warning=TimeoutNegativeWarning',
    ...(options.nodeFlags ?? []),
    'service/main.ts',
    '--role',
    'consumers',
  ];
  const [command, commandArgs] = options.wrap?.(process.execPath, args) ??
    [process.execPath, args];
  return spawn(command, commandArgs, {
    env: {
      ...process.env,
      KAFKA_BROKERS: options.brokers.join(','),
      ...(options.store === 'redis'
        ? { REDIS_URL: options.redisUrl, REDIS_CLUSTER_NODES: '' }
        : { REDIS_CLUSTER_NODES: options.clusterNodes.join(','), REDIS_URL: '' }),
      STORE: options.store,
      KAFKA_TOPIC_PREFIX: options.prefix,
      KAFKA_GROUP_ID: `${options.prefix}rollups`,
      LOG_LEVEL: options.logLevel,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
}

/**
 * How many messages of `topics` (`partitions` each) the consumers have folded: the sum of the
 * offsets stored for every partition.
 *
 * @example
 * ```ts
 * while ((await storedEvents(store, topics, 12)) < events) await delay(50);
 * ```
 */
export async function storedEvents(
  store: RollupStore,
  topics: TopicNames,
  partitions: number,
): Promise<number> {
  let total = 0;
  for (const topic of [topics.edge, topics['function-edge']]) {
    for (let partition = 0; partition < partitions; partition++) {
      total += (await store.readOffset(resumeKey(`${topic}/${partition}`))) ?? 0;
    }
  }
  return total;
}
