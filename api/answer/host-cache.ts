/**
 * The (project, host) registry of `usage.api-counts` as an API process sees it: one copy of the
 * registry for every window, kept current by incremental reads, and each pattern's matching
 * hosts kept with it, so a request neither reads nor scans the registry when an earlier request
 * already did. Built for a registry of a million hosts (BENCHMARKS.md, "Host registry").
 *
 * Freshness: at most once per refresh period (1 s) the view reads the entries whose newest
 * request is at most `lateMarginMs` (5 min) older than the newest it holds; every
 * `fullRefreshMs` (60 s), and after {@link HostCache.invalidate}, the whole registry (the
 * longest window, {@link HOST_HORIZON_US}), dropping what aged out. What an ingest of this process
 * registered is added as it is written ({@link HostCache.note}), without a read, once a whole read
 * made a view to add to; noting also drops what aged out, so a process that only ingests keeps
 * no more than the horizon. A host whose newest request
 * reached the registry more than 5 minutes after it happened is therefore counted within a
 * minute rather than a second (docs/API.md).
 *
 * Matching: a pattern's matches are found once by scanning the view, within the matching budget,
 * then kept: every entry the view gains afterwards is added to the kept patterns it matches.
 * Literal patterns (a plain project ref) are found through an index of their text: a new host
 * costs one map lookup per substring of each kept literal length, however many literals are
 * kept. A request gets the kept matches whose newest request is in its window; a pattern that
 * matches more than `maxMatchedHosts` is refused with a 400 that says so.
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
import { HOST_HORIZON_US, type RegisteredHost } from '../../src/rollup/keys.ts';
import { MAX_LISTED_PROJECTS } from '../explorer/projects.ts';
import { HostTextIndex } from './host-text-index.ts';
import { MatchGate, type MatchShare, ShareRefusal } from './match-gate.ts';
import { NewestProjects, type SeenProject } from './newest-projects.ts';

/** Default of {@link HostCacheOptions.maxMatchedHosts}. */
export const DEFAULT_MAX_MATCHED_HOSTS = 1_000;

/** Options of {@link HostCache}. */
export interface HostCacheOptions {
  /** Reads the registry entries whose newest request is at or after `sinceUs`. */
  readonly read: (sinceUs: number) => Promise<readonly RegisteredHost[]>;
  /** The clock, in Unix milliseconds. */
  readonly nowMs: () => number;
  /** How often the view reads what is new, at most, in ms. Default 1000. */
  readonly refreshMs?: number;
  /** How often the view reads the whole registry, in ms. Default 60,000. */
  readonly fullRefreshMs?: number;
  /** How late a request may reach the registry and still be read within `refreshMs`. Default 5 min. */
  readonly lateMarginMs?: number;
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
  /** Most projects {@link HostCache.projects} lists. Default: the explorer's, {@link MAX_LISTED_PROJECTS}. */
  readonly maxListedProjects?: number;
}

/** An entry of the view; its newest request time moves forward as reads bring newer ones. */
interface ViewEntry {
  readonly project: string;
  readonly host: string;
  newestUs: number;
}

/** A pattern whose matches are kept; `scanned` settles when the first scan of the view ended. */
interface Kept {
  readonly pattern: HostPattern;
  readonly matches: Set<ViewEntry>;
  scanned: Promise<void>;
}

interface Refused {
  readonly atMs: number;
  readonly refusal: ParamRefusal;
}

/** Time other patterns may spend testing the hosts of one refresh before they are dropped, ms. */
const ROUTING_BUDGET_MS = 10;

/** A pattern matching more hosts than this is answered but not kept (its set would be large). */
const MAX_KEPT_MATCHES = 100_000;

/**
 * Most distinct lengths among kept literals: a new host is looked up once per substring of each
 * length, so a caller asking literals of every length from 1 to 256 would make each new host cost
 * 1,024 × 256 lookups. A literal of another length is answered from the index but not kept.
 */
const MAX_LITERAL_LENGTHS = 8;

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
  readonly #read: HostCacheOptions['read'];
  readonly #nowMs: () => number;
  readonly #refreshMs: number;
  readonly #fullRefreshMs: number;
  readonly #lateMarginUs: number;
  readonly #maxPatterns: number;
  readonly #maxRegexPatterns: number;
  readonly #maxMatchedHosts: number;
  readonly #matchBudgetMs: number;
  readonly #matchClockMs: () => number;
  readonly #refusalMs: number;
  readonly #gate: MatchGate;
  /** The view: entries by project, then host. */
  readonly #byProject = new Map<string, Map<string, ViewEntry>>();
  /** The newest request time the view holds (µs). */
  #newestUs = Number.NEGATIVE_INFINITY;
  #readAtMs = Number.NEGATIVE_INFINITY;
  #fullReadAtMs = Number.NEGATIVE_INFINITY;
  #prunedAtMs = Number.NEGATIVE_INFINITY;
  #fullDue = true;
  #reading: Promise<void> | null = null;
  /** Every entry of the last whole read, for literal search; entries read since are unindexed. */
  #index: HostTextIndex<ViewEntry> = new HostTextIndex([]);
  #unindexed: ViewEntry[] = [];
  /** Kept literal patterns by their text, least recently used first. */
  readonly #literals = new Map<string, Kept>();
  /** How many kept literals have each length: the substring lengths a new host is looked up by. */
  readonly #literalLengths = new Map<number, number>();
  /** Kept other patterns by source, least recently used first. */
  readonly #regexes = new Map<string, Kept>();
  /** Patterns refused for their budget, by source; oldest first. */
  readonly #refused = new Map<string, Refused>();
  /** The projects of the view with the newest requests, in order. */
  readonly #newest: NewestProjects;

  constructor(options: HostCacheOptions) {
    this.#read = options.read;
    this.#nowMs = options.nowMs;
    this.#refreshMs = options.refreshMs ?? 1000;
    this.#fullRefreshMs = options.fullRefreshMs ?? 60_000;
    this.#lateMarginUs = (options.lateMarginMs ?? 300_000) * 1000;
    this.#maxPatterns = options.maxPatterns ?? 10_000;
    this.#maxRegexPatterns = options.maxRegexPatterns ?? 100;
    this.#maxMatchedHosts = options.maxMatchedHosts ?? DEFAULT_MAX_MATCHED_HOSTS;
    this.#matchBudgetMs = options.matchBudgetMs ?? DEFAULT_MATCH_BUDGET_MS;
    this.#matchClockMs = options.matchClockMs ?? (() => performance.now());
    this.#refusalMs = options.refusalMs ?? 60_000;
    // Waiting up to one budget for the turn, then matching for up to one, stays within the
    // API's 5 s deadline of an answer.
    this.#gate = options.gate ??
      new MatchGate({ maxWaitMs: this.#matchBudgetMs, clockMs: this.#matchClockMs });
    this.#newest = new NewestProjects(options.maxListedProjects ?? MAX_LISTED_PROJECTS);
  }

  /** Entries in the view. */
  get size(): number {
    let size = 0;
    for (const hosts of this.#byProject.values()) size += hosts.size;
    return size;
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
      await this.#refresh();
      const refused = this.#refused.get(pattern.source);
      if (refused !== undefined && this.#nowMs() - refused.atMs < this.#refusalMs) {
        throw refused.refusal;
      }
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
    await this.#refresh();
    return this.#newest.list(limit);
  }

  /**
   * Adds hosts this process has just registered (a direct ingest) to the view, without reading
   * the registry: they are exactly what the ingest wrote.
   */
  note(registered: readonly RegisteredHost[]): void {
    // Before the first whole read there is no view to keep current (that read brings these
    // hosts), and a process that only ingests would otherwise keep every host it ever saw.
    if (this.#fullReadAtMs === Number.NEGATIVE_INFINITY) return;
    for (const entry of this.#apply(registered)) this.#unindexed.push(entry);
    // Nothing may read this process's view for hours: it drops what aged out as a whole
    // read would, at most once per full refresh period.
    const nowMs = this.#nowMs();
    if (nowMs - this.#prunedAtMs >= this.#fullRefreshMs) this.#compact(nowMs);
  }

  /**
   * Reads the whole registry again with the next request: this process wrote to it and does not
   * know what (an ingest that failed part way).
   */
  invalidate(): void {
    this.#fullDue = true;
    this.#readAtMs = Number.NEGATIVE_INFINITY;
  }

  /** Brings the view up to date, at most once per refresh period, one read at a time. */
  #refresh(): Promise<void> {
    if (this.#reading !== null) return this.#reading;
    const nowMs = this.#nowMs();
    if (nowMs - this.#readAtMs < this.#refreshMs) return Promise.resolve();
    const full = this.#fullDue || nowMs - this.#fullReadAtMs >= this.#fullRefreshMs;
    const horizonUs = nowMs * 1000 - HOST_HORIZON_US;
    const sinceUs = full ? horizonUs : this.#newestUs - this.#lateMarginUs;
    this.#fullDue = false;
    const reading = this.#read(sinceUs).then((entries) => {
      const added = this.#apply(entries);
      if (full) {
        this.#compact(nowMs);
        this.#fullReadAtMs = nowMs;
      } else {
        for (const entry of added) this.#unindexed.push(entry);
      }
      this.#readAtMs = nowMs;
    }, (error: unknown) => {
      if (full) this.#fullDue = true;
      throw error;
    });
    this.#reading = reading.finally(() => {
      this.#reading = null;
    });
    return this.#reading;
  }

  /** Adds what is new to the view and the kept patterns; answers the entries it added. */
  #apply(entries: readonly RegisteredHost[]): ViewEntry[] {
    const added: ViewEntry[] = [];
    for (const { project, host, newestUs } of entries) {
      let hosts = this.#byProject.get(project);
      if (hosts === undefined) {
        hosts = new Map();
        this.#byProject.set(project, hosts);
      }
      const known = hosts.get(host);
      if (known === undefined) {
        const entry: ViewEntry = { project, host, newestUs };
        hosts.set(host, entry);
        added.push(entry);
      } else if (newestUs > known.newestUs) {
        known.newestUs = newestUs;
      }
      if (newestUs > this.#newestUs) this.#newestUs = newestUs;
      this.#newest.see(project, newestUs);
    }
    this.#route(added);
    return added;
  }

  #allEntries(): ViewEntry[] {
    const entries: ViewEntry[] = [];
    for (const hosts of this.#byProject.values()) {
      for (const entry of hosts.values()) entries.push(entry);
    }
    return entries;
  }

  /** Adds new entries to the kept patterns they match. */
  #route(added: readonly ViewEntry[]): void {
    if (added.length === 0) return;
    for (const entry of added) {
      for (const length of this.#literalLengths.keys()) {
        for (let at = 0; at + length <= entry.host.length; at++) {
          this.#literals.get(entry.host.slice(at, at + length))?.matches.add(entry);
        }
      }
    }
    // Other patterns test each new host; past a small budget the rest are dropped (and scanned
    // again, within the matching budget, when next asked), so no refresh stalls the process.
    const started = this.#matchClockMs();
    for (const [source, kept] of this.#regexes) {
      if (this.#matchClockMs() - started > ROUTING_BUDGET_MS) {
        this.#regexes.delete(source);
        continue;
      }
      for (const entry of added) if (kept.pattern.test(entry.host)) kept.matches.add(entry);
    }
  }

  /** Drops what aged out of the longest window and indexes every entry left. */
  #compact(nowMs: number): void {
    this.#prune(nowMs * 1000 - HOST_HORIZON_US);
    this.#index = new HostTextIndex(this.#allEntries());
    this.#unindexed = [];
    this.#prunedAtMs = nowMs;
  }

  /** Drops entries whose newest request is before `horizonUs`, from the view and the kept matches. */
  #prune(horizonUs: number): void {
    let pruned = false;
    for (const [project, hosts] of this.#byProject) {
      for (const [host, entry] of hosts) {
        if (entry.newestUs >= horizonUs) continue;
        hosts.delete(host);
        pruned = true;
      }
      if (hosts.size === 0) this.#byProject.delete(project);
    }
    this.#newest.dropBefore(horizonUs);
    if (!pruned) return;
    for (const kept of [...this.#literals.values(), ...this.#regexes.values()]) {
      for (const entry of kept.matches) if (entry.newestUs < horizonUs) kept.matches.delete(entry);
    }
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
    const table = literal === undefined ? this.#regexes : this.#literals;
    const name = literal ?? pattern.source;
    const known = table.get(name);
    if (known !== undefined) {
      // Least recently used last.
      table.delete(name);
      table.set(name, known);
      return known;
    }
    const kept: Kept = {
      pattern,
      matches: new Set(),
      scanned: Promise.resolve(),
    };
    // Kept before the scan: entries the view gains meanwhile are routed to it.
    const keepable = literal === undefined || this.#literalLengths.has(literal.length) ||
      this.#literalLengths.size < MAX_LITERAL_LENGTHS;
    if (keepable) this.#add(table, name, kept);
    const source = pattern.source;
    kept.scanned = this.#scan(kept, literal, share).then(() => {
      if (kept.matches.size > MAX_KEPT_MATCHES) this.#drop(table, name, kept);
    }, (error: unknown) => {
      this.#drop(table, name, kept);
      if (error instanceof ParamRefusal) this.#refuse(source, error);
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
      const found = this.#index.find(
        literal,
        () => this.#matchClockMs() - started > this.#matchBudgetMs,
      );
      if (found === null) throw new ParamRefusal(overBudget(this.size, this.#matchBudgetMs));
      for (const entry of found) kept.matches.add(entry);
      const recent = await matchHosts(this.#unindexed, kept.pattern, budget);
      for (const entry of recent) kept.matches.add(entry);
      return;
    }
    const entries = this.#allEntries();
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

  #add(table: Map<string, Kept>, name: string, kept: Kept): void {
    const limit = table === this.#literals ? this.#maxPatterns : this.#maxRegexPatterns;
    while (table.size >= limit) {
      const oldest = table.entries().next();
      if (oldest.done === true) break;
      this.#drop(table, oldest.value[0], oldest.value[1]);
    }
    table.set(name, kept);
    if (table === this.#literals) {
      this.#literalLengths.set(name.length, (this.#literalLengths.get(name.length) ?? 0) + 1);
    }
  }

  #drop(table: Map<string, Kept>, name: string, kept: Kept): void {
    if (table.get(name) !== kept) return;
    table.delete(name);
    if (table !== this.#literals) return;
    const left = (this.#literalLengths.get(name.length) ?? 1) - 1;
    if (left === 0) this.#literalLengths.delete(name.length);
    else this.#literalLengths.set(name.length, left);
  }

  #refuse(source: string, refusal: ParamRefusal): void {
    this.#refused.delete(source);
    if (this.#refused.size >= this.#maxPatterns) {
      const oldest = this.#refused.keys().next();
      if (oldest.done !== true) this.#refused.delete(oldest.value);
    }
    this.#refused.set(source, { atMs: this.#nowMs(), refusal });
  }
}
