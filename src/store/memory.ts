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
import { LocalChanges } from './changes.ts';
import { memberText } from './member-text.ts';
import { partField, slotOfField } from './part-field.ts';
import { FORGOTTEN_REACH, parseReach, reachField, reachText } from './reach.ts';
import { type MemoryBudget, StoreFullError } from './memory-budget.ts';

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** The clock that decides expiry, in Unix milliseconds. */
  readonly nowMs: () => number;
  /**
   * The memory budget, in bytes of {@link MemoryStore.heldBytes}: past it,
   * {@link MemoryStore.ensureRoom} refuses. Default: none.
   */
  readonly maxBytes?: number;
}

/**
 * What the estimate counts beyond the characters of keys, fields, values and members: the heap
 * V8 gives a hash's or a sorted set's objects, a field's map entry, a member's object, array slot
 * and score entry, and a string's header; characters count one byte each (keys and most text
 * are ASCII). Calibrated on Node 24 against the heap taken after a collection: one event each for
 * 5,000 new projects took 4.9 KB of heap per project, estimated 5.4 KB; 100,000 ring-buffer
 * entries of 500 characters took 720 B each, estimated 760 B.
 */
const SIZES = {
  container: 300,
  field: 128,
  member: 256,
  string: 16,
} as const;

function stringBytes(text: string): number {
  return SIZES.string + text.length;
}

/** A full sweep of expired keys, before a refusal, at most this often (ms of the store's clock). */
const FULL_SWEEP_EVERY_MS = 60_000;

/** Keys of each kind looked at for expiry per commit. */
const SWEEP_SLICE = 64;

const utf8 = new TextEncoder();

/**
 * A part as every store gives it back, its bytes (this store keeps the text written, which the
 * budget counts); of a head, its first `headBytes` bytes, only the characters that hold them
 * encoded (one more, so that no pair of surrogates is cut).
 */
function storedBytes(part: string, headBytes?: number): Uint8Array {
  if (headBytes === undefined) return utf8.encode(part);
  return utf8.encode(part.slice(0, headBytes + 1)).subarray(0, headBytes);
}

function compareMembers(a: ScoredMember, b: ScoredMember): number {
  return a.score - b.score || compareUtf8(a.member, b.member);
}

/** A sorted set kept as an array ascending by (score, member), plus an index of scores. */
class SortedSet {
  readonly items: ScoredMember[] = [];
  readonly scores = new Map<string, number>();
  expireAtMs = Number.POSITIVE_INFINITY;
  /** Estimated heap of the set and its key. */
  bytes: number;

  constructor(key: string) {
    this.bytes = SIZES.container + stringBytes(key);
  }

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
    } else this.bytes += SIZES.member + stringBytes(item.member);
    this.items.splice(this.indexOf(item), 0, item);
    this.scores.set(item.member, item.score);
  }

  /** Bytes the set frees by dropping all its members (it keeps its key). */
  get memberBytes(): number {
    return this.bytes - SIZES.container;
  }

  /** Drops the lowest members until `bytes` are freed or none is left; answers how many. */
  dropLowest(bytes: number): number {
    let drop = 0;
    for (let freed = 0; freed < bytes && drop < this.items.length; drop++) {
      freed += SIZES.member + stringBytes((this.items[drop] as ScoredMember).member);
    }
    this.trim(this.items.length - drop, null);
    return drop;
  }

  trim(keepHighest: number | null, dropBelow: number | null): void {
    let drop = 0;
    if (dropBelow !== null) {
      while (drop < this.items.length && (this.items[drop] as ScoredMember).score < dropBelow) {
        drop++;
      }
    }
    if (keepHighest !== null) drop = Math.max(drop, this.items.length - keepHighest);
    for (const removed of this.items.splice(0, drop)) {
      this.scores.delete(removed.member);
      this.bytes -= SIZES.member + stringBytes(removed.member);
    }
  }
}

/** A hash: field values, and when the whole hash expires. */
interface Hash {
  readonly fields: Map<string, string>;
  expireAtMs: number;
  /** Estimated heap of the hash and its key. */
  bytes: number;
}

/**
 * An in-process {@link RollupStore}, with an optional memory budget ({@link MemoryBudget}): it
 * keeps an estimate of the heap it holds; at the budget it drops the oldest members of sorted sets
 * written with `keepHighest` (ring buffers, caches of the newest entries by nature) and refuses
 * room rather than forget anything else before it expires.
 */
export class MemoryStore implements RollupStore, MemoryBudget {
  readonly #nowMs: () => number;
  readonly #maxBytes: number;
  readonly #hashes = new Map<string, Hash>();
  readonly #sets = new Map<string, SortedSet>();
  /** The sets written with `keepHighest` (ring buffers): what the budget may drop from. */
  readonly #bounded = new Map<string, SortedSet>();
  readonly #offsets = new Map<string, number>();
  /** What its commits signal, told in process (src/store/changes.ts). */
  readonly changes = new LocalChanges();
  #hashCursor: MapIterator<[string, Hash]> = this.#hashes.entries();
  #setCursor: MapIterator<[string, SortedSet]> = this.#sets.entries();
  #heldBytes = 0;
  #fullSweepAtMs = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryStoreOptions) {
    const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
    if (!(maxBytes > 0)) {
      throw new RangeError(`'maxBytes' must be a positive number: current value is ${maxBytes}`);
    }
    this.#nowMs = options.nowMs;
    this.#maxBytes = maxBytes;
  }

  /** The estimated heap of everything held, in bytes (expired keys count until forgotten). */
  get heldBytes(): number {
    return this.#heldBytes;
  }

  /**
   * Makes room for `incomingBytes` more within the budget, or throws {@link StoreFullError}.
   * Room is made by forgetting expired keys (a whole sweep, at most once a minute), then by
   * dropping the oldest ring-buffer entries of the project whose ring buffer holds the most:
   * they feed only `logs.all`, which is exact only within a ring buffer's capacity anyway
   * (docs/API.md), whereas a refusal would stop every project's rollups. Room is refused only
   * when what is held beyond ring-buffer entries leaves none; then nothing is dropped. A body
   * asking no room is never refused. Answers how many ring-buffer entries it dropped.
   */
  ensureRoom(incomingBytes: number): number {
    if (incomingBytes <= 0 || this.#fits(incomingBytes)) return 0;
    const nowMs = this.#nowMs();
    if (nowMs - this.#fullSweepAtMs >= FULL_SWEEP_EVERY_MS) {
      this.#fullSweepAtMs = nowMs;
      // From the start of each map: a sweep ends where its cursor reaches the end.
      this.#hashCursor = this.#hashes.entries();
      this.#setCursor = this.#sets.entries();
      this.#sweepExpired(Number.POSITIVE_INFINITY);
      if (this.#fits(incomingBytes)) return 0;
    }
    let droppable = 0;
    for (const set of this.#bounded.values()) droppable += set.memberBytes;
    if (!this.#fits(incomingBytes - droppable)) {
      throw new StoreFullError(this.#heldBytes, this.#maxBytes, incomingBytes);
    }
    return this.#dropRecent(incomingBytes);
  }

  #fits(incomingBytes: number): boolean {
    return this.#heldBytes + incomingBytes <= this.#maxBytes;
  }

  /**
   * Drops the lowest (oldest) members of the largest ring buffer until `incomingBytes` fit, and
   * of the next largest when it is emptied; answers how many it dropped. Each round either makes
   * the room or empties a set, so the rounds are at most the ring buffers.
   */
  #dropRecent(incomingBytes: number): number {
    let dropped = 0;
    while (!this.#fits(incomingBytes)) {
      let largest: SortedSet | undefined;
      for (const set of this.#bounded.values()) {
        if (set.items.length > 0 && (largest === undefined || set.bytes > largest.bytes)) {
          largest = set;
        }
      }
      if (largest === undefined) break;
      const before = largest.bytes;
      dropped += largest.dropLowest(this.#heldBytes + incomingBytes - this.#maxBytes);
      this.#heldBytes -= before - largest.bytes;
    }
    return dropped;
  }

  commitProject(commit: ProjectCommit): Promise<CommitResult> {
    const { stream, watermark, resume } = commit;
    if (resume !== undefined) {
      const resumeStored = this.#offsets.get(resume.key) ?? null;
      if (resumeStored !== resume.expected) {
        return Promise.resolve({ outcome: 'resume-moved', resumeStored });
      }
    }
    const stored = this.#field(watermark.key, stream);
    const storedOffset = stored === null ? null : Number(stored);
    if (storedOffset !== watermark.expected) {
      return Promise.resolve({ outcome: 'watermark-moved', stored: storedOffset });
    }
    const newParts = commit.newParts ?? [];
    const found = newParts.find((part) =>
      this.#field(part.key, partField(stream, part.slot)) !== null
    );
    if (found !== undefined) {
      this.#setField(watermark.key, reachField(stream), FORGOTTEN_REACH, watermark.expireAtMs);
      return Promise.resolve({ outcome: 'part-found', partFound: found.key });
    }
    for (const part of [...newParts, ...commit.parts]) {
      // Text: this store keeps what this process wrote, so its parts are all valid UTF-8.
      const value = memberText(part.value);
      this.#setField(part.key, partField(stream, part.slot), value, part.expireAtMs);
    }
    for (const write of commit.sortedSets) this.#updateSet(write);
    this.#setField(watermark.key, stream, String(watermark.next), watermark.expireAtMs);
    if (watermark.reachUs !== undefined) {
      const text = reachText(watermark.next, watermark.reachUs);
      this.#setField(watermark.key, reachField(stream), text, watermark.expireAtMs);
    }
    this.#sweepExpired(SWEEP_SLICE);
    if (commit.changes !== undefined) this.changes.signal(commit.changes);
    return Promise.resolve({ outcome: 'applied' });
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

  readParts(parts: readonly PartRef[], stream: string): Promise<(Uint8Array | null)[]> {
    return Promise.resolve(parts.map(({ key, slot }) => {
      const part = this.#field(key, partField(stream, slot));
      return part === null ? null : storedBytes(part);
    }));
  }

  readBuckets(keys: readonly string[]): Promise<Uint8Array[][]> {
    return Promise.resolve(keys.map((key) => {
      const hash = this.#liveHash(key);
      return hash === undefined ? [] : [...hash.fields.values()].map((part) => storedBytes(part));
    }));
  }

  readSlots(reads: readonly HashRead[]): Promise<SlottedPart[][]> {
    return Promise.resolve(reads.map(({ key, headBytes }) => {
      const hash = this.#liveHash(key);
      if (hash === undefined) return [];
      return [...hash.fields].map(([field, part]) => ({
        slot: slotOfField(field),
        part: storedBytes(part, headBytes),
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
    this.#forgetHash(key, hash);
    return undefined;
  }

  #liveSet(key: string): SortedSet | undefined {
    const set = this.#sets.get(key);
    if (set === undefined || set.expireAtMs > this.#nowMs()) return set;
    this.#forgetSet(key, set);
    return undefined;
  }

  #forgetHash(key: string, hash: Hash): void {
    this.#hashes.delete(key);
    this.#heldBytes -= hash.bytes;
  }

  #forgetSet(key: string, set: SortedSet): void {
    this.#sets.delete(key);
    this.#bounded.delete(key);
    this.#heldBytes -= set.bytes;
  }

  #field(key: string, field: string): string | null {
    return this.#liveHash(key)?.fields.get(field) ?? null;
  }

  #setField(key: string, field: string, value: string, expireAtMs: number): void {
    let hash = this.#liveHash(key);
    if (hash === undefined) {
      hash = { fields: new Map(), expireAtMs, bytes: SIZES.container + stringBytes(key) };
      this.#hashes.set(key, hash);
      this.#heldBytes += hash.bytes;
    }
    const old = hash.fields.get(field);
    const grown = old === undefined
      ? SIZES.field + stringBytes(field) + stringBytes(value)
      : value.length - old.length;
    hash.fields.set(field, value);
    hash.bytes += grown;
    this.#heldBytes += grown;
    hash.expireAtMs = expireAtMs;
  }

  #updateSet(write: SortedSetWrite): void {
    let set = this.#liveSet(write.key);
    if (set === undefined) {
      set = new SortedSet(write.key);
      this.#sets.set(write.key, set);
      this.#heldBytes += set.bytes;
    }
    if (write.keepHighest !== null) this.#bounded.set(write.key, set);
    const before = set.bytes;
    for (const { score, member } of write.members) {
      set.add({ score, member: memberText(member) }, write.mode);
    }
    set.trim(write.keepHighest, write.dropBelow);
    this.#heldBytes += set.bytes - before;
    if (write.expireAtMs !== null) set.expireAtMs = write.expireAtMs;
  }

  /**
   * Forgets expired hashes and sorted sets, up to `slice` of each per call, so no commit pays for
   * all: a cursor walks each map round and round (Map iterators stay valid while entries are added
   * and deleted). Keys nobody reads again (a project gone quiet) are forgotten this way.
   */
  #sweepExpired(slice: number): void {
    const now = this.#nowMs();
    for (let budget = slice; budget > 0; budget--) {
      const next = this.#hashCursor.next();
      if (next.done === true) {
        this.#hashCursor = this.#hashes.entries();
        break;
      }
      const [key, hash] = next.value;
      if (hash.expireAtMs <= now) this.#forgetHash(key, hash);
    }
    for (let budget = slice; budget > 0; budget--) {
      const next = this.#setCursor.next();
      if (next.done === true) {
        this.#setCursor = this.#sets.entries();
        break;
      }
      const [key, set] = next.value;
      if (set.expireAtMs <= now) this.#forgetSet(key, set);
    }
  }
}
