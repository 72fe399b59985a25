/**
 * Prometheus metrics of the consumers, on the registry of the process that runs them: how far
 * each partition's stored offset is behind the topic's end, which partitions are paused, the
 * offsets retention deleted before they were folded, and the dead letters published, by the kind
 * of rule the message broke. Labels are topics, partitions and rejection kinds: bounded, and
 * never a project or a message's content.
 *
 * @module
 */
import { Counter, Gauge, type Registry } from 'prom-client';
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

/** What the consumers count. */
export interface ConsumerMetrics {
  /** Counts one dead letter published, by its `rejection-kind`. */
  countDeadLetter(kind: string): void;
  /** Counts messages a replay found already folded (see `FlushReport.skipped`). */
  countSkipped(messages: number): void;
  /** Counts one fetch of a partition that met a batch it cannot decode. */
  countUndecodable(topic: string, partition: number): void;
  /** Counts offsets of a partition that retention deleted before they were folded. */
  countRetentionLost(topic: string, partition: number, offsets: number): void;
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
  return {
    countDeadLetter: (kind) => deadLetters.inc({ kind }),
    countSkipped: (messages) => skipped.inc(messages),
    countUndecodable: (topic, partition) =>
      undecodableFetches.inc({ topic, partition: String(partition) }),
    countRetentionLost: (topic, partition, offsets) =>
      retentionLost.inc({ topic, partition: String(partition) }, offsets),
  };
}
