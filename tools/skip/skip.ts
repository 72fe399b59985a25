/**
 * Skipping a batch the consumers cannot decode, on an operator's decision, and recording it: the
 * partition's stored offset moves from the batch's first offset to the offset after it (only if
 * the consumers stopped exactly there), and a record of what was skipped goes to the dead-letter
 * topic first. The paused consumer reads the stored offset again within seconds and goes on.
 *
 * @module
 */
import type { Producer } from 'kafkajs';
import { resumeKey } from '../../src/rollup/keys.ts';
import type { RollupStore } from '../../src/store/port.ts';

/** What to skip, and why. */
export interface SkipRequest {
  readonly topic: string;
  readonly partition: number;
  /** The batch's first offset: where the consumers stopped. */
  readonly from: number;
  /** The offset after the batch's last record. */
  readonly to: number;
  /** Why, in the operator's words: it goes into the record. */
  readonly reason: string;
}

/** A skip that was refused: the message says why and what to do. */
export class SkipError extends Error {
  override name = 'SkipError';
}

/**
 * Records and performs `request`. The record (a message on `deadLetterTopic`, `rejection-kind:
 * skipped`, with the range and the reason in its headers) is published before the offset moves:
 * a skip is never done without its record. `producer` is asked for only once the skip goes ahead:
 * a refusal needs the store alone.
 */
export async function skipBatch(
  store: RollupStore,
  producer: () => Promise<Producer>,
  deadLetterTopic: string,
  request: SkipRequest,
  nowMs: () => number,
): Promise<void> {
  const { topic, partition, from, to, reason } = request;
  if (!(Number.isSafeInteger(from) && Number.isSafeInteger(to) && from >= 0 && to > from)) {
    throw new SkipError(`--to must be above --from: got --from ${from} --to ${to}`);
  }
  const stream = `${topic}/${partition}`;
  const stored = await store.readOffset(resumeKey(stream));
  if (stored !== from) {
    throw new SkipError(
      `the consumers of ${stream} are at offset ${stored ?? 'none'}, not ${from}: skip only the ` +
        'batch they are paused at (the offsets their log line and /healthz name)',
    );
  }
  const record = { skipped: { topic, partition, from, to }, reason, atMs: nowMs() };
  await (await producer()).send({
    topic: deadLetterTopic,
    acks: -1,
    messages: [{
      key: null,
      value: JSON.stringify(record),
      headers: {
        'rejection-kind': 'skipped',
        reason,
        'source-topic': topic,
        'source-partition': String(partition),
        'source-offset': String(from),
        'skipped-to': String(to),
      },
    }],
  });
  if (!(await store.advanceOffset(resumeKey(stream), from, to))) {
    throw new SkipError(
      `the stored offset of ${stream} changed while skipping: nothing was skipped (the record ` +
        'on the dead-letter topic says so by having no effect); look again and retry',
    );
  }
}
