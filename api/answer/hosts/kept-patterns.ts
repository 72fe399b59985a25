/**
 * Patterns whose matches are kept, at most `capacity` of them, least recently used first out:
 * a pattern asked again is answered from its kept matches, and every host the registry view
 * gains afterwards is routed to the kept patterns it matches ({@link KeptPatterns.route}), so no
 * request scans the view for a pattern an earlier request already scanned for. How a new host
 * finds its patterns depends on the kind of pattern: `kept-literals.ts` (by substring) and
 * `kept-regexes.ts` (by testing each) say how.
 *
 * @example
 * ```ts
 * const literals: KeptPatterns = new KeptLiterals(10_000);
 * const kept = { pattern, matches: new Set<ViewEntry>(), scanned: Promise.resolve() };
 * literals.keep('abcdefghijklmnopqrst', kept);
 * literals.route(view.entries()); // kept.matches now holds the hosts that contain the ref
 * literals.use('abcdefghijklmnopqrst') === kept; // true, and now the most recently used
 * ```
 *
 * @module
 */
import type { HostPattern } from '../../../src/contract/params/api-counts.ts';
import type { ViewEntry } from './registry-view.ts';

/** A pattern whose matches are kept; `scanned` settles when the first scan of the view ended. */
export interface Kept {
  readonly pattern: HostPattern;
  readonly matches: Set<ViewEntry>;
  scanned: Promise<void>;
}

/** Kept patterns by name, least recently used first; what routes new hosts to them is the kind's. */
export abstract class KeptPatterns {
  readonly #capacity: number;
  /** Least recently used first. */
  readonly #byName = new Map<string, Kept>();

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  /** The pattern kept as `name`, made the most recently used; undefined when none is. */
  use(name: string): Kept | undefined {
    const known = this.#byName.get(name);
    if (known === undefined) return undefined;
    this.#byName.delete(name);
    this.#byName.set(name, known);
    return known;
  }

  /** Whether a pattern named `name` may be kept (it is answered either way). */
  mayKeep(_name: string): boolean {
    return true;
  }

  /** Keeps `kept` as `name`, dropping the least recently used ones beyond the capacity. */
  keep(name: string, kept: Kept): void {
    while (this.#byName.size >= this.#capacity) {
      const oldest = this.#byName.entries().next();
      if (oldest.done === true) break;
      this.drop(oldest.value[0], oldest.value[1]);
    }
    this.#byName.set(name, kept);
    this.kept(name);
  }

  /** Stops keeping `kept` as `name` (nothing if `name` now keeps another). */
  drop(name: string, kept: Kept): void {
    if (this.#byName.get(name) !== kept) return;
    this.#byName.delete(name);
    this.dropped(name);
  }

  /** Drops the kept matches whose newest request is before `horizonUs`. */
  prune(horizonUs: number): void {
    for (const kept of this.#byName.values()) {
      for (const entry of kept.matches) if (entry.newestUs < horizonUs) kept.matches.delete(entry);
    }
  }

  /** Adds entries new to the view to the kept patterns they match. */
  abstract route(added: readonly ViewEntry[]): void;

  /** The kept patterns by name, least recently used first. */
  protected get byName(): ReadonlyMap<string, Kept> {
    return this.#byName;
  }

  /** Told when `name` was kept. */
  protected kept(_name: string): void {}

  /** Told when `name` was dropped. */
  protected dropped(_name: string): void {}
}
