/**
 * What a partition says when it starts folding at its log start (its earliest retained offset)
 * because the store holds no resume offset for it. Either nothing was ever folded from it into
 * this store (a new deployment or consumer group: offsets below the log start expired before,
 * which is normal and no loss for this store), or the store lost what it held (a FLUSHALL, a
 * Redis restarted without persistence, the key deleted): then the events of the offsets below the
 * log start were folded once, are gone from the rollups, and cannot be folded again.
 *
 * Only the process that knew the resume offset stored can tell the two apart: the partition's
 * writer remembers the offset it last read or wrote, and its commit ledger finds the projects'
 * watermarks gone (see `src/rollup/commit-ledger.ts`). Where it knew one, the loss is counted:
 * every offset below the log start since the stream began in this process (from 0 when it began
 * elsewhere, an upper bound when the group began on a topic whose older messages had already
 * expired). Where it did not (a process started on a store that had lost its keys, or a new
 * deployment) nothing tells which, and the start is said, not counted.
 *
 * @example
 * ```ts
 * const start = new LogStart({ topic: 'logs.edge', partition: 3, onStart: (r) => log.warn(r) });
 * writer = new PartitionWriter({ ..., onEarliestStart: (from, known) => start.started(from, known) });
 * ```
 *
 * @module
 */

/** A partition that started folding at its log start with no stored resume offset. */
export interface LogStartReport {
  /** `topic/partition`. */
  readonly stream: string;
  readonly topic: string;
  readonly partition: number;
  /** Where folding starts: the partition's earliest retained offset. */
  readonly logStart: number;
  /**
   * The resume offset this process last knew stored for the partition, which the store lost;
   * null when it knew none (a new deployment, or a store that lost its keys before this start).
   */
  readonly knownStored: number | null;
  /**
   * Offsets whose events the store had folded and lost, and which retention deleted (from
   * {@link LogStartReport.lostFrom} to before the log start); 0 when `knownStored` is null.
   */
  readonly lost: number;
  /** The first of the offsets lost (the offset this process saw the stream begin at, or 0). */
  readonly lostFrom: number;
}

/** Told of each start at the log start. */
export type LogStartReporter = (report: LogStartReport) => void;

/** Options of {@link LogStart}. */
export interface LogStartOptions {
  readonly topic: string;
  readonly partition: number;
  readonly onStart?: LogStartReporter;
}

/** One partition's starts at its log start, each said once. */
export class LogStart {
  readonly #options: LogStartOptions;
  /** The offset this process saw the stream begin at, with nothing stored before. */
  #beganAt: number | null = null;
  /** The log start last said: a reopen before the first flush does not say it again. */
  #saidAt: number | null = null;

  constructor(options: LogStartOptions) {
    this.#options = options;
  }

  /**
   * The partition's writer resumes at `logStart` with nothing stored; it last knew
   * `knownStored` stored (null: none).
   */
  started(logStart: number, knownStored: number | null): void {
    const lostFrom = this.#beganAt ?? 0;
    this.#beganAt = logStart;
    if (knownStored === null && (logStart === 0 || this.#saidAt === logStart)) return;
    const lost = knownStored === null ? 0 : Math.max(0, logStart - lostFrom);
    if (knownStored !== null && lost === 0) return;
    this.#saidAt = logStart;
    const { topic, partition } = this.#options;
    this.#options.onStart?.({
      stream: `${topic}/${partition}`,
      topic,
      partition,
      logStart,
      knownStored,
      lost,
      lostFrom,
    });
  }
}
