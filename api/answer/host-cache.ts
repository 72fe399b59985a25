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
import { MatchGate } from './match-gate.ts';

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
  /** The clock of the matching budget, in ms (default `performance.now`). */
  readonly matchClockMs?: () => number;
  /**
   * How long a pattern refused for its budget stays refused without being matched again, in ms
   * (a window's registry changes little in a minute). Default 60,000.
   */
  readonly refusalMs?: number;
  /** Lets one costly pattern at a time match. Default: one gate of this cache, waits up to the budget. */
  readonly gate?: MatchGate;
}

interface Snapshot {
  readonly readAtMs: number;
  readonly sinceUs: number;
  readonly entries: Promise<readonly HostEntry[]>;
  readonly matches: Map<string, readonly HostEntry[]>;
}

interface Refused {
  readonly atMs: number;
  readonly refusal: ParamRefusal;
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
  readonly #matchClockMs: (() => number) | undefined;
  readonly #refusalMs: number;
  readonly #gate: MatchGate;
  /** One snapshot per window length (the intervals of `usage.api-counts`), by seconds. */
  #snapshots = new Map<number, Snapshot>();
  /** Patterns refused for their budget, by window length and pattern; oldest first. */
  readonly #refused = new Map<string, Refused>();

  constructor(options: HostCacheOptions) {
    this.#read = options.read;
    this.#nowMs = options.nowMs;
    this.#refreshMs = options.refreshMs ?? 1000;
    this.#maxPatterns = options.maxPatterns ?? 10_000;
    this.#matchBudgetMs = options.matchBudgetMs ?? DEFAULT_MATCH_BUDGET_MS;
    this.#matchClockMs = options.matchClockMs;
    this.#refusalMs = options.refusalMs ?? 60_000;
    // Waiting up to one budget for the turn, then matching for up to one, stays within the
    // API's 5 s deadline of an answer.
    this.#gate = options.gate ?? new MatchGate({ maxWaitMs: this.#matchBudgetMs });
  }

  /**
   * A host source that yields only the entries whose host `pattern` matches (each pattern is
   * tested against each host at most once per snapshot, within the matching budget). A pattern
   * over the budget is refused ({@link ParamRefusal}), and refused at once for `refusalMs`; one
   * that waits too long for the gate is refused with 503 (an `HttpError`), not remembered.
   */
  matching(pattern: HostPattern): HostSource {
    return async (context, sinceUs) => {
      const snapshot = this.#snapshot(context, sinceUs);
      const refusedKey = `${spanOf(context, sinceUs)} ${pattern.source}`;
      const refused = this.#refused.get(refusedKey);
      if (refused !== undefined && this.#nowMs() - refused.atMs < this.#refusalMs) {
        throw refused.refusal;
      }
      const known = snapshot.matches.get(pattern.source);
      if (known !== undefined) return known;
      const entries = await snapshot.entries;
      const turns = this.#gate.open();
      let matched: readonly HostEntry[];
      try {
        matched = await matchHosts(entries, pattern, {
          budgetMs: this.#matchBudgetMs,
          nextTurn: turns.nextTurn,
          ...(this.#matchClockMs === undefined ? {} : { clockMs: this.#matchClockMs }),
        });
      } catch (error) {
        if (error instanceof ParamRefusal) this.#refuse(refusedKey, error);
        throw error;
      } finally {
        turns.release();
      }
      if (snapshot.matches.size < this.#maxPatterns) snapshot.matches.set(pattern.source, matched);
      return matched;
    };
  }

  /** Forgets every snapshot: the next request re-reads the registry. */
  invalidate(): void {
    this.#snapshots = new Map();
  }

  #refuse(key: string, refusal: ParamRefusal): void {
    this.#refused.delete(key);
    if (this.#refused.size >= this.#maxPatterns) {
      const oldest = this.#refused.keys().next();
      if (oldest.done !== true) this.#refused.delete(oldest.value);
    }
    this.#refused.set(key, { atMs: this.#nowMs(), refusal });
  }

  #snapshot(context: ReadContext, sinceUs: number): Snapshot {
    const nowMs = this.#nowMs();
    const span = spanOf(context, sinceUs);
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

/** The window length of a request, in seconds: the key of its registry snapshot. */
function spanOf(context: ReadContext, sinceUs: number): number {
  return Math.round((context.nowUs - sinceUs) / 1_000_000);
}
