/**
 * The (project, host) registry of `usage.api-counts` as an API process sees it, with each
 * pattern's matching hosts kept beside it, so a request neither reads nor scans the registry
 * when an earlier request already did. It composes four caches, each in `hosts/`:
 *
 * - the view of the registry, read incrementally and kept within the longest window
 *   (`registry-view.ts`, which says how fresh it is);
 * - the kept literal patterns (a plain project ref), found through an index of the view's text
 *   and routed new hosts by substring (`kept-literals.ts`);
 * - the kept other patterns, routed new hosts by testing each (`kept-regexes.ts`);
 * - the patterns refused for their matching budget, refused again at once for a while
 *   (`refused-patterns.ts`).
 *
 * Matching: a pattern's matches are found once by scanning the view, within the matching budget,
 * then kept: every entry the view gains afterwards is added to the kept patterns it matches. A
 * request gets the kept matches whose newest request is in its window; a pattern that matches
 * more than `maxMatchedHosts` is refused with a 400 that says so.
 *
 * @module
 */
import type { HostPattern } from '../../src/contract/params/api-counts.ts';
import { type ParamError, ParamRefusal } from '../../src/contract/params/common.ts';
import {
  DEFAULT_MATCH_BUDGET_MS,
  type HostSource,
  matchHosts,
  overBudget,
} from '../../src/endpoints/read/hosts.ts';
import type { RegisteredHost } from '../../src/rollup/keys.ts';
import { HostTextIndex } from './host-text-index.ts';
import { KeptLiterals } from './hosts/kept-literals.ts';
import type { Kept, KeptPatterns } from './hosts/kept-patterns.ts';
import { KeptRegexes } from './hosts/kept-regexes.ts';
import { RefusedPatterns } from './hosts/refused-patterns.ts';
import { RegistryView, type RegistryViewOptions, type ViewEntry } from './hosts/registry-view.ts';
import { MatchGate, type MatchShare, ShareRefusal } from './match-gate.ts';
import type { SeenProject } from './newest-projects.ts';

/** Default of {@link HostCacheOptions.maxMatchedHosts}. */
export const DEFAULT_MAX_MATCHED_HOSTS = 1_000;

/** Options of {@link HostCache}: those of its view of the registry, and of matching. */
export interface HostCacheOptions extends Omit<RegistryViewOptions, 'onAdded' | 'onPruned'> {
  /** Most literal patterns whose matches are kept. Default 10,000. */
  readonly maxPatterns?: number;
  /** Most other patterns whose matches are kept (each tests every new host). Default 100. */
  readonly maxRegexPatterns?: number;
  /** Most hosts one request's pattern may match. Default {@link DEFAULT_MAX_MATCHED_HOSTS}. */
  readonly maxMatchedHosts?: number;
  /** Matching time one pattern may use per scan, in ms. Default 1000. */
  readonly matchBudgetMs?: number;
  /** The clock of the matching budget, in ms (default `performance.now`). */
  readonly matchClockMs?: () => number;
  /**
   * How long a pattern refused for its budget stays refused without being matched again, in ms
   * (the registry changes little in a minute). Default 60,000.
   */
  readonly refusalMs?: number;
  /** Lets one costly pattern at a time match. Default: one gate of this cache, waits up to the budget. */
  readonly gate?: MatchGate;
}

/** A pattern matching more hosts than this is answered but not kept (its set would be large). */
const MAX_KEPT_MATCHES = 100_000;

function tooManyHosts(matched: number, limit: number): ParamError {
  return {
    code: 'invalid_parameter',
    parameter: 'project',
    message: `invalid parameter "project": this pattern matches ${matched} request hosts in the ` +
      `window, more than the ${limit} one request may sum; use a more specific pattern (a project ` +
      'ref, e.g. project=abcdefghijklmnopqrst)',
  };
}

/**
 * A view of the registry of request hosts, with the matches of recent patterns.
 *
 * @example
 * ```ts
 * const hosts = new HostCache({ read: (since) => readRegistry(store, since), nowMs: Date.now });
 * await readApiCounts({ ...context, matchHosts: (p, since) => hosts.matching(p)(context, since) }, params);
 * ```
 */
export class HostCache {
  readonly #maxMatchedHosts: number;
  readonly #matchBudgetMs: number;
  readonly #matchClockMs: () => number;
  readonly #gate: MatchGate;
  readonly #view: RegistryView;
  readonly #literals: KeptLiterals;
  readonly #regexes: KeptRegexes;
  readonly #refused: RefusedPatterns;

  constructor(options: HostCacheOptions) {
    const maxPatterns = options.maxPatterns ?? 10_000;
    this.#maxMatchedHosts = options.maxMatchedHosts ?? DEFAULT_MAX_MATCHED_HOSTS;
    this.#matchBudgetMs = options.matchBudgetMs ?? DEFAULT_MATCH_BUDGET_MS;
    this.#matchClockMs = options.matchClockMs ?? (() => performance.now());
    // Waiting up to one budget for the turn, then matching for up to one, stays within the
    // API's 5 s deadline of an answer.
    this.#gate = options.gate ??
      new MatchGate({ maxWaitMs: this.#matchBudgetMs, clockMs: this.#matchClockMs });
    this.#literals = new KeptLiterals(maxPatterns);
    this.#regexes = new KeptRegexes(options.maxRegexPatterns ?? 100, this.#matchClockMs);
    this.#refused = new RefusedPatterns({
      capacity: maxPatterns,
      refusalMs: options.refusalMs ?? 60_000,
      nowMs: options.nowMs,
    });
    this.#view = new RegistryView({
      ...options,
      onAdded: (added) => {
        this.#literals.route(added);
        this.#regexes.route(added);
      },
      onPruned: (horizonUs) => {
        this.#literals.prune(horizonUs);
        this.#regexes.prune(horizonUs);
      },
    });
  }

  /** Entries in the view. */
  get size(): number {
    return this.#view.size;
  }

  /**
   * A host source that yields the entries whose host `pattern` matches and whose newest request
   * is at or after the window start. A pattern over the matching budget is refused
   * ({@link ParamRefusal}), and refused at once for `refusalMs`; one that waits too long for the
   * gate is refused with 503 (an `HttpError`), not remembered; one that matches more than
   * `maxMatchedHosts` in the window is refused with 400. Costly matching is charged to `share`
   * (the caller's), and refused with its 429 once it is used up (see `match-gate.ts`).
   */
  matching(pattern: HostPattern, share?: MatchShare): HostSource {
    return async (_context, sinceUs) => {
      await this.#view.refresh();
      const refusal = this.#refused.refusal(pattern.source);
      if (refusal !== null) throw refusal;
      const kept = await this.#scanned(pattern, share);
      const matched: ViewEntry[] = [];
      for (const entry of kept.matches) if (entry.newestUs >= sinceUs) matched.push(entry);
      if (matched.length > this.#maxMatchedHosts) {
        throw new ParamRefusal(tooManyHosts(matched.length, this.#maxMatchedHosts));
      }
      return matched;
    };
  }

  /**
   * The projects in the view with the time of each one's newest request, newest first, at most
   * `limit` and `maxListedProjects` (the explorer's suggestions).
   */
  async projects(limit: number): Promise<SeenProject[]> {
    await this.#view.refresh();
    return this.#view.projects(limit);
  }

  /**
   * Adds hosts this process has just registered (a direct ingest) to the view, without reading
   * the registry: they are exactly what the ingest wrote.
   */
  note(registered: readonly RegisteredHost[]): void {
    this.#view.note(registered);
  }

  /** Reads the newest registry entries with the next request (see `RegistryView.expire`). */
  expire(): void {
    this.#view.expire();
  }

  /**
   * Reads the whole registry again with the next request: this process wrote to it and does not
   * know what (an ingest that failed part way).
   */
  invalidate(): void {
    this.#view.invalidate();
  }

  /**
   * The kept matches of `pattern` once scanned. A scan this caller waited on that was refused
   * for another caller's share is not this caller's refusal: it scans again with its own share
   * (or waits on the next caller's scan).
   */
  async #scanned(pattern: HostPattern, share: MatchShare | undefined): Promise<Kept> {
    for (;;) {
      const kept = this.#keep(pattern, share);
      try {
        await kept.scanned;
        return kept;
      } catch (error) {
        if (!ShareRefusal.ofAnother(error, share)) throw error;
      }
    }
  }

  /**
   * The kept matches of `pattern`, scanning the view for them the first time (charged to
   * `share`: a caller asking while the first scan runs waits for it, uncharged).
   */
  #keep(pattern: HostPattern, share: MatchShare | undefined): Kept {
    const literal = pattern.literal;
    const table: KeptPatterns = literal === undefined ? this.#regexes : this.#literals;
    const name = literal ?? pattern.source;
    const known = table.use(name);
    if (known !== undefined) return known;
    const kept: Kept = {
      pattern,
      matches: new Set(),
      scanned: Promise.resolve(),
    };
    // Kept before the scan: entries the view gains meanwhile are routed to it.
    if (table.mayKeep(name)) table.keep(name, kept);
    const source = pattern.source;
    kept.scanned = this.#scan(kept, literal, share).then(() => {
      if (kept.matches.size > MAX_KEPT_MATCHES) table.drop(name, kept);
    }, (error: unknown) => {
      table.drop(name, kept);
      if (error instanceof ParamRefusal) this.#refused.remember(source, error);
      throw error;
    });
    return kept;
  }

  async #scan(
    kept: Kept,
    literal: string | undefined,
    share: MatchShare | undefined,
  ): Promise<void> {
    const budget = { budgetMs: this.#matchBudgetMs, clockMs: this.#matchClockMs };
    if (literal !== undefined && HostTextIndex.searchable(literal)) {
      // The index of the last whole read, then what was read since, host by host.
      const started = this.#matchClockMs();
      const found = this.#view.index.find(
        literal,
        () => this.#matchClockMs() - started > this.#matchBudgetMs,
      );
      if (found === null) throw new ParamRefusal(overBudget(this.size, this.#matchBudgetMs));
      for (const entry of found) kept.matches.add(entry);
      const recent = await matchHosts(this.#view.unindexed, kept.pattern, budget);
      for (const entry of recent) kept.matches.add(entry);
      return;
    }
    const entries = this.#view.entries();
    if (literal !== undefined) {
      // A substring search per host: no engine to share turns for.
      for (const entry of await matchHosts(entries, kept.pattern, budget)) kept.matches.add(entry);
      return;
    }
    const turns = await this.#gate.open(share);
    try {
      const matched = await matchHosts(entries, kept.pattern, {
        ...budget,
        nextTurn: turns.nextTurn,
      });
      for (const entry of matched) kept.matches.add(entry);
    } finally {
      turns.release();
    }
  }
}
