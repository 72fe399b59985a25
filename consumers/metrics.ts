/**
 * Prometheus metrics of the consumers, on the registry of the process that runs them: how far
 * each partition's stored offset is behind the topic's end, which partitions are paused, the
 * offsets retention deleted before they were folded, the dead letters published, by the kind of
 * rule the message broke, and per flush: its events folded and dead-lettered, its duration and
 * size, and the freshness it left the store in (its newest event's Kafka timestamp to its commit).
 * Labels are topics, partitions, rejection kinds and failure reasons: bounded, and never a project
 * or a message's content. Also the group joins (rebalances). docs/OPERATIONS.md says what each
 * series means.
 *
 * @module
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { withTimeout } from '../src/async/timeout.ts';
import { REJECTION_KINDS } from '../src/events/types.ts';

/** Longest a scrape waits for the partitions' ends and stored offsets, in ms. */
const LAG_TIMEOUT_MS = 2_000;

/** How far one partition's stored offset is behind its end. */
export interface PartitionLag {
  readonly topic: string;
  readonly partition: number;
  /** The stored offset (the earliest offset when none is stored). */
  readonly stored: number;
  /** The topic's end minus {@link PartitionLag.stored}. */
  readonly events: number;
}

/** What the metrics read when scraped. */
export interface ConsumerMetricSources {
  /** The lag of every partition this process holds. */
  lag(): Promise<readonly PartitionLag[]>;
  /** Partitions paused (their stored offset is beyond their end, or a batch cannot be decoded). */
  paused(): number;
  /** Partitions paused at a batch they cannot decode. */
  undecodable(): readonly { readonly topic: string; readonly partition: number }[];
}

/** Freshness buckets, in seconds: from a flush interval's worth to an hour behind. */
const FRESHNESS_BUCKETS = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600];

/** Flush duration buckets, in seconds. */
const FLUSH_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Flush size buckets, in events (folded and dead-lettered). */
const FLUSH_SIZE_BUCKETS = [1, 10, 100, 500, 1_000, 5_000, 10_000, 50_000, 100_000];

/**
 * Why a batch failed and is fetched again: the store away, the store not answering within the
 * consumers' deadline (`STORE_TIMEOUT_MS`, see `store-deadline.ts`), Kafka away, the store changed under
 * the consumer (a write refused: another member took the partition, or the store lost or rolled
 * back data; consuming resumes where the store says), the store refusing writes while it answers
 * (full, read-only, ...: src/store/write-refusal.ts), or anything else.
 */
export type BatchFailure =
  | 'store_away'
  | 'store_timeout'
  | 'kafka_away'
  | 'store_changed'
  | 'store_refused'
  | 'other';

/** Every {@link BatchFailure}. */
export const BATCH_FAILURES: readonly BatchFailure[] = [
  'store_away',
  'store_timeout',
  'kafka_away',
  'store_changed',
  'store_refused',
  'other',
];

/** What a flush reports to the metrics (a `FlushReport` fits). */
export interface FlushFigures {
  /** `topic/partition`. */
  readonly stream: string;
  readonly events: number;
  readonly rejected: number;
  readonly durationMs: number;
  /** Kafka timestamp (ms) of the newest message flushed, if any had one. */
  readonly newestProducedMs: number | null;
}

/** What the consumers count. */
export interface ConsumerMetrics {
  /** Records one flush committed at `committedMs` (Unix ms). */
  observeFlush(flush: FlushFigures, committedMs: number): void;
  /** Counts one batch that failed and is fetched again, by why. */
  countBatchFailure(reason: BatchFailure): void;
  /** Counts one dead letter published, by its `rejection-kind`. */
  countDeadLetter(kind: string): void;
  /** Counts messages a replay found already folded (see `FlushReport.skipped`). */
  countSkipped(messages: number): void;
  /** Counts one fetch of a partition that met a batch it cannot decode. */
  countUndecodable(topic: string, partition: number): void;
  /** Counts offsets of a partition that retention deleted before they were folded. */
  countRetentionLost(topic: string, partition: number, offsets: number): void;
  /** Counts one join of the group by this process: its first, and one per rebalance after. */
  countJoin(): void;
}

/**
 * Registers the consumers' metrics on `registry`.
 *
 * @example
 * ```ts
 * const metrics = registerConsumerMetrics(registry, {
 *   lag: () => runner.lag(),
 *   paused: () => 0,
 *   undecodable: () => [],
 * });
 * metrics.countDeadLetter('json');
 * ```
 */
export function registerConsumerMetrics(
  registry: Registry,
  sources: ConsumerMetricSources,
): ConsumerMetrics {
  registerPartitionGauges(registry, sources);
  const observeFlush = registerFlushSeries(registry);
  const deadLetters = new Counter({
    name: 'consumer_dead_letters_total',
    help: 'Dead letters published, by the kind of rule the message broke.',
    labelNames: ['kind'] as const,
    registers: [registry],
  });
  for (const kind of REJECTION_KINDS) deadLetters.inc({ kind }, 0);
  const skipped = new Counter({
    name: 'consumer_skipped_messages_total',
    help: 'Messages a replay found already folded: their project held them (a crash had landed ' +
      "between a flush's project commits and its stream's resume offset).",
    registers: [registry],
  });
  const undecodableFetches = new Counter({
    name: 'consumer_undecodable_fetches_total',
    help: 'Fetches of a partition that met a batch it cannot decode (it is then paused, and ' +
      'fetched again every few seconds).',
    labelNames: ['topic', 'partition'] as const,
    registers: [registry],
  });
  const retentionLost = new Counter({
    name: 'consumer_retention_lost_offsets_total',
    help: "Offsets of a partition deleted by the topic's retention before they were folded: " +
      'their events are missing from the rollups (docs/ROLLUPS.md).',
    labelNames: ['topic', 'partition'] as const,
    registers: [registry],
  });
  const batchFailures = new Counter({
    name: 'consumer_batch_failures_total',
    help: 'Batches that failed and are fetched again, by reason: store_away, store_timeout (no ' +
      'answer within the store deadline), kafka_away, store_refused (the store refuses writes: ' +
      'full, read-only, ...), store_changed (a commit refused; consuming resumes where the ' +
      'store says), other.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  for (const reason of BATCH_FAILURES) batchFailures.inc({ reason }, 0);
  const joins = new Counter({
    name: 'consumer_group_joins_total',
    help: 'Times this process joined the consumer group: once at start, then once per ' +
      'rebalance (a member came or went, or the group was rejoined after an error).',
    registers: [registry],
  });
  return {
    observeFlush,
    countBatchFailure: (reason) => batchFailures.inc({ reason }),
    countJoin: () => joins.inc(),
    countDeadLetter: (kind) => deadLetters.inc({ kind }),
    countSkipped: (messages) => skipped.inc(messages),
    countUndecodable: (topic, partition) =>
      undecodableFetches.inc({ topic, partition: String(partition) }),
    countRetentionLost: (topic, partition, offsets) =>
      retentionLost.inc({ topic, partition: String(partition) }, offsets),
  };
}

/** The gauges of the partitions this process holds: lag, paused, undecodable. */
function registerPartitionGauges(registry: Registry, sources: ConsumerMetricSources): void {
  new Gauge({
    name: 'consumer_lag_events',
    help: "Events of a partition not folded yet: the topic's end minus the stored offset.",
    labelNames: ['topic', 'partition'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      // A scrape must answer while Kafka or the store is away: then the gauge is left empty.
      const lags = await withTimeout(sources.lag(), LAG_TIMEOUT_MS, () => null).catch(() => null);
      for (const { topic, partition, events } of lags ?? []) {
        this.set({ topic, partition: String(partition) }, events);
      }
    },
  });
  new Gauge({
    name: 'consumer_partitions_paused',
    help: "Partitions paused: their stored offset is beyond the partition's end, or a batch " +
      'of theirs cannot be decoded.',
    registers: [registry],
    collect() {
      this.set(sources.paused());
    },
  });
  new Gauge({
    name: 'consumer_partition_undecodable',
    help: 'Partitions paused at a batch they cannot decode (a codec this process does not read, ' +
      'a corrupt batch): 1 while paused.',
    labelNames: ['topic', 'partition'] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const { topic, partition } of sources.undecodable()) {
        this.set({ topic, partition: String(partition) }, 1);
      }
    },
  });
}

/** The series of each topic's flushes, and what observes one flush into them. */
function registerFlushSeries(registry: Registry): ConsumerMetrics['observeFlush'] {
  const freshness = new Histogram({
    name: 'consumer_freshness_seconds',
    help: "Per flush, from its newest event's Kafka timestamp to its commit: how far behind " +
      'the producers the answers are once the flush is visible.',
    labelNames: ['topic'] as const,
    buckets: FRESHNESS_BUCKETS,
    registers: [registry],
  });
  const folded = new Counter({
    name: 'consumer_events_folded_total',
    help: 'Events folded into the store (committed), by topic.',
    labelNames: ['topic'] as const,
    registers: [registry],
  });
  const deadLettered = new Counter({
    name: 'consumer_events_dead_lettered_total',
    help: 'Messages sent to the dead-letter topic instead of folded, by the topic they came from.',
    labelNames: ['topic'] as const,
    registers: [registry],
  });
  const flushDuration = new Histogram({
    name: 'consumer_flush_duration_seconds',
    help: 'Time of one flush: its dead letters published, its parts read and merged, its ' +
      'projects committed and its resume offset moved.',
    labelNames: ['topic'] as const,
    buckets: FLUSH_BUCKETS,
    registers: [registry],
  });
  const flushSize = new Histogram({
    name: 'consumer_flush_events',
    help: 'Events of one flush, folded and dead-lettered.',
    labelNames: ['topic'] as const,
    buckets: FLUSH_SIZE_BUCKETS,
    registers: [registry],
  });
  /** Each topic's series, bound at its first flush (a flush is not charged for finding them). */
  const byTopic = new Map<string, ReturnType<typeof topicSeries>>();
  const topicSeries = (topic: string) => ({
    folded: folded.labels({ topic }),
    deadLettered: deadLettered.labels({ topic }),
    duration: flushDuration.labels({ topic }),
    size: flushSize.labels({ topic }),
    freshness: freshness.labels({ topic }),
  });
  return (flush, committedMs) => {
    const topic = flush.stream.slice(0, flush.stream.lastIndexOf('/'));
    let series = byTopic.get(topic);
    if (series === undefined) byTopic.set(topic, series = topicSeries(topic));
    series.folded.inc(flush.events);
    series.deadLettered.inc(flush.rejected);
    series.duration.observe(flush.durationMs / 1000);
    series.size.observe(flush.events + flush.rejected);
    if (flush.newestProducedMs !== null) {
      series.freshness.observe(Math.max(0, committedMs - flush.newestProducedMs) / 1000);
    }
  };
}
