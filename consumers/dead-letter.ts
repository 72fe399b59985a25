/**
 * Dead-letter records: an event that failed validation, published to `logs.dead-letter` with
 * the reason and its origin in headers, so a producer can find and fix it. Publishing happens
 * before the flush that moves the stream past it, so a crash can repeat a dead letter (at least
 * once) but never lose one.
 *
 * Every dead letter fits in a broker's default largest message (1 MiB): a value longer than
 * {@link MAX_DEAD_LETTER_VALUE_BYTES} (a near-limit message plus its headers would not fit) is
 * cut there, and the `value-truncated-from` header gives its full length; the whole message stays
 * in its source topic at the offset the headers name. A flush's letters go out in sends of at
 * most {@link DEAD_LETTER_SEND_BYTES}, since one send of a partition is one message batch.
 *
 * @module
 */
import type { Producer } from 'kafkajs';
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

/** Longest value a dead letter carries, in bytes; what is longer is cut (see the module). */
export const MAX_DEAD_LETTER_VALUE_BYTES = 960 * 1024;

/** Most bytes of dead letters in one send (a letter larger than this goes alone). */
export const DEAD_LETTER_SEND_BYTES = 512 * 1024;

/** The dead-letter message of a rejected one: same key and bytes, reason and origin in headers. */
export function deadLetter(
  message: { key: Buffer | null; value: Buffer | null },
  rejection: Rejection,
  origin: Origin,
): DeadLetter {
  const headers: Record<string, string> = {
    'rejection-kind': rejection.kind,
    reason: rejection.reason,
    path: rejection.path,
    'source-topic': origin.topic,
    'source-partition': String(origin.partition),
    'source-offset': origin.offset,
  };
  let value = message.value;
  if (value !== null && value.length > MAX_DEAD_LETTER_VALUE_BYTES) {
    headers['value-truncated-from'] = String(value.length);
    value = value.subarray(0, MAX_DEAD_LETTER_VALUE_BYTES);
  }
  return { key: message.key, value, headers };
}

/** Bytes `letter` adds to a send, roughly (its key, value and headers). */
function sizeOf(letter: DeadLetter): number {
  let size = (letter.key?.length ?? 0) + (letter.value?.length ?? 0) + 64;
  for (const [name, value] of Object.entries(letter.headers)) size += name.length + value.length;
  return size;
}

/**
 * `letters` in order, in batches of at most {@link DEAD_LETTER_SEND_BYTES} each (a letter larger
 * than that alone in its batch).
 */
export function deadLetterBatches(letters: readonly DeadLetter[]): DeadLetter[][] {
  const batches: DeadLetter[][] = [];
  let batch: DeadLetter[] = [];
  let bytes = 0;
  for (const letter of letters) {
    const size = sizeOf(letter);
    if (batch.length > 0 && bytes + size > DEAD_LETTER_SEND_BYTES) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
    batch.push(letter);
    bytes += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/**
 * Publishes a flush's dead letters, in sends the broker accepts (all of them in one could exceed
 * its largest message, a batch of one partition being one message, and fail on every retry),
 * each acknowledged by every in-sync replica; `onEach` hears each letter's rejection kind.
 */
export async function publishDeadLetters(
  producer: Producer,
  topic: string,
  letters: readonly DeadLetter[],
  onEach?: (kind: string) => void,
): Promise<void> {
  for (const batch of deadLetterBatches(letters)) {
    await producer.send({ topic, acks: -1, messages: batch });
    for (const letter of batch) onEach?.(letter.headers['rejection-kind'] ?? '');
  }
}
