/**
 * The (project, host) registry of `usage.api-counts`, cached in front of the store: re-read at
 * most once per refresh period (one read in flight at a time), and each pattern's matching
 * hosts remembered per snapshot, so a request neither reads nor scans the whole registry when
 * a recent request already did.
 *
 * Correctness: a snapshot read with an earlier `since` holds every host a later request needs
 * (and perhaps a few more, whose buckets in the window are empty and add nothing). A host first
 * seen after the snapshot appears with the next refresh: at most one period late, unless this
 * process wrote it ({@link HostCache.invalidate}).
 *
 * @module
 */
import type { HostPattern } from '../../src/contract/params/api-counts.ts';
import { ParamRefusal } from '../../src/contract/params/common.ts';
import {
  DEFAULT_MATCH_BUDGET_MS,
  type HostEntry,
  type HostSource,
  matchHosts,
} from '../../src/endpoints/read/hosts.ts';
import type { ReadContext } from '../../src/endpoints/read/context.ts';

/** Options of {@link HostCache}. */
export interface HostCacheOptions {
  /** Reads the registry (normally `storeHosts`). */
  readonly read: HostSource;
  /** The clock, in Unix milliseconds. */
  readonly nowMs: () => number;
  /** How old a snapshot may be, in ms. Default 1000. */
  readonly refreshMs?: number;
  /** Most patterns whose matches a snapshot remembers. Default 10,000. */
  readonly maxPatterns?: number;
  /** Matching time one pattern may use per snapshot, in ms. Default 1000. */
  readonly matchBudgetMs?: number;
}

interface Snapshot {
  readonly readAtMs: number;
  readonly sinceUs: number;
  readonly entries: Promise<readonly HostEntry[]>;
  /** Each pattern's matches, or why it was refused (a refusal is not retried per request). */
  readonly matches: Map<string, readonly HostEntry[] | ParamRefusal>;
}

/**
 * A cached registry of request hosts.
 *
 * @example
 * ```ts
 * const hosts = new HostCache({ read: storeHosts, nowMs: Date.now });
 * await readApiCounts(context, params, hosts.matching(params.project));
 * ```
 */
export class HostCache {
  readonly #read: HostSource;
  readonly #nowMs: () => number;
  readonly #refreshMs: number;
  readonly #maxPatterns: number;
  readonly #matchBudgetMs: number;
  /** One snapshot per window length (the intervals of `usage.api-counts`), by seconds. */
  #snapshots = new Map<number, Snapshot>();

  constructor(options: HostCacheOptions) {
    this.#read = options.read;
    this.#nowMs = options.nowMs;
    this.#refreshMs = options.refreshMs ?? 1000;
    this.#maxPatterns = options.maxPatterns ?? 10_000;
    this.#matchBudgetMs = options.matchBudgetMs ?? DEFAULT_MATCH_BUDGET_MS;
  }

  /**
   * A host source that yields only the entries whose host `pattern` matches (each pattern is
   * tested against each host at most once per snapshot, within the matching budget; a pattern
   * over it is refused, and refused at once for the rest of the snapshot).
   */
  matching(pattern: HostPattern): HostSource {
    return async (context, sinceUs) => {
      const snapshot = this.#snapshot(context, sinceUs);
      const known = snapshot.matches.get(pattern.source);
      if (known instanceof ParamRefusal) throw known;
      if (known !== undefined) return known;
      let matched: readonly HostEntry[] | ParamRefusal;
      try {
        matched = await matchHosts(await snapshot.entries, pattern, {
          budgetMs: this.#matchBudgetMs,
        });
      } catch (error) {
        if (!(error instanceof ParamRefusal)) throw error;
        matched = error;
      }
      if (snapshot.matches.size < this.#maxPatterns) snapshot.matches.set(pattern.source, matched);
      if (matched instanceof ParamRefusal) throw matched;
      return matched;
    };
  }

  /** Forgets every snapshot: the next request re-reads the registry. */
  invalidate(): void {
    this.#snapshots = new Map();
  }

  #snapshot(context: ReadContext, sinceUs: number): Snapshot {
    const nowMs = this.#nowMs();
    const span = Math.round((context.nowUs - sinceUs) / 1_000_000);
    const current = this.#snapshots.get(span);
    if (
      current !== undefined && current.sinceUs <= sinceUs &&
      nowMs - current.readAtMs < this.#refreshMs
    ) {
      return current;
    }
    const entries = this.#read(context, sinceUs);
    const snapshot: Snapshot = { readAtMs: nowMs, sinceUs, entries, matches: new Map() };
    this.#snapshots.set(span, snapshot);
    // A failed read must not be served to the next request: drop it, the caller gets the error.
    entries.catch(() => {
      if (this.#snapshots.get(span) === snapshot) this.#snapshots.delete(span);
    });
    return snapshot;
  }
}
