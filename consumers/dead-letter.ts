/**
 * Dead-letter records: an event that failed validation, published to `logs.dead-letter` with
 * the reason and its origin in headers, so a producer can find and fix it. Publishing happens
 * before the flush that moves the stream past it, so a crash can repeat a dead letter (at least
 * once) but never lose one.
 *
 * @module
 */
import type { Rejection } from '../src/events/types.ts';

/** One message for the dead-letter topic. */
export interface DeadLetter {
  readonly key: Buffer | null;
  readonly value: Buffer | null;
  readonly headers: Record<string, string>;
}

/** Where a rejected message came from. */
export interface Origin {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

/** The dead-letter message of a rejected one: same key and bytes, reason and origin in headers. */
export function deadLetter(
  message: { key: Buffer | null; value: Buffer | null },
  rejection: Rejection,
  origin: Origin,
): DeadLetter {
  return {
    key: message.key,
    value: message.value,
    headers: {
      reason: rejection.reason,
      path: rejection.path,
      'source-topic': origin.topic,
      'source-partition': String(origin.partition),
      'source-offset': origin.offset,
    },
  };
}
