/**
 * Merging, the writer's step between a fold's delta and its commits: for every bucket of the
 * delta, this stream's part as it will be stored. A part the writer's {@link ProjectCache} holds
 * is merged into; one it does not is read from the store first (unless it lies beyond the
 * stream's reach in the project, then it is known new without a read); the delta's state is the
 * part where the stream has none. The parts are records of the cache's {@link StateColumns}, merged
 * into and written from there; only a part read from the store goes through its aggregate's
 * `deserialize` (the one place a stored state is checked) before it is loaded into them.
 *
 * A stored part that cannot be read (see {@link ./unreadable.ts}) is reported, copied aside to
 * its quarantine key in the same commit, and replaced by the delta, so one bad key never stops
 * the stream.
 *
 * @example
 * ```ts
 * const merger = new PartMerger({ store, stream: 'logs.edge/3', cache, nowUs, onUnreadable });
 * const writes = await merger.merge(fold.take()); // by project: parts, new parts
 * ```
 *
 * @module
 */
import type { RollupStore, StateWrite } from '../store/port.ts';
import type { DeltaState, RollupDelta } from './fold-delta.ts';
import { invocationStats } from './invocation-stats.ts';
import { partRef, QUARANTINE_TTL_US, quarantineKey } from './keys.ts';
import { type KnownProject, NEW_KEY, type ProjectCache } from './project-cache.ts';
import type { StateColumns } from './state-columns.ts';
import { readStateOrReport, type UnreadableReporter } from './unreadable.ts';
import { usageCounts } from './usage-counts.ts';

/** A project's share of a flush: parts merged or read as absent, and parts taken for new. */
export interface ProjectWrites {
  readonly parts: StateWrite[];
  /** Parts of buckets beyond the stream's reach, not read (see `ProjectCommit.newParts`). */
  readonly newParts: StateWrite[];
}

export const NO_WRITES: ProjectWrites = { parts: [], newParts: [] };

/**
 * The stored part of `state`'s key as a record of `columns`; null when its bytes cannot be read
 * (reported).
 */
function decode(
  columns: StateColumns,
  state: DeltaState,
  bytes: Uint8Array,
  report: UnreadableReporter | undefined,
): number | null {
  const { address, kind } = state;
  const stored = kind === 'invocation'
    ? readStateOrReport(invocationStats, address, bytes, report)
    : readStateOrReport(usageCounts, address, bytes, report);
  if (stored === null) return null;
  const record = columns.newRecord();
  columns.load(record, kind, stored);
  columns.setExpiry(record, state.expireAtMs);
  return record;
}

/** A new part of the cache's `columns` that holds what `state`'s record of `delta` holds. */
function copied(columns: StateColumns, delta: StateColumns, state: DeltaState): number {
  const record = columns.newRecord();
  columns.copy(record, delta, state.record);
  columns.setExpiry(record, state.expireAtMs);
  return record;
}

/** A delta state whose part the cache does not hold, with its project as known. */
type Missing = readonly [state: DeltaState, known: KnownProject];

/** Options of {@link PartMerger}. */
export interface PartMergerOptions {
  /** A merge only reads parts. */
  readonly store: Pick<RollupStore, 'readParts'>;
  readonly stream: string;
  /** The writer's cache, which keeps the stream's parts. */
  readonly cache: ProjectCache;
  /** The clock, in Unix microseconds. */
  readonly nowUs: () => number;
  /** Told about each stored part that could not be read (and was moved aside). */
  readonly onUnreadable?: UnreadableReporter | undefined;
}

/** Merges one stream's deltas into its parts. */
export class PartMerger {
  readonly #store: Pick<RollupStore, 'readParts'>;
  readonly #stream: string;
  readonly #cache: ProjectCache;
  readonly #nowUs: () => number;
  readonly #onUnreadable: UnreadableReporter | undefined;

  constructor(options: PartMergerOptions) {
    this.#store = options.store;
    this.#stream = options.stream;
    this.#cache = options.cache;
    this.#nowUs = options.nowUs;
    this.#onUnreadable = options.onUnreadable;
  }

  /** This stream's new part of every part address of the delta, by project. */
  async merge(delta: RollupDelta): Promise<Map<string, ProjectWrites>> {
    const { missing, unread } = this.#unknownParts(delta);
    const aside = missing.length === 0 ? new Map<string, StateWrite>() : await this.#read(missing);
    return this.#writes(delta, unread, aside);
  }

  /**
   * The delta's parts the cache does not hold: those to read, and those taken for new without a
   * read (by the delta's record; committed only where the stream has none), which are noted new.
   */
  #unknownParts(delta: RollupDelta): { missing: Missing[]; unread: Set<number> } {
    const missing: Missing[] = [];
    const unread = new Set<number>();
    // forEach, not for-of: this runs once a flush, too seldom for V8 to optimize away the entry
    // arrays of a for-of over a map, and a flush goes through every part of its delta.
    delta.projects.forEach(({ states }, project) => {
      const known = this.#cache.known(project);
      for (const state of states) {
        if (known.parts.has(state.address)) continue;
        if (state.startUs > known.reachUs) {
          // Beyond everything the stream has folded into the project: it has no part there.
          unread.add(state.record);
          this.#cache.addPart(known, state.address, NEW_KEY);
        } else missing.push([state, known]);
      }
    });
    return { missing, unread };
  }

  /**
   * Reads the `missing` parts into the cache (absent ones noted new); answers the copies aside of
   * those that could not be read, by address.
   */
  async #read(missing: readonly Missing[]): Promise<Map<string, StateWrite>> {
    const generation = this.#cache.generation;
    const values = await this.#store.readParts(
      missing.map(([{ address }]) => partRef(address)),
      this.#stream,
    );
    if (this.#cache.generation !== generation) {
      // The flush failed meanwhile (the cache was forgotten), or a project was dropped: what
      // was known when the reads were sent may be gone. Nothing is merged into a stale part.
      throw new Error(
        `stream ${this.#stream}: the writer's cache changed while parts were read; the flush ` +
          'is abandoned and the stream resumes from its stored offset',
      );
    }
    const aside = new Map<string, StateWrite>();
    const asideUntilMs = Math.floor((this.#nowUs() + QUARANTINE_TTL_US) / 1000);
    const columns = this.#cache.columns;
    missing.forEach(([state, known], i) => {
      const bytes = values[i] ?? null;
      const stored = bytes === null ? NEW_KEY : decode(columns, state, bytes, this.#onUnreadable);
      if (stored === null && bytes !== null) {
        // Kept for inspection, byte for byte; the part itself starts again from this delta.
        aside.set(state.address, {
          key: quarantineKey(state.address),
          value: bytes,
          expireAtMs: asideUntilMs,
        });
      }
      this.#cache.addPart(known, state.address, stored ?? NEW_KEY);
    });
    return aside;
  }

  /** Merges each delta state into its part and answers the parts' writes, by project. */
  #writes(
    delta: RollupDelta,
    unread: ReadonlySet<number>,
    aside: ReadonlyMap<string, StateWrite>,
  ): Map<string, ProjectWrites> {
    const columns = this.#cache.columns;
    const writes = new Map<string, ProjectWrites>();
    delta.projects.forEach(({ states }, project) => {
      const { parts } = this.#cache.known(project);
      const list: StateWrite[] = [];
      const newList: StateWrite[] = [];
      for (const state of states) {
        const { address, kind } = state;
        const quarantined = aside.get(address);
        if (quarantined !== undefined) list.push(quarantined);
        const stored = parts.get(address);
        // Re-insert so that Map order is least-recently-written first.
        parts.delete(address);
        let part: number;
        // A part the stream does not have needs no merge: the delta is the part.
        if (stored === undefined || stored === NEW_KEY) {
          part = copied(columns, delta.columns, state);
        } else {
          part = stored;
          columns.merge(part, kind, delta.columns, state.record);
        }
        parts.set(address, part);
        const value = columns.text(part, kind);
        const { key, slot } = partRef(address);
        const write: StateWrite = slot === undefined
          ? { key, value, expireAtMs: state.expireAtMs }
          : { key, slot, value, expireAtMs: state.expireAtMs };
        (unread.has(state.record) ? newList : list).push(write);
      }
      writes.set(project, { parts: list, newParts: newList });
    });
    return writes;
  }
}
