/**
 * Where the ingest route sends valid events: folded straight into the store (the embedded
 * default, and any deployment without Kafka), or published to the source's Kafka topic.
 *
 * @module
 */
import type { Source } from '../../src/events/types.ts';
import type { AcceptedEvent, ItemError } from './validate.ts';

/** The destination of ingested events. */
export interface IngestSink {
  /** `direct`: folded into the store; `kafka`: published for the consumers. */
  readonly kind: 'direct' | 'kafka';
  /**
   * Resolves once the events are durable at the destination: in the store (visible to the
   * next read) or acknowledged by every in-sync replica, with the events the destination
   * refused (the store: beyond their project's bounds; Kafka refuses none here, its consumers
   * dead-letter them). Rejects when the destination fails.
   */
  accept(source: Source, events: readonly AcceptedEvent[]): Promise<ItemError[]>;
  /** Releases connections. */
  close(): Promise<void>;
}
