/**
 * What one stream's writer keeps between flushes, by project: the project's watermark of the
 * stream and reach, the stream's parts of its buckets (their states in columns), and the keys its bounds
 * admitted. Everything of a project is valid exactly as long as its watermark (it is read after
 * the watermark, and any other write of it moves the watermark), so a writer that finds a
 * watermark moved forgets it all ({@link ProjectCache.forget}).
 *
 * Bounded: {@link ProjectCache.evict} drops, after each flush, expired parts, then parts of the
 * least recently committed projects while over the limit or the process's parts budget (see
 * `parts-budget.ts`), then whole projects while over the limit.
 *
 * @example
 * ```ts
 * const cache = new ProjectCache({ stream: 'logs.edge/3', limit: 50_000, nowUs });
 * cache.add('abcdefghijklmnopqrst', { offset: 12, reachUs, seenAtUs: nowUs, ... });
 * cache.known('abcdefghijklmnopqrst').offset; // 12
 * ```
 *
 * @module
 */
import { DAY_US } from '../time/civil.ts';
import type { AdmittedKeys } from './admission.ts';
import { PartsBudget } from './parts-budget.ts';
import { StateColumns } from './state-columns.ts';

/** Projects, and parts, a writer keeps between flushes unless told otherwise. */
export const DEFAULT_CACHE_LIMIT = 50_000;

/** Marks a key the store was asked for and does not hold a part of this stream. */
export const NEW_KEY = -1;

/**
 * A stream's part of one bucket as kept: its record in the cache's {@link ProjectCache.columns},
 * or {@link NEW_KEY}, known to be absent.
 */
export type CachedPart = number;

/**
 * What this writer knows of a project: its watermark of the stream, as last read or written,
 * and the stream's parts of its buckets (in the cache's columns), which are valid exactly as long as the
 * watermark is (they are read after it, and any other write of them moves it).
 */
export interface KnownProject {
  offset: number | null;
  /**
   * The stream's reach in the project (see `ProjectCommit.watermark.reachUs`): no bucket that
   * starts after it holds a part of the stream, so such a part is not read but known new.
   * -Infinity: the project holds nothing of the stream; +Infinity: a reach a commit marked
   * forgotten, every part is read (see `PartitionWriter`'s `#storedReach`).
   */
  reachUs: number;
  /** When the watermark was last read or committed (µs). */
  seenAtUs: number;
  readonly parts: Map<string, CachedPart>;
  /**
   * The keys this stream admitted for the project, by UTC day of event time (µs): as stored
   * when read, plus every key admitted since (folded, maybe not committed yet). Valid exactly as
   * long as the watermark, like the parts.
   */
  readonly admitted: Map<number, AdmittedDay>;
  /** The flush that last needed it: one a fold under way still needs is not forgotten. */
  usedIn: number;
}

/** The keys admitted for one project and day, and the flush count when last read or used. */
export interface AdmittedDay {
  readonly keys: AdmittedKeys;
  /**
   * {@link ProjectCache.flushes} when a fold last admitted keys with it (or it was
   * read): once a later flush has landed, everything it admitted is committed.
   */
  usedIn: number;
}

/**
 * What is known of a project right after its watermark (`offset`, null: none) and reach were
 * read at `nowUs`, in flush `usedIn`: no part and no admitted key yet.
 */
export function knownProject(
  offset: number | null,
  reachUs: number,
  nowUs: number,
  usedIn: number,
): KnownProject {
  return { offset, reachUs, seenAtUs: nowUs, parts: new Map(), admitted: new Map(), usedIn };
}

/** Options of {@link ProjectCache}. */
export interface ProjectCacheOptions {
  /** The stream, named in errors. */
  readonly stream: string;
  /** Most projects, and most parts, kept. */
  readonly limit: number;
  /** The clock, in Unix microseconds. */
  readonly nowUs: () => number;
  /**
   * The parts every writer of the process keeps together: the cache counts its parts into it
   * and drops its least recently committed ones while it is exceeded. Default: one of its own,
   * of `limit` parts.
   */
  readonly partsBudget?: PartsBudget;
}

/** One stream's projects as its writer knows them, bounded. */
export class ProjectCache {
  readonly #stream: string;
  readonly #limit: number;
  readonly #nowUs: () => number;
  /** What the writer knows by project, least recently committed first. */
  readonly #projects = new Map<string, KnownProject>();
  /** Parts held in {@link #projects}, all projects together. */
  #partCount = 0;
  /** The process's parts budget, which {@link #partCount} is counted into. */
  readonly #partsBudget: PartsBudget;
  /** Counts flushes, to tell what a pending fold still needs from what may be forgotten. */
  #flushes = 0;
  /** The parts' states, every project's. */
  #columns = new StateColumns();
  /**
   * Counts what makes parts read before it stale: a {@link forget}, a {@link drop} (and the
   * compaction after an eviction, which moves every part to other records).
   */
  #generation = 0;

  constructor(options: ProjectCacheOptions) {
    this.#stream = options.stream;
    this.#limit = options.limit;
    this.#nowUs = options.nowUs;
    this.#partsBudget = options.partsBudget ?? new PartsBudget(options.limit);
  }

  /** How many flushes began: what was used in the current one is not forgotten. */
  get flushes(): number {
    return this.#flushes;
  }

  /** Counts a flush that begins. */
  flushBegins(): void {
    this.#flushes += 1;
  }

  /** The states of the parts kept (see {@link CachedPart}). */
  get columns(): StateColumns {
    return this.#columns;
  }

  /**
   * Changes whenever parts or projects known before may have been forgotten or moved: a merge that
   * read parts checks it did not change while it waited, or abandons what it read.
   */
  get generation(): number {
    return this.#generation;
  }

  /** What is kept: projects (watermarks) and parts, each bounded. */
  get cached(): { readonly projects: number; readonly parts: number } {
    return { projects: this.#projects.size, parts: this.#partCount };
  }

  /** What is known of `project`, if anything. */
  get(project: string): KnownProject | undefined {
    return this.#projects.get(project);
  }

  /** What is known of `project`, which must be loaded. */
  known(project: string): KnownProject {
    const known = this.#projects.get(project);
    if (known === undefined) {
      throw new Error(
        `stream ${this.#stream}: events of project ${project} were folded before its ` +
          'watermark was loaded (call loadWatermarks first)',
      );
    }
    return known;
  }

  /** Keeps `known` for `project`, unless something is known of it already. */
  add(project: string, known: KnownProject): void {
    if (!this.#projects.has(project)) this.#projects.set(project, known);
  }

  /** Forgets `project` with its parts (read again when next needed). */
  drop(project: string): void {
    const known = this.#projects.get(project);
    if (known === undefined) return;
    this.#projects.delete(project);
    this.#dropParts(known);
    this.#generation += 1;
  }

  /** Keeps a part of `known` it did not have (read, or known new). */
  addPart(known: KnownProject, address: string, part: CachedPart): void {
    known.parts.set(address, part);
    this.#countParts(1);
  }

  /** Marks `project` committed now: it is the last to be forgotten. */
  committed(project: string, known: KnownProject): void {
    known.usedIn = this.#flushes;
    // Re-insert so that Map order is least-recently-committed first.
    this.#projects.delete(project);
    this.#projects.set(project, known);
  }

  /** Forgets everything (a conflict, a reopen). */
  forget(): void {
    this.#projects.clear();
    this.#countParts(-this.#partCount);
    this.#columns = new StateColumns();
    this.#generation += 1;
  }

  /** Forgets every part of `known`. */
  #dropParts(known: KnownProject): void {
    this.#countParts(-known.parts.size);
    known.parts.forEach((part) => {
      if (part !== NEW_KEY) this.#columns.free(part);
    });
    known.parts.clear();
  }

  /** Counts `parts` more held (negative: dropped), here and in the process's budget. */
  #countParts(parts: number): void {
    this.#partCount += parts;
    this.#partsBudget.add(parts);
  }

  /**
   * Keeps the caches bounded: drops the parts of the `committed` projects whose bucket expired
   * (least recently written first); then, while over the limit, the parts of the least recently
   * committed projects; then, while too many projects are known, whole projects, least recently
   * committed first, except those a fold under way has loaded since this flush began.
   */
  evict(committed: Iterable<string>): void {
    const nowMs = this.#nowUs() / 1000;
    for (const project of committed) {
      const known = this.#projects.get(project);
      if (known === undefined) continue;
      // Admitted keys of past days are read again if a late event needs them; not those a fold
      // under way admitted with (its keys are not committed yet).
      for (const [dayUs, day] of known.admitted) {
        if (day.usedIn < this.#flushes && dayUs < nowMs * 1000 - DAY_US) {
          known.admitted.delete(dayUs);
        }
      }
      for (const [key, part] of known.parts) {
        if (part !== NEW_KEY && this.#columns.expiryOf(part) > nowMs) break;
        known.parts.delete(key);
        if (part !== NEW_KEY) this.#columns.free(part);
        this.#countParts(-1);
      }
    }
    // Parts first, least recently committed project first: a dropped part is read again when
    // next needed, while a dropped watermark would stop the fold for a read (one number each).
    for (const known of this.#projects.values()) {
      if (this.#partCount <= this.#limit && !this.#partsBudget.exceeded) break;
      this.#dropParts(known);
    }
    for (const [project, known] of this.#projects) {
      if (this.#projects.size <= this.#limit) break;
      if (known.usedIn >= this.#flushes) continue;
      this.#projects.delete(project);
      this.#dropParts(known);
    }
    if (this.#columns.wasteful) {
      this.#compact();
      this.#generation += 1;
    }
  }

  /**
   * Copies the parts kept into new columns of their size, so that the room of those dropped is
   * given back (typed arrays never shrink). Map order, and so what is evicted first, is kept.
   */
  #compact(): void {
    const old = this.#columns;
    const columns = new StateColumns(old.size);
    for (const known of this.#projects.values()) {
      const { parts } = known;
      parts.forEach((part, address) => {
        if (part === NEW_KEY) return;
        const moved = columns.newRecord();
        columns.copy(moved, old, part);
        parts.set(address, moved);
      });
    }
    this.#columns = columns;
  }
}
