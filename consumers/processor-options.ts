/**
 * What a {@link ./partition-processor.ts} is given (its options) and what it answers (a batch's
 * outcome, each flush's figures).
 *
 * @module
 */
import type { StreamSource } from '../src/events/types.ts';
import type { PartsBudget } from '../src/rollup/parts-budget.ts';
import type { UnreadableReporter } from '../src/rollup/unreadable.ts';
import type { RollupStore } from '../src/store/port.ts';
import type { DeadLetter } from './dead-letter.ts';
import type { LogStartReporter } from './log-start.ts';
import type { OverrunReporter } from './retention-gap.ts';

/** Options of a partition processor. */
export interface PartitionProcessorOptions {
  readonly topic: string;
  readonly partition: number;
  readonly source: StreamSource;
  readonly store: RollupStore;
  /** The clock, in Unix microseconds. */
  readonly nowUs: () => number;
  readonly maxFutureSkewUs: number;
  readonly recentLogsCapacity: number;
  /** Most projects and stored parts the writer caches between flushes. Default 50,000. */
  readonly cacheLimit?: number;
  /** The parts every writer of the process keeps together. */
  readonly partsBudget?: PartsBudget;
  /** Most events folded and not yet written; folding waits for the store beyond it. */
  readonly flushEvents: number;
  /**
   * Least time between the starts of two flushes unless one is full or the consumer stops (ms;
   * default `DEFAULT_FLUSH_LINGER_MS`): what is folded meanwhile goes out with the next.
   */
  readonly flushLingerMs?: number;
  /**
   * Most bytes of message values folded and not yet written (about what one flush sends to the
   * store); folding waits for the store beyond it. Default `DEFAULT_FLUSH_BYTES` (`src/config/defaults.ts`).
   */
  readonly flushBytes?: number;
  /** Publishes dead letters; resolves once the broker has them. */
  readonly publishDeadLetters: (letters: DeadLetter[]) => Promise<void>;
  /** The partition's earliest retained offset (where to start when the store has none). */
  readonly earliestOffset: () => Promise<number>;
  /** Reports each flush: events folded, rejects, and how long the store write took. */
  readonly onFlush?: (report: FlushReport) => void;
  /** Called when a flush fails; the partition then resumes from the stored offset. */
  readonly onFlushError?: (error: unknown) => void;
  /** Told about each stored state that could not be read (it was moved aside; folding goes on). */
  readonly onUnreadable?: UnreadableReporter;
  /** Told of offsets retention deleted before they were folded (folding goes on after them). */
  readonly onOverrun?: OverrunReporter;
  /** Told when folding starts at the log start with no stored offset (see `log-start.ts`). */
  readonly onLogStart?: LogStartReporter;
}

/** Figures of one flush. */
export interface FlushReport {
  readonly stream: string;
  readonly events: number;
  readonly rejected: number;
  /**
   * Valid messages not folded because their project already holds them: a replay after a crash
   * landed between the project commits of one flush and the stream's resume offset.
   */
  readonly skipped: number;
  readonly durationMs: number;
  /** Earliest Kafka timestamp (ms) of the messages flushed: produce-to-visible is measured from it. */
  readonly oldestProducedMs: number | null;
  /** Latest Kafka timestamp (ms) of the messages flushed: the store's freshness once committed. */
  readonly newestProducedMs: number | null;
}

/** The runner's next step for the partition. */
export type BatchOutcome =
  | { readonly kind: 'consumed'; readonly nextOffset: number | null }
  | { readonly kind: 'seek'; readonly offset: number }
  /**
   * The stored offset is beyond the partition's end (the topic was recreated, or the data moved
   * to another cluster): nothing was folded or skipped; the partition must stop.
   */
  | { readonly kind: 'ahead'; readonly stored: number; readonly end: number };
