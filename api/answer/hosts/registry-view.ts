/**
 * One copy of the (project, host) registry of `usage.api-counts` for every window, kept current
 * by incremental reads. Built for a registry of a million hosts (BENCHMARKS.md, "Host registry").
 *
 * Freshness: at most once per refresh period (1 s) the view reads the entries whose newest
 * request is at most `lateMarginMs` (5 min) older than the newest it holds; every
 * `fullRefreshMs` (60 s), and after {@link RegistryView.invalidate}, the whole registry (the
 * longest window, {@link HOST_HORIZON_US}), dropping what aged out. What an ingest of this process
 * registered is added as it is written ({@link RegistryView.note}), without a read, once a whole
 * read made a view to add to; noting also drops what aged out, so a process that only ingests
 * keeps no more than the horizon. A host whose newest request reached the registry more than
 * 5 minutes after it happened is therefore counted within a minute rather than a second
 * (docs/API.md).
 *
 * The entries of the last whole read are indexed for substring search ({@link HostTextIndex});
 * those gained since are listed apart, unindexed, until the next whole read.
 *
 * @example
 * ```ts
 * const view = new RegistryView({
 *   read: (since) => readRegistry(store, since),
 *   nowMs: Date.now,
 *   onAdded: (added) => console.log(`${added.length} new hosts`),
 *   onPruned: () => undefined,
 * });
 * await view.refresh();
 * view.size; // the (project, host) pairs within the longest window
 * ```
 *
 * @module
 */
import { HOST_HORIZON_US, type RegisteredHost } from '../../../src/rollup/keys.ts';
import { MAX_LISTED_PROJECTS } from '../../explorer/projects.ts';
import { HostTextIndex } from '../host-text-index.ts';
import { NewestProjects, type SeenProject } from '../newest-projects.ts';

/** Default of {@link RegistryViewOptions.refreshMs}: how old the view may be, in ms. */
export const DEFAULT_HOST_REFRESH_MS = 1_000;

/** An entry of the view; its newest request time moves forward as reads bring newer ones. */
export interface ViewEntry {
  readonly project: string;
  readonly host: string;
  newestUs: number;
}

/** Options of {@link RegistryView}. */
export interface RegistryViewOptions {
  /** Reads the registry entries whose newest request is at or after `sinceUs`. */
  readonly read: (sinceUs: number) => Promise<readonly RegisteredHost[]>;
  /** The clock, in Unix milliseconds. */
  readonly nowMs: () => number;
  /** How often the view reads what is new, at most, in ms. Default {@link DEFAULT_HOST_REFRESH_MS}. */
  readonly refreshMs?: number;
  /** How often the view reads the whole registry, in ms. Default 60,000. */
  readonly fullRefreshMs?: number;
  /** How late a request may reach the registry and still be read within `refreshMs`. Default 5 min. */
  readonly lateMarginMs?: number;
  /** Most projects {@link RegistryView.projects} lists. Default: the explorer's, {@link MAX_LISTED_PROJECTS}. */
  readonly maxListedProjects?: number;
  /** Told of the entries the view gained (hosts it did not hold), once they are in it. */
  readonly onAdded: (added: readonly ViewEntry[]) => void;
  /** Told that entries whose newest request is before `horizonUs` left the view. */
  readonly onPruned: (horizonUs: number) => void;
}

/** The registry of request hosts as this process sees it. */
export class RegistryView {
  readonly #options: RegistryViewOptions;
  readonly #refreshMs: number;
  readonly #fullRefreshMs: number;
  readonly #lateMarginUs: number;
  /** Entries by project, then host. */
  readonly #byProject = new Map<string, Map<string, ViewEntry>>();
  /** The newest request time the view holds (µs). */
  #newestUs = Number.NEGATIVE_INFINITY;
  #readAtMs = Number.NEGATIVE_INFINITY;
  #fullReadAtMs = Number.NEGATIVE_INFINITY;
  #prunedAtMs = Number.NEGATIVE_INFINITY;
  #fullDue = true;
  /** Set by {@link expire}: the next refresh reads, whenever the last one was. */
  #expired = false;
  #reading: Promise<void> | null = null;
  #index: HostTextIndex<ViewEntry> = new HostTextIndex([]);
  #unindexed: ViewEntry[] = [];
  /** The projects of the view with the newest requests, in order. */
  readonly #newest: NewestProjects;

  constructor(options: RegistryViewOptions) {
    this.#options = options;
    this.#refreshMs = options.refreshMs ?? DEFAULT_HOST_REFRESH_MS;
    this.#fullRefreshMs = options.fullRefreshMs ?? 60_000;
    this.#lateMarginUs = (options.lateMarginMs ?? 300_000) * 1000;
    this.#newest = new NewestProjects(options.maxListedProjects ?? MAX_LISTED_PROJECTS);
  }

  /** Entries in the view. */
  get size(): number {
    let size = 0;
    for (const hosts of this.#byProject.values()) size += hosts.size;
    return size;
  }

  /** Every entry of the last whole read, for literal search. */
  get index(): HostTextIndex<ViewEntry> {
    return this.#index;
  }

  /** The entries gained since the last whole read (not in {@link RegistryView.index}). */
  get unindexed(): readonly ViewEntry[] {
    return this.#unindexed;
  }

  /** Every entry of the view. */
  entries(): ViewEntry[] {
    const entries: ViewEntry[] = [];
    for (const hosts of this.#byProject.values()) {
      for (const entry of hosts.values()) entries.push(entry);
    }
    return entries;
  }

  /**
   * The projects in the view with the time of each one's newest request, newest first, at most
   * `limit` and `maxListedProjects` (the explorer's suggestions), as of the last refresh.
   */
  projects(limit: number): SeenProject[] {
    return this.#newest.list(limit);
  }

  /**
   * Brings the view up to date, at most once per refresh period (unless {@link expire}d), one
   * read at a time.
   */
  refresh(): Promise<void> {
    if (this.#reading !== null) {
      // A read that started before the expiry may miss what it was for: one more after it.
      return this.#expired ? this.#reading.then(() => this.refresh()) : this.#reading;
    }
    const nowMs = this.#options.nowMs();
    if (!this.#expired && nowMs - this.#readAtMs < this.#refreshMs) return Promise.resolve();
    this.#expired = false;
    const full = this.#fullDue || nowMs - this.#fullReadAtMs >= this.#fullRefreshMs;
    const horizonUs = nowMs * 1000 - HOST_HORIZON_US;
    const sinceUs = full ? horizonUs : this.#newestUs - this.#lateMarginUs;
    this.#fullDue = false;
    const reading = this.#options.read(sinceUs).then((entries) => {
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
    const nowMs = this.#options.nowMs();
    if (nowMs - this.#prunedAtMs >= this.#fullRefreshMs) this.#compact(nowMs);
  }

  /**
   * Reads the newest entries with the next refresh, however recent the last read: another process
   * has just committed, and may have registered hosts (a live answer computed for that commit).
   */
  expire(): void {
    this.#expired = true;
  }

  /**
   * Reads the whole registry again with the next refresh: this process wrote to it and does not
   * know what (an ingest that failed part way).
   */
  invalidate(): void {
    this.#fullDue = true;
    this.#readAtMs = Number.NEGATIVE_INFINITY;
  }

  /** Adds what is new to the view; answers the entries it added (told to `onAdded`). */
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
    if (added.length > 0) this.#options.onAdded(added);
    return added;
  }

  /** Drops what aged out of the longest window and indexes every entry left. */
  #compact(nowMs: number): void {
    this.#prune(nowMs * 1000 - HOST_HORIZON_US);
    this.#index = new HostTextIndex(this.entries());
    this.#unindexed = [];
    this.#prunedAtMs = nowMs;
  }

  /** Drops entries whose newest request is before `horizonUs` (told to `onPruned`). */
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
    if (pruned) this.#options.onPruned(horizonUs);
  }
}
