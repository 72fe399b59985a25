/**
 * Merging, the writer's step between a fold's delta and its commits: for every bucket of the
 * delta, this stream's part as it will be stored. A part the writer's {@link ProjectCache} holds
 * is merged into; one it does not is read from the store first (unless it lies beyond the
 * stream's reach in the project, then it is known new without a read); the delta's state is the
 * part where the stream has none. Every state operation goes through the state's `Aggregate`
 * (merge, serialize, deserialize), whichever aggregate it is.
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
import type { PendingStateOf, RollupDelta } from './fold-delta.ts';
import { partRef, QUARANTINE_TTL_US, quarantineKey } from './keys.ts';
import { type KnownProject, NEW_KEY, type ProjectCache } from './project-cache.ts';
import { readStateOrReport, type UnreadableReporter } from './unreadable.ts';

/** A project's share of a flush: parts merged or read as absent, and parts taken for new. */
export interface ProjectWrites {
  readonly parts: StateWrite[];
  /** Parts of buckets beyond the stream's reach, not read (see `ProjectCommit.newParts`). */
  readonly newParts: StateWrite[];
}

export const NO_WRITES: ProjectWrites = { parts: [], newParts: [] };

/** A pending state of any aggregate: the writer goes through its `aggregate` only. */
type AnyPending = PendingStateOf<unknown>;

/** The stored part of a key, read by the delta's aggregate; null when the text cannot be read. */
function decode(
  key: string,
  pending: AnyPending,
  text: string,
  report: UnreadableReporter | undefined,
): AnyPending | null {
  const { aggregate, startUs, expireAtMs } = pending;
  const state = readStateOrReport(aggregate, key, text, report);
  return state === null ? null : { aggregate, state, startUs, expireAtMs };
}

/** The store's text of `pending`. */
function serialized(pending: AnyPending): string {
  return pending.aggregate.serialize(pending.state);
}

/** Merges `pending` into `stored` (the same aggregate's) and answers the merged text. */
function mergeInto(stored: AnyPending, pending: AnyPending): string {
  if (stored.aggregate !== pending.aggregate) {
    throw new Error(
      'a key holds a state of one aggregate but a delta of another was folded for it',
    );
  }
  stored.state = stored.aggregate.merge(stored.state, pending.state);
  return stored.aggregate.serialize(stored.state);
}

/** Options of {@link PartMerger}. */
export interface PartMergerOptions {
  readonly store: RollupStore;
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
  readonly #store: RollupStore;
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
    const missing: [address: string, pending: AnyPending, known: KnownProject][] = [];
    // Parts taken for new without a read: committed only where the stream has none.
    const unread = new Set<string>();
    // forEach, not for-of: this runs once a flush, too seldom for V8 to optimize away the entry
    // arrays of a for-of over a map, and a flush goes through every part of its delta.
    delta.projects.forEach(({ states }, project) => {
      const known = this.#cache.known(project);
      states.forEach((pending, address) => {
        if (known.parts.has(address)) return;
        if (pending.startUs > known.reachUs) {
          // Beyond everything the stream has folded into the project: it has no part there.
          unread.add(address);
          this.#cache.addPart(known, address, NEW_KEY);
        } else missing.push([address, pending, known]);
      });
    });
    const aside = new Map<string, StateWrite>();
    if (missing.length > 0) {
      const values = await this.#store.readParts(
        missing.map(([address]) => partRef(address)),
        this.#stream,
      );
      const asideUntilMs = Math.floor((this.#nowUs() + QUARANTINE_TTL_US) / 1000);
      missing.forEach(([address, pending, known], i) => {
        const text = values[i] ?? null;
        const stored = text === null ? NEW_KEY : decode(address, pending, text, this.#onUnreadable);
        if (stored === null && text !== null) {
          // Kept for inspection; the part itself starts again from this delta.
          aside.set(address, {
            key: quarantineKey(address),
            value: text,
            expireAtMs: asideUntilMs,
          });
        }
        this.#cache.addPart(known, address, stored ?? NEW_KEY);
      });
    }
    const writes = new Map<string, ProjectWrites>();
    delta.projects.forEach(({ states }, project) => {
      const { parts } = this.#cache.known(project);
      const list: StateWrite[] = [];
      const newList: StateWrite[] = [];
      states.forEach((pending, address) => {
        const quarantined = aside.get(address);
        if (quarantined !== undefined) list.push(quarantined);
        const stored = parts.get(address);
        // Re-insert so that Map order is least-recently-written first.
        parts.delete(address);
        const fresh = stored === undefined || stored === NEW_KEY;
        // A part the stream does not have needs no merge: the delta is the part.
        const value = fresh ? serialized(pending) : mergeInto(stored, pending);
        parts.set(address, fresh ? pending : stored);
        const { key, slot } = partRef(address);
        const write: StateWrite = slot === undefined
          ? { key, value, expireAtMs: pending.expireAtMs }
          : { key, slot, value, expireAtMs: pending.expireAtMs };
        (unread.has(address) ? newList : list).push(write);
      });
      writes.set(project, { parts: list, newParts: newList });
    });
    return writes;
  }
}
