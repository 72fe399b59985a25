/**
 * The project's Kafka topics (CONTRACT section 3): `logs.edge`, `logs.function-edge`, one per
 * Logflare source (`logs.source.<name>`, section 3.1) and the dead-letter topic, their names
 * behind an optional prefix, created when missing, left alone when present.
 *
 * The partition count bounds how many consumers of one group can share the work, and the key
 * (project ref) to partition mapping depends on it: an existing topic is therefore never
 * re-partitioned here. A different count is reported to the caller, who decides.
 *
 * @module
 */
import type { Admin } from 'kafkajs';
import { DEFAULT_TOPIC_PARTITIONS } from '../config.ts';
import { messageOf } from '../text/error-message.ts';
import { LOGFLARE_SOURCES, type LogflareSource } from '../events/logflare-sources.ts';

/** Topic of each Logflare source (CONTRACT 3.1): `logs.source.` and the source's name. */
const LOGFLARE_TOPICS = Object.fromEntries(
  LOGFLARE_SOURCES.map((source) => [source, `logs.source.${source}`]),
) as Readonly<Record<LogflareSource, string>>;

/** Topic of each source, and the dead-letter topic for events that fail validation. */
export const TOPICS = {
  edge: 'logs.edge',
  'function-edge': 'logs.function-edge',
  ...LOGFLARE_TOPICS,
  deadLetter: 'logs.dead-letter',
} as const;

/** The topic names in use: {@link TOPICS}, each behind an optional prefix. */
export type TopicNames = { readonly [K in keyof typeof TOPICS]: string };

/**
 * The topic names behind `prefix` (configuration `KAFKA_TOPIC_PREFIX`), so that several
 * deployments or test runs can share one cluster.
 *
 * @example
 * ```ts
 * topicNames('staging.').edge; // 'staging.logs.edge'
 * topicNames('')['gotrue.logs.prod']; // 'logs.source.gotrue.logs.prod'
 * ```
 */
export function topicNames(prefix = ''): TopicNames {
  return Object.fromEntries(
    Object.entries(TOPICS).map(([name, topic]) => [name, `${prefix}${topic}`]),
  ) as unknown as TopicNames;
}

/** Options of {@link ensureTopics}. */
export interface EnsureTopicsOptions {
  /** Partitions of each topic this call creates. Default {@link DEFAULT_TOPIC_PARTITIONS}. */
  readonly partitions?: number;
  /** Replicas of each topic this call creates. Default: the broker's `default.replication.factor`. */
  readonly replicationFactor?: number;
  /** The topics to ensure. Default: all of {@link TOPICS}. */
  readonly topics?: readonly string[];
}

/** What {@link ensureTopics} found or did for one topic. */
export interface TopicReport {
  readonly topic: string;
  /** `created` by this call, or it `existed` (possibly created concurrently by someone else). */
  readonly action: 'created' | 'existed';
  /** The partition count the topic has now. */
  readonly partitions: number;
  /** The partition count that was asked for. */
  readonly expectedPartitions: number;
}

/**
 * Creates the missing topics and reports every topic's partition count. Idempotent: calling it
 * again, or from several processes at once, creates nothing twice and fails on nothing that
 * already exists.
 *
 * @example
 * ```ts
 * const admin = kafka.admin();
 * await admin.connect();
 * for (const report of await ensureTopics(admin, { partitions: 12 })) {
 *   if (report.partitions !== report.expectedPartitions) {
 *     console.warn(`${report.topic} has ${report.partitions} partitions, not ${report.expectedPartitions}`);
 *   }
 * }
 * ```
 */
export async function ensureTopics(
  admin: Admin,
  options: EnsureTopicsOptions = {},
): Promise<TopicReport[]> {
  const partitions = options.partitions ?? DEFAULT_TOPIC_PARTITIONS;
  if (!Number.isInteger(partitions) || partitions < 1) {
    throw new RangeError(`'partitions' must be a positive integer: current value is ${partitions}`);
  }
  const replicationFactor = options.replicationFactor;
  if (
    replicationFactor !== undefined &&
    (!Number.isInteger(replicationFactor) || replicationFactor < 1)
  ) {
    throw new RangeError(
      `'replicationFactor' must be a positive integer: current value is ${replicationFactor}`,
    );
  }
  const topics = [...new Set(options.topics ?? Object.values(TOPICS))];

  const existing = new Set(await admin.listTopics());
  const created = new Set<string>();
  for (const topic of topics.filter((name) => !existing.has(name))) {
    // One topic per request, so each report says who created it: kafkajs resolves false when
    // the topic already exists (another process won the race), true when this call created it.
    const createdHere = await admin.createTopics({
      topics: [{
        topic,
        numPartitions: partitions,
        ...(replicationFactor === undefined ? {} : { replicationFactor }),
      }],
      // kafkajs's own wait gives up on "This server does not host this topic-partition",
      // which a broker answers for a moment after creating a topic: waited for below instead.
      waitForLeaders: false,
    });
    if (createdHere) created.add(topic);
  }

  const metadata = await ledTopics(admin, topics);
  const counts = new Map(metadata.map((topic) => [topic.name, topic.partitions.length]));
  return topics.map((topic) => {
    const count = counts.get(topic);
    if (count === undefined) {
      throw new Error(`topic ${topic} was created but the cluster does not list it`);
    }
    return {
      topic,
      action: created.has(topic) ? 'created' : 'existed',
      partitions: count,
      expectedPartitions: partitions,
    };
  });
}

/** Tries of {@link ledTopics}, 100 ms apart. */
const METADATA_TRIES = 300;

/**
 * The metadata of `topics` once every partition of each has a leader, asking again every 100 ms
 * while the broker still says it does not know one of them (for up to 30 s).
 */
async function ledTopics(
  admin: Admin,
  topics: readonly string[],
): Promise<Awaited<ReturnType<Admin['fetchTopicMetadata']>>['topics']> {
  let reason = '';
  let failure: unknown;
  for (let attempt = 0; attempt < METADATA_TRIES; attempt++) {
    try {
      const { topics: metadata } = await admin.fetchTopicMetadata({ topics: [...topics] });
      const led = metadata.every((topic) =>
        topic.partitions.length > 0 && topic.partitions.every((partition) => partition.leader >= 0)
      );
      if (led) return metadata;
      reason = 'a partition has no leader yet';
      failure = undefined;
    } catch (error) {
      reason = messageOf(error);
      failure = error;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(
    `topics ${topics.join(', ')} were not ready within 30 s: ${reason}`,
    failure === undefined ? undefined : { cause: failure },
  );
}
