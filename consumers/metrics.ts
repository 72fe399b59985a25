/**
 * Prometheus metrics of the consumers, on the registry of the process that runs them: how far
 * each partition's stored offset is behind the topic's end, which partitions are paused, and the
 * dead letters published, by the kind of rule the message broke. Labels are topics, partitions
 * and rejection kinds: bounded, and never a project or a message's content.
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
  /** The topic's end minus the stored offset (minus the earliest offset when none is stored). */
  readonly events: number;
}

/** What the metrics read when scraped. */
export interface ConsumerMetricSources {
  /** The lag of every partition this process holds. */
  lag(): Promise<readonly PartitionLag[]>;
  /** Partitions paused because their stored offset is beyond their end. */
  paused(): number;
}

/** What the consumers count. */
export interface ConsumerMetrics {
  /** Counts one dead letter published, by its `rejection-kind`. */
  countDeadLetter(kind: string): void;
  /** Counts messages a replay found already folded (see `FlushReport.skipped`). */
  countSkipped(messages: number): void;
}

/**
 * Registers the consumers' metrics on `registry`.
 *
 * @example
 * ```ts
 * const metrics = registerConsumerMetrics(registry, { lag: () => runner.lag(), paused: () => 0 });
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
    help: "Partitions paused because their stored offset is beyond the partition's end.",
    registers: [registry],
    collect() {
      this.set(sources.paused());
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
  return {
    countDeadLetter: (kind) => deadLetters.inc({ kind }),
    countSkipped: (messages) => skipped.inc(messages),
  };
}
