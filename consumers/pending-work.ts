/**
 * What a partition processor has folded and not yet handed to the writer: the fold, the dead
 * letters of the messages it rejected, and the figures of the flush it becomes; and that flush
 * ({@link writePending}).
 *
 * @example
 * ```ts
 * const pending = emptyPending('logs.edge/3');
 * reject(pending, message, rejection, { topic: 'logs.edge', partition: 3 });
 * pending.letters.length; // 1
 * ```
 *
 * @module
 */
import type { Rejection } from '../src/events/types.ts';
import { Fold } from '../src/rollup/fold.ts';
import type { PartitionWriter } from '../src/rollup/partition-writer.ts';
import type { PartitionProcessorOptions } from './processor-options.ts';
import { type DeadLetter, deadLetter } from './dead-letter.ts';
import type { InputMessage } from './input-message.ts';
import type { ProducedSpan } from './produced-span.ts';

/** What is folded and not yet handed to the writer. */
export interface Pending extends ProducedSpan {
  fold: Fold;
  letters: DeadLetter[];
  rejected: number;
  /** Valid messages skipped: their project already holds them. */
  skipped: number;
  /** Bytes of the message values folded into it, rejected ones included. */
  bytes: number;
  /** The offset after the last message folded into it. */
  nextOffset: number | null;
}

/** Nothing folded yet, of `stream`. */
export function emptyPending(stream: string): Pending {
  return {
    fold: new Fold(stream),
    letters: [],
    rejected: 0,
    skipped: 0,
    bytes: 0,
    oldestProducedMs: null,
    newestProducedMs: null,
    nextOffset: null,
  };
}

/** Counts a rejected message of `origin`'s partition in `pending` and makes it a dead letter. */
export function reject(
  pending: Pending,
  message: InputMessage,
  rejection: Rejection,
  origin: { readonly topic: string; readonly partition: number },
): void {
  pending.rejected += 1;
  pending.letters.push(deadLetter(message, rejection, {
    topic: origin.topic,
    partition: origin.partition,
    offset: message.offset,
  }));
}

/**
 * Writes `pending` through `writer`, its dead letters first (they go out before the flush that
 * moves the stream past them), and reports the flush; nothing when it covers no offset.
 */
export async function writePending(
  pending: Pending,
  writer: PartitionWriter,
  stream: string,
  options: Pick<PartitionProcessorOptions, 'publishDeadLetters' | 'onFlush'>,
): Promise<void> {
  const nextOffset = pending.nextOffset;
  if (nextOffset === null) return;
  const started = performance.now();
  if (pending.letters.length > 0) await options.publishDeadLetters(pending.letters);
  const delta = pending.fold.take();
  await writer.flush(delta, nextOffset);
  options.onFlush?.({
    stream,
    events: delta.events,
    rejected: pending.rejected,
    skipped: pending.skipped,
    durationMs: performance.now() - started,
    oldestProducedMs: pending.oldestProducedMs,
    newestProducedMs: pending.newestProducedMs,
  });
}
