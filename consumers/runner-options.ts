/**
 * What a `ConsumerRunner` (`runner.ts`) is given and what it tells: its options, and the reports of the
 * partitions it pauses (a stored offset beyond the partition's end, a batch it cannot decode).
 *
 * @module
 */
import type { Kafka } from 'kafkajs';
import type { TopicNames } from '../src/kafka/topics.ts';
import type { UnreadableReporter } from '../src/rollup/unreadable.ts';
import type { RollupStore } from '../src/store/port.ts';
import type { FlushReport } from './processor-options.ts';
import type { LogStartReporter } from './log-start.ts';
import type { OverrunReporter } from './retention-gap.ts';
import type { PartsBudget } from '../src/rollup/parts-budget.ts';
import type { HeapGuard } from './heap-guard.ts';

/** Options of `ConsumerRunner`. */
export interface ConsumerRunnerOptions {
  readonly kafka: Kafka;
  readonly store: RollupStore;
  readonly groupId: string;
  readonly topics: TopicNames;
  /**
   * How often the stored offsets of the partitions held are compared with what this consumer
   * wrote last. A difference means the store lost or rolled back data (or another member took
   * the partition): the partition is re-read from the stored offset, or from the earliest one.
   * Default 1000 ms.
   */
  readonly offsetCheckMs?: number;
  /** The clock, in Unix microseconds. */
  readonly nowUs: () => number;
  readonly maxFutureSkewUs: number;
  readonly recentLogsCapacity: number;
  /** Most events a partition holds folded and not yet written (see PartitionProcessor). */
  readonly flushEvents: number;
  /** Most bytes of events a partition holds folded and not yet written (see PartitionProcessor). */
  readonly flushBytes?: number;
  /** Least time between the starts of a partition's flushes (see PartitionProcessor). */
  readonly flushLingerMs?: number;
  /**
   * Longest wait of a fetch for `fetchMinBytes` of records (a fetch answers as soon as it has
   * them). Bounds, with `flushLingerMs`, how long an event of a quiet stream waits before it is
   * folded and written.
   */
  readonly flushIntervalMs: number;
  /**
   * Least bytes a fetch waits for (up to `flushIntervalMs`) before the broker answers. Default
   * `DEFAULT_FETCH_MIN_BYTES`.
   */
  readonly fetchMinBytes?: number;
  /**
   * Group session and rebalance timeout. Default `DEFAULT_SESSION_TIMEOUT_MS` (the
   * broker's minimum is 6 s).
   */
  readonly sessionTimeoutMs?: number;
  /** Partitions processed at the same time by this process. */
  readonly concurrency: number;
  /**
   * How often the group re-reads the topics' metadata: partitions added to a topic are consumed
   * at most this long after. Default 60 s (kafkajs's own default is 5 minutes).
   */
  readonly metadataMaxAgeMs?: number;
  /** The parts every partition's writer of this process keeps together (see parts-budget.ts). */
  readonly partsBudget?: PartsBudget;
  /** Holds batches back while the heap is pressed (see heap-guard.ts). */
  readonly heapGuard?: Pick<HeapGuard, 'room'>;
  /** Called with each flush's figures. */
  readonly onFlush?: (report: FlushReport) => void;
  /** Called when a batch fails (the store is down, say); the batch is retried after a pause. */
  readonly onError?: (error: unknown, stream: string) => void;
  /** Told about each stored state that could not be read (it was moved aside; folding goes on). */
  readonly onUnreadable?: UnreadableReporter;
  /**
   * The group stopped for `error` (a coordinator still loading, a broker gone): with
   * `restarting`, kafkajs rejoins by itself after a pause; without, this runner is finished and
   * must be replaced.
   */
  readonly onCrash?: (error: Error, restarting: boolean) => void;
  /** The group was joined (again): partitions are assigned and fetching goes on. */
  readonly onJoin?: () => void;
  /** The group's coordinator answered a heartbeat. */
  readonly onHeartbeat?: () => void;
  /**
   * A partition's stored offset is beyond its end (the topic was recreated, or the data moved to
   * another cluster): it is paused, nothing skipped, until its stored offset is within the
   * partition again (see docs/ROLLUPS.md for the remedy), or the partition moved to another
   * member; then `onAheadCleared`.
   */
  readonly onAhead?: (report: AheadReport) => void;
  readonly onAheadCleared?: (stream: string, why: 'within' | 'moved') => void;
  /** Told of each dead letter once it is published, with its `rejection-kind` header. */
  readonly onDeadLetter?: (kind: string) => void;
  /**
   * A batch of a partition cannot be decoded (a codec this process does not read, a corrupt
   * batch): what precedes it is folded, the partition is paused, nothing of it skipped, and fetched again every
   * {@link UNDECODABLE_RETRY_MS}; told again at each attempt that fails, until
   * `onUndecodableCleared` (the batch was read, or the partition moved to another member).
   */
  readonly onUndecodable?: (report: UndecodableReport) => void;
  readonly onUndecodableCleared?: (stream: string, why: 'read' | 'moved') => void;
  /** Told of offsets retention deleted before they were folded (folding goes on after them). */
  readonly onOverrun?: OverrunReporter;
  /** Told when a partition starts at its log start with no stored offset (see `log-start.ts`). */
  readonly onLogStart?: LogStartReporter;
}

/** A partition paused at a batch it cannot decode. */
export interface UndecodableReport {
  readonly stream: string;
  readonly topic: string;
  readonly partition: number;
  /** The first offset of the batch. */
  readonly offset: number;
  /** The offset after the batch's last record, as far as this fetch saw it. */
  readonly through: number;
  readonly reason: string;
}

/** How often a partition paused at a batch it cannot decode fetches it again. */
export const UNDECODABLE_RETRY_MS = 10_000;

/** A partition halted because its stored offset is beyond its end. */
export interface AheadReport {
  readonly stream: string;
  readonly storedOffset: number;
  readonly partitionEnd: number;
}
