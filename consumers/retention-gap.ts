/**
 * What a partition does when a batch starts after the offset its store resumes from: seek back
 * there once (kafkajs may be fetching from its committed offset, which can be ahead of the
 * store); a batch that starts after it again is a gap Kafka leaves (records with nothing to fold,
 * such as a transaction's markers, or records retention deleted) and folding goes on from the
 * batch. Where the gap lies below the partition's log start, the offsets between the stored one
 * and the log start were deleted before they were folded: that is reported, never passed over in
 * silence (see "A consumer group behind the topic's retention" in docs/ROLLUPS.md), then passed
 * over: the stored resume offset moves to the log start, so that the next processor of the
 * partition (after it moved away and back, or a restart) does not meet, and count, the loss again.
 *
 * @example
 * ```ts
 * const gap = new RetentionGap({
 *   topic: 'logs.edge',
 *   partition: 3,
 *   earliestOffset,
 *   onOverrun: (report) => log.error(report),
 *   passOver: (logStart) => storeResumeOffset(logStart),
 * });
 * if ((await gap.judge(expected, firstOffset)) === 'seek') return { kind: 'seek', offset: expected };
 * ```
 *
 * @module
 */

/** Offsets of a partition deleted (by retention, or `deleteRecords`) before they were folded. */
export interface OverrunReport {
  /** `topic/partition`. */
  readonly stream: string;
  readonly topic: string;
  readonly partition: number;
  /** Where the store said consuming resumes: the first offset lost. */
  readonly stored: number;
  /** The partition's log start (its earliest retained offset): the first offset not lost. */
  readonly logStart: number;
  /** How many offsets were lost: `logStart - stored`, less any already reported. */
  readonly lost: number;
}

/** Told of the offsets each partition lost to retention. */
export type OverrunReporter = (report: OverrunReport) => void;

/** Options of {@link RetentionGap}. */
export interface RetentionGapOptions {
  readonly topic: string;
  readonly partition: number;
  /** The partition's log start (its earliest retained offset), read when a gap is met. */
  readonly earliestOffset: () => Promise<number>;
  readonly onOverrun?: OverrunReporter;
  /** Stores `logStart` as where the partition resumes: the offsets before it are gone. */
  readonly passOver: (logStart: number) => Promise<void>;
}

/** Decides whether a batch that starts after the expected offset is sought back or folded. */
export class RetentionGap {
  readonly #topic: string;
  readonly #partition: number;
  readonly #earliestOffset: () => Promise<number>;
  readonly #onOverrun: OverrunReporter | undefined;
  readonly #passOver: (logStart: number) => Promise<void>;
  /** Where this partition last asked to seek, to accept a gap Kafka leaves after a seek. */
  #seekedTo: number | null = null;
  /** The offset up to which a loss was reported: a replay of the gap is not counted twice. */
  #reportedThrough = 0;

  constructor(options: RetentionGapOptions) {
    this.#topic = options.topic;
    this.#partition = options.partition;
    this.#earliestOffset = options.earliestOffset;
    this.#onOverrun = options.onOverrun;
    this.#passOver = options.passOver;
  }

  /** Forgets the last seek: the next gap is sought back once more (after a re-read of the store). */
  forget(): void {
    this.#seekedTo = null;
  }

  /**
   * `'seek'` when a batch starting at `first` must be fetched again from `expected` (the first
   * time this gap is met), else `'fold'`, after reporting any offsets of the gap below the
   * partition's log start and passing over them. Reported before they are passed over: a crash
   * between the two may count them twice, never not at all.
   */
  async judge(expected: number, first: number): Promise<'seek' | 'fold'> {
    if (first <= expected) return 'fold';
    if (this.#seekedTo !== expected) {
      this.#seekedTo = expected;
      return 'seek';
    }
    const logStart = Math.min(first, await this.#earliestOffset());
    const from = Math.max(expected, this.#reportedThrough);
    if (logStart > from) {
      this.#reportedThrough = logStart;
      const [topic, partition] = [this.#topic, this.#partition];
      const lost = logStart - from;
      this.#onOverrun?.({
        stream: `${topic}/${partition}`,
        topic,
        partition,
        stored: expected,
        logStart,
        lost,
      });
    }
    if (logStart > expected) await this.#passOver(logStart);
    return 'fold';
  }
}
