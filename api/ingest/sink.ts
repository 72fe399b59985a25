/**
 * Where the ingest route sends valid events: folded straight into the store (the embedded
 * default, and any deployment without Kafka), or published to the source's Kafka topic.
 *
 * @module
 */
import type { StreamSource } from '../../src/events/types.ts';
import type { RegisteredHost } from '../../src/rollup/keys.ts';
import type { AcceptedEvent, ItemError } from './validate.ts';

/** What the destination did with the events it was given. */
export interface SinkOutcome {
  /** The events it refused, by line. */
  readonly refused: readonly ItemError[];
  /**
   * The (project, host) pairs it registered in the store's host registry, with their newest
   * event time (µs): none when the events went to Kafka (its consumers register them later).
   */
  readonly registered: readonly RegisteredHost[];
}

/** Nothing refused, nothing registered. */
export const NOTHING_REGISTERED: SinkOutcome = { refused: [], registered: [] };

/** The destination of ingested events. */
export interface IngestSink {
  /** `direct`: folded into the store; `kafka`: published for the consumers. */
  readonly kind: 'direct' | 'kafka';
  /**
   * Resolves once the events are durable at the destination: in the store (visible to the
   * next read) or acknowledged by every in-sync replica, with the events the destination
   * refused (the store: beyond their project's bounds; Kafka refuses none here, its consumers
   * dead-letter them), and the hosts registered. Rejects when the destination fails.
   */
  accept(source: StreamSource, events: readonly AcceptedEvent[]): Promise<SinkOutcome>;
  /** Releases connections. */
  close(): Promise<void>;
}
