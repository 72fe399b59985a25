/**
 * Merges the deltas of one stream (a Kafka partition, or one API process's ingest) into the
 * store, exactly once, however many other streams write the same projects at the same time.
 *
 * Write model (see `src/store/port.ts`): each bucket holds one part per writing stream; this
 * writer owns its stream's parts and no other writer touches them, so it may keep them
 * deserialized and merge its deltas into them; readers merge the parts of every stream. A flush
 * is one atomic commit per project, fenced by the project's watermark of the stream (the next
 * offset the project holds from it): before folding an event the writer knows each project's
 * watermark and skips what the project already holds; a commit applies only while the stored
 * watermark is still the one this writer knows. Another owner of the stream (a consumer that
 * lost the partition and still writes), a replay or a store that lost or rolled back data
 * therefore change nothing: the flush fails with {@link OffsetConflictError}, and the caller
 * reopens the writer, which resumes from the earliest offset any project still needs.
 *
 * Nothing global is written in an atomic step: the host registry is a maximum per (project,
 * host), written before the commits (a replay that skips a project finds its hosts there), and
 * a Kafka partition's resume offset is moved after them with a compare-and-set of its own key.
 * On a stream that is replayed (a Kafka partition) the ring buffers of recent logs are written
 * outside the commits too: an entry's member names its stream and offset (see `recent-logs.ts`),
 * so whoever writes an event again (a replay, a consumer that lost the partition) adds the very
 * member already there. They are written once the flush has found the stream's resume offset
 * where it left it (so not what was judged against data the store lost) and before any commit
 * (so a failure commits nothing and the replay writes them again). Out of the commit script they
 * cost Redis less (docs/benchmarks-history.md, "CPU per event and per request, second pass").
 * A stream never replayed (HTTP ingest) commits them with each project: no replay would mend them.
 *
 * A stored part that cannot be read (see {@link ./unreadable.ts}) is reported, copied aside to
 * its quarantine key in the same commit, and replaced by the delta, so one bad key never stops
 * the stream.
 *
 * @example
 * ```ts
 * const writer = new PartitionWriter({ store, stream: 'logs.edge/3', nowUs, earliestOffset });
 * const from = await writer.open(); // where consuming resumes
 * await writer.loadWatermarks(['abcdefghijklmnopqrst']);
 * if (offset >= (writer.watermark('abcdefghijklmnopqrst') ?? 0)) fold.add(event, offset, nowUs);
 * await writer.flush(fold.take(), offset + 1);
 * ```
 *
 * @module
 */
import { DEFAULT_MAX_FUTURE_SKEW_US } from '../events/parse.ts';
import type { LogEvent, Rejection } from '../events/types.ts';
import type { RollupStore, StoredReach } from '../store/port.ts';
import { CommitLedger, type Loss, lossReason } from './commit-ledger.ts';
import type { Fold } from './fold.ts';
import type { RollupDelta } from './fold-delta.ts';
import { EXPIRY_SLACK_US } from './keys.ts';
import { earlierRewind, OffsetConflictError, type RewindPoint } from './offset-conflict.ts';
import { PartMerger } from './part-merge.ts';
import { DEFAULT_CACHE_LIMIT, knownProject, ProjectCache } from './project-cache.ts';
import { ProjectCommits } from './project-commit.ts';
import { DEFAULT_RECENT_LOGS_CAPACITY } from './recent-logs.ts';
import { ResumeOffset } from './resume-offset.ts';
import { StreamAdmission } from './stream-admission.ts';
import type { UnreadableReporter } from './unreadable.ts';
import type { PartsBudget } from './parts-budget.ts';

/** Options of {@link PartitionWriter}. */
export interface PartitionWriterOptions {
  readonly store: RollupStore;
  /** Stream identity, e.g. `logs.edge/3`. */
  readonly stream: string;
  /** The clock, in Unix microseconds. */
  readonly nowUs: () => number;
  /**
   * The stream's earliest offset that can still be read (a Kafka partition's low watermark),
   * where a stream without a stored resume offset starts. Absent for a stream that is never
   * replayed (HTTP ingest): it keeps no resume offset, and its offsets start at 0.
   */
  readonly earliestOffset?: () => Promise<number>;
  /** Entries kept per project ring buffer. Default {@link DEFAULT_RECENT_LOGS_CAPACITY}. */
  readonly recentLogsCapacity?: number;
  /** Parts and watermarks kept in memory between flushes. Default 50,000 each. */
  readonly cacheLimit?: number;
  /**
   * The parts every writer of the process keeps together (see `parts-budget.ts`); the writer
   * counts its parts into it and drops its least recently committed ones while it is exceeded.
   */
  readonly partsBudget?: PartsBudget;
  /** Told about each stored part that could not be read (and was moved aside). */
  readonly onUnreadable?: UnreadableReporter;
  /**
   * Told when an open resumes at {@link earliestOffset} (`logStart`) because nothing is stored
   * and no project needs an earlier offset; `knownStored` is the resume offset this writer last
   * knew stored (null: none since it was made), so not null when the store lost it.
   */
  readonly onEarliestStart?: (logStart: number, knownStored: number | null) => void;
  /**
   * How far in the future an event the stream's writers accepted may lie (µs), as its parser
   * was told: no part of the stream written before now is of a bucket that starts after now plus
   * this (and {@link EXPIRY_SLACK_US} for clocks that disagree). Default
   * {@link DEFAULT_MAX_FUTURE_SKEW_US}.
   */
  readonly maxFutureSkewUs?: number;
}

/** What {@link PartitionWriter.verify} found. */
export type Verdict =
  | { readonly consistent: true }
  | {
    readonly consistent: false;
    /** Why the stream must be re-read, for the logs. */
    readonly reason: string;
  };

/** What {@link PartitionWriter.fold} did with one event. */
export type Folding =
  | { readonly kind: 'folded' }
  /** Its project already holds it (a replay after a crash or a rewind): skipped. */
  | { readonly kind: 'held' }
  /** Refused by its project's bounds (see `admission.ts`): not folded. */
  | { readonly kind: 'refused'; readonly rejection: Rejection }
  | { readonly kind: 'unloaded' };

const FOLDED: Folding = { kind: 'folded' };
const HELD: Folding = { kind: 'held' };
const UNLOADED: Folding = { kind: 'unloaded' };

/** Writes one stream's deltas into the store, exactly once. */
export class PartitionWriter {
  readonly #store: RollupStore;
  readonly #stream: string;
  readonly #nowUs: () => number;
  readonly #maxFutureSkewUs: number;
  /** Where the stream resumes; whether it is replayed at all. */
  readonly #resume: ResumeOffset;
  /** What this writer knows by project, bounded. */
  readonly #cache: ProjectCache;
  /** Judges each event by its project's bounds. */
  readonly #admission: StreamAdmission;
  /** What this writer committed and registered, kept when the caches are dropped. */
  readonly #ledger: CommitLedger;
  readonly #merger: PartMerger;
  readonly #commits: ProjectCommits;
  #opened = false;

  constructor(options: PartitionWriterOptions) {
    const { store, stream, nowUs } = options;
    this.#store = store;
    this.#stream = stream;
    this.#nowUs = nowUs;
    this.#maxFutureSkewUs = options.maxFutureSkewUs ?? DEFAULT_MAX_FUTURE_SKEW_US;
    const resume = new ResumeOffset(options);
    const { kind } = resume;
    const limit = options.cacheLimit ?? DEFAULT_CACHE_LIMIT;
    const cache = new ProjectCache({
      stream,
      limit,
      nowUs,
      ...(options.partsBudget === undefined ? {} : { partsBudget: options.partsBudget }),
    });
    const ledger = new CommitLedger({
      store,
      stream,
      watermarkKey: (project) => kind.watermarkKey(project, stream),
      limit,
      watermarkLifeUs: kind.watermarkLifeUs,
      earliestOffset: options.earliestOffset,
    });
    this.#resume = resume;
    this.#cache = cache;
    this.#ledger = ledger;
    this.#admission = new StreamAdmission({ store, stream, cache, nowUs, kind });
    this.#merger = new PartMerger({
      store,
      stream,
      cache,
      nowUs,
      onUnreadable: options.onUnreadable,
    });
    this.#commits = new ProjectCommits({
      store,
      stream,
      resume,
      cache,
      ledger,
      recentLogsCapacity: options.recentLogsCapacity ?? DEFAULT_RECENT_LOGS_CAPACITY,
    });
  }

  /** The stream this writer writes. */
  get stream(): string {
    return this.#stream;
  }

  /**
   * The resume offset as last read or written (null: none yet); for a stream that is never
   * replayed (direct ingest), the next offset it will write, which is stored nowhere.
   */
  get offset(): number | null {
    return this.#resume.known;
  }

  /**
   * The stream's stored resume offset (in the older layout when today's has none), null when
   * none is stored: where a new owner of the stream would resume, for lag and checks.
   */
  storedOffset(): Promise<number | null> {
    return this.#resume.stored();
  }

  /**
   * Forgets every cached part and watermark and answers where consuming resumes: the stored
   * resume offset, or the earliest offset when none is stored, or earlier where a conflict or
   * {@link rewindTo} showed that a project needs it (the stored resume offset is then lowered
   * to it first, so a crash before the next flush does not forget it). A stream that is never
   * replayed answers 0.
   */
  async open(): Promise<number> {
    this.#cache.forget();
    this.#opened = false;
    if (this.#resume.replayed) {
      // Before the resume offset is trusted: a failover may have taken what a project held
      // (a stream never replayed keeps no resume offset to lower).
      const nowUs = this.#nowUs();
      this.#lost(await this.#ledger.lost(nowUs));
      await this.#ledger.registerAgain(nowUs);
    }
    const from = await this.#resume.open();
    this.#opened = true;
    return from;
  }

  /** On `losses` (the stored resume offset lowered), rewinds to the earliest and throws. */
  #lost(losses: readonly Loss[]): void {
    let rewind: RewindPoint | undefined;
    for (const { stored } of losses) {
      this.rewindTo(stored);
      rewind = earlierRewind(rewind, stored);
    }
    const first = losses[0];
    if (first !== undefined) {
      throw new OffsetConflictError(this.#stream, lossReason(first), rewind);
    }
  }

  /** Makes the next {@link open} resume no later than `offset` (null: the earliest offset). */
  rewindTo(offset: number | null): void {
    this.#resume.rewindTo(offset);
  }

  /** What the writer keeps between flushes: projects (watermarks) and parts, each bounded. */
  get cached(): { readonly projects: number; readonly parts: number } {
    return this.#cache.cached;
  }

  /**
   * Reads the stored watermarks of the `projects` not known yet. Call it before folding their
   * events: an event at an offset below its project's {@link watermark} is already held.
   */
  async loadWatermarks(projects: Iterable<string>): Promise<void> {
    const unknown: string[] = [];
    const nowUs = this.#nowUs();
    const rereadUs = this.#resume.kind.watermarkRereadUs;
    for (const project of projects) {
      const known = this.#cache.get(project);
      if (known !== undefined && rereadUs !== null && nowUs - known.seenAtUs > rereadUs) {
        // Its stored watermark may expire before the next commit: read it again.
        this.#cache.drop(project);
        unknown.push(project);
      } else if (known === undefined) unknown.push(project);
      else known.usedIn = this.#cache.flushes;
    }
    if (unknown.length === 0) return;
    const keys = unknown.map((project) => this.#resume.kind.watermarkKey(project, this.#stream));
    // Read side by side: a reach holds only beside the watermark it was stored with.
    const [stored, reaches] = await Promise.all([
      this.#store.readWatermarks(keys, this.#stream),
      this.#store.readReaches(keys, this.#stream),
    ]);
    this.#lost(await this.#ledger.loaded(unknown, stored, nowUs));
    unknown.forEach((project, i) => {
      const offset = stored[i] ?? null;
      const reach = reaches[i] ?? null;
      const reachUs = this.#storedReach(offset, reach, nowUs);
      this.#cache.add(project, knownProject(offset, reachUs, nowUs, this.#cache.flushes));
    });
  }

  /**
   * Reads what judging `events` needs and is not known yet: their projects' watermarks, and the
   * keys their projects' bounds admitted on their days. Call it before {@link fold}.
   */
  async load(events: Iterable<LogEvent>): Promise<void> {
    const list = [...events];
    await this.loadWatermarks(new Set(list.map((event) => event.project)));
    await this.#admission.load(list);
  }

  /**
   * Folds `event`, at `offset` of the stream, into `into` when its project does not hold it yet
   * and its bounds admit it, with the keys it admits (committed with the project); answers what
   * it did. `unloaded`: what judging it needs is not loaded (or was forgotten since, or its
   * watermark is older than the stream reads again): nothing was done, {@link load} it and fold
   * it again. A caller may fold first and load only what comes back unloaded.
   */
  fold(into: Fold, event: LogEvent, offset: number, nowUs: number): Folding {
    const known = this.#cache.get(event.project);
    if (known === undefined || !this.#admission.ready(event, known)) return UNLOADED;
    const rereadUs = this.#resume.kind.watermarkRereadUs;
    if (rereadUs !== null && nowUs - known.seenAtUs > rereadUs) return UNLOADED;
    // Not forgotten while this fold's events of it wait for their flush.
    known.usedIn = this.#cache.flushes;
    if (known.offset !== null && offset < known.offset) return HELD;
    const admission = this.#admission.admit(event, known);
    if (!admission.ok) return { kind: 'refused', rejection: admission.rejection };
    into.add(event, offset, nowUs);
    into.noteAdmitted(event.project, admission.key, admission.added, admission.expireAtMs);
    return FOLDED;
  }

  /**
   * The reach of a project whose stored watermark is `offset`, from the stored `reach`, read at
   * `nowUs`:
   *
   * - a reach stored with that watermark holds;
   * - a replayed stream's project without a watermark holds none of its parts: its watermark
   *   hash lives 90 days past its last commit, longer than any bucket of events up to about 80
   *   days in the future;
   * - a reach marked forgotten holds nothing: every part is read;
   * - otherwise (a watermark an earlier version wrote, or moved past the stored reach, and every
   *   project of a direct stream, whose watermark expires two days after its last commit, long
   *   before its day buckets) every part the stream wrote before now is of events judged before
   *   now, so normally of buckets that start no later than now plus the future skew its parser
   *   allows (and the slack for clocks that disagree): the reach is taken to be that, and is
   *   stored with the next commit, so a project an earlier version wrote stops reading new
   *   buckets once that time has passed. (A consumer judges an event at its message's
   *   timestamp: a producer whose clock runs ahead can make this wrong.)
   *
   * None of these has to be right for the counts to be exact: a part taken for new is written
   * only where the stream has none, and otherwise the commit is refused and marks the reach
   * forgotten (see `ProjectCommit.newParts`); from then on every part is read.
   */
  #storedReach(offset: number | null, reach: StoredReach | null, nowUs: number): number {
    if (reach !== null && 'offset' in reach && reach.offset === offset) return reach.reachUs;
    if (reach !== null && 'forgotten' in reach) return Number.POSITIVE_INFINITY;
    if (offset === null && reach === null && this.#resume.kind.absentWatermarkMeansNothing) {
      return Number.NEGATIVE_INFINITY;
    }
    return nowUs + this.#maxFutureSkewUs + EXPIRY_SLACK_US;
  }

  /**
   * The next offset `project` holds from this stream (null: nothing); undefined when not loaded.
   */
  watermark(project: string): number | null | undefined {
    return this.#cache.get(project)?.offset;
  }

  /**
   * Merges `delta` into this stream's parts and commits it, project by project, with
   * `nextOffset` (the offset after the last event folded into it). On any failure the caches
   * are dropped: reopen before going on.
   */
  async flush(delta: RollupDelta, nextOffset: number): Promise<void> {
    if (!this.#opened) throw new Error(`stream ${this.#stream}: open() the writer before flushing`);
    this.#cache.flushBegins();
    try {
      const nowUs = this.#nowUs();
      // The hosts only need to be registered before the commits: at the same time as the reads,
      // and the resume offset, which no store that lost its data since the open still holds.
      const [, parts, resumeStored] = await Promise.all([
        this.#commits.registerHosts(delta, nowUs),
        this.#merger.merge(delta),
        this.#resume.read(),
      ]);
      this.#resume.expect(resumeStored);
      // Only now, and before any commit: what was folded was judged against what the store
      // still holds (a store that lost it may have let the project's bounds admit events a
      // rebuild refuses), and a failed write commits nothing, so the replay writes it again.
      await this.#commits.addRecentLogs(delta, nowUs);
      await this.#commits.commit(delta, parts, nextOffset, nowUs);
      await this.#resume.advance(nextOffset);
      this.#cache.evict(delta.projects.keys());
    } catch (error) {
      this.#cache.forget();
      this.#opened = false;
      throw error;
    }
  }

  /**
   * Compares what this writer wrote with what the store holds: the resume offset, and the
   * watermarks of up to `sample` projects it knows (a different slice each call, so that a
   * project on a Redis Cluster shard that lost data is found even when no new event of it comes,
   * and lowers the stored resume offset). On a difference, the next {@link open} resumes there.
   */
  async verify(sample = 256): Promise<Verdict> {
    const moved = await this.#resume.verify();
    if (moved !== null) return { consistent: false, reason: moved };
    const nowUs = this.#nowUs();
    await this.#ledger.registerAgain(nowUs, sample);
    const [first] = await this.#ledger.lost(nowUs, sample);
    if (first === undefined) return { consistent: true };
    return { consistent: false, reason: lossReason(first) };
  }
}
