/**
 * The store port: everything the rollups need from a store, in terms any key-value store with
 * sorted sets and atomic multi-key writes can provide. Adapters: {@link ./redis.ts} (TCP),
 * {@link ./upstash.ts} (REST) and {@link ./memory.ts} (the embedded default). Key names are the
 * rollup layer's business (`src/rollup/keys.ts`); a store only keeps what it is given.
 *
 * @module
 */

/** One serialized aggregate state, replacing what was stored under `key`. */
export interface StateWrite {
  readonly key: string;
  readonly value: string;
  /** Unix milliseconds at which the store may forget the key. */
  readonly expireAtMs: number;
}

/** One member of a sorted set with its score (an integer below 2^53, e.g. microseconds). */
export interface ScoredMember {
  readonly score: number;
  readonly member: string;
}

/** Additions to one sorted set, with the bounds that keep it from growing without limit. */
export interface SortedSetWrite {
  readonly key: string;
  readonly members: readonly ScoredMember[];
  /** `add`: insert or overwrite the score; `max`: keep the greater of the old and new score. */
  readonly mode: 'add' | 'max';
  /** After adding, keep only this many members with the highest scores (null: no limit). */
  readonly keepHighest: number | null;
  /** After adding, drop members whose score is below this (null: keep all). */
  readonly dropBelow: number | null;
}

/**
 * A consumer's progress marker, checked and advanced atomically with the writes it covers:
 * the commit applies only when the stored offset equals `expected` (null: none stored).
 */
export interface OffsetAdvance {
  readonly key: string;
  readonly stream: string;
  readonly expected: number | null;
  readonly next: number;
}

/** Everything one flush writes: applied entirely or not at all. */
export interface Commit {
  readonly offset: OffsetAdvance;
  readonly states: readonly StateWrite[];
  readonly sortedSets: readonly SortedSetWrite[];
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
  /**
   * Applies `commit` atomically if the stored offset of its stream equals `commit.offset.expected`.
   * Resolves true when applied, false when the offset differed and nothing was written.
   */
  commit(commit: Commit): Promise<boolean>;
  /** The stored next offset of `stream` under the offsets key, or null when none is stored. */
  readOffset(key: string, stream: string): Promise<number | null>;
  /** The values under `keys`, null for missing or expired ones, in the same order. */
  getValues(keys: readonly string[]): Promise<(string | null)[]>;
  /** Members of a sorted set within a score range, highest score first. */
  rangeByScore(key: string, range: ScoreRange): Promise<string[]>;
  /** All members of a sorted set with a score at least `minScore`. */
  membersSince(key: string, minScore: number): Promise<string[]>;
  /** Resolves when the store answers. */
  ping(): Promise<void>;
  /** Releases connections. */
  close(): Promise<void>;
}
