/**
 * The span of Kafka timestamps (producer CreateTime, Unix ms) of the messages a flush holds: the
 * oldest says how long its earliest message waited to be visible, the newest how fresh the store
 * is once the flush is committed (the consumers' freshness metric).
 *
 * @module
 */

/** The oldest and newest Kafka timestamps (ms) seen; null until a message had a usable one. */
export interface ProducedSpan {
  oldestProducedMs: number | null;
  newestProducedMs: number | null;
}

/**
 * Widens `span` by one message's Kafka timestamp (text, as kafkajs hands it); a missing or
 * unusable one changes nothing.
 *
 * @example
 * ```ts
 * const span = { oldestProducedMs: null, newestProducedMs: null };
 * widenProducedSpan(span, '1700000000000');
 * ```
 */
export function widenProducedSpan(span: ProducedSpan, timestamp: string | undefined): void {
  const produced = Number(timestamp);
  if (!Number.isFinite(produced)) return;
  if (span.oldestProducedMs === null || produced < span.oldestProducedMs) {
    span.oldestProducedMs = produced;
  }
  if (span.newestProducedMs === null || produced > span.newestProducedMs) {
    span.newestProducedMs = produced;
  }
}
