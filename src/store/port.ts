/**
 * The store port: everything the rollups need from a store, in terms any key-value store with
 * hashes, sorted sets and atomic writes within one key group can provide. Adapters:
 * {@link ./redis.ts} (TCP, one Redis or a Redis Cluster), {@link ./upstash.ts} (REST) and
 * {@link ./memory.ts} (the embedded default). Key names are the rollup layer's business
 * (`src/rollup/keys.ts`); a store only keeps what it is given.
 *
 * Write model: a bucket is a hash with one field per writing stream (a Kafka partition, or one
 * API process's ingest), or a slot of a hash that keeps several buckets (see {@link PartRef}).
 * Each stream has one owner at a time, which writes only its own field, and readers merge the
 * fields: any number of writers share a bucket without losing an update, as the parts of a
 * state-based counter (a G-Counter) do. Every write of one project's rollups
 * is one atomic step within the project's key group (its Redis Cluster hash slot), fenced by the
 * project's watermark of the stream: the next offset the project holds from it. Sorted-set
 * writes that are idempotent (the host registry, and a replayed stream's ring-buffer entries,
 * whose members name their stream and offset) may go outside it, through `updateSortedSet`.
 *
 * @module
 */

/**
 * Where one part lives: the hash `key`, and in it the part of `slot` (absent: the bucket's own
 * part). A hash may keep several buckets, one per slot, each with one part per writing stream,
 * so that a reader of many small buckets reads few keys.
 */
export interface PartRef {
  readonly key: string;
  readonly slot?: string;
}

/** One aggregate state: a writer's part of a bucket (or of a slot of it), or a whole value. */
export interface StateWrite extends PartRef {
  /**
   * The text `serialize` wrote, or bytes as a store gave them back (a part moved aside as it was
   * read), which a store that keeps bytes keeps as they are.
   */
  readonly value: string | Uint8Array;
  /**
   * Unix milliseconds at which the store may forget the key: a function of the key alone (its
   * bucket and grain; every slot of a hash has the same), so a store may set it with the key's
   * first write and keep it.
   */
  readonly expireAtMs: number;
}

/** One member of a sorted set with its score (an integer below 2^53, e.g. microseconds). */
export interface ScoredMember {
  readonly score: number;
  readonly member: string;
}

/**
 * A member as written: its text, or its UTF-8 bytes when they are at hand (a ring-buffer entry
 * built from the Kafka message's own bytes goes to Redis as they are, never decoded and encoded
 * again). Read back, it is text as any member.
 */
export interface WrittenMember {
  readonly score: number;
  readonly member: string | Uint8Array;
}

/** Additions to one sorted set, with the bounds that keep it from growing without limit. */
export interface SortedSetWrite {
  readonly key: string;
  readonly members: readonly WrittenMember[];
  /** `add`: insert or overwrite the score; `max`: keep the greater of the old and new score. */
  readonly mode: 'add' | 'max';
  /** After adding, keep only this many members with the highest scores (null: no limit). */
  readonly keepHighest: number | null;
  /** After adding, drop members whose score is below this (null: keep all). */
  readonly dropBelow: number | null;
  /** Unix milliseconds at which the store may forget the whole set (null: never). */
  readonly expireAtMs: number | null;
}

/**
 * One project's share of a flush, applied atomically, and only when the project's stored
 * watermark of `stream` equals `watermark.expected` (null: none stored). Every key is in the
 * project's key group.
 */
export interface ProjectCommit {
  readonly stream: string;
  readonly watermark: {
    /** The project's hash of watermarks (stream -> next offset). */
    readonly key: string;
    readonly expected: number | null;
    readonly next: number;
    /** Unix milliseconds at which the store may forget the whole hash. */
    readonly expireAtMs: number;
    /**
     * The stream's reach in the project with `next` (absent: not known): the newest event time
     * (µs) of every event the stream has folded into the project's buckets, so a bucket that
     * starts after it is expected to hold no part of the stream (a commit checks that, see
     * {@link ProjectCommit.newParts}). Stored beside the watermark and read back by
     * {@link RollupStore.readReaches} with the watermark it was stored with.
     */
    readonly reachUs?: number;
  };
  /** This stream's part of each bucket (or slot of one), written as a field of its hash `key`. */
  readonly parts: readonly StateWrite[];
  /**
   * Parts the writer takes for new without having read them (their buckets start after the
   * stream's reach): written as {@link parts} are, but only where the hash holds no part of the
   * stream in that slot. Where one does, the commit writes nothing but a mark that the stream's
   * reach in the project is forgotten (a writer that loads it reads every part, also once the
   * watermark is gone), and the result names the key.
   */
  readonly newParts?: readonly StateWrite[];
  readonly sortedSets: readonly SortedSetWrite[];
  /**
   * The stream's resume offset as the writer knows it (absent for a stream without one). A store
   * whose keys all live in one place (one Redis, Upstash, memory) applies the commit only while
   * the offset under `key` is `expected`: a store that lost its data since the writer read it
   * then refuses even a project whose watermark it never held. A Redis Cluster keeps the key on
   * another node and cannot check it in the same step; the writer reads it before its commits.
   */
  readonly resume?: { readonly key: string; readonly expected: number | null };
  /**
   * The project's change channel (src/store/changes.ts), signalled once the commit is applied;
   * absent: none is signalled. A signal that cannot be sent never fails the commit.
   */
  readonly changes?: string;
}

/**
 * What a {@link ProjectCommit} did, by its `outcome`: `applied`; `watermark-moved`, refused with
 * the watermark the store holds (`stored`, null: none); `resume-moved`, refused with the resume
 * offset the store holds (`resumeStored`, null: none); or `part-found`, refused because the hash
 * `partFound` holds a part of the stream that the commit took for new.
 */
export type CommitResult =
  | { readonly outcome: 'applied' }
  | { readonly outcome: 'watermark-moved'; readonly stored: number | null }
  | { readonly outcome: 'resume-moved'; readonly resumeStored: number | null }
  | { readonly outcome: 'part-found'; readonly partFound: string };

/**
 * A reach stored with a watermark (see `ProjectCommit.watermark.reachUs`), or the mark a commit
 * left where it found a part beyond the reach (`ProjectCommit.newParts`): no reach holds for the
 * stream in the project any more, even once its watermark is gone.
 */
export type StoredReach =
  | {
    /** The watermark the reach was stored with: it holds only while the watermark is this. */
    readonly offset: number;
    readonly reachUs: number;
  }
  | { readonly forgotten: true };

/** A hash to read with {@link RollupStore.readSlots}. */
export interface HashRead {
  readonly key: string;
  /**
   * Read only the first this many bytes (a non-negative integer) of each part; a head cut inside
   * a character of a part that is not 7-bit may end otherwise over the REST API (its JSON gives
   * text: U+FFFD). Absent: whole parts.
   */
  readonly headBytes?: number;
}

/** One writer's part of a hash read by {@link RollupStore.readSlots}. */
export interface SlottedPart {
  /** Its slot; null for the bucket's own part. */
  readonly slot: string | null;
  /** Its bytes, as stored. */
  readonly part: Uint8Array;
}

/** A score range of a sorted set, read newest (highest score) first. */
export interface ScoreRange {
  /** Highest score included. */
  readonly max: number;
  /** Scores must be strictly greater than this. */
  readonly minExclusive: number;
  readonly limit: number;
}

/** What the rollups read and write. Every method rejects with an Error when the store fails. */
export interface RollupStore {
  /** Applies `commit` atomically if the project's watermark is the expected one. */
  commitProject(commit: ProjectCommit): Promise<CommitResult>;
  /** The watermark of `stream` in each watermark hash of `keys` (null: none), in order. */
  readWatermarks(keys: readonly string[], stream: string): Promise<(number | null)[]>;
  /**
   * The reach stored with the watermark of `stream` in each watermark hash of `keys` (null:
   * none), in order; a reach holds only where the watermark is still its `offset`.
   */
  readReaches(keys: readonly string[], stream: string): Promise<(StoredReach | null)[]>;
  /** `stream`'s own part of each of `parts` (null: none), in order, as stored bytes. */
  readParts(parts: readonly PartRef[], stream: string): Promise<(Uint8Array | null)[]>;
  /** Every writer's part of each bucket of `keys` (empty: none or expired), in order, as bytes. */
  readBuckets(keys: readonly string[]): Promise<Uint8Array[][]>;
  /**
   * Every writer's part of every slot of each hash of `reads` (empty: none or expired), with its
   * slot (null: the bucket's own part), in order; of a read with `headBytes`, only the first that
   * many bytes of each part.
   */
  readSlots(reads: readonly HashRead[]): Promise<SlottedPart[][]>;
  /** A stream's stored resume offset under `key`, or null when none is stored. */
  readOffset(key: string): Promise<number | null>;
  /**
   * Sets the offset under `key` to `next` if it holds `expected` (null: none). Resolves true
   * when set, false when the stored offset differed and nothing was written.
   */
  advanceOffset(key: string, expected: number | null, next: number): Promise<boolean>;
  /** Applies one sorted-set write on its own (idempotent writes outside a project commit). */
  updateSortedSet(write: SortedSetWrite): Promise<void>;
  /**
   * Members of a sorted set within a score range, highest score first, as their UTF-8 bytes: a
   * reader that sends them on (the entries of `logs.all`) copies them without decoding them.
   */
  rangeByScore(key: string, range: ScoreRange): Promise<Uint8Array[]>;
  /** All members of a sorted set with a score at least `minScore`, with their scores. */
  membersSince(key: string, minScore: number): Promise<ScoredMember[]>;
  /** Resolves when the store answers. */
  ping(): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}
