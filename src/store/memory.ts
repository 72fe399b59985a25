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
import type {
  CommitResult,
  HashRead,
  PartRef,
  ProjectCommit,
  RollupStore,
  ScoredMember,
  ScoreRange,
  SlottedPart,
  SortedSetWrite,
  StoredReach,
} from './port.ts';
import { partField, slotOfField } from './part-field.ts';
import { FORGOTTEN_REACH, parseReach, reachField, reachText } from './reach.ts';

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** The clock that decides expiry, in Unix milliseconds. */
  readonly nowMs: () => number;
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** The first `bytes` bytes of `text` in UTF-8, as Redis's `string.sub` cuts them. */
function utf8Head(text: string, bytes: number): string {
  // A UTF-16 code unit is at most 3 bytes of UTF-8.
  return text.length * 3 <= bytes ? text : fromUtf8.decode(utf8.encode(text).subarray(0, bytes));
}

function compareMembers(a: ScoredMember, b: ScoredMember): number {
  return a.score - b.score || compareUtf8(a.member, b.member);
}

/** A sorted set kept as an array ascending by (score, member), plus an index of scores. */
class SortedSet {
  readonly items: ScoredMember[] = [];
  readonly scores = new Map<string, number>();
  expireAtMs = Number.POSITIVE_INFINITY;

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

/** A hash: field values, and when the whole hash expires. */
interface Hash {
  readonly fields: Map<string, string>;
  expireAtMs: number;
}

/** An in-process {@link RollupStore}. */
export class MemoryStore implements RollupStore {
  readonly #nowMs: () => number;
  readonly #hashes = new Map<string, Hash>();
  readonly #sets = new Map<string, SortedSet>();
  readonly #offsets = new Map<string, number>();
  #sweepCursor: MapIterator<[string, Hash]> = this.#hashes.entries();

  constructor(options: MemoryStoreOptions) {
    this.#nowMs = options.nowMs;
  }

  commitProject(commit: ProjectCommit): Promise<CommitResult> {
    const { stream, watermark, resume } = commit;
    if (resume !== undefined) {
      const resumeStored = this.#offsets.get(resume.key) ?? null;
      if (resumeStored !== resume.expected) {
        return Promise.resolve({ applied: false, resumeStored });
      }
    }
    const stored = this.#field(watermark.key, stream);
    const storedOffset = stored === null ? null : Number(stored);
    if (storedOffset !== watermark.expected) {
      return Promise.resolve({ applied: false, stored: storedOffset });
    }
    const newParts = commit.newParts ?? [];
    const found = newParts.find((part) =>
      this.#field(part.key, partField(stream, part.slot)) !== null
    );
    if (found !== undefined) {
      this.#setField(watermark.key, reachField(stream), FORGOTTEN_REACH, watermark.expireAtMs);
      return Promise.resolve({ applied: false, partFound: found.key });
    }
    for (const part of [...newParts, ...commit.parts]) {
      this.#setField(part.key, partField(stream, part.slot), part.value, part.expireAtMs);
    }
    for (const write of commit.sortedSets) this.#updateSet(write);
    this.#setField(watermark.key, stream, String(watermark.next), watermark.expireAtMs);
    if (watermark.reachUs !== undefined) {
      const text = reachText(watermark.next, watermark.reachUs);
      this.#setField(watermark.key, reachField(stream), text, watermark.expireAtMs);
    }
    this.#sweepExpired();
    return Promise.resolve({ applied: true });
  }

  readWatermarks(keys: readonly string[], stream: string): Promise<(number | null)[]> {
    return Promise.resolve(keys.map((key) => {
      const value = this.#field(key, stream);
      return value === null ? null : Number(value);
    }));
  }

  readReaches(keys: readonly string[], stream: string): Promise<(StoredReach | null)[]> {
    return Promise.resolve(keys.map((key) => parseReach(this.#field(key, reachField(stream)))));
  }

  readParts(parts: readonly PartRef[], stream: string): Promise<(string | null)[]> {
    return Promise.resolve(parts.map(({ key, slot }) => this.#field(key, partField(stream, slot))));
  }

  readBuckets(keys: readonly string[]): Promise<string[][]> {
    return Promise.resolve(keys.map((key) => {
      const hash = this.#liveHash(key);
      return hash === undefined ? [] : [...hash.fields.values()];
    }));
  }

  readSlots(reads: readonly HashRead[]): Promise<SlottedPart[][]> {
    return Promise.resolve(reads.map(({ key, headBytes }) => {
      const hash = this.#liveHash(key);
      if (hash === undefined) return [];
      return [...hash.fields].map(([field, part]) => ({
        slot: slotOfField(field),
        part: headBytes === undefined ? part : utf8Head(part, headBytes),
      }));
    }));
  }

  readOffset(key: string): Promise<number | null> {
    return Promise.resolve(this.#offsets.get(key) ?? null);
  }

  advanceOffset(key: string, expected: number | null, next: number): Promise<boolean> {
    if ((this.#offsets.get(key) ?? null) !== expected) return Promise.resolve(false);
    this.#offsets.set(key, next);
    return Promise.resolve(true);
  }

  updateSortedSet(write: SortedSetWrite): Promise<void> {
    this.#updateSet(write);
    return Promise.resolve();
  }

  rangeByScore(key: string, range: ScoreRange): Promise<Uint8Array[]> {
    const items = this.#liveSet(key)?.items ?? [];
    const out: Uint8Array[] = [];
    for (let i = items.length - 1; i >= 0 && out.length < range.limit; i--) {
      const item = items[i] as ScoredMember;
      if (item.score <= range.minExclusive) break;
      if (item.score <= range.max) out.push(utf8.encode(item.member));
    }
    return Promise.resolve(out);
  }

  membersSince(key: string, minScore: number): Promise<ScoredMember[]> {
    const items = this.#liveSet(key)?.items ?? [];
    return Promise.resolve(
      items.filter((item) => item.score >= minScore).map(({ member, score }) => ({
        member,
        score,
      })),
    );
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  #liveHash(key: string): Hash | undefined {
    const hash = this.#hashes.get(key);
    if (hash === undefined || hash.expireAtMs > this.#nowMs()) return hash;
    this.#hashes.delete(key);
    return undefined;
  }

  #liveSet(key: string): SortedSet | undefined {
    const set = this.#sets.get(key);
    if (set === undefined || set.expireAtMs > this.#nowMs()) return set;
    this.#sets.delete(key);
    return undefined;
  }

  #field(key: string, field: string): string | null {
    return this.#liveHash(key)?.fields.get(field) ?? null;
  }

  #setField(key: string, field: string, value: string, expireAtMs: number): void {
    let hash = this.#liveHash(key);
    if (hash === undefined) {
      hash = { fields: new Map(), expireAtMs };
      this.#hashes.set(key, hash);
    }
    hash.fields.set(field, value);
    hash.expireAtMs = expireAtMs;
  }

  #updateSet(write: SortedSetWrite): void {
    let set = this.#liveSet(write.key);
    if (set === undefined) {
      set = new SortedSet();
      this.#sets.set(write.key, set);
    }
    for (const member of write.members) set.add(member, write.mode);
    set.trim(write.keepHighest, write.dropBelow);
    if (write.expireAtMs !== null) set.expireAtMs = write.expireAtMs;
  }

  /**
   * Forgets expired hashes, a bounded slice per commit so no commit pays for all: a cursor walks
   * the map round and round (Map iterators stay valid while entries are added and deleted).
   */
  #sweepExpired(): void {
    const now = this.#nowMs();
    for (let budget = 64; budget > 0; budget--) {
      const next = this.#sweepCursor.next();
      if (next.done === true) {
        this.#sweepCursor = this.#hashes.entries();
        return;
      }
      const [key, hash] = next.value;
      if (hash.expireAtMs <= now) this.#hashes.delete(key);
    }
  }
}
