/**
 * A Kafka message as the partition processor takes it, and its parse: the event it carries, or
 * why it is rejected (a dead letter). Kept free of kafkajs, whose messages fit.
 *
 * @example
 * ```ts
 * const result = parseMessage(message, { source: 'edge', nowUs, maxFutureSkewUs });
 * if (!result.ok) deadLetter(message, result.rejection, origin);
 * ```
 *
 * @module
 */
import { parseStreamMessage } from '../src/events/stream-parse.ts';
import type { ParseResult, StreamSource } from '../src/events/types.ts';

/** A message as the processor needs it (a kafkajs message fits). */
export interface InputMessage {
  readonly offset: string;
  /** Kafka timestamp (producer CreateTime, Unix ms as text), for freshness figures. */
  readonly timestamp?: string;
  readonly key: Buffer | null;
  readonly value: Buffer | null;
}

/** A message of a batch, parsed. */
export interface ParsedMessage {
  readonly message: InputMessage;
  readonly offset: number;
  readonly result: ParseResult;
}

/** What parsing a message needs to know. */
export interface ParseOptions {
  readonly source: StreamSource;
  /** The clock, in Unix microseconds: for a message without a usable Kafka timestamp. */
  readonly nowUs: () => number;
  readonly maxFutureSkewUs: number;
}

/**
 * The time an event's timestamp is judged against (too far ahead, too old): its message's Kafka
 * timestamp, so that every replay of the partition decides alike whenever it runs; the clock
 * only for a message without a usable one.
 */
function judgedAtUs(message: InputMessage, nowUs: () => number): number {
  const kafkaMs = Number(message.timestamp);
  return Number.isSafeInteger(kafkaMs) && kafkaMs > 0 ? kafkaMs * 1000 : nowUs();
}

/**
 * `message` parsed as an event of `source`, judged at its Kafka timestamp; a message without a
 * value (a tombstone) is rejected.
 */
export function parseMessage(message: InputMessage, options: ParseOptions): ParseResult {
  if (message.value === null) {
    return {
      ok: false,
      rejection: { kind: 'tombstone', reason: 'message has no value (a tombstone)', path: '' },
    };
  }
  return parseStreamMessage(message.value, options.source, {
    nowUs: judgedAtUs(message, options.nowUs),
    maxFutureSkewUs: options.maxFutureSkewUs,
  });
}
