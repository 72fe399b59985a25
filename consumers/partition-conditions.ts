/**
 * What the consumer role knows of its partitions' conditions, and says of them: partitions paused
 * because their stored offset is beyond their end or at a batch they cannot decode, and offsets
 * lost to retention (before they were folded, or after the store lost what it had folded). Each
 * condition is logged once with what to do (a paused batch at most once a minute), counted in the
 * metrics, and told to `/readyz` (paused beyond the end), `/healthz` (paused at a batch) or as a
 * loss that waiting will not mend. `startConsumers` wires the runner's reports here.
 *
 * @module
 */
import type { Logger } from '../src/logger.ts';
import type { LogStartReport } from './log-start.ts';
import type { ConsumerMetrics } from './metrics.ts';
import type { OverrunReport } from './retention-gap.ts';
import type { AheadReport, UndecodableReport } from './runner.ts';

/** How often a partition paused at a batch it cannot decode is logged, at most. */
const UNDECODABLE_LOG_MS = 60_000;

/** The partitions' conditions of one consumer process. */
export class PartitionConditions {
  readonly #logger: Logger;
  readonly #nowMs: () => number;
  readonly #metrics: () => ConsumerMetrics | null;
  /** Partitions paused because their stored offset is beyond their end. */
  readonly #halted = new Map<string, AheadReport>();
  /** Partitions paused at a batch they cannot decode, with when each was last logged. */
  readonly #undecodable = new Map<string, { report: UndecodableReport; loggedMs: number }>();
  /** Offsets lost to retention since this process started, by partition. */
  readonly #overrun = new Map<string, number>();
  /** Offsets the store lost, since this process started, that retention deleted, by partition. */
  readonly #unstored = new Map<string, number>();

  /** `metrics` is asked at each report (the metrics read this object's counts in turn). */
  constructor(logger: Logger, nowMs: () => number, metrics: () => ConsumerMetrics | null) {
    this.#logger = logger;
    this.#nowMs = nowMs;
    this.#metrics = metrics;
  }

  /** Partitions paused, for either reason. */
  get paused(): number {
    return this.#halted.size + this.#undecodable.size;
  }

  /** The partitions paused at a batch they cannot decode. */
  undecodable(): UndecodableReport[] {
    return [...this.#undecodable.values()].map(({ report }) => report);
  }

  /** Forgets the pauses: a new runner reports them again. */
  clearPauses(): void {
    this.#halted.clear();
    this.#undecodable.clear();
  }

  /** A partition paused: its stored offset is beyond its end. */
  ahead(report: AheadReport): void {
    this.#halted.set(report.stream, report);
    this.#logger.error(
      report,
      `the stored offset of ${report.stream} (${report.storedOffset}) is beyond the ` +
        `partition's end (${report.partitionEnd}): the topic was recreated, or its data moved ` +
        'to another cluster. The partition is paused and nothing of it is skipped; see "A ' +
        `stored offset beyond the partition's end" in docs/ROLLUPS.md for what to do`,
    );
  }

  /** A partition paused beyond its end is not any more. */
  aheadCleared(stream: string, why: 'within' | 'moved'): void {
    this.#halted.delete(stream);
    this.#logger.info(
      { stream },
      why === 'within'
        ? `the stored offset of ${stream} is within the partition again`
        : `${stream} moved to another member of the group, which reports it if still paused`,
    );
  }

  /** Retention deleted offsets of a partition before they were folded. */
  overrun(report: OverrunReport): void {
    this.#metrics()?.countRetentionLost(report.topic, report.partition, report.lost);
    this.#overrun.set(report.stream, (this.#overrun.get(report.stream) ?? 0) + report.lost);
    this.#logger.error(
      report,
      `${report.stream} lost ${report.lost} offset(s) (${report.logStart - report.lost} to ` +
        `${report.logStart - 1}): the topic's retention deleted them before they were ` +
        'folded, and their events are missing from the rollups. Folding goes on from ' +
        `${report.logStart}; see "A consumer group behind the topic's retention" in ` +
        'docs/ROLLUPS.md for what to do',
    );
  }

  /** A partition starts at its log start: new, or the store lost what it had folded of it. */
  logStart(report: LogStartReport): void {
    const { stream, logStart } = report;
    if (report.knownStored === null) {
      this.#logger.warn(
        report,
        `${stream} has no stored resume offset: folding starts at its log start, ${logStart} ` +
          `(offsets 0 to ${logStart - 1} are no longer in the topic). Normal for a new ` +
          'deployment or consumer group on a topic whose older messages expired; if this ' +
          'store held the partition before (it lost its keys), the events of those offsets ' +
          `are missing from the rollups: see "A consumer group behind the topic's ` +
          'retention" in docs/ROLLUPS.md',
      );
      return;
    }
    this.#metrics()?.countRetentionLost(report.topic, report.partition, report.lost);
    this.#unstored.set(stream, (this.#unstored.get(stream) ?? 0) + report.lost);
    this.#logger.error(
      report,
      `${stream} lost ${report.lost} offset(s) (${report.lostFrom} to ${logStart - 1}): ` +
        `the store lost the partition's resume offset (it was ${report.knownStored}) and ` +
        "what it had folded, and the topic's retention deleted those offsets, so their " +
        `events are missing from the rollups. Folding goes on from ${logStart}; see "A ` +
        `consumer group behind the topic's retention" in docs/ROLLUPS.md for what to do`,
    );
  }

  /** A partition paused at a batch it cannot decode (logged once a minute at most). */
  undecodableBatch(report: UndecodableReport): void {
    this.#metrics()?.countUndecodable(report.topic, report.partition);
    const seen = this.#undecodable.get(report.stream);
    const nowMs = this.#nowMs();
    const log = seen === undefined || nowMs - seen.loggedMs >= UNDECODABLE_LOG_MS;
    this.#undecodable.set(report.stream, { report, loggedMs: log ? nowMs : seen.loggedMs });
    if (!log) return;
    this.#logger.error(
      report,
      `${report.stream} is paused at offsets ${report.offset} to ${report.through - 1}: ` +
        `${report.reason}. The other partitions go on; this one is read again when the ` +
        'batch can be decoded (after a restart with the codec, say), and nothing of it is ' +
        'skipped unless an operator skips it (npm run consumers:skip); see "A batch the ' +
        'consumers cannot decode" in docs/ROLLUPS.md',
    );
  }

  /** A partition paused at a batch is not any more. */
  undecodableCleared(stream: string, why: 'read' | 'moved'): void {
    this.#undecodable.delete(stream);
    this.#logger.info(
      { stream },
      why === 'read'
        ? `${stream} read past the batch it could not decode`
        : `${stream} moved to another member of the group, which reports it if still paused`,
    );
  }

  /** Why the consumers are not ready for their partitions beyond their end, or null. */
  notReady(): string | null {
    const [first] = this.#halted.values();
    if (first === undefined) return null;
    return `${this.#halted.size} partition(s) paused: the stored offset of ${first.stream} ` +
      `(${first.storedOffset}) is beyond its end (${first.partitionEnd})`;
  }

  /**
   * What is wrong that waiting will not mend: each partition paused at a batch, then each of
   * `stalled` (partitions that did not advance) not paused for a reason already given.
   */
  unhealthy(stalled: readonly string[]): string[] {
    const reasons = this.undecodable().map((report) =>
      `${report.stream} paused at offsets ${report.offset} to ${report.through - 1}: ` +
      report.reason
    );
    const streams = [...this.#undecodable.keys(), ...this.#halted.keys()];
    const paused = (reason: string) => streams.some((stream) => reason.startsWith(`${stream} `));
    reasons.push(...stalled.filter((reason) => !paused(reason)));
    return reasons;
  }

  /** The offsets lost since this process started, or null. */
  lost(): string | null {
    const said = [
      ...[...this.#overrun].map(([stream, offsets]) =>
        `${stream} lost ${offsets} offset(s) to retention before they were folded`
      ),
      ...[...this.#unstored].map(([stream, offsets]) =>
        `${stream} lost ${offsets} offset(s) the store had folded and lost, which retention deleted`
      ),
    ];
    return said.length === 0 ? null : said.join('; ');
  }
}
