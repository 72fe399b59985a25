/**
 * Where one stream resumes: a Kafka partition's resume offset, stored beside the rollups and
 * moved with a compare-and-set of its own key after each flush's commits (see
 * {@link ./partition-writer.ts}). It is the one place that reads and writes that key, with the
 * fallback for the layout before resume keys (`LEGACY_OFFSETS_KEY`).
 *
 * A stream that is never replayed (HTTP ingest) keeps no resume offset: it starts at 0, and
 * what it has written is known only to its own process. {@link ResumeOffset.replayed} says which
 * of the two a stream is; everything else that differs between them asks it.
 *
 * @example
 * ```ts
 * const resume = new ResumeOffset({ store, stream: 'logs.edge/3', earliestOffset });
 * const from = await resume.open(); // the stored offset, or the earliest, or a rewind's
 * await resume.advance(from + 100); // after the flush's commits
 * ```
 *
 * @module
 */
import type { ProjectCommit, RollupStore } from '../store/port.ts';
import { LEGACY_OFFSETS_KEY, resumeKey } from './keys.ts';
import { OffsetConflictError } from './offset-conflict.ts';
import { DIRECT_INGEST, KAFKA_PARTITION, type StreamKind } from './stream-kind.ts';

/** Options of {@link ResumeOffset}. */
export interface ResumeOffsetOptions {
  readonly store: RollupStore;
  /** Stream identity, e.g. `logs.edge/3`. */
  readonly stream: string;
  /**
   * The stream's earliest offset that can still be read (a Kafka partition's low watermark),
   * where a stream without a stored resume offset starts. Absent for a stream that is never
   * replayed (HTTP ingest): it keeps no resume offset, and its offsets start at 0.
   */
  readonly earliestOffset?: () => Promise<number>;
  /**
   * Told when an open resumes at the earliest offset (`logStart`) because nothing is stored and
   * no project needs an earlier offset; `knownStored` is the resume offset last known stored
   * (null: none since this was made), so not null when the store lost it.
   */
  readonly onEarliestStart?: (logStart: number, knownStored: number | null) => void;
}

/** The earlier of two resume points, null (the earliest offset) being earliest of all. */
function earlier(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : Math.min(a, b);
}

/** One stream's resume offset: read on open, fenced in each commit, moved after each flush. */
export class ResumeOffset {
  readonly #store: RollupStore;
  readonly #stream: string;
  readonly #earliestOffset: (() => Promise<number>) | undefined;
  readonly #onEarliestStart: ResumeOffsetOptions['onEarliestStart'];
  /** The stored resume offset, as last read or written (null: none). */
  #known: number | null = null;
  /** Set by a conflict or {@link rewindTo}: the next open resumes no later (null: earliest). */
  #rewind: number | null | undefined = undefined;

  constructor(options: ResumeOffsetOptions) {
    this.#store = options.store;
    this.#stream = options.stream;
    this.#earliestOffset = options.earliestOffset;
    this.#onEarliestStart = options.onEarliestStart;
  }

  /** Whether the stream is replayed (a Kafka partition), so keeps a stored resume offset. */
  get replayed(): boolean {
    return this.#earliestOffset !== undefined;
  }

  /** The stream's kind: a Kafka partition (it has an earliest offset) or direct ingest. */
  get kind(): StreamKind {
    return this.replayed ? KAFKA_PARTITION : DIRECT_INGEST;
  }

  /**
   * The resume offset as last read or written (null: none yet); for a stream that is never
   * replayed, the next offset it will write, which is stored nowhere.
   */
  get known(): number | null {
    return this.#known;
  }

  /**
   * The stored resume offset (in the layout before resume keys when the stream has none in
   * today's), null when none is stored; for a stream that is never replayed, the one known.
   */
  async stored(): Promise<number | null> {
    if (!this.replayed) return this.#known;
    return (await this.#store.readOffset(resumeKey(this.#stream))) ?? (await this.#legacy());
  }

  /**
   * Answers where consuming resumes: the stored resume offset, or the earliest offset when none
   * is stored, or earlier where a conflict or {@link rewindTo} showed that a project needs it
   * (the stored resume offset is then lowered to it first, so a crash before the next flush does
   * not forget it). A stream that is never replayed answers 0.
   */
  async open(): Promise<number> {
    const earliest = this.#earliestOffset;
    if (earliest === undefined) {
      this.#rewind = undefined;
      return 0;
    }
    const key = resumeKey(this.#stream);
    const current = await this.#store.readOffset(key);
    const stored = current ?? (await this.#legacy());
    const wanted = this.#rewind === undefined ? stored : earlier(stored, this.#rewind);
    const from = wanted ?? (await earliest());
    if (wanted === null && stored === null) this.#onEarliestStart?.(from, this.#known);
    if (current !== null && from < current) {
      if (!(await this.#store.advanceOffset(key, current, from))) {
        throw new OffsetConflictError(this.#stream, 'the resume offset moved while reopening');
      }
      this.#known = from;
    } else {
      this.#known = current;
    }
    this.#rewind = undefined;
    return from;
  }

  /** The stream's offset in the layout before resume keys (see `LEGACY_OFFSETS_KEY`). */
  async #legacy(): Promise<number | null> {
    const [offset] = await this.#store.readWatermarks([LEGACY_OFFSETS_KEY], this.#stream);
    return offset ?? null;
  }

  /** Makes the next {@link open} resume no later than `offset` (null: the earliest offset). */
  rewindTo(offset: number | null): void {
    this.#rewind = this.#rewind === undefined ? offset : earlier(this.#rewind, offset);
  }

  /**
   * The stored resume offset as a flush checks it, without the older layout's fallback (the one
   * known, for a stream that keeps none): see {@link expect}.
   */
  read(): Promise<number | null> {
    if (!this.replayed) return Promise.resolve(this.#known);
    return this.#store.readOffset(resumeKey(this.#stream));
  }

  /**
   * Throws {@link OffsetConflictError} unless `stored` (from {@link read}) is the one this
   * writer knows: a store that lost its data since the open no longer holds it.
   */
  expect(stored: number | null): void {
    if (stored !== this.#known) this.moved(stored);
  }

  /** What a project commit checks of the resume offset: none for a stream never replayed. */
  fence(): Pick<ProjectCommit, 'resume'> {
    return this.replayed ? { resume: { key: resumeKey(this.#stream), expected: this.#known } } : {};
  }

  /** Moves the stored resume offset to `nextOffset`, after a flush's commits. */
  async advance(nextOffset: number): Promise<void> {
    if (this.replayed) {
      const key = resumeKey(this.#stream);
      if (!(await this.#store.advanceOffset(key, this.#known, nextOffset))) {
        this.moved(await this.#store.readOffset(key));
      }
    }
    this.#known = nextOffset;
  }

  /**
   * The stored resume offset is `stored`, not the one this writer knows: the store lost or
   * rolled back data, or another writer took the stream. The next open resumes from there.
   */
  moved(stored: number | null): never {
    this.rewindTo(stored);
    throw new OffsetConflictError(
      this.#stream,
      `the resume offset is ${stored ?? 'gone'}, not ${this.#known ?? 'unset'}`,
      stored,
    );
  }

  /**
   * Compares the stored resume offset with the one this writer knows; on a difference the next
   * {@link open} resumes there, and the answer says why. Null when they agree (or a flush that
   * landed meanwhile moved it, or the stream keeps none).
   */
  async verify(): Promise<string | null> {
    if (!this.replayed) return null;
    const written = this.#known;
    const stored = await this.#store.readOffset(resumeKey(this.#stream));
    // A flush that landed meanwhile moved it: nothing to compare.
    if (this.#known !== written || stored === written) return null;
    this.rewindTo(stored);
    return `resume offset is ${stored ?? 'gone'}, not ${written ?? 'unset'}`;
  }
}
