/**
 * The embedded default store: the same contract as Redis, held in this process. Expiry follows
 * the injected clock, so a test can move time; equal scores order by the UTF-8 bytes of the
 * member, as in Redis.
 *
 * @example
 * ```ts
 * const store = new MemoryStore({ nowMs: () => Date.now() });
 * ```
 *
 * @module
 */
import { compareUtf8 } from '../text/utf8-order.ts';
import type { Commit, RollupStore, ScoredMember, ScoreRange, SortedSetWrite } from './port.ts';

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** The clock that decides expiry, in Unix milliseconds. */
  readonly nowMs: () => number;
}

function compareMembers(a: ScoredMember, b: ScoredMember): number {
  return a.score - b.score || compareUtf8(a.member, b.member);
}

/** A sorted set kept as an array ascending by (score, member), plus an index of scores. */
class SortedSet {
  readonly items: ScoredMember[] = [];
  readonly scores = new Map<string, number>();

  private indexOf(item: ScoredMember): number {
    let low = 0;
    let high = this.items.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compareMembers(this.items[mid] as ScoredMember, item) < 0) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  add(item: ScoredMember, mode: SortedSetWrite['mode']): void {
    const old = this.scores.get(item.member);
    if (old !== undefined) {
      if (mode === 'max' && old >= item.score) return;
      this.items.splice(this.indexOf({ score: old, member: item.member }), 1);
    }
    this.items.splice(this.indexOf(item), 0, item);
    this.scores.set(item.member, item.score);
  }

  trim(keepHighest: number | null, dropBelow: number | null): void {
    let drop = 0;
    if (dropBelow !== null) {
      while (drop < this.items.length && (this.items[drop] as ScoredMember).score < dropBelow) {
        drop++;
      }
    }
    if (keepHighest !== null) drop = Math.max(drop, this.items.length - keepHighest);
    for (const removed of this.items.splice(0, drop)) this.scores.delete(removed.member);
  }
}

/** An in-process {@link RollupStore}. */
export class MemoryStore implements RollupStore {
  readonly #nowMs: () => number;
  readonly #values = new Map<string, { value: string; expireAtMs: number }>();
  readonly #sets = new Map<string, SortedSet>();
  readonly #hashes = new Map<string, Map<string, number>>();
  #sweepCursor: MapIterator<[string, { value: string; expireAtMs: number }]> = this.#values
    .entries();

  constructor(options: MemoryStoreOptions) {
    this.#nowMs = options.nowMs;
  }

  commit(commit: Commit): Promise<boolean> {
    const { offset } = commit;
    const offsets = this.#hashes.get(offset.key) ?? new Map<string, number>();
    if ((offsets.get(offset.stream) ?? null) !== offset.expected) return Promise.resolve(false);
    for (const state of commit.states) {
      this.#values.set(state.key, { value: state.value, expireAtMs: state.expireAtMs });
    }
    for (const write of commit.sortedSets) {
      let set = this.#sets.get(write.key);
      if (set === undefined) {
        set = new SortedSet();
        this.#sets.set(write.key, set);
      }
      for (const member of write.members) set.add(member, write.mode);
      set.trim(write.keepHighest, write.dropBelow);
    }
    offsets.set(offset.stream, offset.next);
    this.#hashes.set(offset.key, offsets);
    this.#sweepExpired();
    return Promise.resolve(true);
  }

  readOffset(key: string, stream: string): Promise<number | null> {
    return Promise.resolve(this.#hashes.get(key)?.get(stream) ?? null);
  }

  getValues(keys: readonly string[]): Promise<(string | null)[]> {
    const now = this.#nowMs();
    return Promise.resolve(keys.map((key) => {
      const entry = this.#values.get(key);
      return entry !== undefined && entry.expireAtMs > now ? entry.value : null;
    }));
  }

  rangeByScore(key: string, range: ScoreRange): Promise<string[]> {
    const items = this.#sets.get(key)?.items ?? [];
    const out: string[] = [];
    for (let i = items.length - 1; i >= 0 && out.length < range.limit; i--) {
      const item = items[i] as ScoredMember;
      if (item.score <= range.minExclusive) break;
      if (item.score <= range.max) out.push(item.member);
    }
    return Promise.resolve(out);
  }

  membersSince(key: string, minScore: number): Promise<string[]> {
    const items = this.#sets.get(key)?.items ?? [];
    return Promise.resolve(
      items.filter((item) => item.score >= minScore).map((item) => item.member),
    );
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Forgets expired values, a bounded slice per commit so no commit pays for all: a cursor walks
   * the map round and round (Map iterators stay valid while entries are added and deleted).
   */
  #sweepExpired(): void {
    const now = this.#nowMs();
    for (let budget = 64; budget > 0; budget--) {
      const next = this.#sweepCursor.next();
      if (next.done === true) {
        this.#sweepCursor = this.#values.entries();
        return;
      }
      const [key, entry] = next.value;
      if (entry.expireAtMs <= now) this.#values.delete(key);
    }
  }
}
